//! `driftlab sweep`: one row per configuration, spreads across seeds, deterministic bytes.

use crate::common;

use std::fs;

use common::*;

#[test]
fn sweep_writes_a_row_per_configuration_and_spreads_across_seeds() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fs::read_to_string(repo().join("examples/sweep.toml"))
        .unwrap()
        .replace("surfaces = [240, 1000]", "surfaces = [30, 70]");
    fs::write(dir.path().join("sweep.toml"), spec).unwrap();
    let mut outputs = Vec::new();
    for out in ["a", "b"] {
        let output = run_in(
            dir.path(),
            &["sweep", "sweep.toml", "--out", out, "-q"],
            Some(if out == "a" { 1 } else { 2 }),
        );
        assert!(output.status.success(), "{}", stderr(&output));
        outputs.push(fs::read(dir.path().join(out).join("sweep-summary.json")).unwrap());
        let csv = fs::read_to_string(dir.path().join(out).join("sweep.csv")).unwrap();
        assert_eq!(
            csv.lines().next().unwrap(),
            "seed,surfaces,gate,mutation,detected,total,rate"
        );
        // 3 seeds x 2 sizes x (5 classes + control) x 2 gates
        assert_eq!(csv.lines().count() - 1, 3 * 2 * 6 * 2);
        assert!(
            csv.contains("\n2,70,structural,tools-reordered,0,70,0.0\n"),
            "{csv}"
        );
    }
    assert_eq!(
        outputs[0], outputs[1],
        "sweep output depends on thread count"
    );
    // The manifest is deterministic too (the run's record is in run.json), names the rule set
    // and the code that wrote it.
    let manifest = |out: &str| fs::read(dir.path().join(out).join("manifest.json")).unwrap();
    assert_eq!(manifest("a"), manifest("b"));
    let a: serde_json::Value = serde_json::from_slice(&manifest("a")).unwrap();
    assert_eq!(a["rule_set"], driftlab_check::check::rules::sets::latest());
    assert!(a.get("run").is_none() && a.get("started_at").is_none());
    assert_eq!(a["code"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(a["inputs"]["spec"], "sweep.toml");
    let run: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.path().join("b/run.json")).unwrap()).unwrap();
    assert_eq!(run["threads"], 2);
    let spreads: serde_json::Value = serde_json::from_slice(&outputs[0]).unwrap();
    let spreads = spreads.as_array().unwrap();
    assert_eq!(spreads.len(), 2 * 6 * 2);
    for s in spreads {
        assert_eq!(s["configurations"], 3);
        let expected = if s["mutation"] == "identity"
            || (s["gate"] == "structural" && s["mutation"] == "tools-reordered")
        {
            0.0
        } else {
            1.0
        };
        assert_eq!(s["mean_rate"], expected, "{s}");
        assert_eq!(s["sd_rate"], 0.0);
    }
}

#[test]
fn a_spec_without_a_sweep_section_is_refused() {
    let output = run(&[
        "sweep",
        repo()
            .join("research/mcp-contract-drift-2026-08-22/study.toml")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no [sweep] section"));
}
