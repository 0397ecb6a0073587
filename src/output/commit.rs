//! The write: lock, compare, check the folders, stage, record both versions in the manifest,
//! rename, create, remove, record; a failure after the first change rolls back every step
//! before it.
//!
//! This is the only module that decides the order of the steps on disk. It must not render,
//! merge or judge ownership itself: it takes the comparison's verdict.

use super::compare::compare_files;
use super::create::{Created, Done, NewFolders, create_all};
use super::fs::{make_folders, read_rel, resolve, safe_dir, writable};
use super::lock::lock;
use super::manifest::{
    Manifest, ManifestEntry, content_hash, manifest_bytes, manifest_path, read_manifest, record_rel,
};
use super::stage::{is_streamed, stage, stage_all};
use super::{Action, Change, Outcome, WriteOptions, io_error, shown};
use crate::error::Error;
use crate::escape;
use crate::paths::{RelPath, TEMP_PREFIX, TEMP_SUFFIX};
use crate::plan::{Content, Plan, PlannedFile};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes a plan: only what changed, all of it or none of it. Returns what was done.
///
/// Order: take the lock; compare (every refusal happens here); check that every folder can be
/// written; remove stale temp files, and the run record when anything changes; stage every file
/// that replaces one as a temp file;
/// record both versions in the manifest; rename; create the new files (each whole before its
/// name appears, never over anything); remove; write the final manifest. A failure after the
/// first rename rolls back every step before it.
pub fn write(plan: Plan<'_>, out: &Path, opts: WriteOptions) -> Result<Outcome, Error> {
    write_with_hook(plan, out, opts, &|_| Ok(()))
}

/// [`write`], with `at_step` called before each step of the commit with its number (1, 2, …):
/// it may look at the tree as that step finds it, or fail the step (the run then rolls back).
/// For tests that need the tree a run killed at that step leaves; [`write`] is this with a hook
/// that does nothing.
#[doc(hidden)]
pub fn write_with_hook(
    plan: Plan<'_>,
    out: &Path,
    opts: WriteOptions,
    at_step: &StepHook<'_>,
) -> Result<Outcome, Error> {
    // Taking the lock creates a missing output folder; a refused run takes it away again, so
    // that it leaves nothing behind.
    let made_out = !opts.dry_run && std::fs::symlink_metadata(out).is_err();
    let result = write_locked(plan, out, opts, at_step);
    if made_out && result.is_err() {
        let _ = std::fs::remove_dir(out);
    }
    result
}

pub(super) fn write_locked(
    plan: Plan<'_>,
    out: &Path,
    opts: WriteOptions,
    at_step: &StepHook<'_>,
) -> Result<Outcome, Error> {
    let _lock = if opts.dry_run { None } else { Some(lock(out)?) };
    let plan = plan.folded();
    let folders = plan_folders(out, &plan.files);
    let stale = stale_temps(out, &folders);
    let (mut outcome, manifest) = compare_files(&plan, out, opts.force, false, !opts.dry_run)?;
    preflight(out, &outcome)?;
    let verb = if opts.dry_run { "would remove" } else { "removed" };
    for tmp in &stale {
        if !opts.dry_run {
            // Best effort: a temp file that cannot be removed harms nothing but the tidiness.
            let _ = std::fs::remove_file(out.join(tmp.as_str()));
        }
        outcome
            .notes
            .push(format!("{verb} `{tmp}`, a temp file left by an interrupted run"));
    }
    if opts.dry_run {
        return Ok(outcome);
    }
    if outcome.changed().next().is_some() {
        // Best effort, like writing it: a record that cannot be removed is one whose files
        // the write is about to change, and a replay checks every hash.
        if let Ok(full) = resolve(out, &record_rel()) {
            let _ = std::fs::remove_file(full);
        }
    }
    apply(out, &outcome, &manifest, &plan.files, Some(at_step))?.complete(&mut outcome, manifest);
    Ok(outcome)
}

