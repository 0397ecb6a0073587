//! The only code that touches the disk: a [`Plan`](crate::plan::Plan) of files → write, check,
//! or dry-run.
//!
//! Hosts render in memory and hand over a plan. Writing compares every planned file with the
//! disk and writes only what differs, each through a temp file in the same folder and a
//! rename, so a reader (OpenCode loading a tool) sees the old file or the new one, never half
//! of one. Ownership is recorded in a manifest (`.ixgen/manifest.json`): ixgen only overwrites
//! or removes files it wrote and that still hold what it wrote, as every entry proves by a hash
//! (a per-run file by its shape), and removes the files a target no longer plans. An entry that
//! proves nothing is touched only with `--force`. `check` runs the same comparison and reports
//! instead of writing.
//!
//! The catalog, the manifest and the tree are attacker-controlled in CI, so:
//! - every path goes through [`RelPath`] (nothing absolute, no `..`), and manifest entries
//!   that fail it are reported and ignored;
//! - no symlink at or below `--out` is ever followed: a generated path with a symlink in it
//!   (the file itself or a folder on the way) is refused, so nothing outside `--out` is read,
//!   written or removed through one;
//! - a run plans and checks every change before the first write, stages every new file as a
//!   temp file, then renames; a failure rolls back what the run changed, and the manifest
//!   accepts both versions of a file while a run is in flight and lists the files it is about
//!   to create, so the next run takes over or removes whatever a killed run left, whatever it
//!   plans, without `--force`;
//! - writers hold an exclusive lock on the output folder, so concurrent runs are serialized.
//!
//! One concern a module: `fs` (reads below `--out`, never through a symlink), `manifest`,
//! `merge` (shared JSONC files), `compare` (plan against disk), `stage` (temp files), `create`
//! (new files, never over anything), `commit` (the write's steps and rollback), `lock` and
//! `drift`. System calls go through rustix, safe; this package must not render anything, nor
//! know a host.

mod commit;
mod compare;
mod create;
mod drift;
mod fs;
mod lock;
mod manifest;
mod merge;
mod stage;
#[cfg(test)]
mod tests;

pub(crate) use commit::{apply_per_run, stale_temps, write_state};
pub use commit::{write, write_with_hook};
pub use compare::compare;
pub use drift::drift;
pub(crate) use fs::OutDir;
pub(crate) use lock::lock_existing;
pub use lock::lock_shared;
pub use manifest::{Manifest, Shape, content_hash};
pub(crate) use manifest::{manifest_path, record_rel};

use crate::error::Error;
use crate::escape;
use crate::paths::RelPath;
use crate::plan::RunTemplate;
use serde::Serialize;
use std::path::Path;

/// What happens to one path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Create,
    Update,
    Unchanged,
    Remove,
}

/// The comparison of a plan with the disk.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Path → action, plus the new bytes for create/update.
    pub changes: Vec<Change>,
    /// Things worth saying that are not failures: ignored manifest entries, stale temp files.
    pub notes: Vec<String>,
    /// The manifest a write leaves on disk (the run record checks against it without reading
    /// it back); None for a compare.
    pub manifest: Option<Manifest>,
    /// The product whose files the folder held, when it was another's: only a forced write
    /// takes them over (`check`'s hint then asks for `--force`).
    pub other_product: Option<String>,
}

/// One path's action.
#[derive(Debug)]
pub struct Change {
    pub path: RelPath,
    pub action: Action,
    /// New bytes (create/update), and the bytes on disk (update/remove).
    pub new: Option<Vec<u8>>,
    pub old: Option<Vec<u8>>,
    /// The hash of what the path holds once the run is done, when the run record can rely on
    /// it: every owned file, and a merged file whose merge gives the same bytes when applied
    /// again. None for removals and per-run files.
    pub hash: Option<String>,
    /// A per-run file's template (see [`RunTemplate`]).
    pub template: Option<RunTemplate>,
    /// Only a forced run may make this change: it replaces or removes an edit (a file, or a key
    /// of a shared file, changed since ixgen wrote it) or a file ixgen does not own. A forced
    /// compare (`check`) says so instead of failing.
    pub forced: bool,
}

impl Change {
    /// A change of `path` with no bytes, hash or template (the caller sets those it has).
    pub(crate) fn new(path: RelPath, action: Action) -> Change {
        Change {
            path,
            action,
            new: None,
            old: None,
            hash: None,
            template: None,
            forced: false,
        }
    }
}

impl Outcome {
    /// Paths that would change.
    pub fn changed(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| c.action != Action::Unchanged)
    }
}

/// Options of a write.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteOptions {
    /// Take over files ixgen did not write, or that were edited since.
    pub force: bool,
    /// Compute, report, write nothing.
    pub dry_run: bool,
}

/// A path as shown in a message: the output folder (escaped: it comes from the command line)
/// joined with a path that is already safe to print.
fn shown(out: &Path, rel: &RelPath) -> String {
    escape::display_path(&out.join(rel.as_str()))
}

fn unsafe_path(out: &Path, rel: &RelPath, why: &'static str) -> Error {
    Error::Unsafe {
        path: shown(out, rel),
        why,
    }
}

pub(crate) fn io_error<E: Into<std::io::Error>>(action: &'static str, path: String) -> impl FnOnce(E) -> Error {
    move |source| Error::Io {
        action,
        path,
        source: source.into(),
    }
}
