//! Drift: what `check` reports, as data (a list of files with unified diffs), never a panic or
//! an error.
//!
//! It must not read the disk: it only describes a comparison's outcome.

use super::{Action, Outcome};
use crate::escape;
use serde::Serialize;

/// A file whose disk content is not what the catalog gives.
#[derive(Debug, Serialize)]
pub struct Drift {
    pub path: String,
    /// `stale` (differs), `missing` (not on disk), `extra` (owned, no longer generated).
    pub kind: &'static str,
    /// Unified diff from the disk to what would be written (stale files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// The drift of an outcome (a `compare` run).
pub fn drift(outcome: &Outcome) -> Vec<Drift> {
    outcome
        .changed()
        .map(|c| {
            let (kind, diff) = match c.action {
                Action::Create => ("missing", None),
                Action::Remove => ("extra", None),
                _ => {
                    let (old, new) = (c.old.as_deref(), c.new.as_deref());
                    let diff = unified_diff(c.path.as_str(), old.unwrap_or_default(), new.unwrap_or_default());
                    ("stale", Some(diff))
                }
            };
            Drift {
                path: c.path.to_string(),
                kind,
                diff,
            }
        })
        .collect()
}

/// A unified diff of two versions of a file, from the disk (`a/`) to the catalog's (`b/`).
/// The disk's side is whatever the tree holds, so control characters in it are escaped: a
/// diff printed to a CI log must not be able to forge a log command or move the cursor.
pub fn unified_diff(path: &str, old: &[u8], new: &[u8]) -> String {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string();
    escape::terminal_lines(&diff)
}
