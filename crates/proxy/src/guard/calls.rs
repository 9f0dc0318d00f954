//! Seeded calls that are valid under a tool's inputSchema: what an agent built against that
//! contract would send. Every required parameter is present, each optional one with probability
//! 1/2; enum values, union branches, booleans and numbers (within their bounds) are drawn;
//! strings take the value their own keywords accept (`default`, an example, a `format` sample).

use serde_json::{json, Map, Value};

use driftlab_contract::contract::validator;
use driftlab_contract::contract::values::{resolve, Valid};
use driftlab_contract::contract::values::{valid_number, valid_string};
use driftlab_contract::rng::Stream;

/// Draws made for one call before giving up on a schema whose valid instances we cannot build.
const ATTEMPTS: usize = 16;
const MAX_DEPTH: usize = 32;

/// A call's arguments valid under `schema` (checked with the JSON Schema validator), or `None`
/// when none was found in [`ATTEMPTS`] draws or the schema does not compile.
pub fn valid_arguments(schema: &Value, rng: &mut Stream) -> Option<Value> {
    let validator = validator(schema).ok()?;
    (0..ATTEMPTS)
        .map(|_| Draw { root: schema, rng }.value(schema, 0))
        .find(|candidate| candidate.is_object() && validator.is_valid(candidate))
}

struct Draw<'a, 'r> {
    root: &'a Value,
    rng: &'r mut Stream,
}

impl Draw<'_, '_> {
    fn value(&mut self, schema: &Value, depth: usize) -> Value {
        let Value::Object(object) = schema else {
            return json!("x");
        };
        if depth > MAX_DEPTH {
            return Value::Null;
        }
        if let Some(Value::String(reference)) = object.get("$ref") {
            return match resolve(self.root, reference) {
                Some(target) => self.value(target, depth + 1),
                None => json!("x"),
            };
        }
        if let Some(value) = object.get("const") {
            return value.clone();
        }
        if let Some(Value::Array(options)) = object
            .get("enum")
            .filter(|e| e.as_array().is_some_and(|a| !a.is_empty()))
        {
            return self.rng.choose(options).clone();
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = object
                .get(keyword)
                .filter(|b| b.as_array().is_some_and(|a| !a.is_empty()))
            {
                if !object.contains_key("type") {
                    let branch = self.rng.choose(branches);
                    return self.value(branch, depth + 1);
                }
            }
        }
        if let Some(Value::Array(parts)) = object.get("allOf") {
            if let Some(first) = parts.first() {
                return self.value(first, depth + 1);
            }
        }
        let kind = match object.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(types)) => {
                let types: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
                if types.is_empty() {
                    "string"
                } else {
                    *self.rng.choose(&types)
                }
            }
            _ if object.contains_key("properties") => "object",
            _ if object.contains_key("items") => "array",
            _ => "string",
        };
        match kind {
            "object" => self.object(object, depth),
            "array" => {
                let count = object
                    .get("minItems")
                    .and_then(Value::as_u64)
                    .unwrap_or(1)
                    .clamp(1, 3);
                let items = object.get("items").cloned().unwrap_or(json!({}));
                Value::Array((0..count).map(|_| self.value(&items, depth + 1)).collect())
            }
            "string" => match valid_string(object) {
                Valid::Value(v) => v,
                _ => json!("x"),
            },
            "integer" | "number" => self.number(object, kind == "integer"),
            "boolean" => json!(self.rng.chance(1, 2)),
            "null" => Value::Null,
            _ => json!("x"),
        }
    }

    /// A number drawn within the bounds (1 to 100 when unbounded), so an optional number is
    /// rarely its `default`; with a `multipleOf`, the leaf's own valid value.
    fn number(&mut self, object: &Map<String, Value>, integer: bool) -> Value {
        let bound = |key: &str| object.get(key).and_then(Value::as_f64);
        let lo = bound("minimum")
            .or(bound("exclusiveMinimum").map(|m| m.floor() + 1.0))
            .unwrap_or(1.0)
            .ceil();
        let hi = bound("maximum")
            .or(bound("exclusiveMaximum").map(|m| m.ceil() - 1.0))
            .unwrap_or(lo.max(0.0) + 99.0)
            .floor();
        if lo.abs() < 1e15 && hi.abs() < 1e15 && lo <= hi && !object.contains_key("multipleOf") {
            let x = self.rng.range_inclusive(lo as i64, hi as i64);
            // A `number` is a fraction half the time (within the bounds: the draw is revalidated).
            return if !integer && x < hi as i64 && self.rng.chance(1, 2) {
                json!(x as f64 + 0.5)
            } else {
                json!(x)
            };
        }
        match valid_number(object, integer) {
            Valid::Value(v) => v,
            _ => json!(0),
        }
    }

    fn object(&mut self, object: &Map<String, Value>, depth: usize) -> Value {
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = Map::new();
        if let Some(properties) = object.get("properties").and_then(Value::as_object) {
            for (name, schema) in properties {
                if required.contains(&name.as_str()) || self.rng.chance(1, 2) {
                    let value = self.value(schema, depth + 1);
                    out.insert(name.clone(), value);
                }
            }
        }
        Value::Object(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_valid_seeded_and_vary_enums_and_optional_parameters() {
        let schema = json!({"type": "object", "properties": {
            "query": {"type": "string", "minLength": 2},
            "status": {"enum": ["open", "closed", "archived"]},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
        }, "required": ["query"], "additionalProperties": false});
        let draw = |i| valid_arguments(&schema, &mut Stream::derive(7, "call", i)).unwrap();
        let calls: Vec<Value> = (0..40).map(draw).collect();
        let validator = validator(&schema).unwrap();
        assert!(calls
            .iter()
            .all(|c| validator.is_valid(c) && c["query"] == "xx"));
        assert_eq!(calls, (0..40).map(draw).collect::<Vec<_>>());
        let statuses: std::collections::BTreeSet<String> = calls
            .iter()
            .filter_map(|c| c.get("status").and_then(Value::as_str).map(String::from))
            .collect();
        assert_eq!(statuses.len(), 3);
        assert!(calls.iter().any(|c| c.get("limit").is_none()));
        let limits: std::collections::BTreeSet<i64> = calls
            .iter()
            .filter_map(|c| c.get("limit").and_then(Value::as_i64))
            .collect();
        assert!(limits.len() > 5 && limits.iter().all(|l| (1..=50).contains(l)));
    }

    #[test]
    fn a_schema_without_a_known_valid_string_gives_no_call() {
        let schema = json!({"type": "object", "properties": {"id": {"type": "string", "pattern": "^[0-9]+$"}}, "required": ["id"]});
        assert_eq!(
            valid_arguments(&schema, &mut Stream::derive(1, "call", 0)),
            None
        );
    }
}
