//! The catalog stage: read the YAML file, type it, validate it. Nothing here renders or writes.

pub mod load;
pub mod rules;
pub mod types;
pub mod validate;
pub mod values;
pub mod yaml;

pub use load::{Loaded, context_declarations, load, load_text};
pub use types::*;
