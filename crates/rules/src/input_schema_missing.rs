//! `input-schema-missing`: a tool has no inputSchema field.

use super::structural::{input_schema_problem, InputSchemaProblem};
use driftlab_check::check::{check_each_tool, Comparison, Finding, PerTool, Rule, RuleKind, Severity};
use driftlab_contract::surface::Tool;

pub struct InputSchemaMissing;

impl Rule for InputSchemaMissing {
    fn id(&self) -> &'static str {
        "input-schema-missing"
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
        "a tool has no inputSchema field"
    }
    fn source(&self) -> &'static str {
        "MCP schema Tool.inputSchema is required in every version"
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        check_each_tool(self, comparison, out);
    }
    fn per_tool(&self) -> Option<&dyn PerTool> {
        Some(self)
    }
}

impl PerTool for InputSchemaMissing {
    fn check_tool(&self, comparison: &Comparison<'_>, tool: &Tool<'_>, out: &mut Vec<Finding>) {
        let problem = input_schema_problem(tool);
        if let Some(problem) = problem.filter(|p| p.kind() == InputSchemaProblem::Missing) {
            out.push(comparison.finding(self, || problem.detail(tool)));
        }
    }
}
