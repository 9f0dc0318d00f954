//! `name-set`: compares only the set of tool names (sorted). Modelled behaviour: fires when a name
//! is added, removed or changed. Blind by construction to everything inside a tool and to order.

use driftlab_check::check::{Comparison, Finding, Rule, RuleKind, Severity};

pub(crate) struct NameSet;

impl Rule for NameSet {
    fn id(&self) -> &'static str {
        "name-set"
    }
    fn added_in(&self) -> &'static str {
        "2026-11-30"
    }
    fn severity(&self) -> Severity {
        Severity::Breaking
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Study
    }
    fn summary(&self) -> &'static str {
        "emulation: the sorted set of tool names"
    }
    fn source(&self) -> &'static str {
        "the simplest inventory check; written from that description (see the taxonomy study's METHOD.md)"
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        fn names(s: &driftlab_contract::surface::Surface) -> Vec<std::borrow::Cow<'_, str>> {
            let mut n: Vec<_> = s.tools().map(|t| t.label_ref()).collect();
            n.sort();
            n
        }
        let (approved, candidate) = (comparison.approved, comparison.candidate);
        // The same names in the same order are the same set: sorted only when they are not.
        let in_order = approved.len() == candidate.len()
            && approved
                .tools()
                .zip(candidate.tools())
                .all(|(a, c)| a.label_ref() == c.label_ref());
        if !in_order && names(approved) != names(candidate) {
            out.push(Finding::at(
                self,
                None,
                "/tools".into(),
                "the set of tool names differs".into(),
            ));
        }
    }
}