/// Writes the changed per-run files of an outcome the run record replayed (under the lock the
/// replay holds). The manifest records per-run files by their shape, which a replay keeps, so the
/// manifest does not change.
pub(crate) fn apply_per_run(out: &Path, outcome: &Outcome) -> Result<(), Error> {
    debug_assert!(
        outcome
            .changed()
            .all(|c| c.action == Action::Update && c.hash.is_none())
    );
    apply(out, outcome, &Manifest::default(), &[], None).map(|_| ())
}

/// Replaces one of ixgen's own files below `.ixgen/` (the run record) through a temp file,
/// under the lock; creates `.ixgen/.gitignore` beside it if there is none, so that a record
/// (one machine's cache) is not committed with the manifest.
pub(crate) fn write_state(out: &Path, rel: &RelPath, bytes: &[u8]) -> Result<(), Error> {
    let _lock = lock(out)?;
    make_folders(out, rel, &mut Vec::new())?;
    let ignore = RelPath::state(".gitignore");
    if read_rel(out, &ignore)?.is_none() {
        let full = resolve(out, &ignore)?;
        stage(out, &ignore, &full, GITIGNORE.as_bytes())?
            .persist_noclobber(&full)
            .map_err(io_error("write", shown(out, &ignore)))?;
    }
    if read_rel(out, rel)?.as_deref() != Some(bytes) {
        let full = resolve(out, rel)?;
        stage(out, rel, &full, bytes)?
            .persist(&full)
            .map_err(io_error("replace", shown(out, rel)))?;
    }
    Ok(())
}

/// `.ixgen/.gitignore`: the run record stays out of version control.
pub(super) const GITIGNORE: &str =
    "# ixgen's record of the last run on this machine (a cache): not for version control.\nrun.json\n";

/// The folders a plan touches (with the manifest's): where stale temp files may lie.
pub(super) fn plan_folders(out: &Path, files: &[PlannedFile<'_>]) -> BTreeSet<RelPath> {
    let mut folders: BTreeSet<RelPath> = files
        .iter()
        .filter_map(|f| RelPath::file(&f.path).ok())
        .map(|p| p.parent())
        .collect();
    folders.insert(manifest_path().parent());
    if let Ok((m, _)) = read_manifest(out) {
        folders.extend(m.files.keys().filter_map(|k| RelPath::file(k).ok()).map(|p| p.parent()));
    }
    folders
}

/// Temp files (`.ixgen-*.tmp`) a killed run left in the folders this run writes to. Only
/// called with the lock held (or for a dry run's report), so none of them is in use.
pub(crate) fn stale_temps(out: &Path, folders: &BTreeSet<RelPath>) -> Vec<RelPath> {
    let mut found = Vec::new();
    for dir in folders {
        // A folder that cannot be followed safely is refused by the comparison, with a message.
        let Some(Ok(entries)) = safe_dir(out, dir).then(|| std::fs::read_dir(out.join(dir.as_str()))) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let is_file = entry.file_type().is_ok_and(|t| t.is_file() || t.is_symlink());
            if is_file
                && name.starts_with(TEMP_PREFIX)
                && name.ends_with(TEMP_SUFFIX)
                && name.len() > TEMP_PREFIX.len() + TEMP_SUFFIX.len()
                && let Some(p) = dir.child(name)
            {
                found.push(p);
            }
        }
    }
    found
}

/// Checks, before anything is written, that every folder a change needs can be written:
/// the nearest existing one must be writable. A dry run makes the same check, so it fails
/// where the real run would.
pub(super) fn preflight(out: &Path, outcome: &Outcome) -> Result<(), Error> {
    let mut checked = BTreeSet::new();
    // Each folder once: 10,000 tool files share one.
    let mut parents = BTreeSet::new();
    for c in outcome.changed() {
        let mut dir = c.path.parent();
        if !parents.insert(dir.clone()) {
            continue;
        }
        while !dir.as_str().is_empty() && !out.join(dir.as_str()).exists() {
            dir = dir.parent();
        }
        if !checked.insert(dir.clone()) {
            continue;
        }
        let full = out.join(dir.as_str());
        if full.exists() && !writable(&full) {
            let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
            return Err(io_error("write into the folder", escape::display_path(&full))(denied));
        }
    }
    Ok(())
}

