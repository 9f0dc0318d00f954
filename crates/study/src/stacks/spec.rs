//! The six-stack study's spec: the bench's cases (what drifted and what a correct run looks
//! like), the stack rows (a Python harness, or an MCP server run over stdio, optionally behind
//! `driftlab guard`) and the survey's claims to test. Read with every reference checked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::StackStudyError;
use driftlab_contract::text::shell_line;
use driftlab_mutate::mutate;

/// The JSON Schema type names a case's `declared` may give (the spec refuses others).
pub(crate) const JSON_TYPES: [&str; 7] = [
    "integer", "number", "string", "boolean", "array", "object", "null",
];

/// The placeholders of an MCP row's `server` command.
pub(crate) const CASE_PLACEHOLDER: &str = "{case}";
/// Replaced by the server's version (`1` or `2`).
pub(crate) const VERSION_PLACEHOLDER: &str = "{version}";

/// A server command with its placeholders filled for one case and version.
pub(crate) fn fill(template: &[String], case: &str, version: &str) -> Vec<String> {
    template
        .iter()
        .map(|a| {
            a.replace(CASE_PLACEHOLDER, case)
                .replace(VERSION_PLACEHOLDER, version)
        })
        .collect()
}

/// A six-stack study's spec (`research/2026-12-03-six-stacks/study.toml`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StackStudySpec {
    /// The results folder's name: `results/<id>` unless --out says otherwise.
    pub id: String,
    /// The study's title, for the report.
    pub title: String,
    /// The seed of the version-1 calls.
    pub seed: u64,
    /// Seeded version-1 calls per case.
    pub calls_per_case: u64,
    /// Seconds to wait for a harness run or an MCP answer.
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// The command that prints the bench's canonical contract (`{"op": "schemas"}`).
    pub schemas: Vec<String>,
    /// The guarded paths of the MCP rows, in order.
    #[serde(rename = "guard", default)]
    pub guards: Vec<GuardPath>,
    /// The drift cases, as `[[case]]` tables.
    #[serde(rename = "case")]
    pub cases: Vec<Case>,
    /// The stack rows, as `[[stack]]` tables.
    #[serde(rename = "stack")]
    pub stacks: Vec<StackRow>,
    /// The survey's claims, as `[[claim]]` tables.
    #[serde(rename = "claim", default)]
    pub claims: Vec<Claim>,
}

fn default_timeout() -> u64 {
    60
}

/// One guarded path: `driftlab guard --approved <version 1> OPTIONS -- <version 2>`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GuardPath {
    /// The path's id (a row behind it is `<row>+<id>`).
    pub id: String,
    /// `driftlab guard` options.
    pub options: Vec<String>,
    /// Adapter rows the path also runs on: the guard between the stack's MCP adapter and the
    /// server, where an agent built on that stack would put it.
    #[serde(default)]
    pub adapters: Vec<String>,
}

/// One drift of the bench: the tool a version-1 client calls and what version 2 did to it.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// The case's id.
    pub id: String,
    /// The taxonomy's class (`driftlab mutations`).
    pub class: String,
    /// What changed, for the report.
    pub drift: String,
    /// The version-1 tool the calls go to.
    pub tool: String,
    /// The tool's name at version 2, where version 2 renamed it: the tool a caller still means.
    #[serde(default)]
    pub renamed_tool: Option<String>,
    /// Parameters version 2 renamed: a correct run hands the body the value under the new name.
    #[serde(default)]
    pub renames: BTreeMap<String, String>,
    /// A member a version-1 client reads from the tool's answer.
    #[serde(default)]
    pub output_key: Option<String>,
    /// Parameters version 2 requires that a version-1 call never sends: a body that ran
    /// without one ran wrong (a server that does not validate lets it through).
    #[serde(default)]
    pub required: Vec<String>,
    /// Parameters' JSON types at version 2 (`integer`, `string`, ...): a body that ran on a
    /// value of another type took what its own contract rejects, which a server that does not
    /// validate lets through (a float handed to a body declared for integers).
    #[serde(default)]
    pub declared: BTreeMap<String, String>,
    /// Words an error must contain to name the drift's cause.
    pub cause: Vec<String>,
}

