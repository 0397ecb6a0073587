// {{ header }}
// Do not edit: `ixgen generate` restores it. The tool files ixgen generates import it; OpenCode does not load
// this folder as tools.

// The execution spec's types, generated from its JSON Schema (generated/schema/exec-spec.schema.json).
export const SPEC_VERSION = {{ version }}
{{ types }}
// The CEL evaluator of compute steps, beside this file when the catalog has any (docs/expressions.md).
const __IXGEN_CEL_MODULE = {{ cel_module }}
{{ body }}