/// The files a run writes (not the manifest), by how: a file that replaces one is staged
/// before the first rename ([`stage_all`]); a file at a path that was free when compared is
/// created during the commit ([`create_all`]).
pub(super) fn written(outcome: &Outcome) -> (Vec<&Change>, Vec<&Change>) {
    let manifest_rel = manifest_path();
    outcome
        .changed()
        .filter(|c| c.path != manifest_rel && matches!(c.action, Action::Create | Action::Update))
        .partition(|c| c.action == Action::Update)
}

/// Creates the folders every written file needs, each checked once (10,000 tool files share
/// one), in order, so a rollback removes exactly the ones this run made.
pub(super) fn make_all_folders(out: &Path, changes: &[&Change], created: &mut Vec<PathBuf>) -> Result<(), Error> {
    let mut seen = BTreeSet::new();
    for c in changes {
        if seen.insert(c.path.parent()) {
            make_folders(out, &c.path, created)?;
        }
    }
    Ok(())
}

/// What [`apply`] learned while it wrote: the hashes of the files it rendered for the first
/// time as it created them, and the hash of the manifest it then wrote with them.
#[derive(Default)]
pub(super) struct Applied {
    first: Vec<(RelPath, String)>,
    manifest: Option<String>,
    /// The manifest completed with `first` (None when `first` is empty: the compared one).
    completed: Option<Manifest>,
}

impl Applied {
    /// Completes a write's outcome with what only the commit knew (its manifest, else `compared`).
    fn complete(self, outcome: &mut Outcome, compared: Manifest) {
        outcome.manifest = Some(self.completed.unwrap_or(compared));
        let Some(manifest) = self.manifest else { return };
        let first: BTreeMap<RelPath, String> = self.first.into_iter().collect();
        let manifest_rel = manifest_path();
        for c in &mut outcome.changes {
            if let Some(hash) = first.get(&c.path) {
                c.hash = Some(hash.clone());
            } else if c.path == manifest_rel {
                if c.action == Action::Unchanged {
                    c.action = Action::Update;
                }
                c.hash = Some(manifest.clone());
                c.new = None;
            }
        }
    }
}

/// A hook called before each commit step, for tests: see `apply`'s `at_step`.
pub type StepHook<'h> = dyn Fn(usize) -> std::io::Result<()> + Sync + 'h;

