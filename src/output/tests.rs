//! Tests of the whole writer: rollback at every step, runs killed midway, files that appear
//! during a run, rendering again.

use super::commit::{apply, make_all_folders, write, written};
use super::compare::{compare, compare_files};
use super::create::{BY_PROC, NewFolders, create_all};
use super::manifest::{Manifest, ManifestEntry, content_hash, manifest_bytes, read_manifest};
use super::{Action, Change, Outcome, WriteOptions};
use crate::error::Error;
use crate::plan::{MARKER, Plan, PlannedFile};
use std::collections::BTreeMap;
use std::path::Path;

/// A plan of `files`, all in group `g`.
fn in_g(files: Vec<PlannedFile<'_>>) -> Plan<'_> {
    Plan {
        files,
        groups: ["g"].into_iter().collect(),
        guards: Vec::new(),
        product: "p".to_string(),
    }
}

fn plan_of(files: &[(&str, &str)]) -> Plan<'static> {
    in_g(
        files
            .iter()
            .map(|(p, b)| PlannedFile::owned(p.to_string(), "g", b.as_bytes().to_vec()))
            .collect(),
    )
}

/// The change of `path` in an outcome.
fn change<'o>(outcome: &'o Outcome, path: &str) -> &'o Change {
    outcome.changes.iter().find(|c| c.path.as_str() == path).unwrap()
}

fn run(out: &Path, files: &[(&str, &str)], fail_at: Option<usize>) -> Result<(), Error> {
    let (outcome, manifest) = compare(plan_of(files), out, false)?;
    apply(out, &outcome, &manifest, &[], Some(&fail_at_step(fail_at))).map(|_| ())
}

/// A step hook that fails the `fail_at`-th step.
fn fail_at_step(fail_at: Option<usize>) -> impl Fn(usize) -> std::io::Result<()> + Sync {
    move |step| {
        if fail_at == Some(step) {
            Err(std::io::Error::other("injected failure"))
        } else {
            Ok(())
        }
    }
}

fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            if rel == ".ixgen/lock" {
                continue;
            }
            if p.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                stack.push(p);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// The one-line-per-file layout is whitespace only: a manifest in serde_json's pretty
/// layout (every release before it) reads as the same manifest.
#[test]
fn a_manifest_in_the_older_pretty_layout_reads_the_same() {
    let mut files = BTreeMap::new();
    for (path, blake3, previous) in [
        ("a.ts", Some("h1"), None),
        ("b/c.ts", None, None),
        ("d", Some("h2"), Some("h0")),
    ] {
        let entry = ManifestEntry {
            group: "g".to_string(),
            blake3: blake3.map(str::to_string),
            previous: previous.map(str::to_string),
            ..ManifestEntry::default()
        };
        files.insert(path.to_string(), entry);
    }
    let m = Manifest {
        generator: "ixgen".to_string(),
        product: None,
        files,
        keys: Default::default(),
    };
    let now = manifest_bytes(&m);
    assert_eq!(serde_json::from_slice::<Manifest>(&now).unwrap(), m);
    let older = serde_json::to_vec_pretty(&m).unwrap();
    assert_eq!(serde_json::from_slice::<Manifest>(&older).unwrap(), m);
    let text = String::from_utf8(now).unwrap();
    assert_eq!(text.lines().count(), 3 + m.files.len() + 2, "{text}");
}

#[test]
fn a_failure_at_any_step_rolls_back_to_the_tree_before_the_run() {
    let first = [("a.txt", "a1"), ("sub/b.txt", "b1"), ("gone.txt", "x")];
    let second = [("a.txt", "a2"), ("sub/b.txt", "b1"), ("new/deep/c.txt", "c")];
    for fail_at in 1..=6 {
        let dir = tempfile::tempdir().unwrap();
        run(dir.path(), &first, None).unwrap();
        let before = snapshot(dir.path());
        let result = run(dir.path(), &second, Some(fail_at));
        if result.is_ok() {
            // Fewer steps than `fail_at`: the run completed, and a rerun changes nothing.
            assert!(fail_at > 5, "step {fail_at} should have failed");
            continue;
        }
        assert_eq!(snapshot(dir.path()), before, "failing at step {fail_at} left changes");
        // The rerun converges without --force.
        run(dir.path(), &second, None).unwrap();
        let (outcome, _) = compare(plan_of(&second), dir.path(), false).unwrap();
        assert_eq!(outcome.changed().count(), 0, "step {fail_at}");
    }
}

