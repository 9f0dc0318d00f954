//! The Python side of the study: the bench's canonical contract, and a stack row's answers to
//! a batch of calls (`stacks/harness.py` in the study's folder speaks the other end).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use super::outcome::Evidence;
use super::process;
use super::StackStudyError;
use driftlab_proxy::guard::study::session::Call;

/// Each case's version-1 tools (name → inputSchema), as the harness prints them.
pub fn schemas(
    argv: &[String],
    dir: &Path,
    timeout: Duration,
    scratch: &Path,
) -> Result<BTreeMap<String, BTreeMap<String, Value>>, StackStudyError> {
    let out = process::run(argv, dir, br#"{"op": "schemas"}"#, timeout, scratch, None)?;
    let bad = |why: &str| StackStudyError::Command(format!("{argv:?}: schemas: {why}"));
    let answer: Value = serde_json::from_slice(&out).map_err(|e| bad(&e.to_string()))?;
    let cases = answer
        .get("cases")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("no `cases` object"))?;
    let mut by_case = BTreeMap::new();
    for (case, versions) in cases {
        let tools = versions
            .pointer("/v1")
            .and_then(Value::as_array)
            .ok_or_else(|| bad(&format!("case {case}: no `v1` list")))?;
        let mut by_name = BTreeMap::new();
        for tool in tools {
            let name = tool.get("name").and_then(Value::as_str);
            let schema = tool.get("inputSchema");
            let (Some(name), Some(schema)) = (name, schema) else {
                return Err(bad(&format!(
                    "case {case}: a tool without name or inputSchema"
                )));
            };
            by_name.insert(name.to_string(), schema.clone());
        }
        by_case.insert(case.clone(), by_name);
    }
    Ok(by_case)
}

/// Where a harness runs and how: its folder, the timeout, a scratch file stem, and `driftlab`.
pub struct Run<'a> {
    pub dir: &'a Path,
    pub timeout: Duration,
    pub scratch: &'a Path,
    pub driftlab: &'a Path,
}

/// Sends every case's calls to a stack's harness at `version`; one evidence per call, in order.
pub fn answers(
    argv: &[String],
    run: &Run<'_>,
    version: u8,
    calls: &[(String, Vec<Call>)],
) -> Result<Vec<Vec<Evidence>>, StackStudyError> {
    let cases: serde_json::Map<String, Value> = calls
        .iter()
        .map(|(case, calls)| {
            let list = calls
                .iter()
                .map(|c| json!({"tool": c.tool, "arguments": c.arguments}))
                .collect();
            (case.clone(), Value::Array(list))
        })
        .collect();
    let request = json!({"op": "call", "version": version, "cases": cases});
    let out = process::run(
        argv,
        run.dir,
        request.to_string().as_bytes(),
        run.timeout,
        run.scratch,
        Some(run.driftlab),
    )?;
    let bad = |why: String| StackStudyError::Command(format!("{argv:?}: version {version}: {why}"));
    let text = String::from_utf8(out).map_err(|e| bad(e.to_string()))?;
    let mut lines = text.lines();
    let mut all = Vec::new();
    for (case, case_calls) in calls {
        let mut evidence = Vec::new();
        for i in 0..case_calls.len() {
            let line = lines
                .next()
                .ok_or_else(|| bad(format!("case {case}: no answer to call {i}")))?;
            let answer: Value = serde_json::from_str(line)
                .map_err(|e| bad(format!("case {case}: call {i}: {e}")))?;
            evidence.push(evidence_of(&answer));
        }
        all.push(evidence);
    }
    Ok(all)
}

fn evidence_of(answer: &Value) -> Evidence {
    let text = |key: &str| answer.get(key).and_then(Value::as_str).map(String::from);
    let present = |key: &str| answer.get(key).filter(|v| !v.is_null()).cloned();
    let raised = answer.get("raised") == Some(&Value::Bool(true));
    Evidence {
        entered: answer.get("entered").and_then(Value::as_u64).unwrap_or(0),
        received: present("received"),
        returned: present("returned"),
        error: text("error"),
        // An exception out of the stack's invocation path ends the agent's run unless its own
        // code catches it; an error result goes back to the model.
        error_type: text("error_type").map(|t| if raised { format!("{t} (raised)") } else { t }),
        // An adapter behind the guard: the refusal's rule, as the MCP client underneath saw it.
        refused_by: text("refused_by"),
        ..Evidence::default()
    }
}
