//! `enum-value-added`: one input parameter's enum gains a value

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `enum-value-added` class: one input parameter's enum gains a value.
pub(crate) struct EnumValueAdded;

impl MutationClass for EnumValueAdded {
    fn id(&self) -> &'static str {
        "enum-value-added"
    }
    fn summary(&self) -> &'static str {
        "one input parameter's enum gains a value"
    }
    fn label(&self) -> Label {
        Label::Compatible
    }
    fn rationale(&self) -> &'static str {
        "every value accepted before is still accepted"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let eligible = |p: &Value, _| p.get("enum").is_some_and(Value::is_array);
        let site = draw(
            property_sites(surface, "inputSchema", eligible),
            rng,
            "parameter with an enum",
        )?;
        let property = property_at(surface, &site, "inputSchema")?;
        if let Some(Value::Array(values)) = property.get_mut("enum") {
            let mut added = "other".to_string();
            while values.iter().any(|v| v.as_str() == Some(&added)) {
                added.push('_');
            }
            values.push(Value::String(added));
        }
        Ok(Applied {
            tool_index: Some(site.tool),
            detail: format!("{}: enum value added", site.property),
        })
    }
}
