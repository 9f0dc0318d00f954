//! Two facts about JSON values in JSON Schema's terms, used by the rules and the diff: a value's
//! type name, and the names a schema's `required` array lists.

use serde_json::{Map, Value};

use crate::lookup::Lookup;

/// The names a schema's `required` array lists (strings only, sorted, once each; empty when
/// there is none), borrowed from the schema.
pub fn required_names(schema: &Map<String, Value>) -> std::collections::BTreeSet<&str> {
    schema
        .field("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The JSON type name of a value, as JSON Schema spells it.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
