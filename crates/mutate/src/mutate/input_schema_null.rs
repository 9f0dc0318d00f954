//! `input-schema-null`: one tool's `inputSchema` becomes `null`.

use serde_json::Value;

use super::{draw_read_tool, draw_tool, edit, label, Applied, Edit, Label, MutationClass, Outcome};
use driftlab_contract::rng::Stream;
use driftlab_contract::surface::Surface;

/// The `input-schema-null` class: one tool's `inputSchema` becomes `null`.
pub(crate) struct InputSchemaNull;

/// What the detail says was done to the tool.
const CHANGE: &str = "inputSchema -> null";

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
        Ok(Applied::on_tool(index, &label(tool), CHANGE))
    }
    fn edit(&self, base: &Surface, rng: &mut Stream) -> Option<(Applied, Edit)> {
        let (index, tool) = draw_read_tool(base, rng)?;
        let edit = edit::set_field(base, index, "inputSchema", b"null".to_vec())?;
        Some((Applied::on_tool(index, tool.name_str()?, CHANGE), edit))
    }
}
