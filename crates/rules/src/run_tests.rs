//! Running the payload rules on a large surface: chunked as in turn.

use serde_json::json;

use driftlab_check::check::rules::of_kind;
use driftlab_check::check::{run, run_rules, Comparison, Finding, RuleKind};
use driftlab_contract::surface::Surface;

#[test]
fn a_large_surface_gets_the_findings_of_each_rule_run_in_turn() {
    // Enough tools for the chunked run, with problems spread over chunks and rules.
    let tools: Vec<_> = (0..run::PARALLEL_TOOLS + run::CHUNK + 7)
        .map(|i| {
            let mut tool = json!({"name": format!("tool_{i}"), "inputSchema": {"type": "object"}});
            if i % 997 == 0 {
                tool["name"] = json!(format!("bad name {i}"));
            }
            if i % 1201 == 0 {
                tool.as_object_mut().unwrap().remove("inputSchema");
            }
            if i % 1409 == 0 {
                tool["inputSchema"] = json!(null);
            }
            if i % 1601 == 0 {
                tool["outputSchema"] = json!({"type": "array"});
            }
            if i % 1811 == 0 {
                tool["name"] = json!("tool_1");
            }
            tool.as_object().unwrap().clone()
        })
        .collect();
    let surface = Surface::new(tools);
    let rules = of_kind(RuleKind::Payload);
    let comparison = Comparison::new(&surface, &surface);
    let mut in_turn = Vec::new();
    for rule in &rules {
        rule.check(&comparison, &mut in_turn);
    }
    let described = |found: &[Finding]| -> Vec<String> {
        found
            .iter()
            .map(|f| format!("{} {} {}", f.rule, f.pointer, f.message))
            .collect()
    };
    let chunked = run_rules(&rules, &surface, &surface);
    assert!(in_turn.len() > 40, "{}", in_turn.len());
    assert_eq!(described(&chunked), described(&in_turn));
}
