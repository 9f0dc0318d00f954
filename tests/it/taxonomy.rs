//! The drift taxonomy study: every class lands where its label says, on synthetic and real
//! bases, and each emulated strategy shows the blind spots it is documented to have. The
//! whole-contract study does the same for the classes beyond tools. Assertions
//! read the committed summaries, which `committed_results_are_regenerated_byte_for_byte` in
//! tests/it/study.rs proves are what the code produces.

use crate::common;

use common::*;
use driftlab_mutate::mutate::{self, Label};
use driftlab_study::study::StudySpec;
use serde_json::Value;

const SYNTHETIC: &str = "mcp-drift-taxonomy-2026-11-30";
const REAL: &str = "mcp-drift-taxonomy-2026-11-30-real";
const WHOLE: &str = "mcp-whole-contract-2026-12-03";

fn summary(study: &str) -> Value {
    read_json(&repo().join("results").join(study).join("summary.json"))
}

/// (detected, total) of a gate on a class.
fn cell(summary: &Value, gate: &str, mutation: &str) -> (u64, u64) {
    let c = summary["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["gate"] == gate && c["mutation"] == mutation)
        .unwrap_or_else(|| panic!("no cell {gate} x {mutation}"));
    (
        c["detected"].as_u64().unwrap(),
        c["total"].as_u64().unwrap(),
    )
}

/// The classes with `label` that a study ran.
fn classes(summary: &Value, label: Label) -> Vec<&'static str> {
    let ran = |id: &str| {
        summary["cells"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["mutation"] == id)
    };
    mutate::REGISTRY
        .iter()
        .filter(|c| c.label() == label && ran(c.id()))
        .map(|c| c.id())
        .collect()
}

#[test]
fn every_class_is_in_a_study_and_applies_somewhere() {
    // Tool classes run in both taxonomy studies; the classes beyond tools in the whole-contract
    // study, whose generated servers record prompts, resources and instructions.
    for class in mutate::REGISTRY
        .iter()
        .filter(|c| c.label() != Label::Control)
    {
        let studies: &[&str] = match class.part() {
            "tools" => &[SYNTHETIC, REAL],
            _ => &[WHOLE],
        };
        for study in studies {
            let (_, total) = cell(&summary(study), "classifier-fail-on-warning", class.id());
            assert!(
                total >= 60,
                "{study}: {} applied to only {total} surfaces",
                class.id()
            );
        }
    }
}

#[test]
fn the_classifier_at_fail_on_breaking_detects_every_breaking_class_and_nothing_harmless() {
    for study in [SYNTHETIC, REAL, WHOLE] {
        let s = summary(study);
        let classes = |label| classes(&s, label);
        for class in classes(Label::Breaking) {
            let (detected, total) = cell(&s, "classifier-fail-on-breaking", class);
            assert_eq!(detected, total, "{study}: breaking {class}");
        }
        for class in classes(Label::Compatible)
            .into_iter()
            .chain(classes(Label::Benign))
        {
            for gate in ["classifier-fail-on-breaking", "classifier-fail-on-warning"] {
                assert_eq!(
                    cell(&s, gate, class).0,
                    0,
                    "{study}: {gate} flags harmless {class}"
                );
            }
        }
        // Dangerous changes are warnings: only the warning threshold catches them.
        for class in classes(Label::Dangerous) {
            assert_eq!(
                cell(&s, "classifier-fail-on-breaking", class).0,
                0,
                "{study}: {class}"
            );
            let (detected, total) = cell(&s, "classifier-fail-on-warning", class);
            assert_eq!(detected, total, "{study}: dangerous {class}");
        }
    }
}

