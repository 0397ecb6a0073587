//! The run record (`.ixgen/run.json`, `src/record.rs`): a run that can change nothing but its
//! per-run files replays the last run instead of rendering. Each test is a promise a user
//! relies on: a replay writes the same bytes a full render writes, and anything the record
//! does not cover (an edited, missing or symlinked file, another catalog, icon or option, a
//! killed run's temp file) takes the full path, with its usual answer.

mod support;

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use support::tree;

const MINIMAL: &str = "tests/fixtures/minimal/catalog.yaml";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn ok(self) -> Run {
        assert_eq!(self.code, 0, "{}{}", self.stdout, self.stderr);
        self
    }
    /// Whether the run replayed the record (from `--format json`).
    fn replayed(&self) -> bool {
        let v: serde_json::Value =
            serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", self.stdout, self.stderr));
        v["replayed"].as_bool().expect("`replayed` in the JSON report")
    }
}

/// `ixgen --out <out> [--catalog <catalog>] <args> --format json`.
fn ixgen(out: &Path, catalog: Option<&Path>, args: &[&str]) -> Run {
    let mut cmd = Command::cargo_bin("ixgen").unwrap();
    cmd.env("NO_COLOR", "1").arg("--out").arg(out);
    if let Some(c) = catalog {
        cmd.arg("--catalog").arg(c);
    }
    let o = cmd.args(args).output().unwrap();
    let run = Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    };
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run
}

/// A work folder with the minimal catalog and an output folder.
fn work() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = tmp.path().join("catalog.yaml");
    std::fs::copy(MINIMAL, &catalog).unwrap();
    let out = tmp.path().join("out");
    (tmp, catalog, out)
}

const GENERATE: [&str; 3] = ["generate", "--format", "json"];

/// Every file of an output folder but the record (which names this build).
fn output(out: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut t = tree(out);
    t.remove(".ixgen/run.json");
    t
}

fn session_args<'a>(store: &'a str, session: &'a str, iteration: &'a str, pid: &'a str) -> Vec<&'a str> {
    vec![
        "opencode",
        "--format",
        "json",
        "--store",
        store,
        "--session",
        session,
        "--iteration",
        iteration,
        "--pid",
        pid,
    ]
}

#[test]
fn a_replay_writes_what_a_full_render_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let looped = tmp.path().join("loop");
    let store = tmp.path().join("store with \"quotes\", ünïcode\nand a newline");
    let store = store.to_str().unwrap();
    assert!(
        !ixgen(&looped, None, &session_args(store, "s1", "1", "4242"))
            .ok()
            .replayed()
    );
    // Every later iteration of the loop replays, whatever its values are.
    let runs = [
        (store, "s1", "2", "4242"),
        ("rel/store", "other_session", "3", "5"),
        (store, "s1", "9007199254740991", "7"),
    ];
    for (i, (store, session, iteration, pid)) in runs.into_iter().enumerate() {
        let args = session_args(store, session, iteration, pid);
        assert!(ixgen(&looped, None, &args).ok().replayed(), "iteration {i} rendered");
        // A fresh folder has no record: the full path renders the same bytes.
        let fresh = tmp.path().join(format!("fresh-{i}"));
        assert!(!ixgen(&fresh, None, &args).ok().replayed());
        assert_eq!(
            output(&looped),
            output(&fresh),
            "run {i}: the replay differs from the full render"
        );
    }
}

#[test]
fn context_values_reach_only_the_session_file() {
    // Why the record's key leaves the values out: every other file is the same for any values.
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    ixgen(&a, None, &session_args("/x/store", "one", "1", "4242")).ok();
    ixgen(&b, None, &session_args("/y/other", "two", "8", "99")).ok();
    // (The record aside: it names the manifest file it was made beside, another in each.)
    let (mut ta, mut tb) = (output(&a), output(&b));
    assert_ne!(
        ta.remove(".opencode/tool/ralph.ts"),
        tb.remove(".opencode/tool/ralph.ts")
    );
    assert_eq!(ta, tb);
}

