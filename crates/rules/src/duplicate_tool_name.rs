//! `duplicate-tool-name`: two tools share a name, so a call cannot say which one it means.

use std::collections::hash_map::{Entry, HashMap};

use foldhash::fast::RandomState;

use driftlab_check::check::{Comparison, Finding, Rule, RuleKind, Severity, ToolRef};

pub(crate) struct DuplicateToolName;

impl Rule for DuplicateToolName {
    fn id(&self) -> &'static str {
        "duplicate-tool-name"
    }
    fn added_in(&self) -> &'static str {
        "2026-11-30"
    }
    fn severity(&self) -> Severity {
        Severity::Breaking
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Payload
    }
    fn summary(&self) -> &'static str {
        "two or more tools share a name"
    }
    fn source(&self) -> &'static str {
        "MCP 2025-11-25 server/tools: tool names SHOULD be unique within a server"
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        let candidate = comparison.candidate;
        let mut first: HashMap<&str, usize, RandomState> =
            HashMap::with_capacity_and_hasher(candidate.len(), RandomState::default());
        for tool in candidate.tools() {
            let Some(name) = tool.name_str() else {
                continue;
            };
            match first.entry(name) {
                Entry::Occupied(earlier) => out.push(Finding::at(
                    self,
                    Some(ToolRef::of(&tool)),
                    tool.pointer("name"),
                    format!("tool name {name:?} is also used by tool {}", earlier.get()),
                )),
                Entry::Vacant(slot) => {
                    slot.insert(tool.index);
                }
            }
        }
    }
}
