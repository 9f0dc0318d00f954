//! `parameter-type-widened`: one input parameter accepts more: integer -> number, or T -> [T, \"null\"]

use serde_json::{json, Value};

use super::*;
use driftlab_contract::rng::Stream;

/// The `parameter-type-widened` class: one input parameter accepts more: integer -> number, or T -> [T, \"null\"].
pub(crate) struct ParameterTypeWidened;

impl MutationClass for ParameterTypeWidened {
    fn id(&self) -> &'static str {
        "parameter-type-widened"
    }
    fn summary(&self) -> &'static str {
        "one input parameter accepts more: integer -> number, or T -> [T, \"null\"]"
    }
    fn label(&self) -> Label {
        Label::Compatible
    }
    fn rationale(&self) -> &'static str {
        "every value accepted before is still accepted"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let eligible = |p: &Value, _| single_type(p).is_some_and(|t| t != "null");
        let site = draw(
            property_sites(surface, "inputSchema", eligible),
            rng,
            "typed parameter",
        )?;
        let property = property_at(surface, &site, "inputSchema")?;
        let old = property.get("type").cloned().unwrap_or(Value::Null);
        let new = if old == "integer" {
            json!("number")
        } else {
            json!([old.clone(), "null"])
        };
        property.insert("type".into(), new.clone());
        Ok(Applied {
            tool_index: Some(site.tool),
            detail: format!("{}: type {old} -> {new}", site.property),
        })
    }
}
