//! Rule sets: which rules existed when. A study spec pinned with `rule_set = "2026-11-30"` reads
//! `@payload` and `@diff` as the rules of that kind added up to that set, so a rule added later
//! leaves the study's committed results as they were.

use super::{registry, Rule, RuleKind};

/// One release of rules: its id (the date it landed) and the rules it added.
pub struct RuleSet {
    pub id: &'static str,
    pub added: &'static [&'static str],
}

/// Every rule set, oldest first. A new rule joins a new set named by the date it lands (rules
/// landing the same day share one); a test fails until every registered rule is in exactly one.
pub const RULE_SETS: &[RuleSet] = &[
    RuleSet {
        id: "2026-11-30",
        added: &[
            // study rules
            "structural",
            "ordered-snapshot",
            "sorted-hash",
            "description-hash",
            "name-set",
            "required-and-types",
            // payload rules
            "tool-name-invalid",
            "input-schema-missing",
            "input-schema-null",
            "input-schema-not-object",
            "duplicate-tool-name",
            "output-schema-not-object",
            "schema-invalid",
            // diff rules
            "tool-removed",
            "tool-renamed",
            "tool-added",
            "tool-duplicated",
            "tools-reordered",
            "tool-description-changed",
            "title-changed",
            "annotation-became-dangerous",
            "annotation-changed",
            "tool-metadata-changed",
            "input-schema-replaced",
            "required-parameter-added",
            "optional-parameter-added",
            "parameter-removed",
            "parameter-renamed",
            "parameter-became-required",
            "parameter-became-optional",
            "type-narrowed",
            "type-widened",
            "type-changed",
            "enum-value-removed",
            "enum-value-added",
            "constraint-tightened",
            "constraint-loosened",
            "default-changed",
            "parameter-description-changed",
            "schema-dialect-changed",
            "schema-annotation-changed",
            "output-schema-added",
            "output-schema-removed",
            "output-property-removed",
            "output-property-type-changed",
            "output-property-became-optional",
            "output-enum-value-added",
            "output-constraint-loosened",
            "output-compatible-change",
            "schema-change-unjudged",
        ],
    },
    RuleSet {
        id: "2026-12-03",
        added: &[
            "parameters-undocumented",
            "unsafe-integer-bound",
            "branch-change-masked",
            "value-now-rejected",
            // the contract beyond tools
            "prompt-removed",
            "prompt-renamed",
            "prompt-added",
            "prompt-argument-removed",
            "prompt-required-argument-added",
            "prompt-optional-argument-added",
            "prompt-argument-became-required",
            "prompt-argument-became-optional",
            "prompt-text-changed",
            "resource-removed",
            "resource-template-removed",
            "resource-uri-changed",
            "resource-added",
            "resource-mime-type-changed",
            "resource-text-changed",
            "contract-metadata-changed",
            "instructions-changed",
            "capability-removed",
            "capability-flag-dropped",
            "launch-changed",
            "capability-added",
            "capability-changed",
            "contract-part-unrecorded",
            // era-aware
            "cache-scope-changed",
            "cache-ttl-changed",
            "x-mcp-header-invalid",
            "x-mcp-header-newly-invalid",
            "task-support-required",
            "cache-hints-missing",
            // client profiles (opt-in)
            "profile-spec",
            "profile-spec-newly-broken",
            "profile-strict-64",
            "profile-strict-64-newly-broken",
            "profile-copilot",
            "profile-copilot-newly-broken",
            "profile-gemini",
            "profile-gemini-newly-broken",
        ],
    },
];

/// The newest rule set: what an unpinned spec's `@payload` and `@diff` mean.
pub fn latest() -> &'static str {
    RULE_SETS.last().map_or("", |set| set.id)
}

/// Where `id` is among `sets`, oldest first.
fn position(sets: &[RuleSet], id: &str) -> Option<usize> {
    sets.iter().position(|set| set.id == id)
}

/// The set a rule was added in.
pub fn added_in(rule: &str) -> Option<&'static str> {
    RULE_SETS
        .iter()
        .find(|set| set.added.contains(&rule))
        .map(|set| set.id)
}

