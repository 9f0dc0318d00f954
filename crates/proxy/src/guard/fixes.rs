//! What a refusal tells the caller to send instead, read off the live input schema and the
//! drift: each fix is one sentence in a fixed form, so a model (or `guard::repair`) can act on
//! it without guessing:
//!
//! - `send "NEW" instead of "OLD"` (a renamed parameter)
//! - `add the required parameter "NAME" (TYPE)`
//! - `"NAME" must be one of [VALUES]` (the values as JSON)
//! - `"NAME" must be of type TYPE`
//! - `new parameter "NAME" (TYPE)` (one the pin does not have, named when the call
//!   sends a parameter that is gone: the diff could not pair them, a reader may)
//! - `call "NEW" instead of "OLD"` (a renamed tool)

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::drift::ToolDrift;
use crate::contract::values::resolve;

/// The fixes for a call with `arguments` to a tool whose live input schema is `schema` (the
/// pinned one's parameters beside it, if known).
pub(crate) fn for_call(
    schema: &Value,
    pinned: Option<&BTreeSet<String>>,
    arguments: &Map<String, Value>,
    drift: Option<&ToolDrift>,
) -> Vec<String> {
    let mut fixes = Vec::new();
    let properties = schema.get("properties").and_then(Value::as_object);
    let property = |name: &str| -> Option<&Value> {
        let p = properties?.get(name)?;
        match p.get("$ref").and_then(Value::as_str) {
            Some(reference) => resolve(schema, reference),
            None => Some(p),
        }
    };
    for name in arguments.keys() {
        if properties.is_some_and(|p| !p.contains_key(name)) {
            if let Some((_, new)) =
                drift.and_then(|d| d.renamed.iter().find(|(old, _)| old == name))
            {
                fixes.push(format!("send {} instead of {}", quoted(new), quoted(name)));
            }
        }
    }
    // Names and types only: a live description is text nobody approved, and the guard keeps
    // such text from the model (it answers `tools/list` with the pin for that reason).
    let described = |name: &str| {
        let kind = property(name)
            .and_then(type_of)
            .unwrap_or_else(|| "any type".into());
        format!("{} ({kind})", quoted(name))
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for &name in &required {
        let renamed_here = drift.is_some_and(|d| {
            d.renamed
                .iter()
                .any(|(old, new)| new == name && arguments.contains_key(old))
        });
        if arguments.contains_key(name) || renamed_here {
            continue;
        }
        fixes.push(format!("add the required parameter {}", described(name)));
    }
    let sends_gone = arguments
        .keys()
        .any(|name| properties.is_some_and(|p| !p.contains_key(name)));
    if let (true, Some(pinned), Some(properties)) = (sends_gone, pinned, properties) {
        for name in properties.keys() {
            let renamed = drift.is_some_and(|d| d.renamed.iter().any(|(_, new)| new == name));
            if !pinned.contains(name) && !required.contains(&name.as_str()) && !renamed {
                fixes.push(format!("new parameter {}", described(name)));
            }
        }
    }
    for (name, value) in arguments {
        let Some(p) = property(name) else { continue };
        if let Some(Value::Array(allowed)) = p.get("enum") {
            if !allowed.contains(value) {
                let list = serde_json::to_string(allowed).unwrap_or_default();
                fixes.push(format!("{} must be one of {list}", quoted(name)));
            }
            continue;
        }
        if let Some(kind) = type_of(p) {
            if !kind.split(" or ").any(|k| is_of_type(value, k)) {
                fixes.push(format!("{} must be of type {kind}", quoted(name)));
            }
        }
    }
    fixes
}

/// The fix for a call to a tool that is gone.
pub(crate) fn for_tool(tool: &str, drift: Option<&ToolDrift>) -> Option<String> {
    let new = drift?.renamed_to.as_ref()?;
    Some(format!("call {} instead of {}", quoted(new), quoted(tool)))
}

fn quoted(name: &str) -> String {
    serde_json::to_string(name).unwrap_or_default()
}

/// A property's JSON type(s) as words: `integer`, `string or null`.
fn type_of(property: &Value) -> Option<String> {
    match property.get("type")? {
        Value::String(kind) => Some(kind.clone()),
        Value::Array(kinds) => Some(
            kinds
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" or "),
        ),
        _ => None,
    }
}

fn is_of_type(value: &Value, kind: &str) -> bool {
    match kind {
        "string" => value.is_string(),
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => true,
    }
}
