//! A results folder changes as a whole or not at all: interrupted, killed and refused runs
//! leave the old results intact and nothing beside them.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::*;

/// Every file of a folder with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Starts a study far too long to finish, rewriting `r` with --force, and waits until it has
/// written into its staging folder (the two-minute deadline guards against a hang; nothing
/// asserts how long it takes).
// The caller signals and waits for the child it gets back.
#[allow(clippy::zombie_processes)]
fn start_long_rewrite(dir: &Path) -> Child {
    let mut child = driftlab()
        .current_dir(dir)
        .args([
            "study",
            "--quiet",
            "--surfaces",
            "100000000",
            "--out",
            "r",
            "--force",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let staging: Vec<_> = entries(dir)
            .into_iter()
            .filter(|n| n.starts_with(".driftlab-tmp-r-"))
            .collect();
        let writing = staging
            .iter()
            .any(|s| fs::read_dir(dir.join(s)).is_ok_and(|mut d| d.next().is_some()));
        if writing {
            return child;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the run never started writing");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, signal: i32) {
    // SAFETY: kill(2) on our own child; no memory is shared.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
}

fn small_study(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["study", "--quiet", "--surfaces", "5", "--out", "r"];
    args.extend_from_slice(extra);
    run_in(dir, &args, None)
}

#[test]
fn a_terminated_rerun_leaves_the_old_results_and_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    assert!(small_study(dir.path(), &[]).status.success());
    let before = snapshot(&dir.path().join("r"));

    for (sig, code) in [(libc::SIGTERM, 143), (libc::SIGINT, 130)] {
        let mut child = start_long_rewrite(dir.path());
        signal(&child, sig);
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "signal {sig}");
        assert_eq!(entries(dir.path()), ["r"], "staging folder removed");
        assert_eq!(
            snapshot(&dir.path().join("r")),
            before,
            "old results intact"
        );
    }
}

#[test]
fn a_killed_run_leaves_the_old_results_and_the_next_run_clears_its_leftovers() {
    let dir = tempfile::tempdir().unwrap();
    assert!(small_study(dir.path(), &[]).status.success());
    let before = snapshot(&dir.path().join("r"));

    let mut child = start_long_rewrite(dir.path());
    signal(&child, libc::SIGKILL);
    child.wait().unwrap();
    assert_eq!(
        snapshot(&dir.path().join("r")),
        before,
        "old results intact"
    );
    assert_eq!(
        entries(dir.path()).len(),
        2,
        "kill -9 leaves its staging folder"
    );

    // The same command as before works (the folder is still recognised) and clears it.
    let output = small_study(dir.path(), &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(entries(dir.path()), ["r"]);
}

#[test]
fn fewer_rows_over_a_complete_result_are_refused_without_force() {
    let dir = tempfile::tempdir().unwrap();
    assert!(small_study(dir.path(), &[]).status.success());
    let before = snapshot(&dir.path().join("r"));
    for rows in ["none", "missed"] {
        let output = small_study(dir.path(), &["--rows", rows]);
        assert_eq!(output.status.code(), Some(2));
        assert!(
            stderr(&output).contains(&format!("--rows {rows} would discard them")),
            "{}",
            stderr(&output)
        );
        assert_eq!(snapshot(&dir.path().join("r")), before);
    }
    let output = small_study(dir.path(), &["--rows", "none", "--force"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!dir.path().join("r/rows.csv").exists());
    // More evidence over less needs no --force.
    assert!(small_study(dir.path(), &[]).status.success());
    assert!(dir.path().join("r/rows.csv").exists());
}

#[test]
fn a_sweep_never_replaces_a_study_folder_without_force() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(
        repo().join("examples/sweep.toml"),
        dir.path().join("sweep.toml"),
    )
    .unwrap();
    assert!(small_study(dir.path(), &[]).status.success());
    let before = snapshot(&dir.path().join("r"));
    let output = run_in(
        dir.path(),
        &["sweep", "sweep.toml", "--out", "r", "-q"],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("holds a study's results, not a sweep"),
        "{}",
        stderr(&output)
    );
    assert_eq!(snapshot(&dir.path().join("r")), before);

    // A folder of other files is refused too; an earlier sweep of the same spec is replaced.
    fs::create_dir(dir.path().join("mine")).unwrap();
    fs::write(dir.path().join("mine/notes.txt"), "keep").unwrap();
    let output = run_in(
        dir.path(),
        &["sweep", "sweep.toml", "--out", "mine", "-q"],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(dir.path().join("mine/notes.txt").exists());
    for _ in 0..2 {
        let output = run_in(
            dir.path(),
            &["sweep", "sweep.toml", "--out", "s", "-q"],
            None,
        );
        assert!(output.status.success(), "{}", stderr(&output));
    }
}

/// The folders `scan --corpus`, `guard-study` and `stack-study` write have a manifest too:
/// `verify` checks the committed ones, and names a file edited in a copy.
#[test]
fn verify_checks_the_folders_of_the_other_study_commands() {
    let folders = [
        "2026-11-30-output-contracts",
        "2026-11-30-silent-failures",
        "2026-12-03-six-stacks",
    ];
    let paths: Vec<String> = folders
        .iter()
        .map(|f| repo().join("results").join(f).display().to_string())
        .collect();
    let mut args = vec!["verify"];
    args.extend(paths.iter().map(String::as_str));
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    // Each folder's files: the CSVs, summary.json, report.md and each figure's three versions
    // (SVG and PNG); the six-stack study draws two figures; the scan study's four live reports,
    // kept in its folder, are pinned too.
    for (folder, files) in folders.iter().zip([14, 10, 16]) {
        let line = format!("{folder}: {files} files match manifest.json");
        assert!(
            stdout(&output).contains(&line),
            "{line}\n{}",
            stdout(&output)
        );
    }
    let copy = tempfile::tempdir().unwrap();
    let dir = copy.path().join(folders[1]);
    std::fs::create_dir(&dir).unwrap();
    for entry in std::fs::read_dir(repo().join("results").join(folders[1])).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
    }
    let mut report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    report.push_str("\nedited\n");
    std::fs::write(dir.join("report.md"), report).unwrap();
    let edited = run(&["verify", dir.to_str().unwrap()]);
    assert_eq!(edited.status.code(), Some(1), "{}", stdout(&edited));
    assert!(
        stdout(&edited).contains("report.md: pinned sha256"),
        "{}",
        stdout(&edited)
    );
}

/// A regenerated file that differs from its committed copy is shown where it parts.
#[test]
fn a_golden_mismatch_shows_the_first_differing_lines() {
    let shown = common::first_differences(b"a\nb\nc\nd\n", b"a\nb\nX\nd\n");
    assert!(shown.contains("line 3"), "{shown}");
    assert!(
        shown.contains("    c\n") && shown.contains("    X\n"),
        "{shown}"
    );
    let longer = common::first_differences(b"a\n", b"a\nmore\n");
    assert!(
        longer.contains("line 2") && longer.contains("    more"),
        "{longer}"
    );
    let binary = common::first_differences(&[0xff, 0], &[0xff]);
    assert!(
        binary.contains("2 bytes committed, 1 regenerated"),
        "{binary}"
    );
}
