//! `tool-name-invalid`: a tool name that breaks the MCP 2025-11-25 name rule.

use super::structural::name_problem;
use driftlab_check::check::{check_each_tool, Comparison, Finding, PerTool, Rule, RuleKind, Severity};
use driftlab_contract::surface::Tool;

pub(crate) struct ToolNameInvalid;

impl Rule for ToolNameInvalid {
    fn id(&self) -> &'static str {
        "tool-name-invalid"
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
        "a tool name is missing, not a string, or does not match ^[A-Za-z0-9_.-]{1,128}$"
    }
    fn source(&self) -> &'static str {
        "MCP 2025-11-25 server/tools: tool names"
    }
    fn era(&self) -> &'static str {
        "2025-11-25…"
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        check_each_tool(self, comparison, out);
    }
    fn per_tool(&self) -> Option<&dyn PerTool> {
        Some(self)
    }
}

impl PerTool for ToolNameInvalid {
    fn check_tool(&self, comparison: &Comparison<'_>, tool: &Tool<'_>, out: &mut Vec<Finding>) {
        if let Some(problem) = name_problem(tool) {
            out.push(comparison.finding(self, || problem.detail(tool)));
        }
    }
}
