//! `input-schema-missing`: one tool's `inputSchema` field is removed.

use serde_json::Value;

use super::{draw_tool, label, Applied, Label, MutationClass, Outcome};
use crate::rng::Stream;

pub struct InputSchemaMissing;

impl MutationClass for InputSchemaMissing {
    fn id(&self) -> &'static str {
        "input-schema-missing"
    }
    fn summary(&self) -> &'static str {
        "one tool's inputSchema field is removed"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "inputSchema is required; clients cannot build a call, and some drop the tool"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let (index, tool) = draw_tool(surface, rng)?;
        // shift_remove keeps the order of the remaining fields.
        tool.shift_remove("inputSchema");
        Ok(Applied {
            tool_index: Some(index),
            detail: format!("{}: inputSchema removed", label(tool)),
        })
    }
}
