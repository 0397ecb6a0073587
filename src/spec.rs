//! The execution spec, defined in the runtime crate (`ixgen_runtime::spec`): ixgen writes it and
//! the Rust runtime reads it with one set of types.

pub use ixgen_runtime::spec::*;
