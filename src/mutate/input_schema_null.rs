//! `input-schema-null`: one tool's `inputSchema` becomes `null`.

use serde_json::Value;

use super::{draw_tool, label, Applied, MutationClass, Outcome};
use crate::rng::Stream;

pub struct InputSchemaNull;

impl MutationClass for InputSchemaNull {
    fn id(&self) -> &'static str {
        "input-schema-null"
    }
    fn summary(&self) -> &'static str {
        "one tool's inputSchema becomes null"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let (index, tool) = draw_tool(surface, rng)?;
        tool.insert("inputSchema".into(), Value::Null);
        Ok(Applied {
            tool_index: Some(index),
            detail: format!("{}: inputSchema -> null", label(tool)),
        })
    }
}