/// Whether `rule` existed as of the rule set `set` (an unknown set or rule: no).
pub fn existed(rule: &str, set: &str) -> bool {
    existed_in(RULE_SETS, rule, set)
}

fn existed_in(sets: &[RuleSet], rule: &str, set: &str) -> bool {
    let added = sets.iter().position(|s| s.added.contains(&rule));
    match (added, position(sets, set)) {
        (Some(added), Some(pinned)) => added <= pinned,
        _ => false,
    }
}

/// The rules of one kind as of the rule set `set`, in registry order; `None` for an unknown set.
pub fn of_kind_as_of(kind: RuleKind, set: &str) -> Option<Vec<&'static dyn Rule>> {
    position(RULE_SETS, set)?;
    Some(
        registry()
            .iter()
            .copied()
            .filter(|r| r.kind() == kind && r.profile().is_none() && existed(r.id(), set))
            .collect(),
    )
}

/// Ids of every rule set, for error messages.
pub fn ids() -> Vec<&'static str> {
    RULE_SETS.iter().map(|set| set.id).collect()
}

/// The rules a group in a gate's `rules` stands for, as of `rule_set`: `@payload` and `@diff`
/// every rule of that kind, `@tools` every payload and diff rule about tools alone (what a gate
/// that knows only `tools/list` runs). `None` for a rule id.
pub fn group(id: &str, rule_set: &str) -> Option<Vec<&'static dyn Rule>> {
    let of_kind = |kind| of_kind_as_of(kind, rule_set).unwrap_or_default();
    match id {
        "@payload" => Some(of_kind(RuleKind::Payload)),
        "@diff" => Some(of_kind(RuleKind::Diff)),
        "@tools" => Some(
            [RuleKind::Payload, RuleKind::Diff]
                .into_iter()
                .flat_map(of_kind)
                .filter(|rule| rule.part() == "tools")
                .collect(),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_rule_is_in_exactly_one_set() {
        for rule in registry() {
            let sets = RULE_SETS
                .iter()
                .filter(|set| set.added.contains(&rule.id()))
                .count();
            assert_eq!(
                sets,
                1,
                "rule {:?} is in {sets} rule sets: add it to one, a new set dated the day it lands \
                 (src/check/rules/sets.rs; see CONTRIBUTING.md)",
                rule.id()
            );
        }
        for set in RULE_SETS {
            for id in set.added {
                assert!(super::super::by_id(id).is_some(), "{id} is no rule");
            }
        }
    }

    #[test]
    fn sets_are_dated_and_in_order() {
        let ids = ids();
        for id in &ids {
            let digits: Vec<&str> = id.split('-').collect();
            assert!(
                digits.len() == 3 && digits.iter().all(|d| d.bytes().all(|b| b.is_ascii_digit())),
                "{id} is not YYYY-MM-DD"
            );
        }
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    }

    #[test]
    fn the_latest_set_holds_every_rule() {
        for kind in [RuleKind::Payload, RuleKind::Diff, RuleKind::Study] {
            let all: Vec<&str> = super::super::of_kind(kind).iter().map(|r| r.id()).collect();
            let pinned: Vec<&str> = of_kind_as_of(kind, latest())
                .unwrap()
                .iter()
                .map(|r| r.id())
                .collect();
            assert_eq!(all, pinned);
        }
        assert!(of_kind_as_of(RuleKind::Diff, "1999-01-01").is_none());
        assert!(!existed("structural", "1999-01-01"));
        assert!(!existed("no-such-rule", latest()));
    }

    #[test]
    fn a_rule_added_after_the_pin_is_left_out() {
        let sets = [
            RuleSet {
                id: "2026-11-30",
                added: &["structural"],
            },
            RuleSet {
                id: "2027-01-15",
                added: &["new-rule"],
            },
        ];
        assert!(existed_in(&sets, "structural", "2026-11-30"));
        assert!(existed_in(&sets, "structural", "2027-01-15"));
        assert!(!existed_in(&sets, "new-rule", "2026-11-30"));
        assert!(existed_in(&sets, "new-rule", "2027-01-15"));
    }
}
