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
//!
//! By kind ([`ServerWords::Kinds`], the default) a fix names only what the user approved: a
//! pinned parameter, a pinned value the server still accepts, a JSON type. A fix that would
//! name anything else says what kind of thing it is instead:
//!
//! - `the server renamed "OLD" to a name the pin does not have`
//! - `the server now requires a parameter the pin does not have`
//! - `no approved value of "NAME" is accepted by the server now`

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::drift::ToolDrift;
use super::words::{self, ServerWords};
use driftlab_contract::contract::values::resolve;

/// What a fix may name: the server's words as `words` allows, and what the pin approved.
pub(crate) struct Said<'a> {
    pub words: ServerWords,
    /// The pinned input schema (its values are approved).
    pub pinned: Option<&'a Value>,
    /// The pinned parameters' names.
    pub params: Option<&'a BTreeSet<String>>,
}

impl Said<'_> {
    /// A live parameter name, quoted, where a fix may name it.
    fn param(&self, name: &str) -> Option<String> {
        let approved = self.params.is_some_and(|p| p.contains(name));
        (approved || self.words == ServerWords::Quoted).then(|| words::name(name))
    }
}

/// The fixes for a call with `arguments` to a tool whose live input schema is `schema`.
pub(crate) fn for_call(
    schema: &Value,
    said: &Said<'_>,
    arguments: &Map<String, Value>,
    drift: Option<&ToolDrift>,
) -> Vec<String> {
    let pinned = said.params;
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
                fixes.push(match said.param(new) {
                    Some(new) => format!("send {new} instead of {}", quoted(name)),
                    None => format!(
                        "the server renamed {} to a name the pin does not have",
                        quoted(name)
                    ),
                });
            }
        }
    }
    // Names and types only: a live description is text nobody approved, and the guard keeps
    // such text from the model (it answers `tools/list` with the pin for that reason).
    let described = |name: &str| {
        let kind = property(name)
            .and_then(|p| type_of(p, said.words))
            .unwrap_or_else(|| "any type".into());
        Some(format!("{} ({kind})", said.param(name)?))
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
        let fix = match described(name) {
            Some(described) => format!("add the required parameter {described}"),
            None => "the server now requires a parameter the pin does not have".into(),
        };
        if !fixes.contains(&fix) {
            fixes.push(fix);
        }
    }
    let sends_gone = arguments
        .keys()
        .any(|name| properties.is_some_and(|p| !p.contains_key(name)));
    if let (true, Some(pinned), Some(properties)) = (sends_gone, pinned, properties) {
        for name in properties.keys() {
            let renamed = drift.is_some_and(|d| d.renamed.iter().any(|(_, new)| new == name));
            if !pinned.contains(name) && !required.contains(&name.as_str()) && !renamed {
                fixes.extend(described(name).map(|d| format!("new parameter {d}")));
            }
        }
    }
    for (name, value) in arguments {
        let Some(p) = property(name) else { continue };
        if let Some(Value::Array(allowed)) = p.get("enum") {
            if !allowed.contains(value) {
                fixes.push(one_of(name, allowed, said));
            }
            continue;
        }
        if let Some(kind) = type_of(p, said.words) {
            if !kind.split(" or ").any(|k| is_of_type(value, k)) {
                fixes.push(format!("{} must be of type {kind}", quoted(name)));
            }
        }
    }
    fixes
}

/// `"NAME" must be one of [VALUES]`: by kind, only the approved values the server still takes.
fn one_of(name: &str, allowed: &[Value], said: &Said<'_>) -> String {
    let values: Vec<&Value> = match said.words {
        ServerWords::Quoted => allowed.iter().collect(),
        ServerWords::Kinds => words::approved_values(said.pinned, name)
            .into_iter()
            .filter(|v| allowed.contains(v))
            .collect(),
    };
    if values.is_empty() {
        return format!(
            "no approved value of {} is accepted by the server now",
            quoted(name)
        );
    }
    let list = serde_json::to_string(&values).unwrap_or_default();
    let list = match said.words {
        ServerWords::Quoted => words::quoted(&list),
        ServerWords::Kinds => list,
    };
    format!("{} must be one of {list}", quoted(name))
}

/// The fix for a call to a tool that is gone: by kind, none (its new name is not approved, and
/// the agent sees only the pinned tools).
pub(crate) fn for_tool(
    tool: &str,
    drift: Option<&ToolDrift>,
    words: ServerWords,
) -> Option<String> {
    let new = drift?.renamed_to.as_ref()?;
    (words == ServerWords::Quoted)
        .then(|| format!("call {} instead of {}", words::name(new), quoted(tool)))
}

/// A name the caller sent (or the pin has): the caller's own words, as JSON.
fn quoted(name: &str) -> String {
    serde_json::to_string(name).unwrap_or_default()
}

/// A property's JSON type(s) as words: `integer`, `string or null`; by kind, only JSON's own
/// type names.
fn type_of(property: &Value, said: ServerWords) -> Option<String> {
    let kinds: Vec<&str> = match property.get("type")? {
        Value::String(kind) => vec![kind.as_str()],
        Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    let kinds: Vec<String> = match said {
        ServerWords::Quoted => kinds.into_iter().map(words::quoted).collect(),
        ServerWords::Kinds => kinds
            .into_iter()
            .filter(|k| words::known_type(k))
            .map(String::from)
            .collect(),
    };
    (!kinds.is_empty()).then(|| kinds.join(" or "))
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
