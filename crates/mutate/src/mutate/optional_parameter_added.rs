//! `optional-parameter-added`: one tool gains a new optional boolean parameter

use serde_json::{json, Value};

use super::*;
use driftlab_contract::rng::Stream;

/// The `optional-parameter-added` class: one tool gains a new optional boolean parameter.
pub(crate) struct OptionalParameterAdded;

impl MutationClass for OptionalParameterAdded {
    fn id(&self) -> &'static str {
        "optional-parameter-added"
    }
    fn summary(&self) -> &'static str {
        "one tool gains a new optional boolean parameter"
    }
    fn label(&self) -> Label {
        Label::Compatible
    }
    fn rationale(&self) -> &'static str {
        "existing calls omit it and keep working"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let sites = tool_sites(surface, |t| {
            t.get("inputSchema").is_some_and(Value::is_object)
        });
        let tool = draw(sites, rng, "tool with an object inputSchema")?;
        let schema = schema_at(surface, tool, "inputSchema")?;
        let name = fresh_property(schema, "include_metadata");
        add_property(
            schema,
            &name,
            json!({"type": "boolean", "description": "Also return metadata"}),
        );
        Ok(Applied {
            tool_index: Some(tool),
            detail: format!("optional {name} added"),
        })
    }
}
