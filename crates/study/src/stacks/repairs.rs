//! Repairability: each call whose caller got an error is retried once as the deterministic
//! repairer ([`driftlab_proxy::guard::repair`]) rewrites it from the error's text and the tool's
//! version-1 inputSchema alone, on the same row and path. A retry that runs correctly is an
//! error a caller could act on; no model is involved.

use std::collections::BTreeMap;

use serde_json::Value;

use super::outcome::Evidence;
use driftlab_proxy::guard::repair::repair;
use driftlab_proxy::guard::study::aligned_retries;
use driftlab_proxy::guard::study::session::Call;

/// Each call's retry beside the evidence of its run, where the repairer made one.
pub(crate) type Retried = Vec<Option<(Call, Evidence)>>;

/// The retry of each call (aligned with `calls`): `None` where the caller got no error, or the
/// error names nothing to change. `old` is the case's version-1 inputSchema per tool.
pub fn retries(
    calls: &[Call],
    drifted: &[Evidence],
    old: Option<&BTreeMap<String, Value>>,
) -> Vec<Option<Call>> {
    calls
        .iter()
        .zip(drifted)
        .map(|(call, evidence)| {
            let text = evidence.error.as_deref()?;
            let schema = old.and_then(|tools| tools.get(&call.tool));
            let (tool, arguments) = repair(text, &call.tool, schema, &call.arguments)?;
            Some(Call { tool, arguments })
        })
        .collect()
}

/// The retries that were made, in order (what a retry run sends).
pub fn made(retries: &[Option<Call>]) -> Vec<Call> {
    retries.iter().flatten().cloned().collect()
}

/// Each retry beside the evidence of its run (given in the order of [`made`]).
pub fn aligned(retries: Vec<Option<Call>>, evidence: Vec<Evidence>) -> Retried {
    let evidence = aligned_retries(&retries, evidence);
    retries
        .into_iter()
        .zip(evidence)
        .map(|(r, e)| r.zip(e))
        .collect()
}
