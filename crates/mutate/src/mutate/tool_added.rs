//! `tool-added`: a new tool is appended to the list

use serde_json::{json, Value};

use super::*;
use crate::rng::Stream;

/// The `tool-added` class: a new tool is appended to the list.
pub(crate) struct ToolAdded;

impl MutationClass for ToolAdded {
    fn id(&self) -> &'static str {
        "tool-added"
    }
    fn summary(&self) -> &'static str {
        "a new tool is appended to the list"
    }
    fn label(&self) -> Label {
        Label::Compatible
    }
    fn rationale(&self) -> &'static str {
        "existing calls are unaffected and the other tools keep their relative order"
    }
    fn apply(&self, surface: &mut Value, _rng: &mut Stream) -> Outcome {
        let name = fresh_tool_name(surface, "get_status_report");
        let tools = tools_mut(surface)?;
        tools.push(json!({
            "name": name,
            "description": "Summarize the server's current status.",
            "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false}
        }));
        Ok(Applied {
            tool_index: Some(tools.len() - 1),
            detail: format!("{name} appended"),
        })
    }
    fn reach(&self, _: &Applied) -> Reach {
        Reach::Surface
    }
}