#[test]
fn an_edited_file_is_refused_on_the_replayed_path_too() {
    let (_tmp, catalog, out) = work();
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    assert!(ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
    let tool = out.join(".opencode/tools/lookup.ts");
    let edited = format!("{}// my edit\n", std::fs::read_to_string(&tool).unwrap());
    std::fs::write(&tool, &edited).unwrap();
    let run = ixgen(&out, Some(&catalog), &GENERATE);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("lookup.ts"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&tool).unwrap(),
        edited,
        "the edit was overwritten"
    );
    // `--force` takes it back, and the run after that replays again.
    assert!(
        !ixgen(&out, Some(&catalog), &["generate", "--format", "json", "--force"])
            .ok()
            .replayed()
    );
    assert_ne!(std::fs::read_to_string(&tool).unwrap(), edited);
    // The forced write took the record away and kept none: the next run renders and keeps
    // one, and the run after it replays again.
    assert!(!ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
    assert!(ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
}

#[test]
fn a_hand_written_session_file_is_refused_on_the_replayed_path_too() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    ixgen(&out, None, &session_args("/s", "s", "1", "4242")).ok();
    let file = out.join(".opencode/tool/ralph.ts");
    std::fs::write(&file, "// my own session tools\nexport default {}\n").unwrap();
    let run = ixgen(&out, None, &session_args("/s", "s", "2", "4242"));
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("ralph loop's own session tools"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "// my own session tools\nexport default {}\n"
    );
}

/// A copy of the embedded catalog (with its icon) whose session file is `file`.
fn session_catalog(dir: &Path, file: &str) -> PathBuf {
    let folder = dir.join(format!("catalog-{file}"));
    std::fs::create_dir_all(&folder).unwrap();
    for entry in std::fs::read_dir("catalog").unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), folder.join(entry.file_name())).unwrap();
    }
    let yaml = folder.join("ix.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    assert!(text.contains("    file: ralph\n"));
    std::fs::write(&yaml, text.replace("    file: ralph\n", &format!("    file: {file}\n"))).unwrap();
    yaml
}

#[test]
fn a_session_file_is_recorded_by_its_shape_and_a_hand_written_one_is_never_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let (ralph, renamed) = (
        session_catalog(tmp.path(), "ralph"),
        session_catalog(tmp.path(), "loop"),
    );
    let args = session_args("/s", "s", "1", "4242");
    ixgen(&out, Some(&ralph), &args).ok();
    let manifest = std::fs::read_to_string(out.join(".ixgen/manifest.json")).unwrap();
    let entry = manifest
        .lines()
        .find(|l| l.contains(".opencode/tool/ralph.ts"))
        .unwrap_or_else(|| panic!("{manifest}"));
    assert!(
        entry.contains("\"shape\""),
        "the session file's entry proves it by its shape: {entry}"
    );
    // Another iteration rewrites the session file, never the manifest.
    ixgen(&out, Some(&ralph), &session_args("/s", "s", "2", "4242")).ok();
    assert_eq!(
        std::fs::read_to_string(out.join(".ixgen/manifest.json")).unwrap(),
        manifest
    );
    // The loop's own file in its place is neither overwritten nor, once the catalog renames the
    // session file, removed.
    let file = out.join(".opencode/tool/ralph.ts");
    let mine = "// my own session tools\nexport default {}\n";
    std::fs::write(&file, mine).unwrap();
    let run = ixgen(&out, Some(&renamed), &args);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("ralph.ts") && run.stderr.contains("refusing to remove"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), mine);
    assert!(
        !out.join(".opencode/tool/loop.ts").exists(),
        "a refused run writes nothing"
    );
    // Not even one marked as generated, which is not the template filled with any values.
    let marked = format!("// Generated by ixgen\n{mine}");
    std::fs::write(&file, &marked).unwrap();
    assert_eq!(ixgen(&out, Some(&renamed), &args).code, 2);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), marked);
    // The session file as ixgen wrote it, with any values, is removed.
    std::fs::remove_file(&file).unwrap();
    ixgen(&out, Some(&ralph), &session_args("/other", "t", "7", "3")).ok();
    ixgen(&out, Some(&renamed), &args).ok();
    assert!(!file.exists());
    assert!(out.join(".opencode/tool/loop.ts").exists());
}

