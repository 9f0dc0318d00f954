//! `x-mcp-header-invalid` and `x-mcp-header-newly-invalid`: 2026-07-28 lets an input property
//! carry `x-mcp-header`, mirroring the argument into an HTTP header on Streamable HTTP. The name
//! must be a non-empty HTTP token, unique within the tool (header names are case-insensitive),
//! on a string, integer or boolean parameter; an HTTP client must drop a tool that breaks this,
//! so a tool that newly breaks it is, for those clients, a tool removed.

use std::collections::HashSet;

use serde_json::Value;

use driftlab_check::check::{
    check_each_tool, Comparison, Finding, PerTool, Rule, RuleKind, Severity, ToolRef,
};
use driftlab_contract::pointer;
use driftlab_contract::surface::Tool;

const SOURCE: &str = "MCP 2026-07-28 Tool.inputSchema: property schemas may carry x-mcp-header (Streamable HTTP transport: a non-empty header-name token, unique case-insensitively, on string/integer/boolean parameters; clients drop a tool whose annotations are invalid)";
const ERA: &str = "2026-07-28";

/// The first reason the tool's `x-mcp-header` annotations are invalid, with its pointer.
fn first_problem(tool: &Tool<'_>) -> Option<(String, String)> {
    // Most tools have none: the text says so without parsing.
    if !tool.raw_field("inputSchema")?.contains("x-mcp-header") {
        return None;
    }
    let properties = tool.input_schema()?.get("properties")?.as_object()?;
    let at = pointer::push(&tool.pointer("inputSchema"), "properties");
    let mut seen: HashSet<String> = HashSet::new();
    for (name, schema) in properties {
        let Some(header) = schema.get("x-mcp-header") else {
            continue;
        };
        let here = pointer::push(&pointer::push(&at, name), "x-mcp-header");
        let problem = match header.as_str() {
            None => Some(format!(
                "is {}, not a string",
                driftlab_contract::surface::json_type(header)
            )),
            Some("") => Some("is empty".to_string()),
            Some(h) if !h.bytes().all(is_tchar) => {
                Some(format!("{h:?} is not an HTTP header-name token"))
            }
            Some(h) if !seen.insert(h.to_ascii_lowercase()) => Some(format!(
                "{h:?} is used twice (header names are case-insensitive)"
            )),
            Some(_) => match schema.get("type").and_then(Value::as_str) {
                Some("string" | "integer" | "boolean") => None,
                other => Some(format!(
                    "is on a parameter of type {}, not string, integer or boolean",
                    other.map_or("(none)".to_string(), |t| format!("{t:?}"))
                )),
            },
        };
        if let Some(problem) = problem {
            return Some((here, format!("parameter {name:?}: x-mcp-header {problem}")));
        }
    }
    None
}

/// RFC 9110 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

pub(crate) struct McpHeaderInvalid;

impl Rule for McpHeaderInvalid {
    fn id(&self) -> &'static str {
        "x-mcp-header-invalid"
    }
    fn added_in(&self) -> &'static str {
        "2026-12-03"
    }
    fn severity(&self) -> Severity {
        Severity::Warning
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Payload
    }
    fn summary(&self) -> &'static str {
        "a parameter's x-mcp-header is not a non-empty header-name token, repeats another (case-insensitively), or sits on a parameter that is not string, integer or boolean: Streamable HTTP clients drop the tool"
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn era(&self) -> &'static str {
        ERA
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        check_each_tool(self, comparison, out);
    }
    fn per_tool(&self) -> Option<&dyn PerTool> {
        Some(self)
    }
}

impl PerTool for McpHeaderInvalid {
    fn check_tool(&self, _: &Comparison<'_>, tool: &Tool<'_>, out: &mut Vec<Finding>) {
        if let Some((at, problem)) = first_problem(tool) {
            let message = format!("{problem}: HTTP clients drop this tool");
            out.push(Finding::at(self, Some(ToolRef::of(tool)), at, message));
        }
    }
}

pub(crate) struct McpHeaderNewlyInvalid;

impl Rule for McpHeaderNewlyInvalid {
    fn id(&self) -> &'static str {
        "x-mcp-header-newly-invalid"
    }
    fn added_in(&self) -> &'static str {
        "2026-12-03"
    }
    fn severity(&self) -> Severity {
        Severity::Breaking
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Diff
    }
    fn summary(&self) -> &'static str {
        "a tool whose x-mcp-header annotations were valid (or absent) has invalid ones now: Streamable HTTP clients drop it, a tool removal for them"
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn era(&self) -> &'static str {
        ERA
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        let approved = super::ApprovedByName::new(comparison);
        for tool in comparison.candidate.tools() {
            let Some((at, problem)) = first_problem(&tool) else {
                continue;
            };
            let Some(old) = tool.name_str().and_then(|n| approved.get(n)) else {
                continue;
            };
            if first_problem(old).is_none() {
                out.push(comparison.finding(self, || {
                    let message = format!(
                        "{problem}: Streamable HTTP clients now drop tool {:?}",
                        tool.label()
                    );
                    (Some(ToolRef::of(&tool)), at, message)
                }));
            }
        }
    }
}
