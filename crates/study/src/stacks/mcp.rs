//! The MCP rows: the bench served over stdio by an SDK, version 1 (the control, and the pin the
//! guard holds) and version 2 called straight and behind `driftlab guard` in each mode. What a
//! tool body received comes from the server's own log ($STUDY_LOG, one line per body entry,
//! keyed by the JSON-RPC id of the call). Each path's calls that got an error are retried in a
//! fresh session of the same path, as the repairer rewrites them.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::outcome::Evidence;
use super::repairs;
use super::spec::{fill, GuardPath, StackRow};
use super::StackStudyError;
use driftlab_proxy::guard::study::session::{fresh_dir, run_session, Call, Outcome, SessionRun};

/// The evidence of one path (`straight` or a guard path id) for one case's calls.
pub struct Paths {
    pub control: Vec<Evidence>,
    /// `(path id, evidence, retries)`: `straight` first, then each guard path in the spec's
    /// order; each call's retry beside its evidence, where the repairer made one.
    pub paths: Vec<(String, Vec<Evidence>, repairs::Retried)>,
}

pub(crate) struct McpCase<'a> {
    pub row: &'a StackRow,
    pub case: &'a str,
    pub calls: &'a [Call],
    pub dir: &'a Path,
    pub work: &'a Path,
    pub timeout: Duration,
    pub driftlab: &'a Path,
    pub guards: &'a [GuardPath],
    /// The case's version-1 inputSchema per tool (what the repairer reads beside an error).
    pub old: Option<&'a BTreeMap<String, Value>>,
}

