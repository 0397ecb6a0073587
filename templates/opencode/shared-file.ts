// {{ header }}
// Do not edit: `ixgen generate` restores it. The settings every tool of the catalog shares, written once: a tool's
// spec leaves out a value equal to one here, and the runtime reads it from here. OpenCode does not load this
// folder as tools.
import type { SpecShared } from {{ runtime_import }}

export const SHARED: SpecShared = {{ shared }}
