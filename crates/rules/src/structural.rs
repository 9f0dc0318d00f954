//! `structural`: the payload a client receives is well-formed by the MCP 2025-11-25 rules.

use std::borrow::Cow;

use serde_json::Value;

use driftlab_check::check::{Comparison, Finding, Rule, RuleKind, Severity, ToolRef};
use driftlab_contract::surface::{is_valid_tool_name, json_type, Tool};

pub(crate) struct Structural;

impl Rule for Structural {
    fn id(&self) -> &'static str {
        "structural"
    }
    fn added_in(&self) -> &'static str {
        "2026-11-30"
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
            // The answer depends on the tool's bytes alone, and a candidate shares the parsing
            // of its unchanged tools with the approved surface: most were judged before.
            if tool.passes_structural() == Some(true) {
                continue;
            }
            let before = out.len();
            if let Some(problem) = name_problem(&tool) {
                out.push(comparison.finding(self, || problem.detail(&tool)));
            }
            if let Some(problem) = input_schema_problem(&tool) {
                out.push(comparison.finding(self, || problem.detail(&tool)));
            }
            tool.remember_passes_structural(out.len() == before);
        }
    }
}

/// What is wrong with a tool's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NameProblem<'a> {
    Missing,
    /// Not a string: the JSON type it is.
    NotString(&'static str),
    /// A string that breaks the name rule.
    NoMatch(Cow<'a, str>),
}

impl NameProblem<'_> {
    /// The finding's tool, pointer and message (built only when a caller keeps them).
    pub(crate) fn detail(&self, tool: &Tool<'_>) -> (Option<ToolRef>, String, String) {
        let message = match self {
            NameProblem::Missing => "tool has no name".to_string(),
            NameProblem::NotString(kind) => format!("tool name is {kind}, not a string"),
            NameProblem::NoMatch(name) => format!(
                "tool name {:?} does not match ^[A-Za-z0-9_.-]{{1,128}}$",
                name
            ),
        };
        (Some(ToolRef::of(tool)), tool.pointer("name"), message)
    }
}

pub(crate) fn name_problem<'a>(tool: &Tool<'a>) -> Option<NameProblem<'a>> {
    // A name without escapes is its raw text: that settles it without parsing.
    if let Some(raw) = tool.raw_string("name") {
        return (!is_valid_tool_name(raw)).then_some(NameProblem::NoMatch(Cow::Borrowed(raw)));
    }
    match tool.name() {
        None => Some(NameProblem::Missing),
        Some(Value::String(name)) if is_valid_tool_name(name) => None,
        Some(Value::String(name)) => Some(NameProblem::NoMatch(Cow::Borrowed(name))),
        Some(other) => Some(NameProblem::NotString(json_type(other))),
    }
}

/// What is wrong with a tool's `inputSchema`, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InputSchemaProblem {
    Missing,
    Null,
    /// Not an object, or an object whose `type` is not `"object"`.
    NotObjectRoot,
}

/// An `inputSchema` problem and what its finding says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SchemaProblem<'a> {
    Missing,
    Null,
    /// An object without a `type` member.
    NoType,
    /// An object whose root `type` is this other JSON (as it prints).
    RootType(Cow<'a, str>),
    /// Not an object: the JSON type it is.
    NotObject(&'static str),
}

impl SchemaProblem<'_> {
    pub(crate) fn kind(&self) -> InputSchemaProblem {
        match self {
            SchemaProblem::Missing => InputSchemaProblem::Missing,
            SchemaProblem::Null => InputSchemaProblem::Null,
            _ => InputSchemaProblem::NotObjectRoot,
        }
    }

    /// The finding's tool, pointer and message (built only when a caller keeps them).
    pub(crate) fn detail(&self, tool: &Tool<'_>) -> (Option<ToolRef>, String, String) {
        let pointer = tool.pointer("inputSchema");
        let (pointer, message) = match self {
            SchemaProblem::Missing => (pointer, "inputSchema is missing".to_string()),
            SchemaProblem::Null => (pointer, "inputSchema is null".to_string()),
            SchemaProblem::NoType => (
                pointer,
                "inputSchema has no \"type\" (expected \"object\")".to_string(),
            ),
            SchemaProblem::RootType(shown) => (
                format!("{pointer}/type"),
                format!("inputSchema root type is {shown}, expected \"object\""),
            ),
            SchemaProblem::NotObject(kind) => {
                (pointer, format!("inputSchema is {kind}, not an object"))
            }
        };
        (Some(ToolRef::of(tool)), pointer, message)
    }
}

