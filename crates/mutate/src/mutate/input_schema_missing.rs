//! `input-schema-missing`: one tool's `inputSchema` field is removed.

use serde_json::Value;

use super::{draw_read_tool, draw_tool, edit, label, Applied, Edit, Label, MutationClass, Outcome};
use driftlab_contract::rng::Stream;
use driftlab_contract::surface::Surface;

/// The `input-schema-missing` class: one tool's `inputSchema` field is removed.
pub(crate) struct InputSchemaMissing;

/// What the detail says was done to the tool.
const CHANGE: &str = "inputSchema removed";

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
        Ok(Applied::on_tool(index, &label(tool), CHANGE))
    }
    fn edit(&self, base: &Surface, rng: &mut Stream) -> Option<(Applied, Edit)> {
        let (index, tool) = draw_read_tool(base, rng)?;
        let edit = edit::remove_field(base, index, "inputSchema")?;
        Some((Applied::on_tool(index, tool.name_str()?, CHANGE), edit))
    }
}
