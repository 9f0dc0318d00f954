//! The rule registry: plain data, checked by the tests of `driftlab-rules`.
//!
//! The rules with logic of their own live in the crate `driftlab-rules`, above this one, which
//! hands them over once at start ([`register`]); the tables here (diff, contract and profile
//! rules) are data. So a change to one hand-written rule rebuilds only that crate and the
//! binary's, not every crate that reads the registry.

mod artifact_changed;
pub mod contract_rules;
pub mod diff_rules;
mod launch_changed;
pub mod profiles;
pub mod sets;

use std::sync::OnceLock;

pub use artifact_changed::ArtifactChanged;
pub use contract_rules::{ContractRule, CONTRACT_RULES};
pub use diff_rules::{DiffRule, DIFF_RULES};
pub use launch_changed::LaunchChanged;

use super::{Rule, RuleKind};

/// The lock rules: declarations whose findings `check --lock` makes (`lock::check`), so they
/// sit where the lockfile code can name them.
const LOCK_RULES: &[&dyn Rule] = &[&LaunchChanged, &ArtifactChanged];

/// The hand-written rules, as `driftlab-rules` registered them.
static HAND_WRITTEN: OnceLock<&'static [&'static dyn Rule]> = OnceLock::new();

/// Hands the registry the rules with logic of their own (`driftlab_rules::HAND_WRITTEN`: the
/// study rules, then the payload rules). The first call counts; the binary makes it before
/// anything reads the registry.
pub fn register(hand_written: &'static [&'static dyn Rule]) {
    let _ = HAND_WRITTEN.set(hand_written);
}

/// Every rule driftlab knows, in the order `driftlab rules` lists them. Panics, naming the call
/// to make, when the hand-written rules were not registered yet (a read then fails alone, and a
/// later one after the registration succeeds).
pub fn registry() -> &'static [&'static dyn Rule] {
    // A panic inside `get_or_init` leaves the cell empty (no poisoning): a later read, after the
    // registration, builds it.
    static ALL: OnceLock<Vec<&'static dyn Rule>> = OnceLock::new();
    ALL.get_or_init(|| {
        HAND_WRITTEN
            .get()
            .expect(
                "the rule registry was read before driftlab_rules::register() (driftlab::start)",
            )
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

/// Looks a rule up by id.
pub fn by_id(id: &str) -> Option<&'static dyn Rule> {
    registry().iter().copied().find(|rule| rule.id() == id)
}

/// Ids of every registered rule, for error messages.
pub fn ids() -> Vec<&'static str> {
    registry().iter().map(|rule| rule.id()).collect()
}