#[cfg(unix)]
#[test]
fn a_rolled_back_file_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let first = [("a.txt", "a1"), ("gone.txt", "x")];
    let second = [("a.txt", "a2"), ("new.txt", "n")];
    for fail_at in 1..=5 {
        let dir = tempfile::tempdir().unwrap();
        run(dir.path(), &first, None).unwrap();
        for (f, m) in [("a.txt", 0o640), ("gone.txt", 0o604)] {
            std::fs::set_permissions(dir.path().join(f), std::fs::Permissions::from_mode(m)).unwrap();
        }
        if run(dir.path(), &second, Some(fail_at)).is_ok() {
            assert!(fail_at > 4, "step {fail_at} should have failed");
            continue;
        }
        assert_eq!(std::fs::read(dir.path().join("gone.txt")).unwrap(), b"x");
        assert_eq!(mode(&dir.path().join("a.txt")), 0o640, "step {fail_at}");
        assert_eq!(mode(&dir.path().join("gone.txt")), 0o604, "step {fail_at}");
    }
}

/// A new file is created whole under its name, never over a file that appeared there since
/// the compare, every way: an unnamed file linked by its descriptor (Linux 6.10 on) or by
/// its `/proc` name (before), a temp file renamed elsewhere.
#[test]
fn a_new_file_never_replaces_one_that_appeared_since_the_compare() {
    for (folders, by_proc) in [(None, false), (None, true), (Some(NewFolders::default()), false)] {
        // Other tests that create files meanwhile take the `/proc` way too: as right.
        #[cfg(target_os = "linux")]
        BY_PROC.store(by_proc, std::sync::atomic::Ordering::Relaxed);
        let _ = by_proc;
        let dir = tempfile::tempdir().unwrap();
        let files = [("a.txt", "a"), ("sub/b.txt", "b")];
        let (outcome, manifest) = compare(plan_of(&files), dir.path(), false).unwrap();
        let (_, creates) = written(&outcome);
        make_all_folders(dir.path(), &creates, &mut Vec::new()).unwrap();
        let folders = folders.unwrap_or_else(|| NewFolders::open(dir.path(), &creates));
        let (tick, planned) = (|| Ok(()), BTreeMap::new());
        let mut done = Vec::new();
        create_all(dir.path(), &folders, &creates, &manifest, &planned, &tick, &mut done).unwrap();
        assert_eq!(std::fs::read(dir.path().join("sub/b.txt")).unwrap(), b"b");
        assert_eq!(done.len(), 2);
        // Created again over files that are there now: refused, and they are left alone.
        std::fs::write(dir.path().join("sub/b.txt"), "someone else's").unwrap();
        let mut again = Vec::new();
        let e = create_all(dir.path(), &folders, &creates, &manifest, &planned, &tick, &mut again).unwrap_err();
        assert!(e.to_string().contains("appeared while ixgen was writing it"), "{e}");
        assert!(again.is_empty());
        assert_eq!(std::fs::read(dir.path().join("sub/b.txt")).unwrap(), b"someone else's");
        let names: Vec<_> = std::fs::read_dir(dir.path().join("sub")).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "no temp file is left behind");
    }
    #[cfg(target_os = "linux")]
    BY_PROC.store(false, std::sync::atomic::Ordering::Relaxed);
}

