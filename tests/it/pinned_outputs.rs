//! Whole outputs pinned (insta): `check` in every `--format` on one fixed pair
//! (`tests/fixtures/snapshot/`, the pair docs/gate.md shows), and `--help` of every command. A
//! change to any of them fails here until its new snapshot is reviewed and committed
//! (`INSTA_UPDATE=always cargo test --release --test it pinned_outputs`, then `git diff`).

use std::process::Output;

use crate::common::*;

const APPROVED: &str = "tests/fixtures/snapshot/approved.json";
const CANDIDATE: &str = "tests/fixtures/snapshot/candidate.json";

/// `driftlab ARGS` from the repository's root, with none of the CI variables that add to a
/// gate's output.
fn run_here(args: &[&str]) -> Output {
    driftlab()
        .current_dir(repo())
        .args(args)
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_OUTPUT")
        .env_remove("GITHUB_WORKSPACE")
        .env_remove("NO_COLOR")
        .output()
        .expect("binary runs")
}

/// The values `--format` of `check` takes, read off its help.
fn check_formats() -> Vec<String> {
    let help = stdout(&run_here(&["check", "--help"]));
    let values = help
        .split("--format <FORMAT>")
        .nth(1)
        .and_then(|rest| rest.split("[default:").next())
        .expect("check --help describes --format");
    values
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .map(|line| line.split(':').next().unwrap().to_string())
        .collect()
}

#[test]
fn check_prints_the_same_whole_output_in_every_format() {
    let formats = check_formats();
    assert_eq!(
        formats,
        ["text", "json", "markdown", "sarif", "github", "junit"],
        "a format was added or removed: pin it here and list it in docs/gate.md and the README"
    );
    for format in &formats {
        let output = run_here(&[
            "check",
            "--approved",
            APPROVED,
            CANDIDATE,
            "--format",
            format,
        ]);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{format}: {}",
            stderr(&output)
        );
        insta::assert_snapshot!(format!("check-{format}"), stdout(&output));
    }
}

#[test]
fn the_docs_list_every_check_format() {
    let formats = check_formats();
    let gate = std::fs::read_to_string(repo().join("docs/gate.md")).unwrap();
    assert!(
        gate.contains(&format!("| `--format {}` |", formats.join("\\|"))),
        "docs/gate.md's --format row does not list {formats:?}"
    );
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let said = "Output as text,\nJSON, Markdown, JUnit, GitHub annotations or SARIF";
    assert!(
        readme.contains(said),
        "the README's list of formats moved or changed"
    );
    let names = [
        "text",
        "JSON",
        "Markdown",
        "SARIF",
        "GitHub annotations",
        "JUnit",
    ];
    assert_eq!(names.len(), formats.len(), "the README names each format");
    assert!(names.iter().all(|name| said.contains(name)));
}

/// Every command and subcommand, as the help lists them: `["check"]`, `["guard", "install"]`.
fn commands(path: &[String]) -> Vec<Vec<String>> {
    let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
    args.push("--help");
    let help = stdout(&run_here(&args));
    let Some(listed) = help.split("\nCommands:\n").nth(1) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for line in listed.lines().take_while(|line| line.starts_with("  ")) {
        let name = line.split_whitespace().next().unwrap().to_string();
        if name == "help" {
            continue;
        }
        let mut command = path.to_vec();
        command.push(name);
        found.extend(commands(&command));
        found.push(command);
    }
    found
}

#[test]
fn every_command_prints_the_same_help() {
    let all = commands(&[]);
    assert!(all.len() >= 20, "{all:?}");
    insta::assert_snapshot!("help", stdout(&run_here(&["--help"])));
    for command in all {
        let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
        args.push("--help");
        let output = run_here(&args);
        assert!(output.status.success(), "{command:?}: {}", stderr(&output));
        insta::assert_snapshot!(format!("help-{}", command.join("-")), stdout(&output));
    }
}
