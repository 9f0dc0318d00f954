//! `tool-added`: a new tool is appended to the list

use serde_json::{json, Value};

use super::*;
use driftlab_contract::rng::Stream;

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
        let name = fresh_tool_name(surface, NAME);
        let tools = tools_mut(surface)?;
        tools.push(added_tool(&name));
        Ok(applied(tools.len() - 1, &name))
    }
    fn reach(&self, _: &Applied) -> Reach {
        Reach::Surface
    }
    fn edit(&self, base: &Surface, _rng: &mut Stream) -> Option<(Applied, Edit)> {
        let name = fresh_read_tool_name(base, NAME);
        let edit = edit::append_tool(base, &added_tool(&name))?;
        Some((applied(base.len(), &name), edit))
    }
}

const NAME: &str = "get_status_report";

fn added_tool(name: &str) -> Value {
    json!({
        "name": name,
        "description": "Summarize the server's current status.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false}
    })
}

fn applied(tool: usize, name: &str) -> Applied {
    Applied {
        tool_index: Some(tool),
        detail: format!("{name} appended"),
    }
}