#[test]
fn a_written_file_is_rendered_again_and_must_match_what_was_compared() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let dir = tempfile::tempdir().unwrap();
    // `marker` false: a text without ixgen's marker, which a deferred file must carry.
    let plan = |calls: &'static AtomicUsize, same: bool, marker: bool| {
        in_g(vec![
            PlannedFile::owned("a.txt", "g", b"a".to_vec()),
            PlannedFile::deferred("big/b.txt", "g", move || {
                let n = calls.fetch_add(1, Ordering::SeqCst);
                let head = if marker { MARKER } else { "hand-written" };
                let tail = if same { String::new() } else { n.to_string() };
                Ok(format!("// {head}\nb{tail}").into_bytes())
            }),
        ])
    };
    // New, a deferred file is rendered once, when it is created, and its hash recorded then.
    static SAME: AtomicUsize = AtomicUsize::new(0);
    let outcome = write(plan(&SAME, true, true), dir.path(), WriteOptions::default()).unwrap();
    assert_eq!(SAME.load(Ordering::SeqCst), 1);
    let written = std::fs::read(dir.path().join("big/b.txt")).unwrap();
    assert_eq!(written, format!("// {MARKER}\nb").as_bytes());
    let (manifest, _) = read_manifest(dir.path()).unwrap();
    assert_eq!(manifest.files["big/b.txt"].blake3, Some(content_hash(&written)));
    assert_eq!(change(&outcome, "big/b.txt").hash, Some(content_hash(&written)));
    let manifest_bytes = std::fs::read(dir.path().join(".ixgen/manifest.json")).unwrap();
    assert_eq!(
        change(&outcome, ".ixgen/manifest.json").hash,
        Some(content_hash(&manifest_bytes))
    );
    // Again, it is compared (rendered once) and unchanged.
    let outcome = write(plan(&SAME, true, true), dir.path(), WriteOptions::default()).unwrap();
    assert_eq!(outcome.changed().count(), 0);
    assert_eq!(SAME.load(Ordering::SeqCst), 2);
    // A file that replaces one is rendered again when it is staged; a render that is not
    // pure stops the run before anything is replaced.
    let before = snapshot(dir.path());
    static DIFFERENT: AtomicUsize = AtomicUsize::new(0);
    let e = write(plan(&DIFFERENT, false, true), dir.path(), WriteOptions::default()).unwrap_err();
    assert!(e.to_string().contains("rendered differently"), "{e}");
    assert_eq!(DIFFERENT.load(Ordering::SeqCst), 2);
    assert_eq!(snapshot(dir.path()), before);
    // A new deferred file without the marker is refused, and the run leaves nothing.
    let fresh = tempfile::tempdir().unwrap();
    static UNMARKED: AtomicUsize = AtomicUsize::new(0);
    let e = write(plan(&UNMARKED, true, false), fresh.path(), WriteOptions::default()).unwrap_err();
    assert!(e.to_string().contains("without ixgen's marker"), "{e}");
    assert!(snapshot(fresh.path()).is_empty(), "{:?}", snapshot(fresh.path()).keys());
}

/// A run killed after it created a deferred file, before it recorded the file's hash, is
/// taken up by the next run without --force: the file carries ixgen's marker.
#[test]
fn a_new_file_created_before_its_hash_was_recorded_is_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let plan = || {
        in_g(vec![PlannedFile::deferred("t/a.ts", "g", || {
            Ok(format!("// {MARKER}\nexport {{}}\n").into_bytes())
        })])
    };
    // What the killed run left: the file, and no manifest.
    std::fs::create_dir(dir.path().join("t")).unwrap();
    std::fs::write(dir.path().join("t/a.ts"), format!("// {MARKER}\nexport {{}}\n")).unwrap();
    let outcome = write(plan(), dir.path(), WriteOptions::default()).unwrap();
    assert_eq!(change(&outcome, "t/a.ts").action, Action::Unchanged);
    let (manifest, _) = read_manifest(dir.path()).unwrap();
    assert!(manifest.files["t/a.ts"].blake3.is_some());
}

