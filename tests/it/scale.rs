//! Streaming, row modes, sharding and merging: the same bytes however the work is cut.

use crate::common;

use std::fs;
use std::path::Path;

use common::*;
use driftlab_record::Row;
use driftlab_study::study::runner::{run_range, RowsMode, RunError};
use driftlab_study::study::Study;

const FILES: &[&str] = &[
    "rows.csv",
    "summary.csv",
    "summary.json",
    "report.md",
    "detection-chart.svg",
    "detection-matrix.svg",
];

fn study(dir: &Path, args: &[&str]) {
    let mut all = vec!["study", "--quiet", "--surfaces", "2100"];
    all.extend_from_slice(args);
    let output = run_in(dir, &all, None);
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn sharded_and_merged_results_equal_the_unsharded_run_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    study(dir.path(), &["--out", "full"]);
    for k in 1..=3 {
        study(
            dir.path(),
            &["--shard", &format!("{k}/3"), "--out", &format!("shard{k}")],
        );
    }
    // Shards in any order.
    let output = run_in(
        dir.path(),
        &["merge", "shard2", "shard3", "shard1", "-o", "merged", "-q"],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    for name in FILES {
        let a = fs::read(dir.path().join("full").join(name)).unwrap();
        let b = fs::read(dir.path().join("merged").join(name)).unwrap();
        assert!(
            a == b,
            "{name} differs between the unsharded and the merged run"
        );
    }
    assert!(
        fs::read(dir.path().join("full/manifest.json")).unwrap()
            == fs::read(dir.path().join("merged/manifest.json")).unwrap(),
        "manifest.json differs between the unsharded and the merged run"
    );
    let shard = read_json(&dir.path().join("shard2/summary.json"));
    assert_eq!(shard["shard"]["first"], 700);
    assert_eq!(shard["shard"]["end"], 1400);
    assert!(!dir.path().join("shard2/report.md").exists());
}

#[test]
fn merge_refuses_an_incomplete_or_mixed_set() {
    let dir = tempfile::tempdir().unwrap();
    study(dir.path(), &["--shard", "1/2", "--out", "a"]);
    let output = run_in(dir.path(), &["merge", "a", "-o", "m"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .contains("need each of shards 1/2 to 2/2 exactly once; got 1/2 (missing 2/2)"),
        "{}",
        stderr(&output)
    );
    study(dir.path(), &["--shard", "2/2", "--seed", "9", "--out", "b"]);
    let output = run_in(dir.path(), &["merge", "a", "b", "-o", "m"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("shards of different studies"));
    for bad in ["0/2", "3/2", "x", "1/0"] {
        let output = run_in(dir.path(), &["study", "--shard", bad], None);
        assert_eq!(output.status.code(), Some(2), "{bad}");
    }
}

#[test]
fn streamed_rows_equal_a_surface_by_surface_reference() {
    let dir = tempfile::tempdir().unwrap();
    study(dir.path(), &["--out", "streamed"]);
    // Reference: one surface at a time, in order, serialized in memory.
    let mut study = Study::default_study();
    study.spec.surfaces = 2100;
    let mut reference = csv::Writer::from_writer(Vec::new());
    for i in 0..2100 {
        run_range(
            &study,
            i..i + 1,
            RowsMode::All,
            |rows: &[Row]| {
                for row in rows {
                    reference.serialize(row).unwrap();
                }
                Ok::<(), RunError>(())
            },
            &|_| {},
        )
        .unwrap();
    }
    let reference = reference.into_inner().unwrap();
    assert!(fs::read(dir.path().join("streamed/rows.csv")).unwrap() == reference);
}

#[test]
fn rows_missed_holds_exactly_the_undetected_rows_and_none_writes_no_rows() {
    let dir = tempfile::tempdir().unwrap();
    study(dir.path(), &["--out", "all"]);
    study(dir.path(), &["--out", "missed", "--rows", "missed"]);
    let all = fs::read_to_string(dir.path().join("all/rows.csv")).unwrap();
    let missed = fs::read_to_string(dir.path().join("missed/rows.csv")).unwrap();
    let mut expected: Vec<&str> = vec![all.lines().next().unwrap()];
    expected.extend(all.lines().skip(1).filter(|line| {
        let fields: Vec<&str> = line.split(',').collect();
        // surface,base,mutation,applicable,...
        fields[2] != "identity" && fields[3] == "true" && line.contains(",false,,0,")
    }));
    assert!(
        missed.lines().eq(expected.iter().copied()),
        "rows.csv with --rows missed is not the undetected rows"
    );
    // The structural gate misses every reorder: 2100 rows.
    assert_eq!(expected.len() - 1, 2100);
    for line in &expected[1..] {
        assert!(
            line.contains(",tools-reordered,") && line.contains(",structural,false,"),
            "{line}"
        );
    }
    // Summaries are complete whatever the rows mode.
    assert_eq!(
        fs::read(dir.path().join("all/summary.json")).unwrap(),
        fs::read(dir.path().join("missed/summary.json")).unwrap()
    );
    // Fewer rows over a complete result needs --force (tests/it/results_folder.rs).
    study(dir.path(), &["--out", "all", "--rows", "none", "--force"]);
    assert!(
        !dir.path().join("all/rows.csv").exists(),
        "a stale rows.csv must not survive --rows none"
    );
    let manifest = read_json(&dir.path().join("all/manifest.json"));
    assert_eq!(manifest["rows"], "none");
    assert!(manifest["files"].get("rows.csv").is_none());
    assert!(fs::read_to_string(dir.path().join("all/report.md"))
        .unwrap()
        .contains("`rows.csv` was not written (`--rows none`)"));
}

#[test]
fn edited_evidence_is_detected_by_verify_merge_and_figures() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["--shard", "1/2", "--out", "a"][..],
        &["--shard", "2/2", "--out", "b"],
        &["--out", "whole"],
    ] {
        let mut all = vec!["study", "--quiet", "--surfaces", "40"];
        all.extend_from_slice(args);
        let output = run_in(dir.path(), &all, None);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let output = run_in(dir.path(), &["verify", "a", "b", "whole"], None);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // A folder without a manifest is skipped with a line, and the others are still checked;
    // alone, nothing was verified (exit 2).
    fs::create_dir(dir.path().join("plain")).unwrap();
    let output = run_in(dir.path(), &["verify", "plain", "a"], None);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("SKIPPED plain: no manifest.json")
            && stdout(&output).contains("OK      a:"),
        "{}",
        stdout(&output)
    );
    let output = run_in(dir.path(), &["verify", "plain"], None);
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    // One changed byte in a shard's rows.csv: verify says which file; merge refuses it.
    let rows = dir.path().join("b/rows.csv");
    let mut bytes = std::fs::read(&rows).unwrap();
    let last = bytes.len() - 2;
    bytes[last] ^= 1;
    std::fs::write(&rows, bytes).unwrap();
    let output = run_in(dir.path(), &["verify", "a", "b"], None);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).contains("EDITED  b") && stdout(&output).contains("rows.csv"),
        "{}",
        stdout(&output)
    );
    let output = run_in(dir.path(), &["merge", "a", "b", "-o", "m"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("rows.csv: does not match its manifest.json"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.path().join("m").exists());
    // A folder whose report cannot be written (no manifest) is a failure, not exit 0.
    fs::create_dir(dir.path().join("lone")).unwrap();
    fs::copy(
        dir.path().join("whole/summary.json"),
        dir.path().join("lone/summary.json"),
    )
    .unwrap();
    let output = run_in(dir.path(), &["figures", "lone"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("report.md not written"),
        "{}",
        stderr(&output)
    );
    // Another command's summary (a guard study's) gets a line that says what figures draws.
    fs::write(dir.path().join("plain/summary.json"), r#"{"cells": {}}"#).unwrap();
    let output = run_in(dir.path(), &["figures", "plain"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("not the summary of a `driftlab study` folder"),
        "{}",
        stderr(&output)
    );
    // A doctored summary is not drawn.
    let summary = dir.path().join("whole/summary.json");
    let text = std::fs::read_to_string(&summary).unwrap().replacen(
        "\"detected\": 1",
        "\"detected\": 2",
        1,
    );
    std::fs::write(&summary, text).unwrap();
    let output = run_in(dir.path(), &["figures", "whole"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("the folder was edited"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn two_writers_of_one_folder_are_serialised_by_its_lock() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    fs::create_dir(&out).unwrap();
    // Hold the folder's lock as a running study would.
    let _held = driftlab_study::study::results::staging::lock(&out).unwrap();
    let output = run_in(
        dir.path(),
        &["study", "--quiet", "--surfaces", "5", "--out", "r"],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("another driftlab is writing"),
        "{}",
        stderr(&output)
    );
    assert!(!out.join("rows.csv").exists());
    drop(_held);
    let output = run_in(
        dir.path(),
        &["study", "--quiet", "--surfaces", "5", "--out", "r"],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
}
