//! The six-stack study: what real agent stacks do with a version-1 call to a drifted version-2
//! tool, and what `driftlab guard` changes for the MCP ones.
//!
//! The bench (`bench/` in the study's folder) defines each case's tools at version 1 and 2 once
//! per language; each stack row builds them natively and calls them through its own invocation
//! path (`stacks/*.py`), or calls an MCP server through the stack's own MCP adapter
//! (`adapters/*.py`, the same harness protocol), or serves them over MCP stdio. The calls are
//! drawn with the guard study's seeded call generator from the bench's canonical version-1
//! contract, so every row gets the same calls. Every call runs at version 1 first (the
//! control); only calls that ran correctly there are judged, so an outcome is the drift's
//! doing. A call whose caller got an error is retried once as the repairer rewrites it
//! ([`repairs`]). See METHOD.md beside the spec.

mod cells;
pub(crate) use cells::CellCounts;
mod harness;
mod harness_row;
mod mcp;
pub mod meaning;
pub mod outcome;
mod patterns;
mod process;
mod repairs;
mod report;
pub mod spec;
mod verdicts;
mod write;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::{json, Value};
use thiserror::Error;

use driftlab_contract::rng::Stream;
use driftlab_proxy::guard::calls::valid_arguments;
use driftlab_proxy::guard::study::session::Call;
use meaning::{judge_meaning, Meaning};
use outcome::{judge, Evidence, Judged, Outcome};
pub use spec::{StackStudy, StackStudySpec};
pub use write::{file_names, write};

/// Why a six-stack study stopped.
#[derive(Debug, Error)]
pub enum StackStudyError {
    /// The spec cannot be read or names what does not exist.
    #[error("{0}")]
    Spec(String),
    /// A harness or server did not run, or answered what the study cannot read.
    #[error("{0}")]
    Command(String),
    /// A results file could not be written.
    #[error("{0}")]
    Write(String),
}

/// The results folder's files.
pub const CALLS_CSV: &str = "calls.csv";
/// The per-row counts, as CSV.
pub const SUMMARY_CSV: &str = "summary.csv";
/// The per-row counts, as JSON.
pub const SUMMARY_JSON: &str = "summary.json";
/// The report.
pub const REPORT: &str = "report.md";
/// The main figure's file stem.
pub const FIGURE_STEM: &str = "six-stacks";
/// The figure of the rows that reach the tools through a stack's MCP adapter.
pub(crate) const ADAPTERS_FIGURE_STEM: &str = "six-stacks-adapters";

/// The path of a row's calls without a guard.
pub(crate) const STRAIGHT: &str = "straight";

/// One call on one path of one stack row.
#[derive(Debug, Clone, Serialize)]
pub struct CallRow {
    /// The stack row's id, `+<guard path>` behind the guard.
    pub row: String,
    /// The drift case called.
    pub case: String,
    /// The call's number in its case, from 0.
    pub call: u64,
    /// The arguments sent, as compact JSON.
    pub arguments: String,
    /// How the same call ended at version 1.
    pub control: Judged,
    /// How the call ended at the drifted version.
    pub judged: Judged,
    /// What the body received (JSON), or empty.
    pub received: String,
    /// What the caller got: the answer's JSON or the error's text.
    pub answer: String,
    /// What the caller got at version 1.
    pub control_answer: String,
    /// The repairer's retry of a call whose caller got an error (`{"tool", "arguments"}`), or
    /// empty.
    pub retry: String,
    /// How the retry ended, judged by its own arguments.
    pub retried: Option<Judged>,
    /// What the retry's body received (JSON), or empty.
    pub retry_received: String,
    /// For a retry that ran correctly: what it kept of the caller's call.
    pub meaning: Option<Meaning>,
}

/// What a six-stack study found.
pub struct StudyResults {
    /// The spec it ran.
    pub spec: StackStudySpec,
    /// The lines of the main table, in order: every stack row, an MCP row also per guard path.
    pub rows: Vec<TableRow>,
    /// Every call, in row, case and call order.
    pub calls: Vec<CallRow>,
}

/// A line of the main table: a stack row on one path.
#[derive(Debug, Clone, Serialize)]
pub struct TableRow {
    /// The row's id (`+<guard path>` behind the guard).
    pub row: String,
    /// The agent stack.
    pub stack: String,
    /// The pinned packages it runs on.
    pub packages: String,
    /// The option the row sets (strict mode, a validator), or empty.
    pub option: String,
    /// The invocation path the calls take.
    pub path: String,
    /// Through the stack's MCP adapter (the adapters' figure).
    pub adapter: bool,
}

