//! A generated surface as drawn, built as a `serde_json::Value` or written straight to its compact
//! bytes: the two renderings of the same draws (a test in `super` holds them to each other).

use std::ops::Range;
use std::sync::LazyLock;

use serde_json::{json, Map, Value};

use super::camel;
use super::vocabulary::{Kind, PARAMETERS};
use driftlab_contract::payload::compact;

/// A generated surface as drawn: [`Plan::to_value`] builds it, [`Plan::write`] writes the bytes
/// serializing that value gives, without building it (a test holds the two to each other).
#[derive(Debug, Clone)]
pub struct Plan {
    pub(super) tools: Vec<ToolPlan>,
}

#[derive(Debug, Clone)]
pub(super) struct ToolPlan {
    pub(super) name: String,
    pub(super) title: Option<String>,
    pub(super) description: String,
    pub(super) dialect: Option<&'static str>,
    /// Each chosen parameter (an index into `PARAMETERS`) and whether it is required.
    pub(super) parameters: Vec<(usize, bool)>,
    pub(super) camel_keys: bool,
    pub(super) closed: bool,
    /// `readOnlyHint` and, for a tool that changes something, `destructiveHint`.
    pub(super) annotations: Option<(bool, Option<bool>)>,
    /// The output schema of a tool that only reads (`true`) or changes something.
    pub(super) output: Option<bool>,
}

impl Plan {
    /// The surface as a value.
    pub fn to_value(&self) -> Value {
        let tools = self.tools.iter().map(ToolPlan::to_value).collect();
        // Built directly: `json!` would copy every tool through `to_value`.
        object([("tools", Value::Array(tools))])
    }

    /// Appends the surface's compact bytes (what `serde_json::to_vec(&self.to_value())` gives)
    /// and returns where each tool's object is in `out`.
    pub fn write(&self, out: &mut Vec<u8>) -> Vec<Range<usize>> {
        out.extend_from_slice(b"{\"tools\":[");
        let mut spans = Vec::with_capacity(self.tools.len());
        for (i, tool) in self.tools.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let start = out.len();
            tool.write(out);
            spans.push(start..out.len());
        }
        out.extend_from_slice(b"]}");
        spans
    }
}

impl ToolPlan {
    fn key(&self, parameter: usize) -> &'static str {
        if self.camel_keys {
            &PARAMETER_SCHEMAS[parameter].0
        } else {
            PARAMETERS[parameter].0
        }
    }

    fn to_value(&self) -> Value {
        let mut properties = Map::with_capacity(self.parameters.len());
        let mut required = Vec::new();
        for &(p, is_required) in &self.parameters {
            let key = self.key(p);
            if is_required {
                required.push(text(key));
            }
            properties.insert(key.to_string(), PARAMETER_SCHEMAS[p].1.clone());
        }
        let mut input = Map::with_capacity(5);
        if let Some(d) = self.dialect {
            input.insert("$schema".into(), d.into());
        }
        input.insert("type".into(), "object".into());
        input.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            input.insert("required".into(), Value::Array(required));
        }
        if self.closed {
            input.insert("additionalProperties".into(), false.into());
        }
        let mut fields = Map::with_capacity(6);
        fields.insert("name".into(), text(&self.name));
        if let Some(title) = &self.title {
            fields.insert("title".into(), text(title));
        }
        fields.insert("description".into(), text(&self.description));
        fields.insert("inputSchema".into(), Value::Object(input));
        if let Some((read_only, destructive)) = self.annotations {
            let mut hints = Map::new();
            hints.insert("readOnlyHint".into(), read_only.into());
            if let Some(destructive) = destructive {
                hints.insert("destructiveHint".into(), destructive.into());
            }
            fields.insert("annotations".into(), Value::Object(hints));
        }
        if let Some(read_only) = self.output {
            fields.insert(
                "outputSchema".into(),
                OUTPUT_SCHEMAS[usize::from(read_only)].clone(),
            );
        }
        Value::Object(fields)
    }

    /// The tool's compact bytes, member by member as [`ToolPlan::to_value`] orders them.
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"name\":");
        compact::write_str(out, &self.name);
        if let Some(title) = &self.title {
            out.extend_from_slice(b",\"title\":");
            compact::write_str(out, title);
        }
        out.extend_from_slice(b",\"description\":");
        compact::write_str(out, &self.description);
        out.extend_from_slice(b",\"inputSchema\":{");
        if let Some(dialect) = self.dialect {
            out.extend_from_slice(b"\"$schema\":");
            compact::write_str(out, dialect);
            out.push(b',');
        }
        out.extend_from_slice(b"\"type\":\"object\",\"properties\":{");
        for (i, &(p, _)) in self.parameters.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            compact::write_str(out, self.key(p));
            out.push(b':');
            out.extend_from_slice(&PARAMETER_BYTES[p]);
        }
        out.push(b'}');
        let mut required = self.parameters.iter().filter(|(_, r)| *r).peekable();
        if required.peek().is_some() {
            out.extend_from_slice(b",\"required\":[");
            for (i, &(p, _)) in required.enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                compact::write_str(out, self.key(p));
            }
            out.push(b']');
        }
        if self.closed {
            out.extend_from_slice(b",\"additionalProperties\":false");
        }
        out.push(b'}');
        if let Some((read_only, destructive)) = self.annotations {
            out.extend_from_slice(b",\"annotations\":{\"readOnlyHint\":");
            out.extend_from_slice(if read_only { b"true" } else { b"false" });
            if let Some(destructive) = destructive {
                out.extend_from_slice(b",\"destructiveHint\":");
                out.extend_from_slice(if destructive { b"true" } else { b"false" });
            }
            out.push(b'}');
        }
        if let Some(read_only) = self.output {
            out.extend_from_slice(b",\"outputSchema\":");
            out.extend_from_slice(&OUTPUT_BYTES[usize::from(read_only)]);
        }
        out.push(b'}');
    }
}

