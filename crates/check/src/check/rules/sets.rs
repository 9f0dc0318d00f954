//! Rule sets: which rules existed when. Each rule names the set it joined
//! ([`Rule::added_in`](crate::check::Rule::added_in): the day it landed), so a set is every rule
//! with that date and the sets are the dates the registry names. A study spec pinned with
//! `rule_set = "2026-11-30"` reads `@payload` and `@diff` as the rules of that kind up to that
//! set, so a rule added later leaves the study's committed results as they were.

use std::sync::LazyLock;

use super::{by_id, registry, Rule, RuleKind};

/// Every rule set's id, oldest first: the distinct dates the registered rules joined on. Lock
/// rules (judged by `check --lock` from a lockfile, never run by a study's gate) make no set of
/// their own: a new one changes nothing a study runs.
fn set_ids() -> &'static [&'static str] {
    static IDS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        let dates: std::collections::BTreeSet<&'static str> = registry()
            .iter()
            .filter(|r| r.kind() != RuleKind::Lock)
            .map(|r| r.added_in())
            .collect();
        dates.into_iter().collect()
    });
    &IDS
}

/// The newest rule set: what an unpinned spec's `@payload` and `@diff` mean.
pub fn latest() -> &'static str {
    set_ids().last().copied().unwrap_or("")
}

/// The set a rule was added in.
pub fn added_in(rule: &str) -> Option<&'static str> {
    by_id(rule).map(|r| r.added_in())
}

/// Whether `rule` existed as of the rule set `set` (an unknown set or rule: no).
pub fn existed(rule: &str, set: &str) -> bool {
    set_ids().contains(&set) && added_in(rule).is_some_and(|added| added <= set)
}

/// The rules of one kind as of the rule set `set`, in registry order; `None` for an unknown set.
pub fn of_kind_as_of(kind: RuleKind, set: &str) -> Option<Vec<&'static dyn Rule>> {
    if !set_ids().contains(&set) {
        return None;
    }
    Some(
        registry()
            .iter()
            .copied()
            .filter(|r| r.kind() == kind && r.profile().is_none() && existed(r.id(), set))
            .collect(),
    )
}

/// Ids of every rule set, oldest first, for error messages.
pub fn ids() -> Vec<&'static str> {
    set_ids().to_vec()
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
