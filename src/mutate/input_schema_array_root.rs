//! `input-schema-array-root`: one tool's `inputSchema` gets an array root, wrapping the old schema
//! as `items` (a server that declares a list of argument objects instead of one object).

use serde_json::{Map, Value};

use super::{draw_tool, label, Applied, Label, MutationClass, Outcome};
use crate::rng::Stream;

pub struct InputSchemaArrayRoot;

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
        Ok(Applied {
            tool_index: Some(index),
            detail: format!("{}: inputSchema root type -> array", label(tool)),
        })
    }
}
