//! The gate stands without the study: its crates (contract, diff, check, rules, report) depend
//! on no crate of the study's side in Cargo's graph, and `driftlab check` built from them alone
//! (the example `crates/report/examples/check.rs`) prints what the binary prints.

use crate::common::*;
use std::collections::BTreeSet;
use std::path::PathBuf;

const GATE: [&str; 5] = ["contract", "diff", "check", "rules", "report"];
const STUDY_SIDE: [&str; 7] = ["mutate", "live", "plot", "record", "proxy", "study", "lock"];

#[test]
fn the_gate_crates_depend_on_no_crate_of_the_study() {
    let graph = crate::crate_drawing::packages();
    for krate in GATE {
        let mut reached = BTreeSet::new();
        let mut todo = vec![krate.to_string()];
        while let Some(next) = todo.pop() {
            for dep in graph[&format!("driftlab-{next}")].1.clone() {
                if reached.insert(dep.clone()) {
                    todo.push(dep);
                }
            }
        }
        let study: Vec<&String> = reached
            .iter()
            .filter(|d| STUDY_SIDE.contains(&d.as_str()))
            .collect();
        assert!(study.is_empty(), "driftlab-{krate} depends on {study:?}");
        assert!(
            reached.iter().all(|d| GATE.contains(&d.as_str())),
            "driftlab-{krate} reaches {reached:?}: a new crate below the gate belongs in GATE or STUDY_SIDE"
        );
    }
}

/// `target/<profile>/examples/check`, beside the binary under test.
fn gate_example() -> PathBuf {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_driftlab"));
    binary.parent().unwrap().join("examples/check")
}

#[test]
fn check_built_from_the_gate_crates_alone_prints_what_the_binary_prints() {
    let example = gate_example();
    if !example.exists() {
        let why = format!(
            "{} is not built: `cargo build --release -p driftlab-report --example check` (a whole \
             `cargo test` builds it)",
            example.display()
        );
        assert!(
            std::env::var_os("DRIFTLAB_REQUIRE_LIVE_SERVERS").is_none(),
            "{why}, but DRIFTLAB_REQUIRE_LIVE_SERVERS is set"
        );
        return skip(&why);
    }
    let fixtures = repo().join("tests/fixtures/snapshot");
    let approved = fixtures.join("approved.json");
    let candidate = fixtures.join("candidate.json");
    let missing = fixtures.join("no-such-file.json");
    for (a, c, code) in [
        (&approved, &candidate, 1),
        (&approved, &approved, 0),
        (&candidate, &approved, 1),
    ] {
        let (a, c) = (a.to_str().unwrap(), c.to_str().unwrap());
        let alone = std::process::Command::new(&example)
            .args([a, c])
            .output()
            .unwrap();
        let whole = run(&["check", "--no-step-summary", "--approved", a, c]);
        assert_eq!(alone.status.code(), Some(code), "{}", stderr(&alone));
        assert_eq!(whole.status.code(), Some(code), "{}", stderr(&whole));
        assert_eq!(stdout(&alone), stdout(&whole), "{a} -> {c}");
    }
    let alone = std::process::Command::new(&example)
        .args([approved.to_str().unwrap(), missing.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(alone.status.code(), Some(2));
    assert!(
        stderr(&alone).contains("no-such-file.json"),
        "{}",
        stderr(&alone)
    );
}
