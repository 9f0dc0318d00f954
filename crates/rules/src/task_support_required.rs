//! `task-support-required`: a tool's `execution.taskSupport` became `"required"`. A server MUST
//! answer a call without task augmentation with −32601, so every existing caller that does not
//! use tasks now fails.

use serde_json::Value;

use driftlab_check::check::{Comparison, Finding, Rule, RuleKind, Severity, ToolRef};
use driftlab_contract::surface::Tool;

pub(crate) struct TaskSupportRequired;

fn task_support<'a>(tool: &Tool<'a>) -> Option<&'a Value> {
    tool.get("execution")?.get("taskSupport")
}

impl Rule for TaskSupportRequired {
    fn id(&self) -> &'static str {
        "task-support-required"
    }
    fn added_in(&self) -> &'static str {
        "2026-12-03"
    }
    fn severity(&self) -> Severity {
        Severity::Breaking
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Diff
    }
    fn summary(&self) -> &'static str {
        "a tool's execution.taskSupport became \"required\": calls without task augmentation are refused (-32601)"
    }
    fn source(&self) -> &'static str {
        "MCP 2025-11-25 Tool.execution.taskSupport: \"required\" means clients MUST invoke the tool as a task, and the server MUST return -32601 otherwise"
    }
    fn era(&self) -> &'static str {
        "2025-11-25"
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        let required = Value::from("required");
        let approved = super::ApprovedByName::new(comparison);
        for tool in comparison.candidate.tools() {
            // Most tools have no execution field: the text says so without parsing.
            if tool.raw_field("execution").is_none() || task_support(&tool) != Some(&required) {
                continue;
            }
            let Some(old) = tool.name_str().and_then(|n| approved.get(n)) else {
                continue;
            };
            let before = task_support(old);
            if before == Some(&required) {
                continue;
            }
            out.push(comparison.finding(self, || {
                let was = before.map_or("absent (forbidden)".to_string(), Value::to_string);
                let message = format!(
                    "execution.taskSupport is now \"required\" (was {was}): calls without task augmentation get -32601"
                );
                let at = driftlab_contract::pointer::push(&tool.pointer("execution"), "taskSupport");
                (Some(ToolRef::of(&tool)), at, message)
            }));
        }
    }
}
