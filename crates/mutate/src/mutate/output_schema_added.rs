//! `output-schema-added`: one tool without an outputSchema declares one

use serde_json::{json, Value};

use super::*;
use driftlab_contract::rng::Stream;

/// The `output-schema-added` class: one tool without an outputSchema declares one.
pub(crate) struct OutputSchemaAdded;

impl MutationClass for OutputSchemaAdded {
    fn id(&self) -> &'static str {
        "output-schema-added"
    }
    fn summary(&self) -> &'static str {
        "one tool without an outputSchema declares one"
    }
    fn label(&self) -> Label {
        Label::Compatible
    }
    fn rationale(&self) -> &'static str {
        "a new contract for structuredContent; nothing existing changes"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let tool = draw(
            tool_sites(surface, |t| !t.contains_key("outputSchema")),
            rng,
            "tool without outputSchema",
        )?;
        tool_at(surface, tool)?.insert(
            "outputSchema".into(),
            json!({"type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"]}),
        );
        Ok(Applied {
            tool_index: Some(tool),
            detail: "outputSchema added".into(),
        })
    }
}
