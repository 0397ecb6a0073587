//! The one error type of ixgen, and the exit code each error maps to.

use crate::diagnostic::{Diagnostic, SourceFile};

/// Everything that can go wrong: each is the user's input being wrong (exit 2). Drift is not an
/// error but a finding of `check` (data, exit 1).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The catalog does not parse or does not validate.
    #[error("the catalog `{}` is invalid", file.name)]
    Catalog {
        file: SourceFile,
        diagnostics: Vec<Diagnostic>,
    },
    /// The catalog file cannot be read.
    #[error("cannot read the catalog `{path}`: {source}")]
    ReadCatalog { path: String, source: std::io::Error },
    /// A file cannot be read or written.
    #[error("cannot {action} `{path}`: {source}")]
    Io {
        action: &'static str,
        path: String,
        source: std::io::Error,
    },
    /// A command-line value is wrong (a context flag, a filter, a target name).
    #[error("{message}")]
    Usage { message: String, help: String },
    /// A target path holds a file ixgen did not write.
    #[error("`{path}` exists and was not written by ixgen; refusing to overwrite it{}", what.as_ref().map(|w| format!(" (it is probably {w})")).unwrap_or_default())]
    NotOwned { path: String, what: Option<String> },
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        2
    }

    /// How to fix it, when there is one line to say.
    pub fn help(&self) -> Option<String> {
        match self {
            Error::ReadCatalog { .. } => {
                Some("pass an existing file to --catalog, or leave --catalog out to use the embedded ix catalog".into())
            }
            Error::Usage { help, .. } => Some(help.clone()),
            Error::NotOwned { what: None, .. } => {
                Some("move the file away, or pass --force to let ixgen take it over".into())
            }
            // Two copies of the same tools would register the same tool ids twice: ixgen writes
            // its file in the same place rather than beside it, and never deletes the other.
            Error::NotOwned { what: Some(_), .. } => Some(
                "ixgen writes the same tools in its place: move the file away (ixgen never deletes a file it did not write), or pass --force to let ixgen replace it"
                    .into(),
            ),
            _ => None,
        }
    }

    /// A usage error with a hint.
    pub fn usage(message: impl Into<String>, help: impl Into<String>) -> Self {
        Error::Usage {
            message: message.into(),
            help: help.into(),
        }
    }
}
