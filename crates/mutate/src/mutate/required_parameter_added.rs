//! `required-parameter-added`: one tool gains a new required string parameter

use serde_json::{json, Value};

use super::*;
use driftlab_contract::rng::Stream;

/// The `required-parameter-added` class: one tool gains a new required string parameter.
pub(crate) struct RequiredParameterAdded;

impl MutationClass for RequiredParameterAdded {
    fn id(&self) -> &'static str {
        "required-parameter-added"
    }
    fn summary(&self) -> &'static str {
        "one tool gains a new required string parameter"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "every existing call lacks the new argument"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let sites = tool_sites(surface, |t| {
            t.get("inputSchema").is_some_and(Value::is_object)
        });
        let tool = draw(sites, rng, "tool with an object inputSchema")?;
        let schema = schema_at(surface, tool, "inputSchema")?;
        let name = fresh_property(schema, "workspace_id");
        add_property(
            schema,
            &name,
            json!({"type": "string", "description": "Workspace to act in"}),
        );
        let required = schema.entry("required").or_insert_with(|| json!([]));
        if let Value::Array(r) = required {
            r.push(Value::String(name.clone()));
        }
        Ok(Applied {
            tool_index: Some(tool),
            detail: format!("required {name} added"),
        })
    }
}
