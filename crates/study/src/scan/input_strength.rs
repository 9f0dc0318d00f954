//! Input-contract strength: would the inputSchema refuse the calls an out-of-date client makes?
//! Each question is a generated call validated against the schema; a question that does not
//! apply (no required parameter, no enum) is `None`.

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::corrupt::{escape, SENTINEL};
use driftlab_contract::contract::validator;
use jsonschema::error::ValidationErrorKind;

/// The parameter name used for the unknown-parameter call.
pub(crate) const UNKNOWN_PARAMETER: &str = "driftlab_unknown_parameter";

/// What a tool's input schema refuses of the out-of-date calls.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct InputVerdict {
    /// The schema compiled and has an object root.
    pub usable: bool,
    /// `{"driftlab_unknown_parameter": …}` is refused for the unknown name (a renamed parameter
    /// would not be silently dropped).
    pub rejects_unknown_parameter: bool,
    /// `{}` is refused for a missing required parameter; `None`: nothing is required.
    pub rejects_missing_required: Option<bool>,
    /// The first typed parameter given a value of another type is refused.
    pub rejects_wrong_type: Option<bool>,
    /// The first enum parameter given a value outside its enum is refused.
    pub rejects_outside_enum: Option<bool>,
    /// The research's minimum bar: unknown parameters refused, and required ones (if any) too.
    pub meets_minimum_bar: bool,
}

/// Judges an input schema (`None`: the tool declares none).
pub fn judge(schema: Option<&Value>) -> InputVerdict {
    let Some(object) = schema
        .and_then(Value::as_object)
        .filter(|o| o.get("type") == Some(&json!("object")))
    else {
        return InputVerdict::default();
    };
    let schema = schema.unwrap_or(&Value::Null);
    let Ok(validator) = validator(schema) else {
        return InputVerdict::default();
    };
    // (instance pointer, kind) of every error for one call.
    let errors = |call: Value| -> Vec<(String, String)> {
        validator
            .iter_errors(&call)
            .map(|e| {
                (
                    e.instance_path().as_str().to_string(),
                    kind_name(e.kind()).to_string(),
                )
            })
            .collect()
    };
    let properties = object.get("properties").and_then(Value::as_object);
    let rejects_unknown_parameter =
        errors(json!({ UNKNOWN_PARAMETER: SENTINEL }))
            .iter()
            .any(|(at, kind)| {
                at.is_empty()
                    && matches!(
                        kind.as_str(),
                        "additionalProperties"
                            | "unevaluatedProperties"
                            | "propertyNames"
                            | "falseSchema"
                    )
            });
    let required = object
        .get("required")
        .and_then(Value::as_array)
        .filter(|r| !r.is_empty());
    let rejects_missing_required =
        required.map(|_| errors(json!({})).iter().any(|(_, kind)| kind == "required"));
    let rejects_wrong_type = properties.and_then(|p| {
        p.iter().find_map(|(name, s)| {
            let wrong = wrong_type(s.get("type")?)?;
            let at = format!("/{}", escape(name));
            Some(errors(call_with(name, wrong)).iter().any(|(p, _)| *p == at))
        })
    });
    let rejects_outside_enum = properties.and_then(|p| {
        p.iter().find_map(|(name, s)| {
            let options = s.get("enum")?.as_array()?;
            let mut outside = SENTINEL.to_string();
            while options.contains(&Value::String(outside.clone())) {
                outside.push('!');
            }
            let at = format!("/{}", escape(name));
            Some(
                errors(call_with(name, Value::String(outside)))
                    .iter()
                    .any(|(p, _)| *p == at),
            )
        })
    });
    InputVerdict {
        usable: true,
        rejects_unknown_parameter,
        rejects_missing_required,
        rejects_wrong_type,
        rejects_outside_enum,
        meets_minimum_bar: rejects_unknown_parameter && rejects_missing_required != Some(false),
    }
}

fn call_with(name: &str, value: Value) -> Value {
    let mut call = Map::new();
    call.insert(name.to_string(), value);
    Value::Object(call)
}

/// A value of a JSON type the declared `type` does not allow.
fn wrong_type(declared: &Value) -> Option<Value> {
    let allowed: Vec<&str> = match declared {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    let candidates = [
        ("string", json!(SENTINEL)),
        ("object", json!({})),
        ("boolean", json!(true)),
        ("array", json!([])),
    ];
    candidates
        .into_iter()
        .find(|(t, _)| !allowed.contains(t))
        .map(|(_, v)| v)
}

fn kind_name(kind: &ValidationErrorKind) -> &'static str {
    match kind {
        ValidationErrorKind::AdditionalProperties { .. } => "additionalProperties",
        ValidationErrorKind::UnevaluatedProperties { .. } => "unevaluatedProperties",
        ValidationErrorKind::PropertyNames { .. } => "propertyNames",
        ValidationErrorKind::FalseSchema => "falseSchema",
        ValidationErrorKind::Required { .. } => "required",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strict_schema_refuses_every_out_of_date_call() {
        let v = judge(Some(&json!({
            "type": "object",
            "properties": {"q": {"type": "string"}, "mode": {"enum": ["a", "b"]}},
            "required": ["q"],
            "additionalProperties": false
        })));
        assert_eq!(
            v,
            InputVerdict {
                usable: true,
                rejects_unknown_parameter: true,
                rejects_missing_required: Some(true),
                rejects_wrong_type: Some(true),
                rejects_outside_enum: Some(true),
                meets_minimum_bar: true,
            }
        );
    }

    #[test]
    fn an_open_schema_silently_accepts_a_renamed_parameter() {
        let v = judge(Some(
            &json!({"type": "object", "properties": {"q": {"type": "string"}}}),
        ));
        assert!(v.usable && !v.rejects_unknown_parameter && !v.meets_minimum_bar);
        assert_eq!(v.rejects_missing_required, None);
        assert_eq!(v.rejects_outside_enum, None);
        assert_eq!(v.rejects_wrong_type, Some(true));
    }

    #[test]
    fn unusable_schemas() {
        assert!(!judge(None).usable);
        assert!(
            !judge(Some(
                &json!({"$schema": "http://json-schema.org/draft-07/schema#"})
            ))
            .usable
        );
        assert!(!judge(Some(&json!({"type": "object", "required": "q"}))).usable);
    }
}