/// Applies an outcome: stage, record, rename, create, remove, record. `files` are the
/// compared plan's, rendered again for changes that kept only their hash. `at_step` (a no-op
/// but in tests; `None` for the run record's per-run write) is called before each commit step
/// with its number (1, 2, …): it may look at the tree as the step finds it, or fail the step.
pub(super) fn apply(
    out: &Path,
    outcome: &Outcome,
    manifest: &Manifest,
    files: &[PlannedFile<'_>],
    at_step: Option<&StepHook<'_>>,
) -> Result<Applied, Error> {
    let manifest_rel = manifest_path();
    let mut created = Vec::new();
    // The planned files by path, to render again a change that kept only its hash.
    let planned: BTreeMap<RelPath, &PlannedFile<'_>> = files
        .iter()
        .filter_map(|f| RelPath::file(&f.path).ok().map(|rel| (rel, f)))
        .collect();
    let (updates, mut creates) = written(outcome);
    // A streamed file is one large file (a listing of every tool): created first, while the
    // other threads take the small ones, rather than last, with the other threads idle.
    creates.sort_by_key(|c| !is_streamed(c, &planned));
    // Stage: every file that replaces one becomes a complete temp file beside its target. Any
    // failure here leaves the tree as it was (temp files delete themselves when dropped).
    let staged = make_all_folders(out, &updates, &mut created)
        .and_then(|()| make_all_folders(out, &creates, &mut created))
        .and_then(|()| stage_all(out, &updates, manifest, &planned));
    let staged = staged.inspect_err(|_| remove_folders(&created))?;
    // While files are replaced, the manifest accepts the old and the new version of each, and
    // lists the new files the compare hashed, so a run killed now is taken up by the next
    // without --force (a deferred tool file, listed only once it exists, by its marker).
    let removals: Vec<&Change> = outcome.changed().filter(|c| c.action == Action::Remove).collect();
    // New files the manifest does not list yet (their hash is learnt as they are created): the
    // interim manifest lists them as pending, so that a run killed midway leaves none that the
    // next run does not know of. A streamed one is named only once the final manifest lists it,
    // and a shared file ixgen merges into is never owned.
    let pending_creates: Vec<&Change> = creates
        .iter()
        .filter(|c| !manifest.files.contains_key(c.path.as_str()))
        .filter(|c| matches!(planned.get(&c.path).map(|f| &f.content), Some(Content::Deferred(_))))
        .copied()
        .collect();
    let hashed_change = updates
        .iter()
        .chain(&creates)
        .any(|c| manifest.files.get(c.path.as_str()).is_some_and(|e| e.blake3.is_some()))
        || !removals.is_empty();
    let final_bytes = outcome
        .changes
        .iter()
        .find(|c| c.path == manifest_rel && c.action != Action::Unchanged)
        .and_then(|c| c.new.as_deref());
    // Whether an interim manifest is written before the first file changes.
    let interim = (hashed_change && final_bytes.is_some()) || !pending_creates.is_empty();
    let folders = NewFolders::open(out, &creates);
    let mut done: Vec<Done<'_>> = Vec::new();
    // Counted across threads: new files are created on every core.
    let step = std::sync::atomic::AtomicUsize::new(0);
    let tick = || {
        let step = step.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        at_step.map_or(Ok(()), |f| f(step))
    };
    let mut applied = Applied::default();
    let run = |done: &mut Vec<_>, applied: &mut Applied| -> Result<(), Error> {
        // Writes the manifest through a temp file; with `undo`, a rollback puts back the one it
        // replaced.
        let mut put_manifest = |bytes: &[u8], undo: bool, done: &mut Vec<Done<'_>>| -> Result<(), Error> {
            let full = resolve(out, &manifest_rel)?;
            let old = if undo { read_rel(out, &manifest_rel)? } else { None };
            make_folders(out, &manifest_rel, &mut created)?;
            tick().map_err(io_error("write", shown(out, &manifest_rel)))?;
            stage(out, &manifest_rel, &full, bytes)?
                .persist(&full)
                .map_err(io_error("replace", shown(out, &manifest_rel)))?;
            if undo {
                let old = old.map(Cow::Owned);
                done.push(Done::Wrote { full, old });
            }
            Ok(())
        };
        if interim {
            // With nothing replaced, removed or pending, the interim manifest is the final one:
            // its bytes are at hand, and copying a large manifest would only raise the run's peak.
            let pending = match final_bytes {
                Some(bytes) if updates.is_empty() && removals.is_empty() && pending_creates.is_empty() => {
                    Cow::Borrowed(bytes)
                }
                _ => {
                    let mut pending = manifest.clone();
                    // A file being replaced: its bytes now are ixgen's too until the run ends.
                    for c in &updates {
                        if let (Some(e), Some(old)) = (pending.files.get_mut(c.path.as_str()), &c.old) {
                            e.previous = Some(content_hash(old));
                        }
                    }
                    // A file being removed stays recorded until it is gone.
                    let (interim, _) = read_manifest(out)?;
                    for c in &removals {
                        if let Some(e) = interim.files.get(c.path.as_str()) {
                            pending.files.insert(c.path.to_string(), e.clone());
                        }
                    }
                    for c in &pending_creates {
                        let group = planned.get(&c.path).map_or("", |f| f.group);
                        let entry = ManifestEntry {
                            group: group.to_string(),
                            pending: true,
                            ..ManifestEntry::default()
                        };
                        pending.files.insert(c.path.to_string(), entry);
                    }
                    Cow::Owned(manifest_bytes(&pending))
                }
            };
            put_manifest(&pending, true, done)?;
        }
        for s in staged {
            tick().map_err(io_error("replace", shown(out, s.rel)))?;
            s.tmp.persist(&s.full).map_err(io_error("replace", shown(out, s.rel)))?;
            done.push(Done::Wrote {
                full: s.full,
                old: s.old.map(Cow::Borrowed),
            });
        }
        let Created { first, held } = create_all(out, &folders, &creates, manifest, &planned, &tick, done)?;
        // Files rendered for the first time as they were created: their hashes complete the
        // manifest, which is then written even if the compare found it unchanged.
        applied.completed = (!first.is_empty()).then(|| {
            let mut m = manifest.clone();
            for (rel, hash) in &first {
                let entry = ManifestEntry {
                    group: planned.get(rel).map_or("", |f| f.group).to_string(),
                    blake3: Some(hash.clone()),
                    ..ManifestEntry::default()
                };
                m.files.insert(rel.to_string(), entry);
            }
            m
        });
        let completed = applied.completed.as_ref().map(manifest_bytes);
        applied.manifest = completed.as_deref().map(content_hash);
        applied.first = first;
        for c in &removals {
            let full = resolve(out, &c.path)?;
            tick().map_err(io_error("remove", shown(out, &c.path)))?;
            let permissions = std::fs::symlink_metadata(&full).ok().map(|m| m.permissions());
            if let Err(e) = std::fs::remove_file(&full)
                && e.kind() != std::io::ErrorKind::NotFound
            {
                return Err(io_error("remove", shown(out, &c.path))(e));
            }
            done.push(Done::Removed {
                full,
                old: c.old.as_deref().unwrap_or_default(),
                permissions,
            });
        }
        if let Some(bytes) = completed.as_deref().or(final_bytes) {
            // The interim manifest's rollback puts the one before the run back.
            put_manifest(bytes, !interim, done)?;
        }
        // The large streamed files written for the first time, now that the manifest lists
        // their hashes: one the run leaves named is always one the next run knows as ixgen's.
        for (c, file) in held {
            tick().map_err(io_error("create", shown(out, &c.path)))?;
            let full = file.name(out, c)?;
            done.push(Done::Wrote { full, old: None });
        }
        Ok(())
    };
    if let Err(e) = run(&mut done, &mut applied) {
        let failed = rollback(done);
        remove_folders(&created);
        return Err(match failed {
            None => e,
            Some(list) => Error::usage(
                format!("{e}; rolling back also failed for {list}"),
                "restore those files from version control, then run ixgen again",
            ),
        });
    }
    // Folders emptied by removals go too, but never the output folder or anything above it.
    for c in &removals {
        for dir in c.path.ancestors().iter().rev() {
            if std::fs::remove_dir(out.join(dir.as_str())).is_err() {
                break;
            }
        }
    }
    Ok(applied)
}

