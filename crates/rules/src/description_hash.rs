//! `description-hash`: emulates tool pinning, which records a hash of each tool's description
//! by name and warns when a pinned tool's description changes. Modelled behaviour: fires only for
//! a tool present under the same name in both surfaces whose description differs. Blind by
//! construction to schemas, annotations, added, removed or renamed tools and order.

use driftlab_check::check::{Comparison, Finding, Rule, RuleKind, Severity, ToolRef};

pub(crate) struct DescriptionHash;

impl Rule for DescriptionHash {
    fn id(&self) -> &'static str {
        "description-hash"
    }
    fn added_in(&self) -> &'static str {
        "2026-11-30"
    }
    fn severity(&self) -> Severity {
        Severity::Warning
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Study
    }
    fn summary(&self) -> &'static str {
        "emulation: tool pinning, a hash of each tool's description by name"
    }
    fn source(&self) -> &'static str {
        "behaviour of published tool-pinning scanners, written from their description (see the taxonomy study's METHOD.md)"
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        // Comparing the descriptions themselves is comparing their hashes, without hashing.
        let pinned = crate::ByLabel::new(comparison.approved);
        for tool in comparison.candidate.tools() {
            let pinned = pinned.get(&tool.label_ref());
            if pinned.is_some_and(|p| !crate::same_hashed_description(&p, &tool)) {
                out.push(Finding::at(
                    self,
                    Some(ToolRef::of(&tool)),
                    tool.pointer("description"),
                    "pinned tool description changed".into(),
                ));
            }
        }
    }
}