#[test]
fn a_removed_file_comes_back() {
    let (_tmp, catalog, out) = work();
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    let before = output(&out);
    std::fs::remove_file(out.join(".opencode/tools/wipe.ts")).unwrap();
    assert!(!ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
    assert_eq!(output(&out), before);
}

/// `.ixgen/.gitignore` keeps the record (one machine's cache) out of version control: one
/// deleted is put back, though nothing else changed (replays and no-op runs once left it gone).
#[test]
fn a_removed_gitignore_comes_back() {
    let (_tmp, catalog, out) = work();
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    let ignore = out.join(".ixgen/.gitignore");
    let bytes = std::fs::read(&ignore).unwrap();
    std::fs::remove_file(&ignore).unwrap();
    assert!(!ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
    assert_eq!(std::fs::read(&ignore).unwrap(), bytes);
    assert!(ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
}

#[test]
fn another_catalog_or_other_options_render() {
    let (_tmp, catalog, out) = work();
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    let text = std::fs::read_to_string(&catalog).unwrap();
    std::fs::write(&catalog, text.replace("Wipe the cache", "Wipe the whole cache")).unwrap();
    assert!(!ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
    let wipe = std::fs::read_to_string(out.join(".opencode/tools/wipe.ts")).unwrap();
    assert!(wipe.contains("Wipe the whole cache"), "{wipe}");
    assert!(ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
    // Other options: `wipe` writes, so --read-only removes it.
    assert!(
        !ixgen(&out, Some(&catalog), &["generate", "--format", "json", "--read-only"])
            .ok()
            .replayed()
    );
    assert!(!out.join(".opencode/tools/wipe.ts").exists());
    // The same catalog under another name is another catalog (its name is in the headers).
    let renamed = catalog.with_file_name("renamed.yaml");
    std::fs::copy(&catalog, &renamed).unwrap();
    assert!(
        !ixgen(&out, Some(&renamed), &["generate", "--format", "json", "--read-only"])
            .ok()
            .replayed()
    );
    let lookup = std::fs::read_to_string(out.join(".opencode/tools/lookup.ts")).unwrap();
    assert!(lookup.contains("renamed.yaml"), "{lookup}");
}

#[test]
fn a_changed_icon_renders() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = tmp.path().join("ix.yaml");
    std::fs::copy("catalog/ix.yaml", &catalog).unwrap();
    std::fs::copy("catalog/ix-icon.png", tmp.path().join("ix-icon.png")).unwrap();
    let out = tmp.path().join("out");
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    assert!(ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
    // Still a square PNG of the same size, with other bytes.
    let mut icon = std::fs::read(tmp.path().join("ix-icon.png")).unwrap();
    icon.extend_from_slice(b"more");
    std::fs::write(tmp.path().join("ix-icon.png"), &icon).unwrap();
    assert!(!ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
    assert_eq!(std::fs::read(out.join(".claude-plugin/icon.png")).unwrap(), icon);
}

/// The replay reads the icon as the full load does: an icon that became a symlink out of the
/// catalog's folder (the same bytes) is refused, never replayed.
#[cfg(unix)]
#[test]
fn an_icon_that_leads_out_of_the_catalogs_folder_is_refused_on_the_replayed_path_too() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cat");
    std::fs::create_dir(&dir).unwrap();
    let catalog = dir.join("ix.yaml");
    std::fs::copy("catalog/ix.yaml", &catalog).unwrap();
    std::fs::copy("catalog/ix-icon.png", dir.join("ix-icon.png")).unwrap();
    let out = tmp.path().join("out");
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    std::fs::rename(dir.join("ix-icon.png"), tmp.path().join("outside.png")).unwrap();
    std::os::unix::fs::symlink("../outside.png", dir.join("ix-icon.png")).unwrap();
    let run = ixgen(&out, Some(&catalog), &GENERATE);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("leads out of the catalog's folder"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_killed_runs_temp_file_is_still_removed() {
    let (_tmp, catalog, out) = work();
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    // What a run killed while it wrote leaves: a temp file, and no record (a write removes
    // the record before it stages anything).
    let temp = out.join(".opencode/tools/.ixgen-AbC123.tmp");
    std::fs::write(&temp, "half a file").unwrap();
    std::fs::remove_file(out.join(".ixgen/run.json")).unwrap();
    let run = ixgen(&out, Some(&catalog), &GENERATE).ok();
    assert!(!run.replayed());
    assert!(run.stderr.contains(".ixgen-AbC123.tmp"), "{}", run.stderr);
    assert!(!temp.exists());
}

#[test]
fn a_write_that_changes_files_removes_the_record_first() {
    let (_tmp, catalog, out) = work();
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    let record = out.join(".ixgen/run.json");
    assert!(record.exists());
    // A forced run keeps no record; one that changes a file takes the last one away, so that
    // a record on disk always means the last write finished.
    std::fs::remove_file(out.join(".opencode/tools/lookup.ts")).unwrap();
    ixgen(&out, Some(&catalog), &["generate", "--format", "json", "--force"]).ok();
    assert!(!record.exists());
    assert!(!ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
    assert!(record.exists());
}

#[test]
fn a_killed_replays_temp_file_is_still_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let looped = tmp.path().join("loop");
    ixgen(&looped, None, &session_args("/store", "s1", "1", "4242")).ok();
    assert!(
        ixgen(&looped, None, &session_args("/store", "s1", "2", "4242"))
            .ok()
            .replayed()
    );
    // A replay killed while it replaced the session file, with the record still in place.
    let temp = looped.join(".opencode/tool/.ixgen-XyZ789.tmp");
    std::fs::write(&temp, "half a file").unwrap();
    let run = ixgen(&looped, None, &session_args("/store", "s1", "3", "4242")).ok();
    assert!(!run.replayed());
    assert!(run.stderr.contains(".ixgen-XyZ789.tmp"), "{}", run.stderr);
    assert!(!temp.exists());
}

#[test]
fn a_temp_file_of_a_killed_record_save_is_removed_as_the_dry_run_says() {
    let (_tmp, catalog, out) = work();
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    // What a run that changed no file leaves when it is killed while it saves its record
    // (through a temp file beside it): the last record, still valid, and the temp file.
    let temp = out.join(".ixgen/.ixgen-Rec0rd.tmp");
    std::fs::write(&temp, "half a record").unwrap();
    let dry = ixgen(&out, Some(&catalog), &["generate", "--format", "json", "--dry-run"]).ok();
    assert!(
        dry.stderr.contains("would remove `.ixgen/.ixgen-Rec0rd.tmp`"),
        "{}",
        dry.stderr
    );
    assert!(temp.exists());
    // The real run does what the dry run said: the full path, which removes it.
    let run = ixgen(&out, Some(&catalog), &GENERATE).ok();
    assert!(!run.replayed());
    assert!(
        run.stderr.contains("removed `.ixgen/.ixgen-Rec0rd.tmp`"),
        "{}",
        run.stderr
    );
    assert!(!temp.exists());
    // And the fast path is back for the next run.
    assert!(ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
}

#[cfg(unix)]
#[test]
fn a_symlink_in_place_of_a_file_is_refused_on_the_replayed_path_too() {
    let (tmp, catalog, out) = work();
    let victim = tmp.path().join("victim.txt");
    std::fs::write(&victim, "SECRET").unwrap();
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    let tool = out.join(".opencode/tools/lookup.ts");
    let bytes = std::fs::read(&tool).unwrap();
    std::fs::write(&victim, &bytes).unwrap(); // the symlink even leads to the right bytes
    std::fs::remove_file(&tool).unwrap();
    std::os::unix::fs::symlink(&victim, &tool).unwrap();
    let run = ixgen(&out, Some(&catalog), &GENERATE);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("symlink"), "{}", run.stderr);
    assert_eq!(std::fs::read(&victim).unwrap(), bytes);
}

#[test]
fn a_broken_record_is_replaced() {
    let (_tmp, catalog, out) = work();
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    std::fs::write(out.join(".ixgen/run.json"), "{not json").unwrap();
    assert!(!ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
    assert!(ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
}

#[test]
fn check_never_trusts_the_record() {
    // A record forged to vouch for an edited file fools nothing CI relies on.
    let (_tmp, catalog, out) = work();
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    let tool = out.join(".opencode/tools/lookup.ts");
    let old = std::fs::read(&tool).unwrap();
    let mut edited = old.clone();
    edited.extend_from_slice(b"// injected\n");
    std::fs::write(&tool, &edited).unwrap();
    // The manifest holds the file's hash, and the record holds the manifest's: forge both.
    let hex = |b: &[u8]| blake3::hash(b).to_hex().to_string();
    let manifest_path = out.join(".ixgen/manifest.json");
    let manifest = std::fs::read(&manifest_path).unwrap();
    let forged_manifest = String::from_utf8(manifest.clone())
        .unwrap()
        .replace(&hex(&old), &hex(&edited));
    assert_ne!(forged_manifest.as_bytes(), manifest.as_slice());
    std::fs::write(&manifest_path, &forged_manifest).unwrap();
    let record_path = out.join(".ixgen/run.json");
    let record = std::fs::read_to_string(&record_path).unwrap();
    let forged = record.replace(&hex(&manifest), &hex(forged_manifest.as_bytes()));
    assert_ne!(forged, record);
    std::fs::write(&record_path, forged).unwrap();
    // `check` never replays ...
    let run = ixgen(&out, Some(&catalog), &["check", "--format", "json"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("lookup.ts"), "{}", run.stdout);
    // ... and `generate` does not replay a record that names another manifest file than the
    // one on disk (rewritten since): it renders, and puts the file back.
    assert!(!ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
    assert_eq!(std::fs::read(&tool).unwrap(), old);
}

#[test]
fn a_record_that_comes_with_a_copy_of_the_tree_is_not_replayed() {
    // A record committed with the output, or copied with it, was made beside another manifest
    // file: the copy renders (and keeps its own record from then on).
    let (tmp, catalog, out) = work();
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    let copy = tmp.path().join("copy");
    for (rel, bytes) in output(&out).into_iter().chain([(
        ".ixgen/run.json".to_string(),
        std::fs::read(out.join(".ixgen/run.json")).unwrap(),
    )]) {
        std::fs::create_dir_all(copy.join(&rel).parent().unwrap()).unwrap();
        std::fs::write(copy.join(&rel), bytes).unwrap();
    }
    assert!(ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
    assert!(!ixgen(&copy, Some(&catalog), &GENERATE).ok().replayed());
    assert!(ixgen(&copy, Some(&catalog), &GENERATE).ok().replayed());
}

#[test]
fn dry_runs_and_forced_runs_render() {
    let (_tmp, catalog, out) = work();
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    assert!(
        !ixgen(&out, Some(&catalog), &["generate", "--format", "json", "--dry-run"])
            .ok()
            .replayed()
    );
    assert!(
        !ixgen(&out, Some(&catalog), &["generate", "--format", "json", "--force"])
            .ok()
            .replayed()
    );
    // Neither changed a file, so neither staged anything: the record is still there.
    assert!(out.join(".ixgen/run.json").exists());
}

#[test]
fn the_record_stays_out_of_version_control() {
    let (_tmp, catalog, out) = work();
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    assert!(out.join(".ixgen/run.json").exists());
    let ignore = std::fs::read_to_string(out.join(".ixgen/.gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "run.json"), "{ignore}");
    // The text report says when nothing was rendered.
    let text = ixgen(&out, Some(&catalog), &["generate"]).ok();
    assert!(text.stdout.contains("nothing rendered"), "{}", text.stdout);
}

#[cfg(unix)]
#[test]
fn a_symlinked_record_is_neither_read_nor_written_through() {
    let (tmp, catalog, out) = work();
    ixgen(&out, Some(&catalog), &GENERATE).ok();
    // The link leads to a copy of the real record, so reading through it would replay.
    let victim = tmp.path().join("victim.json");
    std::fs::copy(out.join(".ixgen/run.json"), &victim).unwrap();
    let before = std::fs::read(&victim).unwrap();
    std::fs::remove_file(out.join(".ixgen/run.json")).unwrap();
    std::os::unix::fs::symlink(&victim, out.join(".ixgen/run.json")).unwrap();
    // Same catalog: reading the record through the link would replay.
    assert!(!ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
    // Another catalog: a record written through the link would be replayed by the run after.
    let text = std::fs::read_to_string(&catalog).unwrap();
    std::fs::write(&catalog, text.replace("Wipe the cache", "Wipe it")).unwrap();
    assert!(!ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
    assert!(!ixgen(&out, Some(&catalog), &GENERATE).ok().replayed());
    assert_eq!(std::fs::read(&victim).unwrap(), before, "written through the link");
    assert!(
        std::fs::symlink_metadata(out.join(".ixgen/run.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_killed_runs_temp_file_beside_another_groups_file_is_still_removed() {
    // The full path looks for temp files in the folders of every file the manifest names,
    // also those of groups this run does not write (the session file of an earlier run).
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    ixgen(&out, None, &session_args("/s", "s", "1", "4242")).ok();
    let plain = ["opencode", "--format", "json"];
    ixgen(&out, None, &plain).ok();
    assert!(ixgen(&out, None, &plain).ok().replayed());
    // What a killed run leaves: the temp file, and no record.
    let temp = out.join(".opencode/tool/.ixgen-abc123.tmp");
    std::fs::write(&temp, "junk").unwrap();
    std::fs::remove_file(out.join(".ixgen/run.json")).unwrap();
    let run = ixgen(&out, None, &plain).ok();
    assert!(!run.replayed());
    assert!(!temp.exists(), "{}", run.stderr);
}

/// A catalog that warns (any large one goes over a toolset budget) keeps its record, and the
/// replay prints the same warnings, including the notes about the options, as the full run.
#[test]
fn a_run_that_warns_is_replayed_with_the_same_warnings() {
    let (_tmp, catalog, out) = work();
    let text = std::fs::read_to_string(&catalog).unwrap();
    std::fs::write(
        &catalog,
        text.replace("version: 1\n", "version: 1\nlint: {toolset_budget: 10}\n"),
    )
    .unwrap();
    // --enable-tools with --disable-tools: a note about the options.
    let args = [
        "generate",
        "--format",
        "json",
        "--enable-tools",
        "lookup",
        "--disable-tools",
        "wipe",
    ];
    let first = ixgen(&out, Some(&catalog), &args).ok();
    assert!(!first.replayed());
    assert!(first.stderr.contains("toolset-budget"), "{}", first.stderr);
    assert!(first.stderr.contains("warning: "), "{}", first.stderr);
    let again = ixgen(&out, Some(&catalog), &args).ok();
    assert!(
        again.replayed(),
        "a run that warns keeps the fast path: {}",
        again.stderr
    );
    assert_eq!(again.stderr, first.stderr);
    // The warnings belong to the key: another budget warns differently, and renders.
    std::fs::write(
        &catalog,
        text.replace("version: 1\n", "version: 1\nlint: {toolset_budget: 11}\n"),
    )
    .unwrap();
    let other = ixgen(&out, Some(&catalog), &args).ok();
    assert!(!other.replayed());
}
