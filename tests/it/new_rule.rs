//! `scripts/new-rule` in a scratch copy of the repository: the rule and the fixture it writes
//! compile, join the registry, and pass the rules crate's tests (the new rule fires exactly
//! where its fixture expects, and every other rule's report on every fixture is what was
//! reviewed, the new fixture's lines accepted). It runs `--rules-only`, which builds no binary:
//! the copy's crates build into this build's target directory, where the dependencies are
//! built already, so it compiles five crates, not the tree.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

const RULE: &str = "scaffold-trial";
const SNAPSHOT: &str =
    "crates/rules/src/snapshots/driftlab_rules__fixture_tests__every-rule-on-every-fixture.snap";

/// The repository's files as they are in the working tree (tracked, and new ones not ignored),
/// copied into `to`: the results folder left out (no crate's tests read it).
fn copy_tracked_files(to: &Path) {
    let repo = common::repo();
    let listed = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(&repo)
        .output()
        .expect("git ls-files");
    assert!(listed.status.success(), "git ls-files failed");
    for path in listed.stdout.split(|b| *b == 0).filter(|p| !p.is_empty()) {
        let path = Path::new(std::str::from_utf8(path).unwrap());
        if path.starts_with("results") {
            continue;
        }
        let target = to.join(path);
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        // A file deleted in the working tree but not yet in the index is not copied.
        if repo.join(path).is_file() {
            fs::copy(repo.join(path), &target).unwrap();
        }
    }
}

/// The copy's own crates built without optimisation (its dependencies stay as this build made
/// them, and are shared): what the test checks, that the rule compiles and fires exactly where
/// its fixture says, does not depend on it, and the crates compile in a fraction of the time.
fn unoptimised_workspace_crates(copy: &Path) {
    let overrides: String = [
        "driftlab-check",
        "driftlab-contract",
        "driftlab-diff",
        "driftlab-mutate",
        "driftlab-rules",
    ]
    .iter()
    .map(|name| format!("[profile.release.package.{name}]\nopt-level = 0\n"))
    .collect();
    fs::create_dir_all(copy.join(".cargo")).unwrap();
    fs::write(copy.join(".cargo/config.toml"), overrides).unwrap();
}

/// This build's target directory: the binary under test sits in `<target>/<profile>/`.
fn target_dir() -> PathBuf {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_driftlab"));
    binary.parent().unwrap().parent().unwrap().to_path_buf()
}

fn lines(path: &Path) -> BTreeSet<String> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_scaffolded_rule_compiles_fires_on_its_fixture_and_nowhere_else() {
    if Command::new("cargo").arg("--version").output().is_err() {
        return common::skip("new_rule: no cargo on PATH to build the scaffolded rule");
    }
    let scratch = tempfile::tempdir().unwrap();
    let copy = scratch.path();
    copy_tracked_files(copy);
    unoptimised_workspace_crates(copy);
    let snapshot_before = lines(&copy.join(SNAPSHOT));

    let mut script = Command::new("bash");
    script
        .args(["scripts/new-rule", "--rules-only", RULE])
        .current_dir(copy)
        .env("CARGO_TARGET_DIR", target_dir());
    // The outer test run's own settings are not the script's.
    for (key, _) in std::env::vars() {
        if key.starts_with("INSTA_") {
            script.env_remove(key);
        }
    }
    let run = script.output().unwrap();
    assert!(
        run.status.success(),
        "scripts/new-rule --rules-only {RULE} failed:\n{}\n{}",
        common::stdout(&run),
        common::stderr(&run)
    );

    // It wrote the rule, its line in the registry's table, and its fixture.
    let rule = fs::read_to_string(copy.join("crates/rules/src/scaffold_trial.rs")).unwrap();
    assert!(rule.contains("\"scaffold-trial\"") && rule.contains("pub struct ScaffoldTrial"));
    let table = fs::read_to_string(copy.join("crates/rules/src/lib.rs")).unwrap();
    assert!(
        table.contains("    scaffold_trial::{ScaffoldTrial},\n}"),
        "its line is last"
    );
    let fixture = common::read_json(&copy.join("tests/fixtures/rules/scaffold-trial.json"));
    assert_eq!(fixture["expect"][0]["rule"], RULE);

    // Every line the snapshot gained names the new fixture (what other rules report on it) or
    // the new rule (what it reports on theirs); no line was lost.
    let snapshot_after = lines(&copy.join(SNAPSHOT));
    assert!(
        snapshot_before.is_subset(&snapshot_after),
        "{:?}",
        snapshot_before
            .difference(&snapshot_after)
            .collect::<Vec<_>>()
    );
    for gained in snapshot_after.difference(&snapshot_before) {
        assert!(
            gained.starts_with("scaffold-trial: ") || gained.contains(": scaffold-trial at "),
            "the scaffold changed another fixture's line: {gained}"
        );
    }
    // And the scaffold leaves the real repository alone.
    assert!(!common::repo()
        .join("crates/rules/src/scaffold_trial.rs")
        .exists());
}
