//! `input-schema-array-root`: one tool's `inputSchema` gets an array root, wrapping the old schema
//! as `items` (a server that declares a list of argument objects instead of one object).

use serde_json::{Map, Value};

use super::{draw_read_tool, draw_tool, edit, label, Applied, Edit, Label, MutationClass, Outcome};
use driftlab_contract::rng::Stream;
use driftlab_contract::surface::Surface;

/// The `input-schema-array-root` class: one tool's `inputSchema` gets an array root, wrapping the old schema.
pub(crate) struct InputSchemaArrayRoot;

/// What the detail says was done to the tool.
const CHANGE: &str = "inputSchema root type -> array";

impl MutationClass for InputSchemaArrayRoot {
    fn id(&self) -> &'static str {
        "input-schema-array-root"
    }
    fn summary(&self) -> &'static str {
        "one tool's inputSchema becomes {\"type\":\"array\",\"items\":<old schema>}"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "clients send an arguments object; a schema whose root is an array rejects or mis-describes every call"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let (index, tool) = draw_tool(surface, rng)?;
        // Taken, not cloned: the insert below replaces it in place.
        let old = tool.get_mut("inputSchema").map_or(Value::Null, Value::take);
        let mut schema = Map::new();
        schema.insert("type".into(), "array".into());
        schema.insert("items".into(), old);
        tool.insert("inputSchema".into(), Value::Object(schema));
        Ok(Applied::on_tool(index, &label(tool), CHANGE))
    }
    fn edit(&self, base: &Surface, rng: &mut Stream) -> Option<(Applied, Edit)> {
        let (index, tool) = draw_read_tool(base, rng)?;
        let old = tool.raw_field("inputSchema")?;
        let mut schema = Vec::with_capacity(old.len() + 32);
        schema.extend_from_slice(br#"{"type":"array","items":"#);
        schema.extend_from_slice(old.as_bytes());
        schema.push(b'}');
        let edit = edit::set_field(base, index, "inputSchema", schema)?;
        Some((Applied::on_tool(index, tool.name_str()?, CHANGE), edit))
    }
}
