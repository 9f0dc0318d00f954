//! Repairability in the guard study: each call the guard refused is retried once as the
//! deterministic repairer ([`crate::guard::repair`]) rewrites it from the refusal's text and the
//! pinned inputSchema alone, in a fresh session behind the same guard; the retry is judged like
//! any call. A retry that runs correctly is a refusal a caller could act on.

use std::collections::HashMap;

use serde_json::Value;

use super::session::{Call, SessionRun};
use crate::guard::repair::repair;

/// The retry for each call (aligned with `calls`): `None` where the guard did not refuse it or
/// its refusal names nothing to change.
pub(super) fn retries(
    calls: &[Call],
    run: &SessionRun,
    refusals: &HashMap<u64, Value>,
    pinned_list: &Value,
) -> Vec<Option<Call>> {
    let schema_of = |tool: &str| {
        pinned_list
            .get("tools")
            .and_then(Value::as_array)
            .and_then(|tools| {
                tools
                    .iter()
                    .find(|t| t.get("name") == Some(&Value::from(tool)))
            })
            .and_then(|t| t.get("inputSchema"))
    };
    calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let (id, _) = run.outcomes.get(i)?;
            refusals.get(id)?;
            let text = run.answers.get(i)?.pointer("/content/0/text")?.as_str()?;
            let (tool, arguments) =
                repair(text, &call.tool, schema_of(&call.tool), &call.arguments)?;
            Some(Call { tool, arguments })
        })
        .collect()
}

/// Spreads what the retries gave (in order of the calls that had one) back over every call.
pub fn aligned<T>(retries: &[Option<Call>], judged: Vec<T>) -> Vec<Option<T>> {
    let mut judged = judged.into_iter();
    retries
        .iter()
        .map(|r| r.as_ref().and_then(|_| judged.next()))
        .collect()
}
