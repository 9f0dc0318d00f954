//! `tool-removed`: one tool disappears from the list

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `tool-removed` class: one tool disappears from the list.
pub(crate) struct ToolRemoved;

impl MutationClass for ToolRemoved {
    fn id(&self) -> &'static str {
        "tool-removed"
    }
    fn summary(&self) -> &'static str {
        "one tool disappears from the list"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "calls to the tool fail with an unknown-tool error"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let tools = tools_mut(surface)?;
        let tool = draw((0..tools.len()).collect(), rng, "tool")?;
        let removed = tools.remove(tool);
        Ok(applied(tool, &label_of(&removed)))
    }
    fn reach(&self, _: &Applied) -> Reach {
        Reach::Surface
    }
    fn edit(&self, base: &Surface, rng: &mut Stream) -> Option<(Applied, Edit)> {
        // The same draw as `apply`'s; a tool without a string name goes through `apply` (its
        // label is written another way).
        let (index, tool) = draw_read_tool(base, rng)?;
        let edit = edit::remove_tool(base, index)?;
        Some((applied(index, tool.name_str()?), edit))
    }
}

fn applied(tool: usize, label: &str) -> Applied {
    Applied {
        tool_index: Some(tool),
        detail: format!("{label} removed"),
    }
}
