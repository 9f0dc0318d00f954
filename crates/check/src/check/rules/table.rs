//! A rule that is one line of a table: it reports one kind of change a shared diff finds, under
//! its own id, severity, summary and rule set. The diff rules and the contract rules are such
//! tables; each kind of change says how its findings are made ([`Reported`]).

use crate::check::{Comparison, Finding, Rule, RuleKind, Severity};

/// A kind of change a table rule reports, and how the rule's findings are made of it.
pub trait Reported: Copy + PartialEq + Sync + 'static {
    /// Whether the findings parse or walk schemas (see [`Rule::heavy`]).
    const HEAVY: bool;
    /// Adds `rule`'s findings in `comparison` to `out`.
    fn check(rule: &TableRule<Self>, comparison: &Comparison<'_>, out: &mut Vec<Finding>);
    /// The part of the contract `rule` is about (see [`Rule::part`]).
    fn part(_rule: &TableRule<Self>) -> &'static str {
        "tools"
    }
    /// The protocol versions `rule` applies to (see [`Rule::era`]).
    fn era(_rule: &TableRule<Self>) -> &'static str {
        "all"
    }
}

/// One line of a rule table.
pub struct TableRule<K> {
    /// The rule's id.
    pub id: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// The kind of change it reports.
    pub change: K,
    /// Its line in `driftlab rules`.
    pub summary: &'static str,
    /// Where it comes from.
    pub source: &'static str,
    /// The rule set it joined.
    pub added_in: &'static str,
}

impl<K: Reported> Rule for TableRule<K> {
    fn id(&self) -> &'static str {
        self.id
    }
    fn severity(&self) -> Severity {
        self.severity
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Diff
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn source(&self) -> &'static str {
        self.source
    }
    fn added_in(&self) -> &'static str {
        self.added_in
    }
    fn era(&self) -> &'static str {
        K::era(self)
    }
    fn part(&self) -> &'static str {
        K::part(self)
    }
    fn heavy(&self) -> bool {
        K::HEAVY
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        K::check(self, comparison, out)
    }
}