/// One row of the main table: a stack with one setting of its options.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StackRow {
    /// The row's id.
    pub id: String,
    /// The survey's stack this row measures.
    pub stack: String,
    /// The packages and versions the row runs.
    pub packages: String,
    /// The option setting, as its users would name it.
    pub option: String,
    /// A Python harness (`stacks/*.py`): answers `{"op": "call"}` on stdin.
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// An MCP server on stdio, `{case}` and `{version}` replaced.
    #[serde(default)]
    pub server: Option<Vec<String>>,
    /// What the row's cells cannot show, said under the table (e.g. an option that decides
    /// nothing on the bench).
    #[serde(default)]
    pub note: Option<String>,
    /// The row reaches the tools through its stack's MCP adapter: its bar is in the adapters'
    /// figure.
    #[serde(default)]
    pub adapter: bool,
    /// The cases this row runs (a row on real servers runs the real-tool cases only); every
    /// case where absent. The other cells read `–`.
    #[serde(default)]
    pub cases: Option<Vec<String>>,
    /// Where this row's servers rename a case's parameter to another name than the case's
    /// `renames` (`driftlab wrap` names it `renamed_<name>`): old name → the name on the wire,
    /// which a call is judged by.
    #[serde(default)]
    pub renamed_as: BTreeMap<String, String>,
}

impl GuardPath {
    /// `driftlab guard` on this path, pinned to `pin`, auditing to `audit`, in front of
    /// `server`.
    pub(crate) fn argv(
        &self,
        driftlab: &std::path::Path,
        pin: String,
        audit: String,
        server: &[String],
    ) -> Vec<String> {
        let mut argv = vec![
            driftlab.display().to_string(),
            "guard".into(),
            "--approved".into(),
            pin,
            "--max-retries".into(),
            "1000".into(),
            "--audit".into(),
            audit,
        ];
        argv.extend(self.options.iter().cloned());
        argv.push("--".into());
        argv.extend(server.iter().cloned());
        argv
    }
}

impl StackRow {
    /// Whether the row also runs behind `guard`: an MCP server row always, an adapter row where
    /// the path says so.
    pub(crate) fn guarded_by(&self, guard: &GuardPath) -> bool {
        self.server.is_some() || guard.adapters.contains(&self.id)
    }

    /// An adapter row's command split at its `--`: the adapter, and the server it starts.
    pub(crate) fn adapter_and_server(&self) -> Option<(&[String], &[String])> {
        let command = self.command.as_deref()?;
        let split = command.iter().position(|a| a == "--")?;
        Some((&command[..split], &command[split + 1..]))
    }

    /// Whether the row runs `case`.
    pub fn runs(&self, case: &str) -> bool {
        self.cases
            .as_ref()
            .is_none_or(|cases| cases.iter().any(|c| c == case))
    }
}

/// One claim of the survey, about one stack row and some cases.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// A stack row id, or `<row id>+<guard path id>` for a guarded path.
    pub row: String,
    /// The cases it is about.
    pub cases: Vec<String>,
    /// `silent`, `loud`, `unvalidated`, `refused` or `followed` (METHOD.md, *The claims*).
    pub claimed: String,
    /// An error type the claim names (e.g. `TypeError`); the cell's errors must show it.
    #[serde(default)]
    pub error: Option<String>,
    /// For a claim about an option: the same stack's row without it. Where the two rows' calls
    /// ended alike, the option decided nothing on the bench, and the claim is untested.
    #[serde(default)]
    pub against: Option<String>,
    /// Why the row cannot test the claim, where the spec knows it cannot (the claim is then
    /// untested, with this reason).
    #[serde(default)]
    pub untested: Option<String>,
    /// The survey's words.
    pub says: String,
}

/// The outcomes a claim may say.
pub(crate) const CLAIMS: [&str; 5] = ["silent", "loud", "unvalidated", "refused", "followed"];

/// A spec read and checked, with the folder its commands run in.
pub struct StackStudy {
    /// The spec as read.
    pub spec: StackStudySpec,
    /// The spec's folder, where the commands run.
    pub dir: PathBuf,
}

