//! The run record (`.ixgen/run.json`): what the last write produced, so that a run which
//! cannot change anything skips loading, checking and rendering the catalog.
//!
//! A ralph loop runs `ixgen opencode --session … --iteration N` every few seconds with the
//! same catalog and options; only the session file's baked-in values change. The record says:
//! "for this key (ixgen's build, the catalog's bytes and the files it names, the options and
//! which context variables were given), the output is these files with these hashes, and
//! each per-run file is this template". A run whose key matches and which finds every file
//! still holding its recorded hash has nothing to render: it fills the templates with its own
//! values, writes what differs, and is done ([`replay`]). Anything else (a different key, an
//! edited, missing or extra-temp file, a file not yet taken over) makes it take the full path,
//! which then gives the usual answer or error.
//!
//! The record is trusted as a cache, not as a proof: everything it claims about the disk is
//! checked by hash on every replay, and what it claims about the catalog holds because its key
//! covers every input of the rendering. A record could still come with the tree (committed,
//! copied) and be forged together with the manifest and the files it vouches for; so it names
//! the manifest file it was made beside by its device, inode and change time, which a checkout
//! or a copy never reproduces: such a record is ignored, and the full path renders. `check`
//! never replays at all: it is what CI relies on. Context values only ever reach per-run
//! files (tests/record.rs shows that every other file is the same for any values), which is
//! why they are not part of the key.

use crate::error::Error;
use crate::output::{self, Action, Change, Outcome, Shape};
use crate::paths::RelPath;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The record's format; a record of another version is ignored (and replaced).
const VERSION: u32 = 4;

/// The run record.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunRecord {
    version: u32,
    /// What the output depends on besides the files below (see [`key`]).
    key: String,
    /// Files the catalog names (its icon), relative to its folder, with their hashes.
    inputs: Vec<Input>,
    /// Every file the run reported, in its order.
    files: Vec<RecordedFile>,
    /// The manifest's hash once the run was done.
    manifest: String,
    /// The manifest file's identity on this machine once the run was done ([`file_identity`]).
    manifest_file: String,
    /// What the run printed as warnings, which a replay prints again.
    #[serde(default, skip_serializing_if = "Warnings::is_empty")]
    warnings: Warnings,
}

/// The warnings a run printed (the catalog's diagnostics and the notes about its options),
/// as text with and without colors: they depend only on what the record's key covers, so a
/// replay prints them as the full run did, and a catalog that warns (any large one goes over
/// a toolset budget) keeps the fast path.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Warnings {
    pub plain: String,
    pub color: String,
}

impl Warnings {
    pub fn is_empty(&self) -> bool {
        self.plain.is_empty()
    }

    /// Prints them to stderr, in color or not.
    pub fn print(&self, color: bool) {
        eprint!("{}", if color { &self.color } else { &self.plain });
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    path: String,
    blake3: String,
}

/// A file of the run: its hash, or its template for a per-run file, or neither when the
/// manifest records its hash (most files: the record then stays small for a large catalog).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordedFile {
    path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blake3: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    template: Option<Shape>,
}

/// The record key of a run: everything its output depends on except the files the catalog
/// names (which the record hashes one by one) and the context values. `catalog` is the
/// catalog's name as given and its bytes (`None`: the embedded one, covered by the build id);
/// `run` the command, its options and the names of the context variables given, serialized
/// (`crate::app` says which).
pub fn key(catalog: Option<(&str, &[u8])>, run: &[u8]) -> String {
    let mut h = blake3::Hasher::new();
    let mut field = |bytes: &[u8]| {
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field(&VERSION.to_le_bytes());
    field(env!("IXGEN_BUILD_ID").as_bytes());
    match catalog {
        None => field(b"embedded"),
        Some((name, bytes)) => {
            field(name.as_bytes());
            field(blake3::hash(bytes).as_bytes());
        }
    }
    field(run);
    h.finalize().to_hex().to_string()
}

/// Keeps the record of a run that succeeded, if it can be relied on: no removal, every file
/// hashed (or templated, for a per-run file). `inputs` are the files the catalog names, with
/// their bytes' hashes. Best effort: the record only saves time, so failing to write it is
/// not the run's failure.
pub fn save(out: &Path, outcome: &Outcome, key: String, inputs: Vec<(String, String)>, warnings: Warnings) {
    if let Some(bytes) = file_identity(out).and_then(|id| record_bytes(outcome, key, inputs, warnings, id)) {
        let _ = output::write_state(out, &output::record_rel(), &bytes);
    }
}

/// The manifest file's device, inode and change time (to the nanosecond): set by this
/// machine's kernel when ixgen wrote the file, so no record made elsewhere can name it. `None`
/// where there is no such identity (no manifest; not Unix): then no record is kept.
fn file_identity(out: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::symlink_metadata(out.join(output::manifest_path().as_str())).ok()?;
        Some(format!("{}:{}:{}.{:09}", m.dev(), m.ino(), m.ctime(), m.ctime_nsec()))
    }
    #[cfg(not(unix))]
    {
        let _ = out;
        None
    }
}

