//! `input-schema-null`: a tool's inputSchema is null.

use super::structural::{input_schema_problem, InputSchemaProblem};
use driftlab_check::check::{check_each_tool, Comparison, Finding, PerTool, Rule, RuleKind, Severity};
use driftlab_contract::surface::Tool;

pub struct InputSchemaNull;

impl Rule for InputSchemaNull {
    fn id(&self) -> &'static str {
        "input-schema-null"
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
        "a tool's inputSchema is null"
    }
    fn source(&self) -> &'static str {
        "MCP 2025-11-25 Tool.inputSchema MUST be a valid JSON Schema object (not null)"
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

impl PerTool for InputSchemaNull {
    fn check_tool(&self, comparison: &Comparison<'_>, tool: &Tool<'_>, out: &mut Vec<Finding>) {
        let problem = input_schema_problem(tool);
        if let Some(problem) = problem.filter(|p| p.kind() == InputSchemaProblem::Null) {
            out.push(comparison.finding(self, || problem.detail(tool)));
        }
    }
}
