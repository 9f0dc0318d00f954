//! `output-schema-not-object`: an outputSchema whose root is not an object schema.

use serde_json::Value;

use driftlab_check::check::{
    check_each_tool, Comparison, Finding, PerTool, Rule, RuleKind, Severity, ToolRef,
};
use driftlab_contract::surface::{json_type, Tool};

pub(crate) struct OutputSchemaNotObject;

impl Rule for OutputSchemaNotObject {
    fn id(&self) -> &'static str {
        "output-schema-not-object"
    }
    fn added_in(&self) -> &'static str {
        "2026-11-30"
    }
    fn severity(&self) -> Severity {
        Severity::Warning
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Payload
    }
    fn summary(&self) -> &'static str {
        "an outputSchema is present but is not an object schema with \"type\": \"object\" (required up to MCP 2025-11-25)"
    }
    fn source(&self) -> &'static str {
        "MCP 2025-06-18 to 2025-11-25 Tool.outputSchema: type \"object\" at the root; 2026-07-28 allows any schema"
    }
    fn era(&self) -> &'static str {
        "2025-06-18…2025-11-25"
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        check_each_tool(self, comparison, out);
    }
    fn per_tool(&self) -> Option<&dyn PerTool> {
        Some(self)
    }
}

impl PerTool for OutputSchemaNotObject {
    fn check_tool(&self, _: &Comparison<'_>, tool: &Tool<'_>, out: &mut Vec<Finding>) {
        // The common case, `type` written "object", needs no parsing.
        if tool.raw_type_of("outputSchema") == Some("\"object\"") {
            return;
        }
        let message = match tool.output_schema() {
            None => return,
            Some(Value::Object(s)) if s.get("type") == Some(&Value::from("object")) => return,
            Some(Value::Object(s)) => match s.get("type") {
                None => "outputSchema has no \"type\" (expected \"object\")".to_string(),
                Some(t) => format!("outputSchema root type is {t}, expected \"object\""),
            },
            Some(other) => format!("outputSchema is {}, not an object", json_type(other)),
        };
        out.push(Finding::at(
            self,
            Some(ToolRef::of(tool)),
            tool.pointer("outputSchema"),
            message,
        ));
    }
}
