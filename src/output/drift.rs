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
                // A unified diff from the disk (`a/`) to the catalog's (`b/`). The disk's side is
                // whatever the tree holds, so control characters in it are escaped: a diff printed
                // to a CI log must not be able to forge a log command or move the cursor.
                _ => {
                    let old = String::from_utf8_lossy(c.old.as_deref().unwrap_or_default());
                    let new = String::from_utf8_lossy(c.new.as_deref().unwrap_or_default());
                    let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
                        .unified_diff()
                        .context_radius(3)
                        .header(&format!("a/{}", c.path), &format!("b/{}", c.path))
                        .to_string();
                    ("stale", Some(escape::terminal_lines(&diff)))
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
