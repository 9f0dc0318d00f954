//! Unit tests of `mutate`.

use super::*;
use crate::generate;
use std::collections::BTreeSet;

#[test]
fn ids_are_unique_and_kebab_case() {
    let ids = ids();
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), ids.len());
    assert!(ids.iter().all(|id| crate::is_kebab_case(id)));
    assert_eq!(CONTROL.id(), "identity");
}

#[test]
fn every_class_but_identity_changes_the_bytes_wherever_it_applies() {
    for class in REGISTRY {
        let mut applied = 0;
        for i in 0..100 {
            let base = generate::surface_with_contract(11, i, 3);
            let mut candidate = base.clone();
            let mut rng = stream(11, *class, i);
            let Ok(outcome) = class.apply(&mut candidate, &mut rng) else {
                continue;
            };
            applied += 1;
            let changed = class.serialize(&base) != class.serialize(&candidate)
                || CONTROL.serialize(&base) != class.serialize(&candidate);
            assert_eq!(
                changed,
                class.id() != "identity",
                "{} on surface {i}",
                class.id()
            );
            assert!(!outcome.detail.is_empty());
        }
        assert!(
            applied >= 40,
            "{} applied to only {applied} of 100 surfaces",
            class.id()
        );
    }
}

#[test]
fn labels_and_rationales() {
    for class in REGISTRY {
        assert_eq!(
            class.label() == Label::Control,
            class.id() == "identity",
            "{}",
            class.id()
        );
        assert!(!class.rationale().is_empty() && !class.rationale().contains('\n'));
    }
    for label in [
        Label::Breaking,
        Label::Dangerous,
        Label::Compatible,
        Label::Benign,
    ] {
        assert!(REGISTRY.iter().any(|c| c.label() == label), "{label:?}");
    }
}

#[test]
fn sites_are_drawn_not_fixed() {
    let classes: [&dyn MutationClass; 6] = [
        &NameSpace,
        &InputSchemaMissing,
        &InputSchemaNull,
        &InputSchemaArrayRoot,
        &ToolRemoved,
        &DescriptionRewritten,
    ];
    for class in classes {
        let sites: BTreeSet<_> = (0..60)
            .map(|i| {
                let mut s = generate::surface(5, i, 3);
                class
                    .apply(&mut s, &mut stream(5, class, i))
                    .unwrap()
                    .tool_index
            })
            .collect();
        assert_eq!(sites.len(), 3, "{}", class.id());
    }
}

#[test]
fn empty_surfaces_are_not_applicable_not_a_panic() {
    // Classes that add to a surface (a tool, a reformatting) apply even to an empty one.
    let adds = ["identity", "tool-added", "payload-reformatted"];
    for class in REGISTRY.iter().filter(|c| !adds.contains(&c.id())) {
        let mut s = serde_json::json!({"tools": []});
        let outcome = class.apply(&mut s, &mut stream(1, *class, 0));
        assert!(outcome.is_err(), "{}", class.id());
    }
}
