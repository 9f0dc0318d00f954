//! `schema-key-order-changed`: the keys of one tool's inputSchema object are listed in reverse order

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `schema-key-order-changed` class: the keys of one tool's inputSchema object are listed in reverse order.
pub(crate) struct SchemaKeyOrderChanged;

impl MutationClass for SchemaKeyOrderChanged {
    fn id(&self) -> &'static str {
        "schema-key-order-changed"
    }
    fn summary(&self) -> &'static str {
        "the keys of one tool's inputSchema object are listed in reverse order"
    }
    fn label(&self) -> Label {
        Label::Benign
    }
    fn rationale(&self) -> &'static str {
        "JSON object member order carries no meaning; the schema is the same"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let sites = tool_sites(surface, |t| {
            t.get("inputSchema")
                .and_then(Value::as_object)
                .is_some_and(|s| s.len() >= 2)
        });
        let tool = draw(sites, rng, "inputSchema with two or more keys")?;
        let schema = schema_at(surface, tool, "inputSchema")?;
        let mut entries: Vec<(String, Value)> = std::mem::take(schema).into_iter().collect();
        entries.reverse();
        schema.extend(entries);
        Ok(Applied {
            tool_index: Some(tool),
            detail: "inputSchema keys reversed".into(),
        })
    }
}
