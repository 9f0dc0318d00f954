//! `parameter-type-narrowed`: one input parameter accepts fewer types: number -> integer, a type list -> its first type, or no type -> string

use serde_json::{json, Value};

use super::*;
use driftlab_contract::rng::Stream;

/// The `parameter-type-narrowed` class: one input parameter accepts fewer types: number -> integer, a type list -> its first type, or no type -> string.
pub(crate) struct ParameterTypeNarrowed;

impl MutationClass for ParameterTypeNarrowed {
    fn id(&self) -> &'static str {
        "parameter-type-narrowed"
    }
    fn summary(&self) -> &'static str {
        "one input parameter accepts fewer types: number -> integer, a type list -> its first type, or no type -> string"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "calls that send a value of the dropped type are rejected"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let eligible = |p: &Value, _| match p.get("type") {
            None => p.get("$ref").is_none() && p.get("anyOf").is_none() && p.get("oneOf").is_none(),
            Some(Value::String(t)) => t == "number",
            Some(Value::Array(ts)) => ts.len() > 1,
            Some(_) => false,
        };
        let site = draw(
            property_sites(surface, "inputSchema", eligible),
            rng,
            "narrowable parameter",
        )?;
        let property = property_at(surface, &site, "inputSchema")?;
        let old = property.get("type").cloned().unwrap_or(Value::Null);
        let new = match &old {
            Value::Array(ts) => ts[0].clone(),
            Value::String(_) => json!("integer"),
            _ => json!("string"),
        };
        property.insert("type".into(), new.clone());
        Ok(Applied {
            tool_index: Some(site.tool),
            detail: format!("{}: type {old} -> {new}", site.property),
        })
    }
}
