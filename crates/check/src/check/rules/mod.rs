//! The rule registry: plain data, checked by the tests of `driftlab-rules`.
//!
//! The rules with logic of their own live in the crate `driftlab-rules`, above this one, whose
//! table the linker gathers into [`HAND_WRITTEN`]; the tables here (diff, contract and profile
//! rules) are data. So a change to one hand-written rule rebuilds only that crate and the
//! binary's, not every crate that reads the registry.

mod artifact_changed;
pub mod contract_rules;
pub mod diff_rules;
mod launch_changed;
pub mod profiles;
pub mod sets;
mod table;

use std::sync::OnceLock;

pub use artifact_changed::ArtifactChanged;
pub use contract_rules::{ContractRule, CONTRACT_RULES};
pub use diff_rules::{DiffRule, DIFF_RULES};
pub use launch_changed::LaunchChanged;
pub use table::{Reported, TableRule};

use super::{Rule, RuleKind};

/// The lock rules: declarations whose findings `check --lock` makes (`lock::check`), so they
/// sit where the lockfile code can name them.
const LOCK_RULES: &[&dyn Rule] = &[&LaunchChanged, &ArtifactChanged];

/// The hand-written rules, in their order: `driftlab-rules` places its one table here when it
/// is linked (a static gathered by the linker, no call at start-up), so the crates that read the
/// registry depend on this crate alone and a change to a rule rebuilds only `driftlab-rules` and
/// the binary.
#[linkme::distributed_slice]
pub static HAND_WRITTEN: [&'static [&'static dyn Rule]];

/// Every rule driftlab knows, in the order `driftlab rules` lists them: the hand-written rules,
/// then the tables of this crate. Panics when `driftlab-rules` is not linked into the program
/// (name it: `use driftlab_rules as _;`), except in this crate's own tests, which have none.
pub fn registry() -> &'static [&'static dyn Rule] {
    static ALL: OnceLock<Vec<&'static dyn Rule>> = OnceLock::new();
    ALL.get_or_init(|| {
        let hand_written: &[&dyn Rule] = match HAND_WRITTEN[..] {
            [table] => table,
            #[cfg(test)]
            [] => &[],
            _ => panic!(
                "{} tables of hand-written rules are linked, not one: link driftlab-rules once \
                 (`use driftlab_rules as _;`)",
                HAND_WRITTEN.len()
            ),
        };
        hand_written
            .iter()
            .copied()
            .chain(LOCK_RULES.iter().copied())
            .chain(DIFF_RULES.iter().map(|r| r as &dyn Rule))
            .chain(CONTRACT_RULES.iter().map(|r| r as &dyn Rule))
            .chain(profiles::PROFILE_RULES.iter().map(|r| r as &dyn Rule))
            .collect()
    })
}

/// The rules of one kind, in registry order; opt-in client-profile rules only through
/// [`profiles::ClientProfile::rule`].
pub fn of_kind(kind: RuleKind) -> Vec<&'static dyn Rule> {
    registry()
        .iter()
        .copied()
        .filter(|r| r.kind() == kind && r.profile().is_none())
        .collect()
}

/// The rules `driftlab check` runs: the payload rules, the chosen client profiles' rules, and,
/// when there is an approved snapshot to compare with, the profiles' "newly" rules and the diff
/// rules.
pub fn gate_rules(
    profiles: impl IntoIterator<Item = &'static profiles::ClientProfile>,
    with_snapshot: bool,
) -> Vec<&'static dyn Rule> {
    let mut rules = of_kind(RuleKind::Payload);
    for profile in profiles {
        rules.push(profile.rule(false));
        if with_snapshot {
            rules.push(profile.rule(true));
        }
    }
    if with_snapshot {
        rules.extend(of_kind(RuleKind::Diff));
    }
    rules
}

/// Looks a rule up by id.
pub fn by_id(id: &str) -> Option<&'static dyn Rule> {
    registry().iter().copied().find(|rule| rule.id() == id)
}

/// Ids of every registered rule, for error messages.
pub fn ids() -> Vec<&'static str> {
    registry().iter().map(|rule| rule.id()).collect()
}
