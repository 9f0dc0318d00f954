//! `tool-removed`: one tool disappears from the list

use serde_json::Value;

use super::*;
use crate::rng::Stream;

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
        Ok(Applied {
            tool_index: Some(tool),
            detail: format!("{} removed", label_of(&removed)),
        })
    }
    fn reach(&self, _: &Applied) -> Reach {
        Reach::Surface
    }
}
