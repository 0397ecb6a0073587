//! The one error type of ixgen, and the exit code each error maps to.

use crate::diagnostic::{Diagnostic, SourceFile};

/// Everything that can go wrong: the user's input being wrong (exit 2), or a bug in ixgen
/// ([`EXIT_INTERNAL`]). Drift is not an error but a finding of `check` (data, exit 1).
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
    /// A bug in ixgen: something an earlier stage guarantees did not hold. Never the user's
    /// input being wrong.
    #[error("internal error (a bug in ixgen): {0}")]
    Internal(String),
    /// A file ixgen wrote was edited since: its bytes no longer match the manifest's hash.
    #[error("`{path}` was edited since ixgen wrote it; refusing to {}", if *removing { "remove it (it is no longer generated)" } else { "overwrite it" })]
    Edited { path: String, removing: bool },
    /// The manifest lists a file without anything that proves its bytes are ixgen's (no hash:
    /// a manifest merged by hand), so ixgen cannot tell whether the user wrote them.
    #[error("`{path}` is listed in ixgen's manifest without a hash, so ixgen cannot tell whether it still holds what ixgen wrote; refusing to {}", if *removing { "remove it (it is no longer generated)" } else { "overwrite it" })]
    Unproven { path: String, removing: bool },
    /// A path ixgen would follow is not safe to follow (a symlink, a file where a folder is).
    #[error("refusing to touch `{path}`: {why}")]
    Unsafe { path: String, why: &'static str },
    /// The manifest is not one.
    #[error("`{path}` is not a valid ixgen manifest ({why})")]
    CorruptManifest { path: String, why: String },
    /// Two files the catalog's targets plan have one path, or one's path is the folder of
    /// another (the command line turns it into a diagnostic on the catalog's `targets`:
    /// `crate::app`).
    #[error("{}", collision_message(path, targets, inside.as_deref()))]
    Collision {
        path: String,
        /// The targets that write it (the same one twice when one target writes it twice).
        targets: (&'static str, &'static str),
        /// The file the first target writes inside `path`, when the second writes `path` as a
        /// file and the first needs it as a folder.
        inside: Option<String>,
    },
}

/// What [`Error::Collision`] says.
pub fn collision_message(path: &str, (a, b): &(&str, &str), inside: Option<&str>) -> String {
    match inside {
        Some(f) if a == b => format!("`targets.{a}` writes `{path}` as a file and as the folder of `{f}`"),
        Some(f) => format!("`targets.{b}` writes the file `{path}`, which `targets.{a}` needs as a folder for `{f}`"),
        None if a == b => format!("`targets.{a}` writes `{path}` twice"),
        None => format!("`targets.{a}` and `targets.{b}` both write `{path}`"),
    }
}

/// How to fix an [`Error::Collision`].
pub const COLLISION_HELP: &str = "give one of them another `dir`, `file` or `path` in the catalog's `targets`";

/// The exit code of an internal error: EX_SOFTWARE of sysexits.h, so that CI can tell a bug in
/// ixgen from bad input (2) and from a finding (1).
pub const EXIT_INTERNAL: i32 = 70;

impl Error {
    /// The file the error is about, as it names it.
    pub fn path(&self) -> Option<&str> {
        match self {
            Error::ReadCatalog { path, .. }
            | Error::Io { path, .. }
            | Error::NotOwned { path, .. }
            | Error::Edited { path, .. }
            | Error::Unproven { path, .. }
            | Error::Unsafe { path, .. }
            | Error::CorruptManifest { path, .. } => Some(path),
            Error::Catalog { .. } | Error::Usage { .. } | Error::Internal(_) | Error::Collision { .. } => None,
        }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Internal(_) => EXIT_INTERNAL,
            _ => 2,
        }
    }

    /// How to fix it, when there is one line to say.
    pub fn help(&self) -> Option<String> {
        let fixed = match self {
            Error::ReadCatalog { .. } => {
                "pass an existing file to --catalog, or leave --catalog out to use the embedded ix catalog"
            }
            Error::Usage { help, .. } => return Some(help.clone()),
            Error::Internal(_) => concat!(
                "please report it with the command and catalog that caused it (ixgen ",
                env!("CARGO_PKG_VERSION"),
                ")"
            ),
            Error::Edited { .. } => "move your edit into the catalog (or the file away), or pass --force to discard it",
            Error::Unproven { .. } => {
                "restore `.ixgen/manifest.json` from version control; or look at the file, and pass --force to let ixgen take it over"
            }
            Error::Unsafe { .. } => {
                "ixgen only writes real files and folders below --out; replace the symlink or the file in the way, then run ixgen again"
            }
            Error::Collision { .. } => COLLISION_HELP,
            Error::CorruptManifest { .. } => {
                "restore `.ixgen/manifest.json` from version control; or delete it and run `ixgen generate --force` to take the generated files over again"
            }
            Error::NotOwned { what: None, .. } => "move the file away, or pass --force to let ixgen take it over",
            // Two copies of the same tools would register the same tool ids twice: ixgen writes
            // its file in the same place rather than beside it, and never deletes the other.
            Error::NotOwned { what: Some(_), .. } => {
                "ixgen writes the same tools in its place: move the file away (ixgen never deletes a file it did not write), or pass --force to let ixgen replace it"
            }
            _ => return None,
        };
        Some(fixed.to_string())
    }

    /// An internal error: a bug in ixgen.
    pub fn internal(message: impl Into<String>) -> Self {
        Error::Internal(message.into())
    }

    /// A usage error with a hint.
    pub fn usage(message: impl Into<String>, help: impl Into<String>) -> Self {
        Error::Usage {
            message: message.into(),
            help: help.into(),
        }
    }
}
