//! A deterministic repairer: the retry a caller makes who reads only a refusal's text and the
//! tool's pinned (old) input schema, and does exactly what the text says ([`super::fixes`]'s
//! sentences, and "`NAME` is no longer a parameter"; other errors as [`super::repair_formats`]
//! reads them). No model: it measures whether a refusal
//! names what to send, not how clever a caller is.

use serde_json::{json, Map, Value};

use super::repair_fix::Fix;

/// The retried call `(tool, arguments)`, or `None` when the text names nothing to change.
pub fn repair(
    text: &str,
    tool: &str,
    old_schema: Option<&Value>,
    arguments: &Value,
) -> Option<(String, Value)> {
    // The guard's own sentences first; an error of another kind (a stack's, a server SDK's)
    // is read for what it names only where the text holds none of them.
    let mut fixes = read(text);
    if fixes.is_empty() {
        fixes = super::repair_formats::read(text, arguments);
    }
    if fixes.is_empty() {
        return None;
    }
    let before_tool = tool.to_string();
    let mut tool = tool.to_string();
    let mut args: Map<String, Value> = arguments.as_object().cloned().unwrap_or_default();
    let old_default = |name: &str| -> Option<Value> {
        let default = old_schema?.pointer(&format!("/properties/{}/default", escape(name)))?;
        Some(default.clone())
    };
    let old_type = |name: &str| -> Option<String> {
        let kind = old_schema?.pointer(&format!("/properties/{}/type", escape(name)))?;
        kind.as_str().map(String::from)
    };
    // Renames first (a renamed parameter is also reported gone), then what is gone, whose
    // values a new parameter of the same type takes, then the values to change.
    for fix in &fixes {
        match fix {
            Fix::Rename { old, new } => {
                if let Some(value) = args.remove(old) {
                    args.insert(new.clone(), value);
                }
            }
            Fix::CallInstead { new } => tool = new.clone(),
            _ => {}
        }
    }
    let mut dropped: Vec<(String, Value)> = Vec::new();
    for fix in &fixes {
        if let Fix::Gone { name } = fix {
            if let Some(value) = args.remove(name) {
                dropped.push((name.clone(), value));
            }
        }
    }
    let mut take_dropped = |kind: &str| {
        let same_type = dropped
            .iter()
            .position(|(old, _)| old_type(old).is_some_and(|k| kind.split(" or ").any(|t| t == k)));
        same_type.map(|i| dropped.remove(i).1)
    };
    for fix in &fixes {
        match fix {
            Fix::AddRequired { name, kind } if !args.contains_key(name) => {
                // A gone value of its type, else the default the pinned schema promised (a
                // parameter that became required), else a placeholder of its type.
                let value = take_dropped(kind)
                    .or_else(|| old_default(name))
                    .unwrap_or_else(|| placeholder(kind));
                args.insert(name.clone(), value);
            }
            Fix::New { name, kind } if !args.contains_key(name) => {
                if let Some(value) = take_dropped(kind) {
                    args.insert(name.clone(), value);
                }
            }
            Fix::OneOf { name, allowed } => {
                if let Some(first) = allowed.first() {
                    args.insert(name.clone(), first.clone());
                }
            }
            Fix::OfType { name, kind } => {
                if let Some(value) = args.get(name) {
                    let converted = convert(value, kind.split(" or ").next().unwrap_or(""));
                    args.insert(name.clone(), converted);
                }
            }
            _ => {}
        }
    }
    let before = (before_tool, arguments.clone());
    let repaired = (tool, Value::Object(args));
    (repaired != before).then_some(repaired)
}

/// Every fix sentence in `text`, in order.
fn read(text: &str) -> Vec<Fix> {
    let mut fixes = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let fix = if let Some(after) = rest.strip_prefix("send ") {
            names_pair(after).map(|(new, old)| Fix::Rename { old, new })
        } else if let Some(after) = rest.strip_prefix("call ") {
            names_pair(after).map(|(new, _)| Fix::CallInstead { new })
        } else if let Some(after) = rest.strip_prefix("add the required parameter ") {
            named_type(after).map(|(name, kind)| Fix::AddRequired { name, kind })
        } else if let Some(after) = rest.strip_prefix("new parameter ") {
            named_type(after).map(|(name, kind)| Fix::New { name, kind })
        } else if let Some(after) = rest.strip_prefix('`') {
            let end = after.find('`').unwrap_or(after.len());
            after[end..]
                .starts_with("` is no longer a parameter")
                .then(|| Fix::Gone {
                    name: after[..end].to_string(),
                })
        } else if rest.starts_with('"') {
            must(rest)
        } else {
            None
        };
        if let Some(fix) = fix {
            fixes.push(fix);
        }
        at += rest.chars().next().map_or(1, char::len_utf8);
    }
    fixes
}

/// `"NAME" must be one of [..]` or `"NAME" must be of type TYPE`.
fn must(text: &str) -> Option<Fix> {
    let (name, used) = json_string(text)?;
    let rest = &text[used..];
    if let Some(list) = rest.strip_prefix(" must be one of ") {
        let mut values = serde_json::Deserializer::from_str(list).into_iter::<Vec<Value>>();
        let allowed = values.next()?.ok()?;
        return Some(Fix::OneOf { name, allowed });
    }
    let kind = rest.strip_prefix(" must be of type ")?;
    let end = kind.find([';', '.', ')']).unwrap_or(kind.len());
    Some(Fix::OfType {
        name,
        kind: kind[..end].trim().to_string(),
    })
}

/// `"NAME" (TYPE)`, as (NAME, TYPE).
fn named_type(text: &str) -> Option<(String, String)> {
    let (name, used) = json_string(text)?;
    let kind = text[used..].strip_prefix(" (")?;
    Some((name, kind[..kind.find(')')?].to_string()))
}

/// `"A" instead of "B"`, as (A, B).
fn names_pair(text: &str) -> Option<(String, String)> {
    let (first, used) = json_string(text)?;
    let rest = text[used..].strip_prefix(" instead of ")?;
    let (second, _) = json_string(rest)?;
    Some((first, second))
}

/// A JSON string at the start of `text` and how many bytes it took.
fn json_string(text: &str) -> Option<(String, usize)> {
    if !text.starts_with('"') {
        return None;
    }
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<String>();
    let value = stream.next()?.ok()?;
    Some((value, stream.byte_offset()))
}

fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// A value of `kind` for a required parameter the caller has nothing for.
fn placeholder(kind: &str) -> Value {
    match kind.split(" or ").next().unwrap_or("") {
        "integer" | "number" => json!(0),
        "boolean" => json!(false),
        "array" => json!([]),
        "object" => json!({}),
        "null" => Value::Null,
        _ => json!(""),
    }
}

/// `value` as `kind`, where it converts; else unchanged.
fn convert(value: &Value, kind: &str) -> Value {
    match (kind, value) {
        ("integer", Value::Number(n)) => n
            .as_f64()
            .map_or(value.clone(), |f| json!(f.round() as i64)),
        ("integer" | "number", Value::String(s)) => s
            .trim()
            .parse::<f64>()
            .map(|f| {
                if kind == "integer" {
                    json!(f.round() as i64)
                } else {
                    json!(f)
                }
            })
            .unwrap_or(value.clone()),
        ("string", Value::Array(items)) => json!(items
            .iter()
            .map(|v| v
                .as_str()
                .map(String::from)
                .unwrap_or_else(|| v.to_string()))
            .collect::<Vec<_>>()
            .join(",")),
        ("string", v) if !v.is_string() => json!(v.to_string()),
        ("array", v) if !v.is_array() => json!([v]),
        _ => value.clone(),
    }
}
