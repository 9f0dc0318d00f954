//! `enum-value-removed`: one input parameter's enum loses its last value

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `enum-value-removed` class: one input parameter's enum loses its last value.
pub(crate) struct EnumValueRemoved;

impl MutationClass for EnumValueRemoved {
    fn id(&self) -> &'static str {
        "enum-value-removed"
    }
    fn summary(&self) -> &'static str {
        "one input parameter's enum loses its last value"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "calls that send the removed value are rejected"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let eligible = |p: &Value, _| {
            p.get("enum")
                .and_then(Value::as_array)
                .is_some_and(|e| e.len() >= 2)
        };
        let site = draw(
            property_sites(surface, "inputSchema", eligible),
            rng,
            "parameter with an enum of two or more values",
        )?;
        let property = property_at(surface, &site, "inputSchema")?;
        let removed = match property.get_mut("enum") {
            Some(Value::Array(values)) => values.pop().unwrap_or(Value::Null),
            _ => Value::Null,
        };
        Ok(Applied {
            tool_index: Some(site.tool),
            detail: format!("{}: {removed} removed from enum", site.property),
        })
    }
}
