//! `description-hash`: emulates tool pinning, which records a hash of each tool's description
//! by name and warns when a pinned tool's description changes. Modelled behaviour: fires only for
//! a tool present under the same name in both surfaces whose description differs. Blind by
//! construction to schemas, annotations, added, removed or renamed tools and order.

use serde_json::Value;

use crate::check::{Comparison, Finding, Rule, RuleKind, Severity, ToolRef};

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
    fn check<'a>(&self, comparison: &Comparison<'a>, out: &mut Vec<Finding>) {
        // Comparing the descriptions themselves is comparing their hashes, without hashing.
        let hash = |t: &crate::surface::Tool<'a>| -> &'a str {
            t.get("description").and_then(Value::as_str).unwrap_or("")
        };
        let pinned = crate::ByLabel::new(comparison.approved);
        for tool in comparison.candidate.tools() {
            let pinned = pinned.get(&tool.label_ref());
            // Equal description texts hold equal descriptions: compared without parsing.
            let same_text = |p: &crate::surface::Tool<'a>| {
                p.raw_field("description") == tool.raw_field("description")
            };
            if pinned.is_some_and(|p| !same_text(&p) && hash(&p) != hash(&tool)) {
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
