//! Canonical contract digests: what a lockfile pins, and a convention others can compute.
//!
//! A digest is `sha256:` and the lowercase hex SHA-256 of a JSON value's RFC 8785 (JCS)
//! canonical form: object members sorted by their names' UTF-16 code units, no whitespace,
//! strings escaped as ECMAScript's `JSON.stringify` does (only `"`, `\` and control
//! characters), numbers as ECMAScript's `Number.prototype.toString` writes the IEEE double.
//! Per tool there are separate digests of the whole tool and of its description, inputSchema,
//! outputSchema and annotations, so a changed digest says *what* changed. docs/digests.md is
//! the specification, with test vectors that `tests/it/digests.rs` checks.

use serde::Serialize;
use serde_json::{Number, Value};

use crate::text::sha256_hex;

/// The convention's name and version, written beside every set of digests.
pub const ALGORITHM: &str = "driftlab-contract-digest/1 (RFC 8785 JCS, SHA-256)";

/// The RFC 8785 canonical form of `value`.
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

/// `sha256:<hex>` of `value`'s canonical form.
pub fn digest(value: &Value) -> String {
    format!("sha256:{}", sha256_hex(canonical(value).as_bytes()))
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            let mut sorted: Vec<(&String, &Value)> = members.iter().collect();
            sorted.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push('{');
            for (i, (name, member)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(name, out);
                out.push(':');
                write_value(member, out);
            }
            out.push('}');
        }
    }
}

/// A JSON number is an IEEE double in JCS (I-JSON): an integer beyond 2^53 is rounded as
/// `JSON.parse` would round it.
fn write_number(n: &Number, out: &mut String) {
    let double = n.as_f64().unwrap_or(0.0);
    out.push_str(ryu_js::Buffer::new().format_finite(double));
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The digests of one tool. A member the tool does not have has no digest (`None`), which is
/// not the digest of `null`: a missing and a null schema stay apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDigests {
    /// The tool's name as listed (a non-string name is its JSON text).
    pub name: String,
    /// The whole tool object's digest.
    pub tool: String,
    /// The `description`'s digest, when the tool has one.
    pub description: Option<String>,
    /// The `inputSchema`'s digest, when the tool has one (`null` included).
    pub input_schema: Option<String>,
    /// The `outputSchema`'s digest, likewise.
    pub output_schema: Option<String>,
    /// The `annotations`' digest, likewise.
    pub annotations: Option<String>,
}

impl ToolDigests {
    /// The digests of one tool object.
    pub fn of(tool: &Value) -> ToolDigests {
        let part = |member: &str| tool.get(member).map(digest);
        ToolDigests {
            name: match tool.get("name") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            },
            tool: digest(tool),
            description: part("description"),
            input_schema: part("inputSchema"),
            output_schema: part("outputSchema"),
            annotations: part("annotations"),
        }
    }
}

/// The digests of a server's contract as a snapshot records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContractDigests {
    /// How the digests are made (docs/digests.md).
    pub algorithm: &'static str,
    /// The whole snapshot object: `tools` in their listed order and every other recorded part.
    pub contract: String,
    /// The `tools` array alone, in order (a reorder changes it).
    pub tools_list: String,
    /// Each tool's digests, in listed order.
    pub tools: Vec<ToolDigests>,
}

impl ContractDigests {
    /// `snapshot` is a snapshot's value: `{"tools":[…]}` and, when recorded, the other parts.
    pub fn of(snapshot: &Value) -> ContractDigests {
        let tools = snapshot
            .get("tools")
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
        ContractDigests {
            algorithm: ALGORITHM,
            contract: digest(snapshot),
            tools_list: digest(&tools),
            tools: tools
                .as_array()
                .map(|list| list.iter().map(ToolDigests::of).collect())
                .unwrap_or_default(),
        }
    }
}
