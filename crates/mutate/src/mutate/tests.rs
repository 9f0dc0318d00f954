//! Unit tests of `mutate`.

use super::*;
use crate::generate;
use std::collections::BTreeSet;

#[test]
fn ids_are_unique_and_kebab_case() {
    let ids = ids();
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), ids.len());
    assert!(ids.iter().all(|id| driftlab_contract::is_kebab_case(id)));
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

/// Tool names of a surface, in order.
fn names(surface: &Value) -> Vec<String> {
    surface["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Every description of a surface's tools, split into bare lowercase words.
fn description_words(surface: &Value) -> Vec<Vec<String>> {
    surface["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            t["description"]
                .as_str()
                .unwrap_or_default()
                .split_whitespace()
                .map(|w| {
                    w.trim_matches(|c: char| !c.is_alphanumeric())
                        .to_lowercase()
                })
                .collect()
        })
        .collect()
}

#[test]
fn the_name_noise_classes_do_what_they_say() {
    for i in 0..60 {
        let base = generate::surface_with_contract(5, i, 3);
        let mut permuted = base.clone();
        ToolNamesPermuted
            .apply(&mut permuted, &mut stream(5, &ToolNamesPermuted, i))
            .unwrap();
        let (before, after) = (names(&base), names(&permuted));
        assert!(before.iter().zip(&after).all(|(a, b)| a != b), "{after:?}");
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v
        };
        assert_eq!(sorted(before.clone()), sorted(after), "the name set stays");

        let mut typo = base.clone();
        let applied = NameTypo
            .apply(&mut typo, &mut stream(5, &NameTypo, i))
            .unwrap();
        let (from, to) = applied.detail.split_once(" -> ").unwrap();
        let from = from.rsplit(' ').next().unwrap();
        let distance = from.len().abs_diff(to.len());
        assert!(distance <= 1 && from != to, "{}", applied.detail);

        let mut random = base.clone();
        NameRandomized
            .apply(&mut random, &mut stream(5, &NameRandomized, i))
            .unwrap();
        let changed: Vec<_> = before
            .iter()
            .zip(names(&random))
            .filter(|(a, b)| *a != b)
            .map(|(_, b)| b)
            .collect();
        assert_eq!(changed.len(), 1);
        assert!(changed[0].chars().all(|c| c.is_ascii_alphanumeric()));
    }
}

#[test]
fn the_description_classes_rewrite_a_quarter_or_all_of_the_words() {
    let (mut partly, mut wholly) = (0, 0);
    for i in 0..60 {
        let base = generate::surface_with_contract(9, i, 3);
        let old = description_words(&base);
        let mut reworded = base.clone();
        if let Ok(applied) =
            DescriptionReworded.apply(&mut reworded, &mut stream(9, &DescriptionReworded, i))
        {
            let tool = applied.tool_index.unwrap();
            let new = &description_words(&reworded)[tool];
            let differ = old[tool].iter().zip(new).filter(|(a, b)| a != b).count();
            assert_eq!(new.len(), old[tool].len());
            assert!(
                differ >= 1 && differ * 4 <= new.len(),
                "{differ} of {new:?}"
            );
            partly += 1;
        }
        let mut replaced = base.clone();
        let applied = DescriptionReplaced
            .apply(&mut replaced, &mut stream(9, &DescriptionReplaced, i))
            .unwrap();
        let tool = applied.tool_index.unwrap();
        let new = &description_words(&replaced)[tool];
        assert!(new.iter().all(|w| !old[tool].contains(w)), "{new:?}");
        assert!(new.len() >= old[tool].len().max(4));
        wholly += 1;
    }
    assert!(partly >= 30 && wholly == 60, "{partly} {wholly}");
}
