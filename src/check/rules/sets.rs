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

#[cfg(test)]
mod tests {
    use super::*;

    /// The sets that have shipped and how many rules each holds. A rule dated into one of them
    /// would change what a study pinned to it runs: a new rule names a new date.
    const SHIPPED: &[(&str, usize)] = &[("2026-11-30", 50), ("2026-12-03", 41), ("2026-12-04", 1)];

    #[test]
    fn a_shipped_set_never_changes() {
        for (id, size) in SHIPPED {
            let held: Vec<&str> = registry()
                .iter()
                .filter(|r| r.added_in() == *id)
                .map(|r| r.id())
                .collect();
            assert_eq!(
                held.len(),
                *size,
                "rule set {id} holds {held:?}: a new rule joins a new set dated the day it lands \
                 (its `added_in`; see CONTRIBUTING.md), never a shipped one"
            );
        }
    }

    #[test]
    fn sets_are_dated_and_in_order() {
        let ids = ids();
        for id in &ids {
            let digits: Vec<&str> = id.split('-').collect();
            assert!(
                digits.len() == 3
                    && [4, 2, 2]
                        .iter()
                        .zip(&digits)
                        .all(|(n, d)| d.len() == *n && d.bytes().all(|b| b.is_ascii_digit())),
                "{id} is not YYYY-MM-DD"
            );
        }
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
        let shipped: Vec<&str> = SHIPPED.iter().map(|(id, _)| *id).collect();
        assert_eq!(&ids[..shipped.len()], &shipped[..]);
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
        assert!(existed("structural", "2026-11-30"));
        assert!(existed("structural", "2026-12-03"));
        assert!(!existed("value-now-rejected", "2026-11-30"));
        assert!(existed("value-now-rejected", "2026-12-03"));
        let pinned = of_kind_as_of(RuleKind::Diff, "2026-11-30").unwrap();
        assert!(pinned.iter().any(|r| r.id() == "tool-removed"));
        assert!(!pinned.iter().any(|r| r.id() == "value-now-rejected"));
    }
}