/// Undoes what a failed run did, newest first. Returns the files it could not restore.
pub(super) fn rollback(done: Vec<Done<'_>>) -> Option<String> {
    let mut failed = Vec::new();
    for d in done.into_iter().rev() {
        let (full, undone) = match &d {
            Done::Wrote { full, old: None } => (full, std::fs::remove_file(full)),
            Done::Wrote { full, old: Some(old) } => {
                // The file there now was staged with the permissions of the one it replaced.
                let permissions = std::fs::symlink_metadata(full).ok().map(|m| m.permissions());
                (full, restore(full, old, permissions))
            }
            Done::Removed { full, old, permissions } => (full, restore(full, old, permissions.clone())),
        };
        if undone.is_err() {
            failed.push(escape::display_path(full));
        }
    }
    (!failed.is_empty()).then(|| failed.join(", "))
}

/// Puts `bytes` back at `full` with the `permissions` the file had (a temp file is created
/// 0600, which the restored file must not keep).
pub(super) fn restore(full: &Path, bytes: &[u8], permissions: Option<std::fs::Permissions>) -> std::io::Result<()> {
    let dir = full.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    if let Some(p) = permissions {
        tmp.as_file().set_permissions(p)?;
    }
    tmp.persist(full)?;
    Ok(())
}

pub(super) fn remove_folders(created: &[PathBuf]) {
    for d in created.iter().rev() {
        let _ = std::fs::remove_dir(d);
    }
}