#[test]
fn a_streamed_file_is_compared_and_written_as_a_whole_file_is() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    // Each call writes `text` in pieces, the way a long listing is written.
    let plan = |calls: &'static AtomicUsize, text: &'static str, pure: bool| {
        in_g(vec![PlannedFile::streamed("big/s.txt", "g", move |w| {
            let n = calls.fetch_add(1, Ordering::SeqCst);
            for piece in text.as_bytes().chunks(3) {
                w.write_all(piece).map_err(|e| Error::internal(e.to_string()))?;
            }
            if !pure {
                write!(w, "{n}").map_err(|e| Error::internal(e.to_string()))?;
            }
            Ok(())
        })])
    };
    let action = |outcome: &Outcome| {
        let c = change(outcome, "big/s.txt");
        (c.action.clone(), c.new.clone())
    };
    let dir = tempfile::tempdir().unwrap();
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    // Written for the first time: rendered once, straight into the new file, and hashed
    // on the way.
    let outcome = write(plan(&CALLS, "abcdefgh", true), dir.path(), WriteOptions::default()).unwrap();
    assert_eq!(action(&outcome), (Action::Create, None));
    assert_eq!(std::fs::read(dir.path().join("big/s.txt")).unwrap(), b"abcdefgh");
    assert_eq!(CALLS.load(Ordering::SeqCst), 1);
    assert_eq!(change(&outcome, "big/s.txt").hash, Some(content_hash(b"abcdefgh")));
    // The same bytes are unchanged; a prefix of them, or more, is a change.
    let outcome = write(plan(&CALLS, "abcdefgh", true), dir.path(), WriteOptions::default()).unwrap();
    assert_eq!(action(&outcome), (Action::Unchanged, None));
    for text in ["abcdefg", "abcdefghi", "abcdefgX"] {
        let (outcome, _) = compare(plan(&CALLS, text, true), dir.path(), false).unwrap();
        // Compared for a report, it keeps its new bytes.
        assert_eq!(action(&outcome), (Action::Update, Some(text.as_bytes().to_vec())));
    }
    // Written, each is compared with the file on disk as it is printed.
    for text in ["abcdefg", "abcdefghi", "abcdefgX"] {
        let outcome = write(plan(&CALLS, text, true), dir.path(), WriteOptions::default()).unwrap();
        assert_eq!(action(&outcome), (Action::Update, None));
        assert_eq!(std::fs::read(dir.path().join("big/s.txt")).unwrap(), text.as_bytes());
    }
    // The manifest records the hash of what was written.
    let (manifest, _) = read_manifest(dir.path()).unwrap();
    assert_eq!(manifest.files["big/s.txt"].blake3, Some(content_hash(b"abcdefgX")));
    // A file edited since is refused, as a file rendered whole is.
    std::fs::write(dir.path().join("big/s.txt"), "edited").unwrap();
    let e = write(plan(&CALLS, "abcdefgh", true), dir.path(), WriteOptions::default()).unwrap_err();
    assert!(matches!(e, Error::Edited { .. }), "{e}");
    // A render that is not pure stops the run before anything is replaced.
    let fresh = tempfile::tempdir().unwrap();
    static IMPURE: AtomicUsize = AtomicUsize::new(0);
    write(plan(&IMPURE, "abc", false), fresh.path(), WriteOptions::default()).unwrap();
    let before = snapshot(fresh.path());
    let e = write(plan(&IMPURE, "abd", false), fresh.path(), WriteOptions::default()).unwrap_err();
    assert!(e.to_string().contains("rendered differently"), "{e}");
    assert_eq!(snapshot(fresh.path()), before);
}

