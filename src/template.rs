//! The placeholder templates, defined in the runtime crate (`ixgen_runtime::template`) so that the
//! runtime reads the specs ixgen writes with the very same types.

pub use ixgen_runtime::template::*;
