//! The rule registry: plain data, checked by the tests below.

mod ordered_snapshot;
pub mod structural;

pub use ordered_snapshot::OrderedSnapshot;
pub use structural::Structural;

use super::Rule;

/// Every rule driftlab knows, in the order `driftlab rules` lists them.
pub const REGISTRY: &[&dyn Rule] = &[&Structural, &OrderedSnapshot];

/// Looks a rule up by id.
pub fn by_id(id: &str) -> Option<&'static dyn Rule> {
    REGISTRY.iter().copied().find(|rule| rule.id() == id)
}

/// Ids of every registered rule, for error messages.
pub fn ids() -> Vec<&'static str> {
    REGISTRY.iter().map(|rule| rule.id()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn ids_are_unique_and_kebab_case() {
        let ids = ids();
        let unique: BTreeSet<_> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len());
        for id in ids {
            assert!(crate::is_kebab_case(id), "{id}");
            assert_eq!(by_id(id).map(|r| r.id()), Some(id));
        }
    }

    #[test]
    fn every_rule_has_a_summary_and_a_source() {
        for rule in REGISTRY {
            assert!(!rule.summary().is_empty() && !rule.summary().contains('\n'));
            assert!(!rule.source().is_empty());
        }
    }
}