#[test]
fn emulated_strategies_show_their_documented_blind_spots() {
    for study in [SYNTHETIC, REAL] {
        let s = summary(study);
        let none = |gate: &str, class: &str| {
            assert_eq!(
                cell(&s, gate, class).0,
                0,
                "{study}: {gate} should miss {class}"
            )
        };
        let all = |gate: &str, class: &str| {
            let (d, t) = cell(&s, gate, class);
            assert_eq!(d, t, "{study}: {gate} should catch every {class}");
        };
        // sorted-hash: tools sorted by name, only name/description/inputSchema hashed.
        none("sorted-hash", "tools-reordered");
        none("sorted-hash", "output-property-removed");
        none("sorted-hash", "annotation-became-dangerous");
        all("sorted-hash", "optional-parameter-added"); // a false positive on a compatible change
                                                        // description-hash: descriptions only.
        all("description-hash", "description-rewritten");
        for class in [
            "parameter-type-narrowed",
            "required-parameter-added",
            "tool-removed",
            "input-schema-null",
        ] {
            none("description-hash", class);
        }
        // name-set: names only, no order.
        all("name-set", "tool-renamed");
        none("name-set", "tools-reordered");
        none("name-set", "required-parameter-added");
        // Names permuted across tools keep the name set: a name-set diff sees nothing, a
        // name-keyed hash sees every tool's schema change (RoTBench's heavy noise).
        none("name-set", "tool-names-permuted");
        all("description-hash", "tool-names-permuted");
        all("name-set", "name-randomized");
        // A description rewritten whole or in part: both change the text a hash pins.
        all("description-hash", "description-replaced");
        all("description-hash", "description-reworded");
        // required-and-types: no enums, constraints or outputs.
        none("required-and-types", "enum-value-removed");
        none("required-and-types", "constraint-tightened");
        none("required-and-types", "output-property-removed");
        all("required-and-types", "required-parameter-added");
        // The published pair: structural misses everything but malformed payloads.
        none("structural", "parameter-renamed");
        none("structural+ordered-snapshot", "required-parameter-added");
        for gate in [
            "structural",
            "ordered-snapshot",
            "sorted-hash",
            "description-hash",
            "name-set",
            "required-and-types",
        ] {
            for class in classes(&s, Label::Benign) {
                none(gate, class);
            }
        }
    }
}

#[test]
fn every_class_changes_every_real_base_it_applies_to() {
    let path = repo().join("research/2026-11-30-mcp-drift-taxonomy/study-real.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let study = StudySpec::parse(&text, path.to_str().unwrap())
        .unwrap()
        .resolve(path.to_str().unwrap())
        .unwrap();
    assert_eq!(study.bases.len(), 8);
    for (name, base) in &study.bases {
        for class in mutate::REGISTRY.iter().filter(|c| c.part() == "tools") {
            for draw in 0..3 {
                let mut candidate = base.clone();
                let outcome = class.apply(&mut candidate, &mut mutate::stream(7, *class, draw));
                if outcome.is_err() {
                    continue;
                }
                let changed = mutate::CONTROL.serialize(base) != class.serialize(&candidate);
                assert_eq!(
                    changed,
                    class.id() != "identity",
                    "{} on {name}",
                    class.id()
                );
                // Valid JSON that the payload reader accepts.
                driftlab_contract::payload::read(
                    &class.serialize(&candidate),
                    name,
                    Default::default(),
                )
                .unwrap();
            }
        }
    }
}

#[test]
fn metrics_follow_from_the_cells() {
    let s = summary(SYNTHETIC);
    let m = s["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["gate"] == "classifier-fail-on-warning")
        .unwrap();
    assert_eq!(m["false_positives"], 0);
    assert_eq!(m["false_negatives"], 0);
    assert_eq!(m["recall"], 1.0);
    let m = s["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["gate"] == "sorted-hash")
        .unwrap();
    let (fp, tn) = (
        m["false_positives"].as_f64().unwrap(),
        m["true_negatives"].as_f64().unwrap(),
    );
    assert!((m["false_positive_rate"].as_f64().unwrap() - fp / (fp + tn)).abs() < 1e-12);
    assert!(fp > 0.0);
}

#[test]
fn only_a_gate_that_compares_the_whole_contract_sees_drift_beyond_tools() {
    let s = summary(WHOLE);
    let beyond: Vec<&str> = mutate::REGISTRY
        .iter()
        .filter(|c| c.part() != "tools")
        .map(|c| c.id())
        .collect();
    assert_eq!(beyond.len(), 5);
    for class in &beyond {
        // Every gate that reads only tools misses it: the tool hashes and the tools-only
        // classifier alike.
        for gate in [
            "structural+ordered-snapshot",
            "sorted-hash",
            "description-hash",
            "classifier-tools-only",
        ] {
            assert_eq!(cell(&s, gate, class).0, 0, "{gate} saw {class}");
        }
        let (detected, total) = cell(&s, "classifier-fail-on-warning", class);
        assert_eq!(detected, total, "{class}");
    }
    // The tool classes are judged the same with or without the contract beside them.
    for class in [
        "tool-removed",
        "parameter-renamed",
        "required-parameter-added",
    ] {
        let (detected, total) = cell(&s, "classifier-tools-only", class);
        assert_eq!(detected, total, "{class}");
    }
}
