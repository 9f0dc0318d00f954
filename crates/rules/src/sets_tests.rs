//! The shipped rule sets, over the whole registry.

use driftlab_check::check::rules::sets::*;
use driftlab_check::check::rules::{of_kind, registry};
use driftlab_check::check::RuleKind;

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
        let all: Vec<&str> = of_kind(kind).iter().map(|r| r.id()).collect();
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