/// An object with these members, in this order.
fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut map = Map::with_capacity(N);
    for (key, value) in members {
        map.insert(key.to_string(), value);
    }
    Value::Object(map)
}

fn text(s: &str) -> Value {
    Value::String(s.to_string())
}

/// Each parameter's camel-case key and schema, built once: cloning a built schema is cheaper
/// than building it again (no key is hashed twice).
static PARAMETER_SCHEMAS: LazyLock<Vec<(String, Value)>> = LazyLock::new(|| {
    PARAMETERS
        .iter()
        .map(|&(snake, kind, text)| {
            let key = camel(&snake.split('_').collect::<Vec<_>>());
            (key, parameter(kind, text))
        })
        .collect()
});

/// The output schema of a tool that changes something (0) and of one that only reads (1).
static OUTPUT_SCHEMAS: LazyLock<[Value; 2]> =
    LazyLock::new(|| [output_schema(false), output_schema(true)]);

/// The compact bytes of each parameter's schema and of the two output schemas, for
/// [`Plan::write`].
static PARAMETER_BYTES: LazyLock<Vec<Vec<u8>>> =
    LazyLock::new(|| PARAMETER_SCHEMAS.iter().map(|(_, s)| bytes(s)).collect());
static OUTPUT_BYTES: LazyLock<[Vec<u8>; 2]> =
    LazyLock::new(|| OUTPUT_SCHEMAS.each_ref().map(bytes));

fn bytes(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    compact::write(&mut out, value);
    out
}

fn parameter(kind: Kind, description: &str) -> Value {
    let string = || text("string");
    let description = ("description", text(description));
    match kind {
        Kind::Text => object([("type", string()), description]),
        Kind::Enum(values) => object([
            ("type", string()),
            (
                "enum",
                Value::Array(values.iter().map(|v| text(v)).collect()),
            ),
            description,
        ]),
        Kind::Pattern(p) => object([("type", string()), ("pattern", text(p)), description]),
        Kind::Format(f) => object([("type", string()), ("format", text(f)), description]),
        Kind::Integer { min, max } => object([
            ("type", text("integer")),
            ("minimum", min.into()),
            ("maximum", max.into()),
            description,
        ]),
        Kind::Number { min, max } => object([
            ("type", text("number")),
            ("minimum", min.into()),
            ("maximum", max.into()),
            description,
        ]),
        Kind::Boolean => object([
            ("type", text("boolean")),
            ("default", false.into()),
            description,
        ]),
        Kind::StringList => object([
            ("type", text("array")),
            ("items", object([("type", string())])),
            description,
        ]),
    }
}

fn output_schema(read_only: bool) -> Value {
    if read_only {
        json!({
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": {"type": "object"}},
                "total": {"type": "integer"}
            },
            "required": ["items"]
        })
    } else {
        json!({
            "type": "object",
            "properties": {"id": {"type": "string"}, "ok": {"type": "boolean"}},
            "required": ["ok"]
        })
    }
}
