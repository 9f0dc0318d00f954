//! `tool-renamed`: one tool gets another valid name (<name>_v2), everything else unchanged

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `tool-renamed` class: one tool gets another valid name (<name>_v2), everything else unchanged.
pub(crate) struct ToolRenamed;

impl MutationClass for ToolRenamed {
    fn id(&self) -> &'static str {
        "tool-renamed"
    }
    fn summary(&self) -> &'static str {
        "one tool gets another valid name (<name>_v2), everything else unchanged"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "calls by the old name fail with an unknown-tool error"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let (tool, old) = draw_named_tool(surface, rng)?;
        let new = fresh_tool_name(surface, &format!("{old}_v2"));
        tool_at(surface, tool)?.insert("name".into(), Value::String(new.clone()));
        Ok(Applied::renamed(tool, &old, &new))
    }
    fn edit(&self, base: &Surface, rng: &mut Stream) -> Option<(Applied, Edit)> {
        let (index, old) = draw_read_named_tool(base, rng)?;
        let new = fresh_read_tool_name(base, &format!("{old}_v2"));
        let edit = edit::set_string(base, index, "name", &new)?;
        Some((Applied::renamed(index, old, &new), edit))
    }
}
