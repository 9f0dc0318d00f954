//! The registry as a whole: every rule, hand-written or from a table, on generated surfaces.

use driftlab_check::check::rules::*;
use driftlab_check::check::Rule;

use driftlab_diff::diff::ChangeKind;
use std::collections::BTreeSet;

#[test]
fn ids_are_unique_and_kebab_case() {
    let ids = ids();
    let unique: BTreeSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len());
    for id in ids {
        assert!(driftlab_contract::is_kebab_case(id), "{id}");
        assert_eq!(by_id(id).map(|r| r.id()), Some(id));
    }
}

#[test]
fn every_rule_has_a_summary_and_a_source() {
    for rule in registry() {
        assert!(!rule.summary().is_empty() && !rule.summary().contains('\n'));
        assert!(!rule.source().is_empty());
    }
}

/// Every rule reports the same findings, in rule and severity, with and without detail, on
/// every class's candidates over generated surfaces; the lazy rules then leave detail out.
#[test]
fn verdict_only_findings_match_detailed_ones() {
    use driftlab_check::check::{Comparison, Finding};
    use driftlab_contract::payload;
    use driftlab_mutate::{generate, mutate};
    let (mut findings, mut left_out) = (0, 0);
    for index in 0..40 {
        let base = generate::surface(7, index, 4);
        let approved_bytes = serde_json::to_vec(&base).unwrap();
        let approved = payload::read(&approved_bytes, "a", Default::default()).unwrap();
        for class in mutate::REGISTRY {
            let mut value = base.clone();
            if class
                .apply(&mut value, &mut mutate::stream(7, *class, index))
                .is_err()
            {
                continue;
            }
            let bytes = class.serialize(&value);
            let candidate = payload::read(&bytes, "c", Default::default()).unwrap();
            for rule in registry() {
                let (mut full, mut verdict) = (Vec::new(), Vec::new());
                rule.check(&Comparison::new(&approved, &candidate), &mut full);
                rule.check(
                    &Comparison::verdict_only(&approved, &candidate),
                    &mut verdict,
                );
                let judged =
                    |f: &Vec<Finding>| f.iter().map(|f| (f.rule, f.severity)).collect::<Vec<_>>();
                assert_eq!(
                    judged(&full),
                    judged(&verdict),
                    "{} on {}",
                    rule.id(),
                    class.id()
                );
                findings += full.len();
                left_out += verdict.iter().filter(|f| f.pointer.is_empty()).count();
            }
        }
    }
    assert!(findings > 1000, "{findings}");
    assert!(left_out > 100, "{left_out}");
}

