//! Writing tools given as values into a surface's text, and parsing a field's text on demand.

use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Key, RawField, RawTool};

/// Appends `map` as compact JSON (the bytes `serde_json::to_vec` gives) and returns the tool,
/// with `map` as its parsed form.
pub(super) fn write_tool(text: &mut String, map: Map<String, Value>) -> RawTool {
    let start = text.len();
    let mut fields = Vec::with_capacity(map.len());
    text.push('{');
    for (i, (key, value)) in map.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        let key_start = text.len();
        push_json(text, &Value::String(key.clone()));
        // A key written without escapes is its own text between the quotes.
        let key = if text.len() - key_start == key.len() + 2 {
            Key::Span(key_start + 1..text.len() - 1)
        } else {
            Key::Decoded(key.as_str().into())
        };
        text.push(':');
        let value_start = text.len();
        push_json(text, value);
        fields.push(RawField::new(key, value_start..text.len()));
    }
    text.push('}');
    RawTool::with_map(start..text.len(), fields, OnceLock::from(Box::new(map)))
}

fn push_json(text: &mut String, value: &Value) {
    // Serializing a `Value` cannot fail.
    text.push_str(&serde_json::to_string(value).unwrap_or_default());
}

/// Parses JSON text the reader has already validated: built straight from the text
/// ([`super::validated`]), or where that declines by serde_json. Nesting is bounded by the
/// reader, and serde_json runs on a stack that grows on the heap, so a deep value cannot
/// overflow.
pub(super) fn parse(text: &str) -> Value {
    if let Some(value) = super::validated::parse(text) {
        return value;
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    deserializer.disable_recursion_limit();
    // Validated text always parses; `Null` would only stand for a reader defect.
    Value::deserialize(serde_stacker::Deserializer::new(&mut deserializer)).unwrap_or(Value::Null)
}