fn record_bytes(
    outcome: &Outcome,
    key: String,
    inputs: Vec<(String, String)>,
    warnings: Warnings,
    manifest_file: String,
) -> Option<Vec<u8>> {
    // Only a write keeps a record (a dry run has no key), and a write's outcome carries the
    // manifest it left on disk.
    let manifest_now = outcome.manifest.as_ref()?;
    let manifest_rel = output::manifest_path();
    let mut files = Vec::with_capacity(outcome.changes.len());
    let mut manifest = None;
    for c in &outcome.changes {
        if c.action == Action::Remove {
            return None;
        }
        if c.path == manifest_rel {
            manifest = Some(c.hash.clone()?);
            continue;
        }
        if c.template.is_none() && c.hash.is_none() {
            return None;
        }
        let entry = manifest_now.files.get(c.path.as_str());
        let in_manifest = entry.is_some_and(|e| e.blake3.is_some() && e.blake3 == c.hash);
        files.push(RecordedFile {
            path: c.path.to_string(),
            blake3: c.hash.clone().filter(|_| c.template.is_none() && !in_manifest),
            template: c.template.as_ref().map(Shape::of),
        });
    }
    let record = RunRecord {
        version: VERSION,
        key,
        inputs: inputs
            .into_iter()
            .map(|(path, blake3)| Input { path, blake3 })
            .collect(),
        files,
        manifest: manifest?,
        manifest_file,
        warnings,
    };
    let mut bytes = serde_json::to_vec(&record).ok()?;
    bytes.push(b'\n');
    Some(bytes)
}

/// Replays the record of `out` for a run with this key: `None` when the run must render (no
/// record, another key, or the disk is not as recorded); otherwise the outcome, with the
/// per-run files filled by `value` and written where they changed, and the warnings the
/// recorded run printed. `read_input` reads a file the catalog names (a path relative to the
/// catalog).
pub fn replay(
    out: &Path,
    key: &str,
    read_input: impl Fn(&str) -> Option<Vec<u8>>,
    value: impl Fn(&str) -> Option<String> + Sync,
) -> Result<Option<(Outcome, Warnings)>, Error> {
    // Never create the output folder here: a missing one means a first run.
    let Some(_lock) = output::lock_existing(out)? else {
        return Ok(None);
    };
    let Some((outcome, warnings)) = replayed(out, key, read_input, value) else {
        return Ok(None);
    };
    output::apply_per_run(out, &outcome)?;
    Ok(Some((outcome, warnings)))
}

