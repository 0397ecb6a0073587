//! ixgen: one YAML catalog of agent tools, generated for every host.
//!
//! The data path has no back-edges: [`catalog`] (load, validate) → [`model`] (the normalized
//! IR, with each tool's [`spec`]) → [`hosts`] (one module per host, each a pure renderer that
//! returns a [`plan`]) → [`output`] (the only code that touches the disk: write, check,
//! prune). [`record`] lets a run that can change nothing skip every stage before [`output`]:
//! it replays the last write's record, checked against the disk. [`escape`] is the only code
//! that quotes. [`cli`] is the only module that knows clap;
//! `tests/layers.rs` checks that modules only use the layers below them.

pub mod alloc;
pub mod app;
pub mod catalog;
pub mod cli;
pub mod diagnostic;
pub mod diff;
pub mod error;
pub mod escape;
pub mod hosts;
pub mod model;
pub mod output;
pub mod par;
pub mod paths;
pub mod plan;
pub mod record;
pub mod report;
pub mod serve;
pub mod spec;
pub mod template;

pub use error::Error;
