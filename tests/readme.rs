//! What the README promises a new user: its first lines are the two set-up commands, and its
//! catalog example is a valid catalog that generates.

use assert_cmd::Command;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

#[test]
fn the_readme_opens_with_the_two_set_up_commands() {
    let text = readme();
    let commands: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "```sh")
        .skip(1)
        .take_while(|l| *l != "```")
        .collect();
    assert_eq!(commands.len(), 2, "{commands:?}");
    assert!(
        commands[0].starts_with("cargo run --release -- --out demo generate "),
        "{}",
        commands[0]
    );
    assert!(commands[1].starts_with("cargo test "), "{}", commands[1]);
}

#[test]
fn the_readme_catalog_example_validates_strictly_and_generates() {
    let text = readme();
    let start = text.find("```yaml\nversion: 1\n").expect("the catalog example") + "```yaml\n".len();
    let example = &text[start..start + text[start..].find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog.yaml");
    std::fs::write(&catalog, example).unwrap();
    let ixgen = || {
        let mut c = Command::cargo_bin("ixgen").unwrap();
        c.env("NO_COLOR", "1").arg("--catalog").arg(&catalog);
        c
    };
    ixgen().args(["validate", "--strict"]).assert().success();
    let out = dir.path().join("out");
    ixgen().arg("--out").arg(&out).arg("generate").assert().success();
    assert!(out.join(".opencode/tools/ix_locate.ts").is_file());
    assert!(out.join("mcp/tools.json").is_file());
}