/// A diff that proves only the verdict ([`Proving::Verdict`]) leaves every gate's decision
/// as witnesses would: the same findings, in rule and in whether each `--fail-on` counts
/// them, for every rule but the one only witnesses find; and some breaking findings do
/// become `unknown`, so the test sees the difference it allows. It shows no values.
#[test]
fn proving_only_the_verdict_keeps_every_fail_on_decision() {
    use driftlab_check::check::{Comparison, FailOn, Finding, Severity};
    use driftlab_contract::payload;
    use driftlab_diff::diff::Proving;
    use driftlab_mutate::{generate, mutate};
    let rules: Vec<&dyn Rule> = registry()
        .iter()
        .copied()
        .filter(|r| r.id() != diff_rules::VALUE_NOW_REJECTED)
        .collect();
    assert_eq!(diff_rules::proving_for(&rules), Proving::Verdict);
    assert_eq!(diff_rules::proving_for(registry()), Proving::Witnesses);
    let decided = |found: &[Finding]| -> Vec<(&str, [bool; 3])> {
        let fails = |s| [FailOn::Breaking, FailOn::Warning, FailOn::Any].map(|t| t.fails(s));
        found.iter().map(|f| (f.rule, fails(f.severity))).collect()
    };
    let (mut compared, mut unproven, mut shown) = (0, 0, 0);
    for index in 0..40 {
        let base = generate::surface(11, index, 4);
        let approved_bytes = serde_json::to_vec(&base).unwrap();
        let approved = payload::read(&approved_bytes, "a", Default::default()).unwrap();
        for class in mutate::REGISTRY {
            let mut value = base.clone();
            let mut stream = mutate::stream(11, *class, index);
            if class.apply(&mut value, &mut stream).is_err() {
                continue;
            }
            let bytes = class.serialize(&value);
            let candidate = payload::read(&bytes, "c", Default::default()).unwrap();
            let with_witnesses = Comparison::new(&approved, &candidate);
            let verdict = Comparison::new(&approved, &candidate).proving(Proving::Verdict);
            for rule in &rules {
                let (mut full, mut lean) = (Vec::new(), Vec::new());
                rule.check(&with_witnesses, &mut full);
                rule.check(&verdict, &mut lean);
                assert_eq!(
                    decided(&full),
                    decided(&lean),
                    "{} on {}",
                    rule.id(),
                    class.id()
                );
                // Values are shortened for display only when a report may show them.
                assert!(lean.iter().all(|f| f.old.is_none() && f.new.is_none()));
                shown += full
                    .iter()
                    .filter(|f| f.old.is_some() || f.new.is_some())
                    .count();
                compared += full.len();
                unproven += full
                    .iter()
                    .zip(&lean)
                    .filter(|(f, l)| {
                        f.severity == Severity::Breaking && l.severity == Severity::Unknown
                    })
                    .count();
            }
        }
    }
    assert!(compared > 1000, "{compared}");
    assert!(unproven > 100, "{unproven}");
    assert!(shown > 1000, "{shown}");
}

#[test]
fn each_change_kind_has_exactly_one_rule() {
    use driftlab_diff::diff::contract::ContractChangeKind;
    use std::collections::HashSet;
    use strum::EnumCount;
    let kinds: HashSet<ChangeKind> = DIFF_RULES.iter().map(|r| r.change).collect();
    assert_eq!(kinds.len(), DIFF_RULES.len(), "two diff rules share a kind");
    assert_eq!(
        kinds.len(),
        ChangeKind::COUNT,
        "a ChangeKind has no diff rule"
    );
    let kinds: HashSet<ContractChangeKind> = CONTRACT_RULES.iter().map(|r| r.change).collect();
    assert_eq!(
        kinds.len(),
        CONTRACT_RULES.len(),
        "two contract rules share a kind"
    );
    assert_eq!(
        kinds.len(),
        ContractChangeKind::COUNT,
        "a ContractChangeKind has no rule"
    );
}

#[test]
fn tools_by_label_are_found_in_place_as_through_the_map() {
    use crate::ByLabel;
    use serde_json::json;
    // Repeated names (the last wins), a tool without a name (labelled by its place), and
    // surfaces on both sides of the in-place limit.
    for extra in [0, 20] {
        let mut tools = vec![
            json!({"name": "a", "description": "first a"}),
            json!({"name": "b"}),
            json!({"description": "no name"}),
            json!({"name": "a", "description": "last a"}),
        ];
        tools.extend((0..extra).map(|i| json!({"name": format!("t{i}")})));
        let surface = driftlab_contract::payload::from_value(json!(tools), "s").unwrap();
        let map = ByLabel::Many(surface.tools().map(|t| (t.label_ref(), t)).collect());
        let chosen = ByLabel::new(&surface);
        assert_eq!(matches!(chosen, ByLabel::Few(_)), extra == 0);
        for label in ["a", "b", "#2", "t3", "missing"] {
            let (found, expected) = (chosen.get(label), map.get(label));
            assert_eq!(found.map(|t| t.index), expected.map(|t| t.index), "{label}");
        }
        assert_eq!(chosen.get("a").map(|t| t.index), Some(3));
    }
}
