//! ixgen: one YAML catalog of agent tools, generated for every host.
//!
//! The data path has no back-edges: [`catalog`] (load, validate) → [`model`] (the normalized
//! IR) → [`targets`] (pure renderers that return planned files) → [`output`] (the only code
//! that touches the disk: write, check, prune). [`escape`] is the only code that quotes.

pub mod catalog;
pub mod cli;
pub mod diagnostic;
pub mod diff;
pub mod error;
pub mod escape;
pub mod model;
pub mod output;
pub mod par;
pub mod report;
pub mod targets;
pub mod template;

pub use error::Error;