impl McpCase<'_> {
    pub fn run(&self) -> Result<Paths, StackStudyError> {
        let name = format!("{}-{}", self.row.id, self.case);
        let control_dir = fresh(self.work, &format!("{name}-v1"))?;
        let control = self.session(&self.server(1), &control_dir, self.calls)?;
        let pin = control_dir.join("pin.json");
        std::fs::write(&pin, &control.tools_list)
            .map_err(|e| StackStudyError::Command(format!("{}: {e}", pin.display())))?;
        let mut paths = Vec::new();
        let straight_dir = fresh(self.work, &format!("{name}-v2"))?;
        let straight = self.session(&self.server(2), &straight_dir, self.calls)?;
        let evidence = self.evidence(&straight, &straight_dir, None);
        let retried = self.retry(
            &self.server(2),
            &format!("{name}-v2-retry"),
            &evidence,
            None,
        )?;
        paths.push(("straight".to_string(), evidence, retried));
        for (g, guard) in self.guards.iter().enumerate() {
            let dir = fresh(self.work, &format!("{name}-guard-{g}"))?;
            let audit = dir.join("guard.jsonl");
            let argv = self.guarded(&pin, &audit, guard);
            let run = self.session(&argv, &dir, self.calls)?;
            let evidence = self.evidence(&run, &dir, Some(&audit));
            let retry_name = format!("{name}-guard-{g}-retry");
            let retry_audit = self.work.join(&retry_name).join("guard.jsonl");
            let retry_argv = self.guarded(&pin, &retry_audit, guard);
            let retried = self.retry(&retry_argv, &retry_name, &evidence, Some(&retry_audit))?;
            paths.push((guard.id.clone(), evidence, retried));
        }
        Ok(Paths {
            control: self.evidence(&control, &control_dir, None),
            paths,
        })
    }

    /// Each call's retry, run in a fresh session of `argv` (the same server, or the same
    /// guard in front of it) where the repairer made any.
    fn retry(
        &self,
        argv: &[String],
        name: &str,
        evidence: &[Evidence],
        audit: Option<&Path>,
    ) -> Result<repairs::Retried, StackStudyError> {
        let retries = repairs::retries(self.calls, evidence, self.old);
        let made = repairs::made(&retries);
        if made.is_empty() {
            return Ok(retries.into_iter().map(|_| None).collect());
        }
        let dir = fresh(self.work, name)?;
        let run = self.session(argv, &dir, &made)?;
        Ok(repairs::aligned(retries, self.evidence(&run, &dir, audit)))
    }

    /// `driftlab guard` pinned to version 1, in front of version 2, on one guard path.
    fn guarded(&self, pin: &Path, audit: &Path, guard: &GuardPath) -> Vec<String> {
        guard.argv(
            self.driftlab,
            pin.display().to_string(),
            audit.display().to_string(),
            &self.server(2),
        )
    }

    fn server(&self, version: u8) -> Vec<String> {
        let server = self.row.server.as_deref().unwrap_or_default();
        fill(server, self.case, &version.to_string())
    }

    fn session(
        &self,
        argv: &[String],
        dir: &Path,
        calls: &[Call],
    ) -> Result<SessionRun, StackStudyError> {
        let env = vec![("STUDY_LOG".to_string(), log_path(dir).display().to_string())];
        run_session(argv, self.dir, &env, calls, self.timeout).map_err(|e| {
            StackStudyError::Command(format!("{} × {}: {argv:?}: {e}", self.row.id, self.case))
        })
    }

    fn evidence(&self, run: &SessionRun, dir: &Path, audit: Option<&Path>) -> Vec<Evidence> {
        let bodies = entries_by_id(&log_path(dir), |_| true);
        let refusals = audit
            .map(|a| entries_by_id(a, |e| e.get("event") == Some(&Value::from("refuse"))))
            .unwrap_or_default();
        run.outcomes
            .iter()
            .zip(&run.answers)
            .map(|((id, outcome), answer)| {
                let entries = bodies.get(id).map(Vec::as_slice).unwrap_or_default();
                let mut evidence = Evidence {
                    entered: entries.len() as u64,
                    received: entries.first().and_then(|e| e.get("received")).cloned(),
                    refused_by: refusals
                        .get(id)
                        .and_then(|r| r.first())
                        .and_then(|r| r.get("rule"))
                        .and_then(Value::as_str)
                        .map(String::from),
                    ..Evidence::default()
                };
                match outcome {
                    Outcome::Success => {
                        evidence.returned = Some(returned(answer));
                        evidence.warned = answer.pointer("/_meta/driftlab~1guard").is_some();
                    }
                    Outcome::ToolError => {
                        evidence.error = Some(text_of(answer));
                        evidence.error_type = Some("isError result".into());
                    }
                    Outcome::RpcError(code) => {
                        let message = answer.get("message").and_then(Value::as_str);
                        evidence.error = Some(message.unwrap_or_default().to_string());
                        evidence.error_type = Some(format!("JSON-RPC error {code}"));
                    }
                    other => evidence.failure = Some(other.as_string()),
                }
                evidence
            })
            .collect()
    }
}

fn fresh(work: &Path, name: &str) -> Result<PathBuf, StackStudyError> {
    fresh_dir(work, name).map_err(|e| StackStudyError::Command(e.to_string()))
}

fn log_path(dir: &Path) -> PathBuf {
    dir.join("bodies.jsonl")
}

/// What a version-1 client reads from a result: its structuredContent, else its text content
/// read as JSON when it is JSON, else the text.
fn returned(result: &Value) -> Value {
    if let Some(structured) = result.get("structuredContent") {
        return structured.clone();
    }
    let text = text_of(result);
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

fn text_of(result: &Value) -> String {
    result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A JSON-lines log's entries that pass `filter`, by their id (a number, or a string of one:
/// the Python SDK logs ids as strings).
fn entries_by_id(path: &Path, filter: impl Fn(&Value) -> bool) -> HashMap<u64, Vec<Value>> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut by_id: HashMap<u64, Vec<Value>> = HashMap::new();
    for entry in text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        if !filter(&entry) {
            continue;
        }
        let id = match entry.get("id") {
            Some(Value::Number(n)) => n.as_u64(),
            Some(Value::String(s)) => s.parse().ok(),
            _ => None,
        };
        if let Some(id) = id {
            by_id.entry(id).or_default().push(entry);
        }
    }
    by_id
}
