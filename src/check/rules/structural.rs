//! `structural`: the payload a client receives is well-formed by the MCP 2025-11-25 rules.

use serde_json::Value;

use crate::check::{Comparison, Finding, Rule, RuleKind, Severity, ToolRef};
use crate::surface::{json_type, Tool};

pub struct Structural;

impl Rule for Structural {
    fn id(&self) -> &'static str {
        "structural"
    }
    fn severity(&self) -> Severity {
        Severity::Breaking
    }
    fn summary(&self) -> &'static str {
        "every tool name matches ^[A-Za-z0-9_.-]{1,128}$ and every inputSchema is a JSON object with \"type\": \"object\""
    }
    fn source(&self) -> &'static str {
        "MCP 2025-11-25 server/tools: tool names; Tool.inputSchema (object root, not null)"
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Study
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        for tool in comparison.candidate.tools() {
            if let Some((pointer, message)) = name_problem(&tool) {
                out.push(self.finding(&tool, pointer, message));
            }
            if let Some((_, pointer, message)) = input_schema_problem(&tool) {
                out.push(self.finding(&tool, pointer, message));
            }
        }
    }
}

impl Structural {
    fn finding(&self, tool: &Tool<'_>, pointer: String, message: String) -> Finding {
        Finding::at(self, Some(ToolRef::of(tool)), pointer, message)
    }
}

/// The MCP 2025-11-25 tool-name rule: 1 to 128 characters from `A-Z a-z 0-9 _ - .`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

pub(crate) fn name_problem(tool: &Tool<'_>) -> Option<(String, String)> {
    // A valid name needs no escapes, so its raw text settles the common case without parsing.
    let raw = tool
        .raw_field("name")
        .and_then(|r| r.strip_prefix('"')?.strip_suffix('"'));
    if raw.is_some_and(is_valid_tool_name) {
        return None;
    }
    let pointer = tool.pointer("name");
    let message = match tool.name() {
        None => "tool has no name".to_string(),
        Some(Value::String(name)) if is_valid_tool_name(name) => return None,
        Some(Value::String(name)) => format!(
            "tool name {:?} does not match ^[A-Za-z0-9_.-]{{1,128}}$",
            name
        ),
        Some(other) => format!("tool name is {}, not a string", json_type(other)),
    };
    Some((pointer, message))
}

/// What is wrong with a tool's `inputSchema`, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InputSchemaProblem {
    Missing,
    Null,
    /// Not an object, or an object whose `type` is not `"object"`.
    NotObjectRoot,
}

pub(crate) fn input_schema_problem(
    tool: &Tool<'_>,
) -> Option<(InputSchemaProblem, String, String)> {
    use InputSchemaProblem::*;
    // The common case, an object whose `type` is written "object", needs no parsing.
    let raw_type = tool.raw_type_of("inputSchema");
    if raw_type == Some("\"object\"") {
        return None;
    }
    let pointer = tool.pointer("inputSchema");
    // Another type written as a string without escapes reads exactly as it would print.
    if let Some(other) = raw_type.filter(|t| t.starts_with('"') && !t.contains('\\')) {
        return Some(wrong_root_type(&pointer, other));
    }
    // An array root (often a whole schema wrapped in one) shows in its first byte: parsing it
    // would build the whole schema. Other non-objects (null, booleans, strings, numbers) parse
    // at no real cost below.
    let raw = tool.raw_field("inputSchema");
    if raw.is_some_and(|raw| raw.trim_start().starts_with('[')) {
        return Some(not_an_object(pointer, "array"));
    }
    let (problem, pointer, message) = match tool.input_schema() {
        None => (Missing, pointer, "inputSchema is missing".to_string()),
        Some(Value::Null) => (Null, pointer, "inputSchema is null".to_string()),
        Some(Value::Object(schema)) => match schema.get("type") {
            Some(Value::String(t)) if t == "object" => return None,
            None => (
                NotObjectRoot,
                pointer,
                "inputSchema has no \"type\" (expected \"object\")".to_string(),
            ),
            Some(other) => wrong_root_type(&pointer, other),
        },
        Some(other) => not_an_object(pointer, json_type(other)),
    };
    Some((problem, pointer, message))
}

/// A root `type` other than `"object"`, shown as JSON (from the text or the parsed value).
fn wrong_root_type(
    pointer: &str,
    shown: impl std::fmt::Display,
) -> (InputSchemaProblem, String, String) {
    (
        InputSchemaProblem::NotObjectRoot,
        format!("{pointer}/type"),
        format!("inputSchema root type is {shown}, expected \"object\""),
    )
}