/// [`replay`] under the lock, before anything is written: `None` when the run must render.
fn replayed(
    out: &Path,
    key: &str,
    read_input: impl Fn(&str) -> Option<Vec<u8>>,
    value: impl Fn(&str) -> Option<String> + Sync,
) -> Option<(Outcome, Warnings)> {
    let dir = output::OutDir::open(out);
    let record: RunRecord = serde_json::from_slice(&dir.read(&output::record_rel()).ok()??).ok()?;
    let same_input = |i: &Input| read_input(&i.path).is_some_and(|b| output::content_hash(&b) == i.blake3);
    if record.version != VERSION || record.key != key || !record.inputs.iter().all(same_input) {
        return None;
    }
    // Made beside this very manifest file, on this machine (not brought with the tree).
    if file_identity(out)? != record.manifest_file {
        return None;
    }
    // A run that saves the record puts back a deleted `.gitignore`, which keeps the record
    // out of version control; a replay saves none.
    dir.read(&RelPath::state(".gitignore")).ok()??;
    let manifest_rel = output::manifest_path();
    let jobs: Vec<_> = (record.files.iter())
        .map(|f| Some((f, RelPath::file(&f.path).ok()?)))
        .collect::<Option<_>>()?;
    let manifest_bytes = (dir.read(&manifest_rel).ok()?).filter(|m| output::content_hash(m) == record.manifest)?;
    // The manifest is the one recorded: it holds the hashes the record leaves to it.
    let manifest: output::Manifest = serde_json::from_slice(&manifest_bytes).ok()?;
    // A killed run's temp files are the full path's to remove (and report). A run that writes
    // removes the record before it stages anything (`output::write`), so with the record in
    // place a killed run can have left one in two places only: beside a per-run file (a
    // replay), or beside the record (a run that changed no file, killed while it saved its
    // record over this one), which is also where a dry run finds it.
    let per_run = jobs.iter().filter_map(|(f, r)| f.template.as_ref().map(|_| r.parent()));
    let folders = per_run.chain([output::record_rel().parent()]).collect();
    if !output::stale_temps(out, &folders).is_empty() {
        return None;
    }
    let checked = crate::par::map(&jobs, |(f, rel)| -> Option<Change> {
        let old = dir.read(rel).ok()??;
        let recorded = f.blake3.as_ref().or_else(|| {
            let e = manifest.files.get(&f.path)?;
            // A file mid-replacement (two accepted versions) is the full path's to settle.
            e.previous.is_none().then_some(e.blake3.as_ref()?)
        });
        match (recorded, &f.template) {
            (Some(h), None) => (output::content_hash(&old) == *h).then(|| unchanged(rel.clone(), Some(h.clone()))),
            (None, Some(t)) => {
                let new = t.refill(&old, &value)?;
                if new == old {
                    return Some(unchanged(rel.clone(), None));
                }
                // Only a file that says ixgen wrote it is replaced here; the full path decides
                // about any other.
                crate::plan::has_marker(&old).then(|| Change {
                    new: Some(new),
                    old: Some(old),
                    // No template: the record keeps this file's shape already, and a replay
                    // saves no record.
                    ..Change::new(rel.clone(), Action::Update)
                })
            }
            _ => None,
        }
    });
    let mut changes: Vec<Change> = checked.into_iter().collect::<Option<_>>()?;
    changes.push(unchanged(manifest_rel, Some(record.manifest)));
    let outcome = Outcome {
        changes,
        ..Outcome::default()
    };
    Some((outcome, record.warnings))
}

/// A file the replay leaves as it is.
fn unchanged(path: RelPath, hash: Option<String>) -> Change {
    Change {
        hash,
        ..Change::new(path, Action::Unchanged)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::escape;
    use crate::plan::RunTemplate;

    fn template() -> RunTemplate {
        let text = "// Generated by ixgen\nconst S = \u{0}ixgen-value:s\u{0}, N = \u{0}ixgen-value:n\u{0};\n";
        RunTemplate::split(text, &["s".into(), "n".into()], crate::escape::placeholder).unwrap()
    }

    fn values<'a>(s: &'a str, n: i64) -> impl Fn(&str) -> Option<String> + 'a {
        move |var| match var {
            "s" => Some(escape::ts_str(s).as_str().to_string()),
            "n" => Some(escape::ts_int(n).as_str().to_string()),
            _ => None,
        }
    }

    #[test]
    fn a_refilled_file_is_what_the_template_gives() {
        let (t, shape) = (template(), Shape::of(&template()));
        for (a, b) in [(("x", 1), ("y\"\\\n", -20)), (("\"", i64::MIN), ("", 0))] {
            let old = t.fill(values(a.0, a.1)).unwrap();
            let want = t.fill(values(b.0, b.1)).unwrap();
            assert_eq!(shape.refill(&old, values(b.0, b.1)), Some(want), "{a:?} → {b:?}");
        }
    }

    #[test]
    fn a_file_that_is_not_the_template_filled_is_left_to_the_full_path() {
        let (t, shape) = (template(), Shape::of(&template()));
        let old = String::from_utf8(t.fill(values("x", 1)).unwrap()).unwrap();
        for edited in [
            old.replace("const", "let"),
            format!("{old}// mine\n"),
            old.replace("\"x\"", "x"),
            old.replace(", N", ",N"),
            old[..old.len() - 1].to_string(),
        ] {
            assert_eq!(shape.refill(edited.as_bytes(), values("y", 2)), None, "{edited:?}");
        }
        // A variable without a value.
        assert_eq!(shape.refill(old.as_bytes(), |_| None), None);
    }
}
