//! `scripts/install.sh`, the install a ralph loop is told to use (README, "Speed"): on Linux
//! with glibc it links statically, a build no other test runs. It must install a binary that
//! writes exactly what the tested build writes, replays a loop's iterations like it, and is
//! what the script says it is.

mod support;

use assert_cmd::Command;
use std::path::Path;
use support::{root, tree};

const PT_INTERP: u32 = 3;
const ET_EXEC: u16 = 2;

/// The `p_type` of each program header of a 64-bit little-endian ELF file.
fn program_types(elf: &[u8]) -> Vec<u32> {
    assert_eq!((elf[4], elf[5]), (2, 1), "not a 64-bit little-endian ELF file");
    let u16_at = |at: usize| u16::from_le_bytes([elf[at], elf[at + 1]]) as usize;
    let phoff = u64::from_le_bytes(elf[0x20..0x28].try_into().unwrap()) as usize;
    let (size, count) = (u16_at(0x36), u16_at(0x38));
    (0..count)
        .map(|i| {
            let at = phoff + i * size;
            u32::from_le_bytes(elf[at..at + 4].try_into().unwrap())
        })
        .collect()
}

fn run(bin: &Path, out: &Path, args: &[&str]) -> serde_json::Value {
    let o = Command::new(bin)
        .env("NO_COLOR", "1")
        .arg("--out")
        .arg(out)
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{}: {stderr}", bin.display());
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"))
}

#[test]
fn the_installed_binary_writes_and_replays_what_the_tested_build_does() {
    let tmp = tempfile::tempdir().unwrap();
    let install = tmp.path().join("install");
    // A debug build: the release profile's link-time optimisation would take minutes.
    let status = std::process::Command::new(root().join("scripts/install.sh"))
        .args(["--quiet", "--debug", "--root"])
        .arg(&install)
        .status()
        .expect("scripts/install.sh runs");
    assert!(status.success(), "scripts/install.sh failed");
    let installed = install.join("bin/ixgen");
    let tested = assert_cmd::cargo::cargo_bin("ixgen");

    if cfg!(all(target_os = "linux", target_env = "gnu")) {
        let elf = std::fs::read(&installed).unwrap();
        assert_eq!(&elf[..4], b"\x7fELF");
        // No program interpreter (`PT_INTERP`): nothing for the dynamic loader to map at
        // start-up. Not position-independent (`ET_EXEC`): no relative relocations at start-up
        // either (scripts/install.sh says why).
        assert!(
            !program_types(&elf).contains(&PT_INTERP),
            "scripts/install.sh installed a dynamically linked binary"
        );
        assert_eq!(
            u16::from_le_bytes([elf[16], elf[17]]),
            ET_EXEC,
            "a position-independent executable, relocated at every start"
        );
    }

    let session = |n: &'static str| {
        vec![
            "opencode",
            "--session",
            "install-test",
            "--store",
            "/store",
            "--pid",
            "4242",
            "--iteration",
            n,
        ]
    };
    for (name, bin) in [("installed", &installed), ("tested", &tested)] {
        let out = tmp.path().join(name);
        run(bin, &out, &["generate"]);
        let first = run(bin, &out, &session("1"));
        assert_eq!(first["replayed"], false, "{name}: {first}");
        let next = run(bin, &out, &session("2"));
        assert_eq!(next["replayed"], true, "{name}: {next}");
    }
    let (mut a, mut b) = (tree(&tmp.path().join("installed")), tree(&tmp.path().join("tested")));
    // The run record names the build that wrote it.
    a.remove(".ixgen/run.json");
    b.remove(".ixgen/run.json");
    assert!(a.contains_key(".opencode/tool/ralph.ts"));
    assert_eq!(a, b, "the installed binary wrote other files than the tested build");
}

/// The README's cargo install line, `cargo install --locked [--profile dist] --git <repository>`, on a clone of
/// this repository's committed HEAD (a `file://` URL in place of the public one): the lockfile
/// and the crate's files are enough to build it.
#[test]
fn cargo_install_from_the_repository_builds_a_working_ixgen() {
    let tmp = tempfile::tempdir().unwrap();
    let install = tmp.path().join("install");
    // A debug build, in a target folder of its own: a release build would take minutes more.
    let status = std::process::Command::new("cargo")
        .args(["install", "--locked", "--quiet", "--debug", "--git"])
        .arg(format!("file://{}", root().display()))
        .arg("--root")
        .arg(&install)
        .arg("ixgen")
        .env("CARGO_TARGET_DIR", tmp.path().join("target"))
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo install --git failed");
    let out = tmp.path().join("out");
    let report = run(&install.join("bin/ixgen"), &out, &["generate"]);
    assert!(report.to_string().contains("tools.json"), "{report}");
    assert!(out.join("opencode.json").is_file());
}