/// A streamed file written for the first time (no marker in it) gets its name only once
/// the manifest lists its hash: a run failing at any step leaves the tree as it was, and a
/// run killed before naming it (the manifest lists a file that is not there) is taken up
/// by the next without --force.
#[test]
fn a_first_streamed_file_is_named_only_once_the_manifest_lists_it() {
    let plan = || {
        in_g(vec![
            PlannedFile::owned("a.txt", "g", b"a".to_vec()),
            PlannedFile::streamed("big/s.json", "g", |w| {
                w.write_all(b"{\"tools\": []}\n")
                    .map_err(|e| Error::internal(e.to_string()))
            }),
        ])
    };
    let mut completed = false;
    for fail_at in 1..=8 {
        let dir = tempfile::tempdir().unwrap();
        let before = snapshot(dir.path());
        let plan = plan().folded();
        let (outcome, manifest) = compare_files(&plan, dir.path(), false, false, true).unwrap();
        assert!(
            !manifest.files.contains_key("big/s.json"),
            "hashed before it was rendered"
        );
        // Before every step, as a run killed then would leave it: a file there is listed.
        let out = dir.path();
        let hook = |step| {
            if out.join("big/s.json").exists() {
                let (on_disk, _) = read_manifest(out).unwrap();
                assert!(
                    on_disk.files.contains_key("big/s.json"),
                    "named before listed, at step {step}"
                );
            }
            fail_at_step(Some(fail_at))(step)
        };
        if apply(dir.path(), &outcome, &manifest, &plan.files, Some(&hook)).is_ok() {
            completed = true;
            assert!(fail_at > 5, "step {fail_at} should have failed");
            continue;
        }
        assert_eq!(snapshot(dir.path()), before, "failing at step {fail_at} left changes");
    }
    assert!(completed, "no run got to its end");
    let dir = tempfile::tempdir().unwrap();
    let outcome = write(plan(), dir.path(), WriteOptions::default()).unwrap();
    let (manifest, _) = read_manifest(dir.path()).unwrap();
    let hash = content_hash(b"{\"tools\": []}\n");
    assert_eq!(manifest.files["big/s.json"].blake3.as_deref(), Some(hash.as_str()));
    assert_eq!(change(&outcome, "big/s.json").hash, Some(hash));
    // Killed between the manifest and the name.
    std::fs::remove_file(dir.path().join("big/s.json")).unwrap();
    let outcome = write(plan(), dir.path(), WriteOptions::default()).unwrap();
    assert_eq!(change(&outcome, "big/s.json").action, Action::Create);
    assert!(dir.path().join("big/s.json").exists());
}

#[test]
fn a_run_killed_after_the_interim_manifest_converges_without_force() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), &[("a.txt", "a1")], None).unwrap();
    // Simulate a kill after the renames: the interim manifest is on disk, the final is not.
    let (_, mut pending) = compare(plan_of(&[("a.txt", "a2")]), dir.path(), false).unwrap();
    let e = pending.files.get_mut("a.txt").unwrap();
    e.previous = Some(content_hash(b"a1"));
    std::fs::write(dir.path().join(".ixgen/manifest.json"), manifest_bytes(&pending)).unwrap();
    // Killed before the rename: the old bytes are still on disk, and still ixgen's.
    std::fs::write(dir.path().join("a.txt"), "a1").unwrap();
    // A different plan next time still finds a2 to be ixgen's.
    run(dir.path(), &[("a.txt", "a3")], None).unwrap();
    assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"a3");
}

/// A file at a path a killed run was creating (pending in the manifest) that does not say ixgen
/// generated it is the user's: forgotten, never removed, with --force too (`check` compares as
/// --force does, and once reported it as extra, to be removed).
#[test]
fn a_pending_path_holding_a_file_without_the_marker_is_forgotten_even_with_force() {
    for force in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        write(tools(&["a"]), dir.path(), WriteOptions::default()).unwrap();
        let (mut manifest, _) = read_manifest(dir.path()).unwrap();
        let mut entry = manifest.files["t/a.ts"].clone();
        (entry.blake3, entry.pending) = (None, true);
        manifest.files.insert("t/notes.md".into(), entry);
        std::fs::write(dir.path().join(".ixgen/manifest.json"), manifest_bytes(&manifest)).unwrap();
        std::fs::write(dir.path().join("t/notes.md"), "my notes").unwrap();
        let options = WriteOptions { force, dry_run: false };
        let outcome = write(tools(&["a"]), dir.path(), options).unwrap();
        assert!(
            outcome.changes.iter().all(|c| c.path.as_str() != "t/notes.md"),
            "force {force}"
        );
        assert!(
            outcome.notes.iter().any(|n| n.starts_with("forgetting `t/notes.md`")),
            "{:?}",
            outcome.notes
        );
        assert_eq!(std::fs::read(dir.path().join("t/notes.md")).unwrap(), b"my notes");
        assert!(!read_manifest(dir.path()).unwrap().0.files.contains_key("t/notes.md"));
    }
}