/// A schema that is a JSON `kind` other than an object.
fn not_an_object(pointer: String, kind: &str) -> (InputSchemaProblem, String, String) {
    (
        InputSchemaProblem::NotObjectRoot,
        pointer,
        format!("inputSchema is {kind}, not an object"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload;
    use serde_json::json;

    fn findings(candidate: Value) -> Vec<Finding> {
        let c = payload::from_value(candidate, "t").unwrap();
        let mut out = Vec::new();
        Structural.check(&Comparison::new(&c, &c), &mut out);
        out
    }

    fn tool(schema: Option<Value>) -> Value {
        let mut t = json!({"name": "get_user"});
        if let Some(s) = schema {
            t["inputSchema"] = s;
        }
        json!({ "tools": [t] })
    }

    #[test]
    fn missing_null_and_empty_schemas_get_different_findings() {
        let messages: Vec<String> = [None, Some(Value::Null), Some(json!({}))]
            .into_iter()
            .map(|s| findings(tool(s))[0].message.clone())
            .collect();
        assert_eq!(
            messages,
            [
                "inputSchema is missing",
                "inputSchema is null",
                "inputSchema has no \"type\" (expected \"object\")"
            ]
        );
    }

    #[test]
    fn array_root_and_non_object_schemas_are_flagged() {
        let f = findings(tool(Some(json!({"type": "array", "items": {}}))));
        assert_eq!(f[0].pointer, "/tools/0/inputSchema/type");
        assert_eq!(
            f[0].message,
            "inputSchema root type is \"array\", expected \"object\""
        );
        let f = findings(tool(Some(json!([{"type": "object"}]))));
        assert_eq!(f[0].message, "inputSchema is array, not an object");
    }

    /// What the finding says, from the parsed schema (the definition the text shortcuts in
    /// `input_schema_problem` must agree with).
    fn parsed_problem(schema: &Value) -> Option<(String, String)> {
        let at = "/tools/0/inputSchema".to_string();
        match schema {
            Value::Null => Some((at, "inputSchema is null".into())),
            Value::Object(o) => match o.get("type") {
                Some(Value::String(t)) if t == "object" => None,
                None => Some((
                    at,
                    "inputSchema has no \"type\" (expected \"object\")".into(),
                )),
                Some(other) => Some((
                    format!("{at}/type"),
                    format!("inputSchema root type is {other}, expected \"object\""),
                )),
            },
            other => Some((
                at,
                format!("inputSchema is {}, not an object", json_type(other)),
            )),
        }
    }

    #[test]
    fn schema_findings_read_from_the_text_equal_the_parsed_definition() {
        let schemas = [
            r#"{"type":"object"}"#,
            r#"{ "type" : "array" , "items" : {} }"#,
            r#"{"type":"ar\u0072ay"}"#,
            r#"{"type":"object","type":"string"}"#,
            r#"{"type":"string","type":"object"}"#,
            r#"{"type":["object","null"]}"#,
            r#"{"type": [ "object" ]}"#,
            r#"{"type":3}"#,
            r#"{"properties":{"type":{"type":"string"}}}"#,
            r#"{}"#,
            "null",
            "[{\"type\":\"object\"}]",
            r#""object""#,
            "true",
            "false",
            "12",
            "1.5",
        ];
        for schema in schemas {
            let text = format!(r#"{{"tools":[{{"name":"t","inputSchema":{schema}}}]}}"#);
            let read = payload::read(text.as_bytes(), "t", Default::default()).unwrap();
            let mut out = Vec::new();
            Structural.check(&Comparison::new(&read, &read), &mut out);
            let got = out.first().map(|f| (f.pointer.clone(), f.message.clone()));
            let value: Value = serde_json::from_str(schema).unwrap();
            assert_eq!(got, parsed_problem(&value), "{schema}");
        }
    }

    #[test]
    fn a_valid_tool_has_no_findings() {
        assert!(findings(tool(Some(json!({"type": "object"})))).is_empty());
    }

    #[test]
    fn name_rule() {
        assert!(is_valid_tool_name("a.b-c_D9"));
        assert!(is_valid_tool_name(&"x".repeat(128)));
        for bad in ["", "get user", "a,b", "a/b", "é", &"x".repeat(129)] {
            assert!(!is_valid_tool_name(bad), "{bad:?}");
        }
        let f =
            findings(json!({"tools": [{"name": "get user", "inputSchema": {"type": "object"}}]}));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].pointer, "/tools/0/name");
        assert_eq!(f[0].tool.as_ref().unwrap().name, "get user");
        let f = findings(
            json!({"tools": [{"inputSchema": {"type": "object"}}, {"name": 3, "inputSchema": {"type": "object"}}]}),
        );
        assert_eq!(f[0].message, "tool has no name");
        assert_eq!(f[1].message, "tool name is integer, not a string");
    }
}
