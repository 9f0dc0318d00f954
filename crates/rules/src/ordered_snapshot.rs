//! `ordered-snapshot`: the candidate's ordered list of tool names equals the approved list.

use driftlab_check::check::{Comparison, Finding, Rule, RuleKind, Severity, ToolRef};
use driftlab_contract::payload::short;
use driftlab_contract::surface::{Surface, Tool};

pub(crate) struct OrderedSnapshot;

impl Rule for OrderedSnapshot {
    fn id(&self) -> &'static str {
        "ordered-snapshot"
    }
    fn added_in(&self) -> &'static str {
        "2026-11-30"
    }
    fn severity(&self) -> Severity {
        Severity::Breaking
    }
    fn summary(&self) -> &'static str {
        "the candidate's ordered list of tool names equals the approved snapshot's"
    }
    fn source(&self) -> &'static str {
        "MCP 2026-07-28 server/tools: servers SHOULD list tools in a deterministic order (clients and prompt caches rely on it)"
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Study
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        let (approved, candidate) = (comparison.approved, comparison.candidate);
        // Tools sharing their parsing have the same text, so their names need not even be found.
        let same = |(i, (a, b)): &(usize, (Tool<'_>, Tool<'_>))| {
            candidate.shares_parsed(*i, approved, *i) || same_name(a, b)
        };
        // Report the first position where the lists differ: one finding per candidate.
        let at = approved
            .tools()
            .zip(candidate.tools())
            .enumerate()
            .take_while(same)
            .count();
        if at == approved.len() && at == candidate.len() {
            return;
        }
        out.push(comparison.finding(self, || {
            let show = |surface: &Surface| match surface.tool(at).map(|t| t.name()) {
                None => "(no tool)".to_string(),
                Some(None) => "(no name)".to_string(),
                Some(Some(v)) => short(v),
            };
            let message = format!(
                "ordered tool names differ at position {at}: approved {}, candidate {} ({} tools approved, {} in candidate)",
                show(approved),
                show(candidate),
                approved.len(),
                candidate.len()
            );
            let (tool, pointer) = match candidate.tool(at) {
                Some(t) => (Some(ToolRef::of(&t)), t.pointer("name")),
                None => (None, format!("/tools/{at}")),
            };
            (tool, pointer, message)
        }));
    }
}

/// Whether two tools' `name` values are equal (both absent counts as equal): from their text
/// when it is the same, or when both are strings written without escapes; otherwise parsed.
fn same_name(a: &Tool<'_>, b: &Tool<'_>) -> bool {
    if a.raw_field("name") == b.raw_field("name") {
        return true;
    }
    match (a.raw_string("name"), b.raw_string("name")) {
        (Some(a), Some(b)) => a == b,
        _ => a.name() == b.name(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlab_contract::payload;
    use serde_json::json;
    use serde_json::Value;

    fn check(approved: Value, candidate: Value) -> Vec<Finding> {
        let a = payload::from_value(approved, "a").unwrap();
        let c = payload::from_value(candidate, "c").unwrap();
        let mut out = Vec::new();
        OrderedSnapshot.check(&Comparison::new(&a, &c), &mut out);
        out
    }

    #[test]
    fn same_order_passes_even_when_schemas_change() {
        let f = check(
            json!([{"name": "a"}, {"name": "b"}]),
            json!([{"name": "a", "inputSchema": null}, {"name": "b"}]),
        );
        assert!(f.is_empty());
    }

    #[test]
    fn reorder_is_reported_at_first_difference() {
        let f = check(
            json!({"tools": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}),
            json!({"tools": [{"name": "a"}, {"name": "c"}, {"name": "b"}]}),
        );
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].pointer, "/tools/1/name");
        assert_eq!(f[0].tool.as_ref().unwrap().name, "c");
        assert!(
            f[0].message.contains("approved \"b\", candidate \"c\""),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn removed_tool_and_missing_name_are_reported() {
        let f = check(
            json!([{"name": "a"}, {"name": "b"}]),
            json!({"tools": [{"name": "a"}]}),
        );
        assert_eq!(f[0].pointer, "/tools/1");
        assert!(f[0].tool.is_none());
        let f = check(json!([{"name": "a"}]), json!([{"title": "a"}]));
        assert!(f[0].message.contains("candidate (no name)"));
    }
}