impl StackStudy {
    /// Reads and checks the spec at `path`.
    pub fn load(path: &Path) -> Result<StackStudy, StackStudyError> {
        let at = |message: String| StackStudyError::Spec(format!("{}: {message}", path.display()));
        let text = driftlab_contract::fs::read_text(path, driftlab_contract::fs::MAX_SMALL_FILE)
            .map_err(|e| StackStudyError::Spec(e.to_string()))?;
        let spec: StackStudySpec = toml::from_str(&text).map_err(|e| {
            let (line, column, message) = driftlab_contract::text::toml_error(&text, &e);
            at(format!("{line}:{column}: {message}"))
        })?;
        if let Some(problem) = driftlab_contract::id_problem(&spec.id) {
            return Err(at(format!("id {problem}")));
        }
        if spec.cases.is_empty() || spec.stacks.is_empty() || spec.calls_per_case == 0 {
            return Err(at(
                "a study needs a [[case]], a [[stack]] and calls_per_case ≥ 1".into(),
            ));
        }
        for case in &spec.cases {
            if mutate::by_id(&case.class).is_none() {
                return Err(at(format!(
                    "case {}: unknown mutation class {:?} (see `driftlab mutations`)",
                    case.id, case.class
                )));
            }
            if let Some((name, t)) = case
                .declared
                .iter()
                .find(|(_, t)| !JSON_TYPES.contains(&t.as_str()))
            {
                return Err(at(format!(
                    "case {}: `declared` gives {name} the type {t:?}, not a JSON Schema type ({})",
                    case.id,
                    JSON_TYPES.join(", ")
                )));
            }
        }
        for row in &spec.stacks {
            if row.command.is_some() == row.server.is_some() {
                return Err(at(format!(
                    "stack {}: give either `command` (a Python harness) or `server` (MCP)",
                    row.id
                )));
            }
            let unknown = row
                .cases
                .iter()
                .flatten()
                .find(|c| !spec.cases.iter().any(|k| &k.id == *c));
            if let Some(case) = unknown {
                return Err(at(format!("stack {}: unknown case {case:?}", row.id)));
            }
        }
        for (guard, id) in spec
            .guards
            .iter()
            .flat_map(|g| g.adapters.iter().map(move |id| (g, id)))
        {
            let row = spec.stacks.iter().find(|r| &r.id == id);
            if !row.is_some_and(|r| r.adapter && r.adapter_and_server().is_some()) {
                return Err(at(format!(
                    "guard {}: {id:?} is not an adapter row with `-- SERVER ARGV` in its command",
                    guard.id
                )));
            }
        }
        for claim in &spec.claims {
            let (row, path) = claim.row.split_once('+').unwrap_or((&claim.row, ""));
            let known = spec.stacks.iter().find(|s| s.id == row).is_some_and(|s| {
                path.is_empty() || spec.guards.iter().any(|g| g.id == path && s.guarded_by(g))
            });
            if !known {
                return Err(at(format!("claim on unknown row {:?}", claim.row)));
            }
            if let Some(against) = claim
                .against
                .as_ref()
                .filter(|a| !spec.stacks.iter().any(|s| &s.id == *a))
            {
                return Err(at(format!(
                    "claim compared against unknown row {against:?}"
                )));
            }
            if let Some(case) = claim
                .cases
                .iter()
                .find(|c| !spec.cases.iter().any(|k| &k.id == *c))
            {
                return Err(at(format!("claim on unknown case {case:?}")));
            }
            if !CLAIMS.contains(&claim.claimed.as_str()) {
                return Err(at(format!(
                    "claim {:?}: expected one of {CLAIMS:?}",
                    claim.claimed
                )));
            }
        }
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        Ok(StackStudy { spec, dir })
    }

    /// Every argv the spec runs (in its folder): the bench's schema command, each row's
    /// command and MCP server.
    pub fn argvs(&self) -> Vec<Vec<String>> {
        let mut argvs = vec![self.spec.schemas.clone()];
        for row in &self.spec.stacks {
            argvs.extend(row.command.iter().chain(&row.server).cloned());
        }
        argvs
    }

    /// Every command the spec runs, as written (placeholders kept), one line each, for the
    /// user's consent.
    pub fn commands(&self) -> Vec<String> {
        let mut lines = vec![format!("schemas: {}", shell_line(&self.spec.schemas))];
        for row in &self.spec.stacks {
            if let Some(command) = &row.command {
                lines.push(format!("{}: {}", row.id, shell_line(command)));
            }
            if let Some(server) = &row.server {
                lines.push(format!("{} (MCP server): {}", row.id, shell_line(server)));
            }
        }
        lines
    }
}
