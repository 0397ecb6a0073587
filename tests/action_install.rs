//! The GitHub Action's install step (`scripts/action-install.sh`, run by `action.yml`): a release
//! tag gets the released binary, checksum verified; a tampered archive is refused; a ref with
//! no release builds the action's checkout with cargo, and a cached build of the same sources is
//! used as it is. The release is a folder served over `file://` (IXGEN_RELEASE_BASE), made by
//! `scripts/dist.mjs` from the tested binary; `cargo` is a stand-in that records its arguments,
//! so the build path is checked without a second fat-LTO build (tests/install.rs builds for real).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const VERSION: &str = env!("CARGO_PKG_VERSION");

struct Release {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    archive: PathBuf,
}

/// A release folder `<base>/v<VERSION>/` holding the archive and checksum dist.mjs makes.
fn release() -> Release {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dist");
    let o = Command::new("node")
        .arg(support::root().join("scripts/dist.mjs"))
        .args(["--binary", env!("CARGO_BIN_EXE_ixgen"), "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let archive = PathBuf::from(report["archive"].as_str().unwrap());
    let base = tmp.path().join("releases");
    let tag = base.join(format!("v{VERSION}"));
    std::fs::create_dir_all(&tag).unwrap();
    let name = archive.file_name().unwrap().to_str().unwrap().to_owned();
    std::fs::copy(&archive, tag.join(&name)).unwrap();
    std::fs::copy(out.join(format!("{name}.sha256")), tag.join(format!("{name}.sha256"))).unwrap();
    Release {
        archive: tag.join(name),
        base,
        _tmp: tmp,
    }
}

/// Runs the install script with `cargo` replaced by a stand-in that logs its arguments to
/// `<root>/cargo.log` and installs the tested binary where `--root` says.
fn install(root: &Path, action_ref: &str, base: &Path) -> Output {
    let fake = root.with_extension("fakebin");
    std::fs::create_dir_all(&fake).unwrap();
    let cargo = fake.join("cargo");
    std::fs::write(
        &cargo,
        format!(
            "#!/bin/sh\necho \"$@\" >> '{log}'\nwhile [ $# -gt 0 ]; do [ \"$1\" = --root ] && r=$2; shift; done\nmkdir -p \"$r/bin\" && cp '{bin}' \"$r/bin/ixgen\"\n",
            log = root.with_extension("cargo.log").display(),
            bin = env!("CARGO_BIN_EXE_ixgen"),
        ),
    )
    .unwrap();
    std::fs::set_permissions(&cargo, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", fake.display(), std::env::var("PATH").unwrap());
    Command::new(support::root().join("scripts/action-install.sh"))
        .env("IXGEN_ROOT", root)
        .env("ACTION_PATH", support::root())
        .env("ACTION_REF", action_ref)
        .env("ACTION_REPOSITORY", "ixgen/ixgen")
        .env("IXGEN_RELEASE_BASE", format!("file://{}", base.display()))
        .env("PATH", path)
        .output()
        .unwrap()
}

fn cargo_calls(root: &Path) -> String {
    std::fs::read_to_string(root.with_extension("cargo.log")).unwrap_or_default()
}

fn said(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn a_release_tag_installs_the_released_binary_after_checking_its_sum() {
    let rel = release();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ixgen");
    let o = install(&root, &format!("v{VERSION}"), &rel.base);
    assert!(o.status.success(), "{}", said(&o));
    assert!(said(&o).contains("installed the released binary"), "{}", said(&o));
    assert_eq!(cargo_calls(&root), "", "nothing is built when a release exists");
    let installed = std::fs::read(root.join("bin/ixgen")).unwrap();
    assert_eq!(installed, std::fs::read(env!("CARGO_BIN_EXE_ixgen")).unwrap());
}

#[test]
fn a_tampered_release_archive_is_refused_and_nothing_is_installed() {
    let rel = release();
    let mut bytes = std::fs::read(&rel.archive).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&rel.archive, bytes).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ixgen");
    let o = install(&root, &format!("v{VERSION}"), &rel.base);
    assert_eq!(o.status.code(), Some(1), "{}", said(&o));
    assert!(
        said(&o).contains("::error::") && said(&o).contains("sha256"),
        "{}",
        said(&o)
    );
    assert!(!root.join("bin/ixgen").exists());
    assert_eq!(cargo_calls(&root), "", "a bad sum is not built around");
}

#[test]
fn a_branch_builds_the_checkout_once_and_reuses_the_cached_build() {
    let rel = release();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ixgen");
    for (i, action_ref) in ["main", "v99.0.0"].iter().enumerate() {
        // v99.0.0 has no release folder: it falls back to the build, which the first run cached.
        let o = install(&root, action_ref, &rel.base);
        assert!(o.status.success(), "{}", said(&o));
        let calls = cargo_calls(&root);
        assert_eq!(
            calls.lines().count(),
            1,
            "built once, then reused:\n{calls}\n{}",
            said(&o)
        );
        if i == 1 {
            assert!(
                said(&o).contains("no released") && said(&o).contains("cached build"),
                "{}",
                said(&o)
            );
        }
    }
    let calls = cargo_calls(&root);
    assert!(
        calls.starts_with("install --locked --quiet --profile dist --force --path ") && calls.contains("--root"),
        "{calls}"
    );
    assert!(root.join("bin/ixgen").exists());
}
