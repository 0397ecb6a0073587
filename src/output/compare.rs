//! Compares a plan with the disk: what each path would become, and every refusal (a file
//! ixgen does not own, one edited since it wrote it, a symlink on the way).
//!
//! It reads only; it must not write, stage or remove anything. `check` and `generate` share it,
//! so a check reports exactly what a write would do.

use super::fs::{OutDir, check_size, open_rel, read_rel};
use super::manifest::{
    Manifest, ManifestEntry, MergedKey, Shape, content_hash, manifest_bytes, manifest_path, read_manifest,
};
use super::merge::{merge_json, remove_keys};
use super::{Action, Change, Outcome, shown};
use crate::error::Error;
use crate::escape;
use crate::paths::RelPath;
use crate::plan::{Content, Merge, Plan, PlannedFile, has_marker};
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::Path;

/// Compares a plan with the disk: what each path would become. Fails when a target path
/// holds a file ixgen does not own or that was edited since it wrote it (unless `force`),
/// and whenever a path would lead through a symlink.
pub fn compare(plan: Plan<'_>, out: &Path, force: bool) -> Result<(Outcome, Manifest), Error> {
    compare_files(&plan.folded(), out, force, true, false)
}

/// [`compare`] of a folded plan. With `keep_new` false, a file ixgen owns whole keeps no new
/// bytes in its change, only its hash in the manifest: [`apply`](super::commit::apply) renders it again when it
/// stages it (and checks the hash), so a large plan is never all in memory at once. With
/// `defer_new`, a deferred or streamed file at a path nothing holds is not rendered at all:
/// [`apply`](super::commit::apply) renders it once, when it creates it, and records its hash then.
pub(super) fn compare_files(
    plan: &Plan<'_>,
    out: &Path,
    force: bool,
    keep_new: bool,
    defer_new: bool,
) -> Result<(Outcome, Manifest), Error> {
    let Plan {
        files,
        groups,
        guards,
        product,
    } = plan;
    let (old_manifest, mut notes) = read_manifest(out)?;
    // Another product's files: this run would remove those of the groups it covers as files
    // it no longer plans (two catalogs took turns deleting each other's tools). A forced run
    // (and `check`, which compares as one) takes them over, and says so.
    let other_product = (old_manifest.product.as_ref())
        .filter(|p| *p != product && !old_manifest.files.is_empty())
        .cloned();
    if let Some(other) = &other_product {
        let (theirs, ours) = (escape::debug_quote(other), escape::debug_quote(product));
        let held = format!(
            "{} holds the generated files of {theirs}, not of this catalog's {ours}",
            escape::display_path(out)
        );
        if !force {
            return Err(Error::usage(
                format!("{held}: writing here would remove them"),
                format!(
                    "generate each product into a folder of its own (--out), or pass --force to replace {theirs}'s files with {ours}'s"
                ),
            ));
        }
        notes.push(held);
    }
    // One name per file: two targets (or `./a` and `a`) must not both claim a path.
    let mut planned: BTreeSet<RelPath> = BTreeSet::new();
    let mut rels = Vec::with_capacity(files.len());
    for f in files {
        let rel = RelPath::file(&f.path).map_err(|why| {
            Error::usage(
                format!(
                    "a target would write {}, which is not a usable path: {why}",
                    escape::debug_quote(&f.path)
                ),
                why.help(),
            )
        })?;
        if !planned.insert(rel.clone()) {
            return Err(Error::usage(
                format!("two generated files are both `{rel}`"),
                "give each target its own path in the catalog's `targets`",
            ));
        }
        rels.push(rel);
    }
    let mut manifest = Manifest {
        generator: "ixgen".into(),
        product: Some(product.clone()),
        files: old_manifest
            .files
            .iter()
            // A killed run's pending files are settled below, whatever this run covers.
            .filter(|(_, e)| !groups.contains(e.group.as_str()) && !e.pending)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        keys: Default::default(),
    };
    // Each file is rendered, read and compared on its own (in parallel for a large plan); only
    // changed files keep their bytes.
    let jobs: Vec<(&PlannedFile<'_>, &RelPath)> = files.iter().zip(&rels).collect();
    // One `openat2` a file where the kernel has it, instead of an `lstat` per path component.
    let dir = OutDir::open(out).noting_absent(&rels);
    let results = crate::par::map(&jobs, |(f, rel)| {
        compare_one(f, rel, &dir, force, keep_new, defer_new, &old_manifest)
    });
    let mut changes = Vec::with_capacity(files.len() + 1);
    for (rel, result) in rels.iter().zip(results) {
        let (change, entry) = result?;
        if let Some(entry) = entry {
            manifest.files.insert(rel.to_string(), entry);
        }
        changes.push(change);
    }
    // Files a covered group owned before and no longer plans are removed, and so are the files
    // a killed run was creating, whatever groups this run covers: they were never part of a
    // finished run, and a host loads them all the same.
    let held = |group: &str| {
        guards.iter().any(|(g, users)| {
            *g == group
                && users
                    .iter()
                    .any(|u| !groups.contains(u) && old_manifest.files.values().any(|e| e.group == *u))
        })
    };
    for (path, entry) in &old_manifest.files {
        let rel = RelPath::file(path)
            .map_err(|why| Error::internal(format!("a manifest path passed read_manifest but is invalid: {why}")))?;
        if (!groups.contains(entry.group.as_str()) && !entry.pending) || planned.contains(&rel) {
            continue;
        }
        if held(&entry.group) {
            manifest.files.insert(path.clone(), entry.clone());
            continue;
        }
        if let Some(old) = read_rel(out, &rel)? {
            // A file at a pending path without the marker appeared after the killed run
            // compared it: it is not ixgen's, and ixgen forgets it rather than remove it, with
            // --force too (which takes over the paths a run plans, and this one it does not).
            if entry.pending && !entry.matches(&old) {
                notes.push(format!(
                    "forgetting `{rel}`: a killed run was creating it, but the file there does not say ixgen generated it, so ixgen leaves it"
                ));
                continue;
            }
            if !entry.matches(&old) && !force {
                return Err(entry.refusal(shown(out, &rel), true));
            }
            changes.push(Change {
                forced: !entry.matches(&old),
                old: Some(old),
                ..Change::new(rel, Action::Remove)
            });
        }
    }
    take_out_keys(plan, &rels, out, force, &old_manifest, &mut manifest, &mut changes)?;
    // The manifest itself is part of the output.
    if !manifest.files.is_empty() || !old_manifest.files.is_empty() {
        let rel = manifest_path();
        let bytes = manifest_bytes(&manifest);
        let old = read_rel(out, &rel)?;
        let action = match &old {
            None => Action::Create,
            Some(o) if *o == bytes => Action::Unchanged,
            Some(_) => Action::Update,
        };
        changes.push(Change {
            hash: Some(content_hash(&bytes)),
            new: Some(bytes),
            old,
            ..Change::new(rel, action)
        });
    }
    let outcome = Outcome {
        changes,
        notes,
        manifest: None,
        other_product,
    };
    Ok((outcome, manifest))
}

/// Records the keys this run sets in shared files, and takes out of them the keys of the
/// groups it covers that it no longer sets (a dropped target's server, a renamed one, a
/// tool's permission rule): the file's change then leaves them out.
fn take_out_keys(
    plan: &Plan<'_>,
    rels: &[RelPath],
    out: &Path,
    force: bool,
    old_manifest: &Manifest,
    manifest: &mut Manifest,
    changes: &mut Vec<Change>,
) -> Result<(), Error> {
    for (f, rel) in plan.files.iter().zip(rels) {
        if let Content::JsonMerge(m) = &f.content {
            let first = std::iter::once((f.group, &m.pointer, &m.value));
            let keys = first.chain(m.more.iter().map(|(g, p, v)| (*g, p, v)));
            let keys = keys.map(|(g, p, v)| MergedKey::new(g, p, v));
            manifest.keys.insert(rel.to_string(), keys.collect());
        }
    }
    for (path, keys) in &old_manifest.keys {
        let planned = manifest.keys.get(path);
        let (stale, kept): (Vec<&MergedKey>, Vec<&MergedKey>) = keys
            .iter()
            .filter(|k| planned.is_none_or(|p| p.iter().all(|n| n.key != k.key)))
            .partition(|k| plan.groups.contains(k.group.as_str()));
        let rel = RelPath::file(path)
            .map_err(|why| Error::internal(format!("a manifest path passed read_manifest but is invalid: {why}")))?;
        if !kept.is_empty() {
            manifest
                .keys
                .entry(path.clone())
                .or_default()
                .extend(kept.into_iter().cloned());
        }
        if stale.is_empty() {
            continue;
        }
        let Some(disk) = read_rel(out, &rel)? else { continue };
        // Taken out of what this run writes there, or out of the file as it is.
        let base = changes.iter().filter(|c| c.path == rel).find_map(|c| c.new.as_deref());
        let Some((new, edited)) = remove_keys(base.unwrap_or(&disk), &stale, force, &rel)? else {
            continue;
        };
        let hash = Some(content_hash(&new));
        match changes.iter_mut().find(|c| c.path == rel) {
            Some(c) => {
                c.action = Action::Update;
                c.hash = c.hash.as_ref().and(hash);
                c.forced |= edited;
                (c.new, c.old) = (Some(new), Some(disk));
            }
            None => changes.push(Change {
                new: Some(new),
                old: Some(disk),
                forced: edited,
                ..Change::new(rel, Action::Update)
            }),
        }
    }
    Ok(())
}

/// Renders one planned file, compares it with the disk, and gives its change and manifest entry.
/// Without `keep_new`, a changed file ixgen owns whole keeps only its hash (in the entry); with
/// `defer_new`, a deferred or streamed file at a free path that the manifest does not list is
/// not rendered (a change without hash or entry, see [`compare_files`]).
pub(super) fn compare_one(
    f: &PlannedFile<'_>,
    rel: &RelPath,
    dir: &OutDir<'_>,
    force: bool,
    keep_new: bool,
    defer_new: bool,
    old_manifest: &Manifest,
) -> Result<(Change, Option<ManifestEntry>), Error> {
    // A streamed file that need not keep its bytes is only hashed and compared, with the file
    // on disk read alongside: its old bytes are read whole only when they differ (the checks
    // of an edit and a rollback need them).
    let out = dir.out;
    let stream = matches!(f.content, Content::Streamed(_)) && !keep_new && f.template.is_none();
    let mut opened = if stream && !dir.in_absent(rel) {
        open_rel(out, rel)?
    } else {
        None
    };
    let mut old = if stream { None } else { dir.read(rel)? };
    let mut existed = old.is_some() || opened.is_some();
    if defer_new
        && !existed
        && f.template.is_none()
        && matches!(f.content, Content::Deferred(_) | Content::Streamed(_))
        && !old_manifest.files.contains_key(rel.as_str())
    {
        let change = Change {
            template: f.template.clone(),
            ..Change::new(rel.clone(), Action::Create)
        };
        return Ok((change, None));
    }
    let mut forced = false;
    let (new, entry, hash, same) = match &f.content {
        Content::Owned(_) | Content::Deferred(_) | Content::Streamed(_) => {
            let (bytes, streamed) = match &f.content {
                Content::Streamed(render) if stream => {
                    let mut file = opened.take().map(|(file, _)| std::io::BufReader::new(file));
                    let mut sink = Compared::new(file.as_mut().map(|f| f as &mut dyn Read));
                    render(&mut sink)?;
                    check_size(out, rel, sink.len)?;
                    let (hash, same) = sink.finish();
                    if existed && !same {
                        old = dir.read(rel)?;
                        existed = old.is_some();
                    }
                    (Vec::new(), Some((hash, same)))
                }
                Content::Owned(b) => (b.clone(), None),
                Content::Deferred(render) => (render()?, None),
                Content::Streamed(render) => {
                    let mut bytes = Vec::new();
                    render(&mut bytes)?;
                    (bytes, None)
                }
                Content::JsonMerge(_) => return Err(Error::internal("a merged file reached the owned branch")),
            };
            check_size(out, rel, bytes.len() as u64)?;
            let same = streamed
                .as_ref()
                .map_or(old.as_deref() == Some(bytes.as_slice()), |s| s.1);
            let recorded = old_manifest.files.get(rel.as_str());
            let shape = f.template.as_ref().map(Shape::of);
            if let Some(old_bytes) = &old
                && !same
            {
                // A per-run file that is this run's template filled with other values is ixgen's
                // whatever the manifest says (one written before entries carried a shape).
                let fits = shape.as_ref().is_some_and(|s| s.fits(old_bytes));
                let not_owned = || Error::NotOwned {
                    path: shown(out, rel),
                    what: f.foreign.clone(),
                };
                let refused = match recorded {
                    Some(e) if fits || e.matches(old_bytes) => None,
                    // A per-run file that no longer says ixgen generated it was put there by
                    // someone else (a loop's own file).
                    Some(_) if f.template.is_some() && !has_marker(old_bytes) => Some(not_owned()),
                    // Owned, but the bytes are not what ixgen wrote: someone edited it (or it is
                    // listed without anything that proves the bytes are ixgen's).
                    Some(e) => Some(e.refusal(shown(out, rel), false)),
                    // Not in the manifest: only a file that says it is generated is taken over
                    // (a tree whose manifest was lost still regenerates).
                    None if !has_marker(old_bytes) && !fits => Some(not_owned()),
                    None => None,
                };
                match refused {
                    Some(e) if !force => return Err(e),
                    refused => forced = refused.is_some(),
                }
            }
            // Hashed every time, never taken over from the manifest: a wrong recorded hash
            // (a manifest merged by hand) would otherwise outlive every run, and make the next
            // real change look like an edit. A per-run file is recorded by its shape.
            let blake3 = match streamed {
                Some((hash, _)) => Some(hash),
                None if shape.is_some() => None,
                None => Some(content_hash(&bytes)),
            };
            let hash = if f.template.is_some() { None } else { blake3.clone() };
            let entry = ManifestEntry {
                group: f.group.to_string(),
                blake3,
                shape,
                ..ManifestEntry::default()
            };
            (bytes, Some(entry), hash, same)
        }
        Content::JsonMerge(m) => {
            let Merge {
                pointer,
                value,
                skeleton,
                more,
            } = &**m;
            // The hash of the value ixgen set at a key before: a value edited since is not
            // overwritten without --force.
            let recorded = |key: &[String]| {
                let keys = old_manifest.keys.get(rel.as_str())?;
                keys.iter().find(|k| k.key == key).map(|k| k.blake3.as_str())
            };
            let merge = |old: Option<&[u8]>| -> Result<(Vec<u8>, bool), Error> {
                let (mut bytes, mut edited) = merge_json(old, pointer, value, skeleton, rel, recorded(pointer), force)?;
                for (_, p, v) in more {
                    let (next, e) = merge_json(Some(&bytes), p, v, skeleton, rel, recorded(p), force)?;
                    (bytes, edited) = (next, edited || e);
                }
                Ok((bytes, edited))
            };
            let (bytes, edited) = merge(old.as_deref())?;
            forced = edited;
            // The run record may say "this file is done" only if merging into the result
            // changes nothing: then a later run that finds these bytes would leave them.
            let same = old.as_deref() == Some(bytes.as_slice());
            let stable = same || merge(Some(&bytes))?.0 == bytes;
            let hash = stable.then(|| content_hash(&bytes));
            (bytes, None, hash, same)
        }
    };
    let action = match existed {
        false => Action::Create,
        true if same => Action::Unchanged,
        true => Action::Update,
    };
    // Unchanged files keep no bytes: a large catalog would otherwise hold its whole output twice.
    // Nor do changed files with a hash when writing: `apply` renders them again.
    let rerender = !keep_new && entry.as_ref().is_some_and(|e| e.blake3.is_some());
    let (new, old) = match action {
        Action::Unchanged => (None, None),
        _ if rerender => (None, old),
        _ => (Some(new), old),
    };
    Ok((
        Change {
            new,
            old,
            hash,
            template: f.template.clone(),
            forced,
            ..Change::new(rel.clone(), action)
        },
        entry,
    ))
}

/// A sink that hashes what a streamed file writes and compares it with the file's old bytes,
/// read alongside from `old`.
pub(super) struct Compared<'o> {
    hasher: blake3::Hasher,
    old: Option<&'o mut dyn Read>,
    /// Whether every byte so far matched the old bytes (false when there are none).
    same: bool,
    /// The old bytes to compare a write with, reused.
    scratch: Vec<u8>,
    /// How many bytes were written.
    len: u64,
}

impl<'o> Compared<'o> {
    fn new(old: Option<&'o mut dyn Read>) -> Self {
        Compared {
            hasher: blake3::Hasher::new(),
            same: old.is_some(),
            old,
            scratch: Vec::new(),
            len: 0,
        }
    }

    /// The hash of everything written ([`content_hash`]'s form), and whether it is the old
    /// bytes exactly (the old bytes end where the written ones do).
    fn finish(mut self) -> (String, bool) {
        let same = self.same
            && self
                .old
                .as_mut()
                .is_some_and(|o| matches!(o.read(&mut [0u8; 1]), Ok(0)));
        (self.hasher.finalize().to_hex().to_string(), same)
    }
}

impl Write for Compared<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.hasher.update(buf);
        self.len += buf.len() as u64;
        if self.same
            && let Some(old) = self.old.as_mut()
        {
            self.scratch.resize(buf.len(), 0);
            // A read that fails or ends early is a difference; the whole read says why.
            self.same = old.read_exact(&mut self.scratch).is_ok() && self.scratch == buf;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
