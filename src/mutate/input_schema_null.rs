//! `input-schema-null`: one tool's `inputSchema` becomes `null`.

use serde_json::Value;

use super::{draw_tool, label, Applied, Label, MutationClass, Outcome};
use crate::rng::Stream;

pub struct InputSchemaNull;

impl MutationClass for InputSchemaNull {
    fn id(&self) -> &'static str {
        "input-schema-null"
    }
    fn summary(&self) -> &'static str {
        "one tool's inputSchema becomes null"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "MCP 2025-11-25: inputSchema MUST be a JSON Schema object, not null; clients fail to load the tool"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let (index, tool) = draw_tool(surface, rng)?;
        tool.insert("inputSchema".into(), Value::Null);
        Ok(Applied {
            tool_index: Some(index),
            detail: format!("{}: inputSchema -> null", label(tool)),
        })
    }
}