/// Tool files as a host plans them: deferred, with ixgen's marker, in group `g`.
fn tools(names: &[&str]) -> Plan<'static> {
    in_g(
        names
            .iter()
            .map(|n| {
                let bytes = format!("// {MARKER}\nexport const {n} = 1\n").into_bytes();
                PlannedFile::deferred(format!("t/{n}.ts"), "g", move || Ok(bytes.clone()))
            })
            .collect(),
    )
}

/// The tree a write of `plan` leaves when it is killed just before commit step `step`
/// (the write as [`write`] does it, with a step hook that copies the tree and stops the
/// run); `None` when the write has fewer steps.
fn killed_at(plan: Plan<'_>, out: &Path, step: usize) -> Option<BTreeMap<String, Vec<u8>>> {
    let plan = plan.folded();
    let (outcome, manifest) = compare_files(&plan, out, false, false, true).unwrap();
    let seen = std::sync::Mutex::new(None);
    let hook = |at: usize| {
        if at == step {
            *seen.lock().unwrap() = Some(snapshot(out));
            return Err(std::io::Error::other("killed"));
        }
        Ok(())
    };
    let result = apply(out, &outcome, &manifest, &plan.files, Some(&hook));
    let seen = seen.into_inner().unwrap();
    assert_eq!(result.is_err(), seen.is_some());
    seen
}

fn restore_tree(tree: &BTreeMap<String, Vec<u8>>, to: &Path) {
    for (rel, bytes) in tree {
        match rel.strip_suffix('/') {
            Some(dir) => std::fs::create_dir_all(to.join(dir)).unwrap(),
            None => {
                std::fs::create_dir_all(to.join(rel).parent().unwrap()).unwrap();
                std::fs::write(to.join(rel), bytes).unwrap();
            }
        }
    }
}

/// The files below `t/` and the manifest's entries.
fn tools_on_disk(out: &Path) -> (Vec<String>, Vec<String>) {
    let files = snapshot(out)
        .into_keys()
        .filter(|k| k.starts_with("t/") && !k.ends_with('/'))
        .collect();
    let (manifest, notes) = read_manifest(out).unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    for (path, e) in &manifest.files {
        assert!(
            e.blake3.is_some() && !e.pending && e.previous.is_none(),
            "{path}: {e:?}"
        );
    }
    (files, manifest.files.into_keys().collect())
}

#[test]
fn a_killed_runs_files_are_taken_over_or_removed_whatever_the_next_run_plans() {
    // From an empty folder, and from one a finished run wrote (one file replaced, some new).
    let firsts: [&[&str]; 2] = [&[], &["a", "b"]];
    for first in firsts {
        for step in 1.. {
            let dir = tempfile::tempdir().unwrap();
            write(tools(first), dir.path(), WriteOptions::default()).unwrap();
            if !first.is_empty() {
                // b changes: the killed run replaces it.
                let m = dir.path().join(".ixgen/manifest.json");
                let text = std::fs::read_to_string(&m).unwrap();
                let b = content_hash(format!("// {MARKER}\nexport const b = 1\n").as_bytes());
                let old = content_hash(format!("// {MARKER}\nold\n").as_bytes());
                std::fs::write(&m, text.replace(&b, &old)).unwrap();
                std::fs::write(dir.path().join("t/b.ts"), format!("// {MARKER}\nold\n")).unwrap();
            }
            let Some(tree) = killed_at(tools(&["a", "b", "c", "d", "e"]), dir.path(), step) else {
                assert!(step > 3, "the run has steps");
                break;
            };
            // The next run keeps fewer tools (a filter), or others (a changed catalog).
            for next in [&["a"][..], &["x", "b"]] {
                let killed = tempfile::tempdir().unwrap();
                restore_tree(&tree, killed.path());
                write(tools(next), killed.path(), WriteOptions::default())
                    .unwrap_or_else(|e| panic!("after {first:?} killed at step {step}, {next:?}: {e}"));
                let mut want: Vec<String> = next.iter().map(|n| format!("t/{n}.ts")).collect();
                want.sort();
                assert_eq!(
                    tools_on_disk(killed.path()),
                    (want.clone(), want),
                    "after {first:?} killed at step {step}, {next:?}"
                );
            }
        }
    }
}
