//! One fixture per rule (tests/fixtures/rules/<rule-id>.json): the rule fires exactly at the
//! expected pointers. A fixture's documents may be whole-contract snapshots (prompts, resources,
//! instructions, capabilities beside the tools), read as `driftlab check` reads them. Registry
//! invariants: every rule has a fixture, every fixture a rule. And every fixture goes through
//! every rule: what each other rule reports on it is pinned (`snapshots/…rule-on-every-fixture`),
//! so a rule that fires where it should not changes the snapshot and fails until reviewed.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use driftlab_check::check::{rules, Comparison};
use driftlab_contract::payload;
use driftlab_contract::surface::Surface;
use serde_json::Value;

/// A fixture's two documents, read as `driftlab check` reads them.
fn sides(fixture: &Value) -> (Surface, Surface) {
    let read = |side: &str| {
        let value = &fixture[side];
        let contract = payload::contract::from_value(value, side).unwrap();
        payload::from_value(value.clone(), side)
            .unwrap()
            .with_contract(contract)
    };
    (read("approved"), read("candidate"))
}

fn fixtures() -> Vec<(String, Value)> {
    // The registry's fixtures, table rules' included, sit with the workspace's test data.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/rules");
    let mut out: Vec<(String, Value)> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let id = p.file_stem().unwrap().to_string_lossy().into_owned();
            (id, serde_json::from_slice(&fs::read(&p).unwrap()).unwrap())
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn every_rule_has_a_fixture_and_every_fixture_a_rule() {
    // A `lock` rule is judged from what a lockfile records beside the contract, which no pair
    // of documents carries: `check --lock` tests it (tests/it/lock.rs, src/cli/check_lock.rs).
    let registered: BTreeSet<&str> = rules::registry()
        .iter()
        .filter(|r| r.kind() != driftlab_check::check::RuleKind::Lock)
        .map(|r| r.id())
        .collect();
    let fixtures: BTreeSet<String> = fixtures().into_iter().map(|(id, _)| id).collect();
    for id in &registered {
        assert!(fixtures.contains(*id), "rule {id} has no fixture");
    }
    for id in &fixtures {
        assert!(
            registered.contains(id.as_str()),
            "fixture {id} names no registered rule"
        );
    }
}

#[test]
fn every_rule_fires_exactly_where_its_fixture_expects() {
    for (id, fixture) in fixtures() {
        let rule = rules::by_id(&id).unwrap();
        let (approved, candidate) = sides(&fixture);
        let comparison = Comparison::new(&approved, &candidate);
        let mut found = Vec::new();
        rule.check(&comparison, &mut found);
        let got: Vec<(String, String)> = found
            .iter()
            .map(|f| (f.rule.to_string(), f.pointer.clone()))
            .collect();
        let expected: Vec<(String, String)> = fixture["expect"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["rule"].as_str().unwrap().into(),
                    e["pointer"].as_str().unwrap().into(),
                )
            })
            .collect();
        assert!(
            !expected.is_empty(),
            "{id}: a fixture must make its rule fire"
        );
        assert_eq!(got, expected, "{id}: {}", fixture["note"]);
        for f in &found {
            assert_eq!(f.severity, rule.severity(), "{id}");
            assert!(!f.message.is_empty() && !f.message.contains('\n'));
            // Findings name their tool (or, beyond tools, their subject), except whole-surface
            // findings, which point at /tools.
            assert!(
                f.tool.is_some() || f.subject.is_some() || f.pointer == "/tools",
                "{id}: findings name their tool or subject"
            );
        }
        // Nothing fires when the candidate is the approved surface itself.
        let same = Comparison::new(&approved, &approved);
        let mut none = Vec::new();
        rule.check(&same, &mut none);
        assert!(
            none.is_empty() || rule.kind() == driftlab_check::check::RuleKind::Payload,
            "{id} fires on an unchanged surface"
        );
    }
}

/// Every rule on every fixture: the fixture's own rule is held to its `expect` above; what the
/// others report is pinned whole, one line per finding (`fixture: rule at pointer`), so a new or
/// changed rule that fires on another rule's fixture shows up as a changed line to review
/// (`INSTA_UPDATE=always` accepts it; CONTRIBUTING, *Adding a checker rule*).
#[test]
fn every_rule_on_every_fixture_reports_what_was_reviewed() {
    let registry: Vec<_> = rules::registry()
        .iter()
        .filter(|r| r.kind() != driftlab_check::check::RuleKind::Lock)
        .collect();
    let mut lines = String::new();
    for (id, fixture) in fixtures() {
        let (approved, candidate) = sides(&fixture);
        let comparison = Comparison::new(&approved, &candidate);
        for rule in registry.iter().filter(|r| r.id() != id) {
            let mut found = Vec::new();
            rule.check(&comparison, &mut found);
            for finding in found {
                lines.push_str(&format!("{id}: {} at {}\n", finding.rule, finding.pointer));
            }
        }
    }
    insta::assert_snapshot!("every-rule-on-every-fixture", lines);
}
