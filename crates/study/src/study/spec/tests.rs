//! Unit tests of `spec`.

use super::*;

fn error(text: &str) -> String {
    StudySpec::parse(text, "s.toml")
        .and_then(|s| s.resolve("s.toml"))
        .unwrap_err()
        .to_string()
}

const GOOD: &str = "id = \"x\"\nseed = 1\nsurfaces = 2\nmutations = [\"name-space\"]\n[[gates]]\nid = \"g\"\nrules = [\"structural\"]\n";

#[test]
fn default_spec_resolves() {
    let study = Study::default_study();
    assert_eq!(study.spec.surfaces, 240);
    assert_eq!(study.spec.tools, 3);
    assert_eq!(study.mutations.len(), 5);
    assert_eq!(study.rules.len(), 2);
    assert_eq!(study.classes().next().unwrap().id(), "identity");
}

#[test]
fn good_spec_defaults_tools_to_three() {
    let s = StudySpec::parse(GOOD, "s.toml")
        .unwrap()
        .resolve("s.toml")
        .unwrap();
    assert_eq!(s.spec.tools, 3);
}

#[test]
fn groups_read_as_the_pinned_rule_set() {
    let spec = GOOD.replace("\"structural\"", "\"@payload\", \"@diff\"");
    let resolve = |text: &str| {
        StudySpec::parse(text, "s.toml")
            .unwrap()
            .resolve("s.toml")
            .unwrap()
    };
    let unpinned = resolve(&spec);
    assert_eq!(unpinned.rule_set, rules::sets::latest());
    let pinned = resolve(&spec.replace("seed = 1", "seed = 1\nrule_set = \"2026-11-30\""));
    assert_eq!(pinned.rule_set, "2026-11-30");
    let ids = |s: &Study| s.gates[0].rules.iter().map(|r| r.id()).collect::<Vec<_>>();
    let expected: Vec<&str> = rules::registry()
        .iter()
        .filter(|r| {
            r.kind() != driftlab_check::check::RuleKind::Study
                && rules::sets::existed(r.id(), "2026-11-30")
        })
        .map(|r| r.id())
        .collect();
    assert_eq!(ids(&pinned), expected);
    assert_eq!(pinned.spec.rule_set.as_deref(), Some("2026-11-30"));
}

#[test]
fn the_tools_group_is_the_tool_rules_and_classes_beyond_tools_want_generated_servers() {
    let spec = GOOD.replace("\"structural\"", "\"@tools\"");
    let study = StudySpec::parse(&spec, "s.toml")
        .unwrap()
        .resolve("s.toml")
        .unwrap();
    let tools_rules = &study.gates[0].rules;
    assert!(tools_rules.iter().all(|r| r.part() == "tools"));
    assert!(tools_rules.iter().any(|r| r.id() == "tool-removed"));
    assert!(!tools_rules.iter().any(|r| r.id() == "prompt-removed"));
    assert!(!study.whole_contract());
    let whole = spec.replace("\"name-space\"", "\"resource-removed\"");
    let study = StudySpec::parse(&whole, "s.toml")
        .unwrap()
        .resolve("s.toml")
        .unwrap();
    assert!(study.whole_contract());
    let on_bases = whole.replace("seed = 1", "seed = 1\nbases = \"bases\"");
    let error = StudySpec::parse(&on_bases, "s.toml")
        .unwrap()
        .resolve("s.toml")
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("s.toml: `mutations`: \"resource-removed\" changes the resources"),
        "{error}"
    );
}

#[test]
fn errors_name_file_and_key_on_one_line() {
    let cases = [
        (
            GOOD.replace("seed = 1", "seed = \"one\""),
            "s.toml:2:8: invalid type: string \"one\", expected u64",
        ),
        (
            GOOD.replace("\"name-space\"", "\"nope\""),
            "s.toml: `mutations[0]`: unknown mutation class \"nope\"",
        ),
        (
            GOOD.replace("\"name-space\"", "\"identity\""),
            "s.toml: `mutations[0]`: identity always runs",
        ),
        (
            GOOD.replace("\"structural\"", "\"nope\""),
            "s.toml: `gates[0].rules[0]`: unknown rule \"nope\"",
        ),
        (
            GOOD.replace("surfaces = 2", "surfaces = 0"),
            "s.toml: `surfaces`: must be at least 1",
        ),
        (GOOD.replace("id = \"x\"", "id = \"../x\""), "s.toml: `id`:"),
        (
            GOOD.replace("seed = 1", "seed = 1\ncolour = 2"),
            "s.toml:3:1: unknown field `colour`",
        ),
        (GOOD.replace("seed = 1\n", ""), "missing field `seed`"),
        (
            GOOD.replace("seed = 1", "seed = 1\nrule_set = \"2020-01-01\""),
            "s.toml: `rule_set`: unknown rule set \"2020-01-01\" (known: 2026-11-30",
        ),
    ];
    for (text, expected) in cases {
        let e = error(&text);
        assert!(e.contains(expected), "{e:?} should contain {expected:?}");
        assert!(!e.contains('\n'), "{e:?}");
    }
}

#[test]
fn title_placeholders_read_as_the_counts() {
    let text =
        "id = \"t\"\ntitle = \"{classes} classes x {gates} gates\"\nseed = 1\nsurfaces = 1\n\
                mutations = [\"name-space\", \"tools-reordered\"]\n\
                [[gates]]\nid = \"s\"\nrules = [\"structural\"]\n";
    let spec = StudySpec::parse(text, "t.toml").unwrap();
    assert_eq!(spec.title, "2 classes x 1 gates");
}

#[test]
fn at_tools_spells_out_every_tool_class_by_label() {
    let text = GOOD
        .replace("[\"name-space\"]", "[\"@tools\"]")
        .replace("id = \"x\"", "id = \"x\"\ntitle = \"{classes} classes\"");
    let spec = StudySpec::parse(&text, "s.toml").unwrap();
    let expected: Vec<&str> = mutate::REGISTRY
        .iter()
        .filter(|c| c.part() == "tools" && c.id() != "identity")
        .map(|c| c.id())
        .collect();
    let mut got: Vec<&str> = spec.mutations.iter().map(String::as_str).collect();
    assert_eq!(got.len(), expected.len());
    assert_eq!(spec.title, format!("{} classes", expected.len()));
    let study = spec.clone().resolve("s.toml").unwrap();
    let labels: Vec<_> = study.mutations.iter().map(|c| c.label()).collect();
    assert!(labels.windows(2).all(|w| w[0] <= w[1]), "{labels:?}");
    assert!(!got.contains(&"prompt-argument-removed"));
    got.sort_unstable();
    let mut expected = expected;
    expected.sort_unstable();
    assert_eq!(got, expected);
    // A class named beside the group is listed twice.
    let twice = GOOD.replace("[\"name-space\"]", "[\"@tools\", \"tool-removed\"]");
    assert!(error(&twice).contains("\"tool-removed\" is listed twice"));
}
