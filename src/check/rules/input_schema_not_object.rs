//! `input-schema-not-object`: a tool's inputSchema is not an object schema with "type": "object".

use super::structural::{input_schema_problem, InputSchemaProblem};
use crate::check::{Comparison, Finding, Rule, RuleKind, Severity};

pub struct InputSchemaNotObject;

impl Rule for InputSchemaNotObject {
    fn id(&self) -> &'static str {
        "input-schema-not-object"
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
        "a tool's inputSchema is not an object schema with \"type\": \"object\" at its root"
    }
    fn source(&self) -> &'static str {
        "MCP schema Tool.inputSchema requires type: \"object\" at the root"
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        for tool in comparison.candidate.tools() {
            let problem = input_schema_problem(&tool);
            if let Some(problem) = problem.filter(|p| p.kind() == InputSchemaProblem::NotObjectRoot)
            {
                out.push(comparison.finding(self, || problem.detail(&tool)));
            }
        }
    }
}
