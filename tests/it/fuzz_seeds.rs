//! Every fuzz target's body (`driftlab::fuzz`) on its committed seeds: the bodies panic on a bug,
//! so this holds each seed to what the target checks, in every CI run, without cargo-fuzz.

use std::path::Path;

use crate::common::repo;

/// The seed files of a folder under `fuzz/`, sorted.
fn seeds(folder: &str) -> Vec<Vec<u8>> {
    let dir = repo().join("fuzz").join(folder);
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    assert!(paths.len() > 5, "{}: too few seeds", dir.display());
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// The shared seeds, each also with a first byte of 0 and 1 (the targets that pick a reader by
/// the first byte see both).
fn shared_seeds() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for seed in seeds("seeds") {
        for first in [0u8, 1] {
            let mut picked = vec![first];
            picked.extend_from_slice(&seed);
            out.push(picked);
        }
        out.push(seed);
    }
    out.push(Vec::new());
    out
}

#[test]
fn payload_and_diff_holds_on_every_seed() {
    shared_seeds()
        .iter()
        .for_each(|s| driftlab::fuzz::payload_and_diff(s));
}

#[test]
fn splice_holds_on_every_seed() {
    shared_seeds()
        .iter()
        .for_each(|s| driftlab::fuzz::splice(s));
}

#[test]
fn policy_and_spec_hold_on_every_seed() {
    shared_seeds()
        .iter()
        .for_each(|s| driftlab::fuzz::policy_and_spec(s));
}

#[test]
fn client_config_holds_on_every_seed() {
    shared_seeds()
        .iter()
        .for_each(|s| driftlab::fuzz::client_config(s));
}

#[test]
fn guard_line_holds_on_every_seed() {
    for seed in seeds("seeds-guard_line") {
        driftlab::fuzz::guard_line(&seed);
    }
}

#[test]
fn merge_holds_on_the_first_seeds() {
    // Each input runs a merge of real shards in-process: the first seeds, with each file picked.
    for seed in seeds("seeds").iter().take(6) {
        for which in [0u8, 1, 2] {
            let mut input = vec![which];
            input.extend_from_slice(seed);
            driftlab::fuzz::merge(&input);
        }
    }
    let scratch = std::env::temp_dir().join(format!("driftlab-fuzz-merge-{}", std::process::id()));
    assert!(
        Path::new(&scratch).exists(),
        "the merge body wrote no shards"
    );
    let _ = std::fs::remove_dir_all(scratch);
}
