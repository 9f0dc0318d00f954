//! `Surface` and `Tool`: a view over the raw `tools/list` JSON that never coerces.
//!
//! A missing `inputSchema`, a `null` one and `{}` stay three different things; a name that is not
//! a string stays a non-string. Checkers decide what each of these means.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::pointer;

/// The tools a server listed, in the order it listed them.
#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    tools: Vec<Map<String, Value>>,
    /// JSON pointer of each tool in the document it was read from (e.g. `/result/tools/2`).
    locations: Vec<String>,
}

/// One listed tool, by position.
#[derive(Debug, Clone, Copy)]
pub struct Tool<'a> {
    pub index: usize,
    pub fields: &'a Map<String, Value>,
    pub location: &'a str,
}

impl Surface {
    /// A surface whose tools sit at `/tools/<i>`, as in a `tools/list` result object.
    pub fn new(tools: Vec<Map<String, Value>>) -> Surface {
        let locations = (0..tools.len())
            .map(|i| pointer::push_index("/tools", i))
            .collect();
        Surface { tools, locations }
    }

    /// A surface whose tools were found at the given pointers.
    pub fn with_locations(tools: Vec<Map<String, Value>>, locations: Vec<String>) -> Surface {
        debug_assert_eq!(tools.len(), locations.len());
        Surface { tools, locations }
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    pub fn tools(&self) -> impl ExactSizeIterator<Item = Tool<'_>> {
        self.tools
            .iter()
            .zip(&self.locations)
            .enumerate()
            .map(|(index, (fields, location))| Tool {
                index,
                fields,
                location,
            })
    }

    pub fn tool(&self, index: usize) -> Option<Tool<'_>> {
        Some(Tool {
            index,
            fields: self.tools.get(index)?,
            location: &self.locations[index],
        })
    }

    /// The `tools/list` result object `{"tools":[…]}`, fields in their original order.
    pub fn to_value(&self) -> Value {
        let tools = self.tools.iter().cloned().map(Value::Object).collect();
        let mut result = Map::new();
        result.insert("tools".into(), Value::Array(tools));
        Value::Object(result)
    }

    /// Canonical bytes: the compact result object, fields and tools in their original order
    /// (order is part of the contract, so it is not normalized away).
    pub fn canonical_bytes(&self) -> Vec<u8> {
        // Serializing a `Value` cannot fail.
        serde_json::to_vec(&self.to_value()).unwrap_or_default()
    }

    /// SHA-256 of the canonical bytes, lowercase hex.
    pub fn fingerprint(&self) -> String {
        sha256_hex(&self.canonical_bytes())
    }
}

impl<'a> Tool<'a> {
    /// The raw `name` value; `None` when the field is absent.
    pub fn name(&self) -> Option<&'a Value> {
        self.fields.get("name")
    }

    /// The name if it is a string.
    pub fn name_str(&self) -> Option<&'a str> {
        self.name().and_then(Value::as_str)
    }

    /// A printable label: the name, or `#<index>` when the name is missing or not a string.
    pub fn label(&self) -> String {
        match self.name_str() {
            Some(name) => name.to_string(),
            None => format!("#{}", self.index),
        }
    }

    /// The raw `inputSchema`; `None` when absent, `Some(Value::Null)` when `null`.
    pub fn input_schema(&self) -> Option<&'a Value> {
        self.fields.get("inputSchema")
    }

    /// The raw `outputSchema`; `None` when absent, `Some(Value::Null)` when `null`.
    pub fn output_schema(&self) -> Option<&'a Value> {
        self.fields.get("outputSchema")
    }

    /// Pointer to a field of this tool.
    pub fn pointer(&self, field: &str) -> String {
        pointer::push(self.location, field)
    }
}

/// Lowercase hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lowercase hex of a digest.
pub fn hex(digest: &[u8]) -> String {
    let mut out = String::with_capacity(2 * digest.len());
    for byte in digest {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// The names a schema's `required` array lists (strings only; empty when there is none).
pub fn required_names(schema: &Map<String, Value>) -> std::collections::BTreeSet<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn surface(value: Value) -> Surface {
        let tools = value
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_object().unwrap().clone())
            .collect();
        Surface::new(tools)
    }

    #[test]
    fn missing_null_and_empty_schema_stay_distinct() {
        let s = surface(json!([
            {"name": "a"},
            {"name": "b", "inputSchema": null},
            {"name": "c", "inputSchema": {}}
        ]));
        let tools: Vec<_> = s.tools().collect();
        assert_eq!(tools[0].input_schema(), None);
        assert_eq!(tools[1].input_schema(), Some(&Value::Null));
        assert_eq!(tools[2].input_schema(), Some(&json!({})));
    }

    #[test]
    fn canonical_bytes_keep_tool_and_key_order() {
        let s =
            surface(json!([{"name": "b", "description": "x"}, {"description": "y", "name": "a"}]));
        assert_eq!(
            String::from_utf8(s.canonical_bytes()).unwrap(),
            r#"{"tools":[{"name":"b","description":"x"},{"description":"y","name":"a"}]}"#
        );
        assert_eq!(s.fingerprint().len(), 64);
    }

    #[test]
    fn labels_and_pointers() {
        let s = surface(json!([{"name": 5}, {"name": "x/y"}]));
        assert_eq!(s.tool(0).unwrap().label(), "#0");
        assert_eq!(
            s.tool(1).unwrap().pointer("inputSchema"),
            "/tools/1/inputSchema"
        );
        assert!(s.tool(2).is_none());
    }
}