/// Runs the study; `driftlab` provides `guard`, `work` is a scratch folder. `progress` hears
/// one line per finished unit of work.
pub fn run(
    study: &StackStudy,
    driftlab: &Path,
    work: &Path,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<StudyResults, StackStudyError> {
    let spec = &study.spec;
    let timeout = Duration::from_secs(spec.timeout_secs);
    std::fs::create_dir_all(work)
        .map_err(|e| StackStudyError::Command(format!("{}: {e}", work.display())))?;
    let schemas = harness::schemas(&spec.schemas, &study.dir, timeout, &work.join("schemas"))?;
    let calls = draw_calls(spec, &schemas)?;
    progress(&format!(
        "drew {} calls per case for {} cases",
        spec.calls_per_case,
        spec.cases.len()
    ));
    // Units of work: a Python row at once (one harness run per version), an MCP row per case.
    let mut units = Vec::new();
    for (r, row) in spec.stacks.iter().enumerate() {
        if row.command.is_some() {
            // A harness row straight, and an adapter row behind each guard path it takes.
            units.push((r, None, None));
            units.extend(
                (0..spec.guards.len())
                    .filter(|&g| row.guarded_by(&spec.guards[g]))
                    .map(|g| (r, None, Some(g))),
            );
        } else {
            units.extend(
                (0..spec.cases.len())
                    .filter(|&c| row.runs(&spec.cases[c].id))
                    .map(|c| (r, Some(c), None)),
            );
        }
    }
    let done: Vec<Result<Vec<CallRow>, StackStudyError>> = units
        .par_iter()
        .map(|&(r, case, guard)| {
            let row = &spec.stacks[r];
            let guard = guard.map(|g| &spec.guards[g]);
            let rows = match case {
                None => {
                    let run = harness_row::Run {
                        study,
                        row,
                        guard,
                        driftlab,
                        work,
                    };
                    run.rows(&calls, &schemas)
                }
                Some(c) => {
                    let run = mcp::McpCase {
                        row,
                        case: &calls[c].0,
                        calls: &calls[c].1,
                        dir: &study.dir,
                        work,
                        timeout,
                        driftlab,
                        guards: &spec.guards,
                        old: schemas.get(&calls[c].0),
                    }
                    .run()?;
                    let mut rows = Vec::new();
                    for (path, evidence, retried) in &run.paths {
                        rows.extend(judge_case(
                            study,
                            row_id(&row.id, path),
                            c,
                            &calls[c].1,
                            &run.control,
                            evidence,
                            retried,
                        ));
                    }
                    Ok(rows)
                }
            }?;
            progress(&match case {
                None => format!(
                    "{}: {} calls",
                    row_id(&row.id, guard.map_or(STRAIGHT, |g| &g.id)),
                    rows.len()
                ),
                Some(c) => format!("{} × {}: {} calls", row.id, spec.cases[c].id, rows.len()),
            });
            Ok(rows)
        })
        .collect();
    let mut all = Vec::new();
    for rows in done {
        all.extend(rows?);
    }
    let table = table_rows(spec);
    let order = |c: &CallRow| {
        let row = table
            .iter()
            .position(|t| t.row == c.row)
            .unwrap_or(usize::MAX);
        let case = spec
            .cases
            .iter()
            .position(|k| k.id == c.case)
            .unwrap_or(usize::MAX);
        (row, case, c.call)
    };
    all.sort_by_key(order);
    Ok(StudyResults {
        spec: spec.clone(),
        rows: table,
        calls: all,
    })
}

pub(crate) fn row_id(row: &str, path: &str) -> String {
    if path == STRAIGHT {
        row.to_string()
    } else {
        format!("{row}+{path}")
    }
}

/// The stack row id of a table row (`<row>+<guard path>`).
fn row_of(row: &str) -> &str {
    row.split_once('+').map_or(row, |(row, _)| row)
}

/// The main table's lines: every stack row straight, and behind each guard path that takes it
/// (an MCP row every one, an adapter row those that name it).
fn table_rows(spec: &StackStudySpec) -> Vec<TableRow> {
    let mut rows = Vec::new();
    for row in &spec.stacks {
        let line = |path: &str| TableRow {
            row: row_id(&row.id, path),
            stack: row.stack.clone(),
            packages: row.packages.clone(),
            option: row.option.clone(),
            path: path.to_string(),
            adapter: row.adapter,
        };
        rows.push(line(STRAIGHT));
        rows.extend(
            spec.guards
                .iter()
                .filter(|g| row.guarded_by(g))
                .map(|g| line(&g.id)),
        );
    }
    rows
}

/// The seeded version-1 calls of every case, drawn from the canonical contract.
fn draw_calls(
    spec: &StackStudySpec,
    schemas: &BTreeMap<String, BTreeMap<String, Value>>,
) -> Result<Vec<(String, Vec<Call>)>, StackStudyError> {
    let mut all = Vec::new();
    for case in &spec.cases {
        let schema = schemas
            .get(&case.id)
            .and_then(|tools| tools.get(&case.tool))
            .ok_or_else(|| {
                StackStudyError::Spec(format!(
                    "case {}: the bench has no version-1 tool {:?}",
                    case.id, case.tool
                ))
            })?;
        let mut calls = Vec::new();
        for i in 0..spec.calls_per_case {
            let mut rng = Stream::derive_parts(spec.seed, &["call", &case.id, &case.tool], i);
            let arguments = valid_arguments(schema, &mut rng).ok_or_else(|| {
                StackStudyError::Spec(format!(
                    "case {}: no valid call drawn for {:?}",
                    case.id, case.tool
                ))
            })?;
            calls.push(Call {
                tool: case.tool.clone(),
                arguments,
            });
        }
        all.push((case.id.clone(), calls));
    }
    Ok(all)
}

pub(crate) fn judge_case(
    study: &StackStudy,
    row: String,
    c: usize,
    calls: &[Call],
    control: &[Evidence],
    drifted: &[Evidence],
    retried: &[Option<(Call, Evidence)>],
) -> Vec<CallRow> {
    let mut case = study.spec.cases[c].clone();
    // The row's servers may rename a parameter to a name of their own.
    let row_spec = study.spec.stacks.iter().find(|s| row_of(&row) == s.id);
    for (old, new) in row_spec.into_iter().flat_map(|s| &s.renamed_as) {
        if let Some(name) = case.renames.get_mut(old) {
            *name = new.clone();
        }
    }
    let case = &case;
    // A retry already sends version 2's names; what it must still have is version 2's.
    let retry_case = spec::Case {
        renames: BTreeMap::new(),
        ..case.clone()
    };
    // At version 1 nothing was renamed, nothing new was required, and no type was narrowed.
    let unchanged = spec::Case {
        renames: BTreeMap::new(),
        required: Vec::new(),
        declared: BTreeMap::new(),
        ..case.clone()
    };
    calls
        .iter()
        .zip(control.iter().zip(drifted))
        .enumerate()
        .map(|(i, (call, (before, after)))| {
            let retry = retried.get(i).and_then(Option::as_ref);
            let retry_judged =
                retry.map(|(r, evidence)| judge(&retry_case, &r.arguments, evidence));
            // Only a retry that ran correctly by its own arguments is judged by what the
            // caller meant: the rest were not repaired in any sense.
            let meaning = retry
                .filter(|_| {
                    retry_judged
                        .as_ref()
                        .is_some_and(|j| j.outcome == Outcome::Correct)
                })
                .map(|(r, evidence)| {
                    judge_meaning(
                        case,
                        &call.arguments,
                        before.received.as_ref(),
                        &r.tool,
                        evidence.received.as_ref(),
                    )
                });
            CallRow {
                row: row.clone(),
                case: case.id.clone(),
                call: i as u64,
                arguments: call.arguments.to_string(),
                control: judge(&unchanged, &call.arguments, before),
                judged: judge(case, &call.arguments, after),
                received: json_text(after.received.as_ref()),
                answer: answer_text(after),
                control_answer: answer_text(before),
                retry: retry
                    .map(|(r, _)| json!({"tool": r.tool, "arguments": r.arguments}).to_string())
                    .unwrap_or_default(),
                retried: retry_judged,
                retry_received: json_text(retry.and_then(|(_, e)| e.received.as_ref())),
                meaning,
            }
        })
        .collect()
}

/// A JSON value as compact text, or empty.
fn json_text(value: Option<&Value>) -> String {
    value.map(Value::to_string).unwrap_or_default()
}

/// What the caller got, as text: the error, the answer's JSON, or why none came.
fn answer_text(evidence: &Evidence) -> String {
    match (&evidence.error, &evidence.returned, &evidence.failure) {
        (Some(error), _, _) => error.clone(),
        (None, Some(returned), _) => returned.to_string(),
        (None, None, Some(failure)) => failure.clone(),
        _ => String::new(),
    }
}