pub(crate) fn input_schema_problem<'a>(tool: &Tool<'a>) -> Option<SchemaProblem<'a>> {
    // The common case, an object whose `type` is written "object", needs no parsing.
    let raw_type = tool.raw_type_of("inputSchema");
    if raw_type == Some("\"object\"") {
        return None;
    }
    // Another type written as a string without escapes reads exactly as it would print.
    if let Some(other) = raw_type.filter(|t| t.starts_with('"') && !t.contains('\\')) {
        return Some(SchemaProblem::RootType(Cow::Borrowed(other)));
    }
    // An array root (often a whole schema wrapped in one) shows in its first byte: parsing it
    // would build the whole schema. Other non-objects (null, booleans, strings, numbers) parse
    // at no real cost below.
    let raw = tool.raw_field("inputSchema");
    if raw.is_some_and(|raw| raw.trim_start().starts_with('[')) {
        return Some(SchemaProblem::NotObject("array"));
    }
    match tool.input_schema() {
        None => Some(SchemaProblem::Missing),
        Some(Value::Null) => Some(SchemaProblem::Null),
        Some(Value::Object(schema)) => match schema.get("type") {
            Some(Value::String(t)) if t == "object" => None,
            None => Some(SchemaProblem::NoType),
            Some(other) => Some(SchemaProblem::RootType(Cow::Owned(other.to_string()))),
        },
        Some(other) => Some(SchemaProblem::NotObject(json_type(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlab_contract::payload;
    use driftlab_contract::surface::Surface;
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

    #[test]
    fn a_verdict_remembered_for_shared_tools_keeps_every_finding() {
        let approved = r#"{"tools":[{"name":"ok","inputSchema":{"type":"object"}},{"name":"not ok","inputSchema":{"type":"object"}},{"name":"x","inputSchema":null}]}"#;
        let approved = payload::read(approved.as_bytes(), "a", Default::default()).unwrap();
        // The candidate changes the first tool; the other two share the approved parsing.
        let candidate = r#"{"tools":[{"name":"o k","inputSchema":{"type":"object"}},{"name":"not ok","inputSchema":{"type":"object"}},{"name":"x","inputSchema":null}]}"#;
        let candidate = payload::read_candidate(
            candidate.as_bytes().to_vec(),
            "c",
            Default::default(),
            &approved,
        )
        .unwrap();
        assert!(
            candidate.shares_parsed(1, &approved, 1) && candidate.shares_parsed(2, &approved, 2)
        );
        let pointers = |candidate: &Surface| {
            let mut out = Vec::new();
            Structural.check(&Comparison::new(&approved, candidate), &mut out);
            out.into_iter().map(|f| f.pointer).collect::<Vec<_>>()
        };
        let approved_pointers = ["/tools/1/name", "/tools/2/inputSchema"];
        // Judged afresh, then with every verdict remembered: the same findings.
        for _ in 0..2 {
            assert_eq!(pointers(&approved), approved_pointers);
        }
        let known: Vec<_> = approved.tools().map(|t| t.passes_structural()).collect();
        assert_eq!(known, [Some(true), Some(false), Some(false)]);
        assert_eq!(
            pointers(&candidate),
            ["/tools/0/name", "/tools/1/name", "/tools/2/inputSchema"]
        );
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
