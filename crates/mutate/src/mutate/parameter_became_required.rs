//! `parameter-became-required`: one optional input parameter becomes required

use serde_json::{json, Value};

use super::*;
use driftlab_contract::rng::Stream;

/// The `parameter-became-required` class: one optional input parameter becomes required.
pub(crate) struct ParameterBecameRequired;

impl MutationClass for ParameterBecameRequired {
    fn id(&self) -> &'static str {
        "parameter-became-required"
    }
    fn summary(&self) -> &'static str {
        "one optional input parameter becomes required"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "calls that omit the parameter, valid before, are now rejected"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let site = draw(
            property_sites(surface, "inputSchema", |_, required| !required),
            rng,
            "optional parameter",
        )?;
        let schema = schema_at(surface, site.tool, "inputSchema")?;
        let required = schema.entry("required").or_insert_with(|| json!([]));
        if let Value::Array(r) = required {
            r.push(Value::String(site.property.clone()));
        }
        Ok(Applied {
            tool_index: Some(site.tool),
            detail: format!("{} became required", site.property),
        })
    }
}
