//! The runtime of ixgen's execution spec (`docs/exec-spec.md`): the spec's types, and an
//! interpreter with the semantics of the generated TypeScript runtime (`templates/opencode/runtime.ts`), so
//! that a tool answers the same text in every host. `tests/conformance/` holds both to it.

pub mod spec;
pub mod template;

pub mod js;
mod proc;

pub use proc::Cancel;
pub mod expr;
pub mod redact;
mod run;
mod store;

pub use run::{Answer, Ask, AskFn, Ctx, check_args, run_tool};
