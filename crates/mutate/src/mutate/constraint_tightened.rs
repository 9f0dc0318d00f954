//! `constraint-tightened`: one input constraint gets stricter: a maximum or maxLength halved toward its minimum, or additionalProperties: false added

use serde_json::{json, Value};

use super::*;
use driftlab_contract::rng::Stream;

/// The `constraint-tightened` class: one input constraint gets stricter: a maximum or maxLength halved toward its minimum, or additionalProperties: false added.
pub(crate) struct ConstraintTightened;

impl MutationClass for ConstraintTightened {
    fn id(&self) -> &'static str {
        "constraint-tightened"
    }
    fn summary(&self) -> &'static str {
        "one input constraint gets stricter: a maximum or maxLength halved toward its minimum, or additionalProperties: false added"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "calls that were valid (a larger value, a longer string, an extra property) are now rejected"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        // Sites: bounded parameters first, then open input schemas, in surface order.
        let bounded = property_sites(surface, "inputSchema", |p, _| {
            p.get("maximum").is_some_and(Value::is_number)
                || p.get("maxLength").is_some_and(Value::is_u64)
        });
        let open = tool_sites(surface, |t| {
            t.get("inputSchema").is_some_and(|s| {
                s.is_object() && s.get("additionalProperties") != Some(&Value::Bool(false))
            })
        });
        let mut sites: Vec<(usize, Option<String>)> = bounded
            .into_iter()
            .map(|s| (s.tool, Some(s.property)))
            .collect();
        sites.extend(open.into_iter().map(|t| (t, None)));
        let (tool, property) = draw(sites, rng, "bounded parameter or open input schema")?;
        let Some(property) = property else {
            schema_at(surface, tool, "inputSchema")?
                .insert("additionalProperties".into(), Value::Bool(false));
            return Ok(Applied {
                tool_index: Some(tool),
                detail: "additionalProperties: false added".into(),
            });
        };
        let site = Site { tool, property };
        let p = property_at(surface, &site, "inputSchema")?;
        let (key, old) = match p.get("maximum").and_then(Value::as_f64) {
            Some(max) => ("maximum", max),
            None => (
                "maxLength",
                p.get("maxLength").and_then(Value::as_f64).unwrap_or(0.0),
            ),
        };
        let floor = p
            .get(if key == "maximum" {
                "minimum"
            } else {
                "minLength"
            })
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        let mut new = (floor + (old - floor) / 2.0).floor();
        if new >= old {
            new = old - 1.0;
        }
        p.insert(key.into(), json!(new as i64));
        Ok(Applied {
            tool_index: Some(tool),
            detail: format!("{}: {key} {old} -> {new}", site.property),
        })
    }
}
