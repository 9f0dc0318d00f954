//! The six-stack study: what real agent stacks do with a version-1 call to a drifted version-2
//! tool, and what `driftlab guard` changes for the MCP ones.
//!
//! The bench (`bench/` in the study's folder) defines each case's tools at version 1 and 2 once
//! per language; each stack row builds them natively and calls them through its own invocation
//! path (`stacks/*.py`), or serves them over MCP stdio. The calls are drawn with the guard
//! study's seeded call generator from the bench's canonical version-1 contract, so every row
//! gets the same calls. Every call runs at version 1 first (the control); only calls that ran
//! correctly there are judged, so an outcome is the drift's doing. See METHOD.md beside the spec.

mod cells;
mod harness;
mod mcp;
pub mod outcome;
mod process;
mod report;
pub mod spec;
mod write;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

use crate::guard::calls::valid_arguments;
use crate::guard::study::session::Call;
use crate::rng::Stream;
use outcome::{judge, Evidence, Judged, Outcome};
pub use spec::{StackStudy, StackStudySpec};
pub use write::{file_names, write};

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
pub const SUMMARY_CSV: &str = "summary.csv";
pub const SUMMARY_JSON: &str = "summary.json";
pub const REPORT: &str = "report.md";
pub const FIGURE_STEM: &str = "six-stacks";

/// The path of a row's calls without a guard.
pub const STRAIGHT: &str = "straight";

/// One call on one path of one stack row.
#[derive(Debug, Clone, Serialize)]
pub struct CallRow {
    /// The stack row's id, `+<guard path>` behind the guard.
    pub row: String,
    pub case: String,
    pub call: u64,
    pub arguments: String,
    /// How the same call ended at version 1.
    pub control: Judged,
    pub judged: Judged,
    /// What the body received (JSON), or empty.
    pub received: String,
    /// What the caller got: the answer's JSON or the error's text.
    pub answer: String,
    /// What the caller got at version 1.
    pub control_answer: String,
}

pub struct StudyResults {
    pub spec: StackStudySpec,
    /// The lines of the main table, in order: every stack row, an MCP row also per guard path.
    pub rows: Vec<TableRow>,
    pub calls: Vec<CallRow>,
}

/// A line of the main table: a stack row on one path.
#[derive(Debug, Clone, Serialize)]
pub struct TableRow {
    pub row: String,
    pub stack: String,
    pub packages: String,
    pub option: String,
    pub path: String,
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
            units.push((r, None));
        } else {
            units.extend((0..spec.cases.len()).map(|c| (r, Some(c))));
        }
    }
    let done: Vec<Result<Vec<CallRow>, StackStudyError>> = units
        .par_iter()
        .map(|&(r, case)| {
            let row = &spec.stacks[r];
            let rows = match case {
                None => python_row(study, r, &calls, timeout, work),
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
                    }
                    .run()?;
                    let mut rows = Vec::new();
                    for (path, evidence) in &run.paths {
                        rows.extend(judge_case(
                            study,
                            row_id(&row.id, path),
                            c,
                            &calls[c].1,
                            &run.control,
                            evidence,
                        ));
                    }
                    Ok(rows)
                }
            }?;
            progress(&match case {
                None => format!("{}: {} calls", row.id, rows.len()),
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

fn row_id(row: &str, path: &str) -> String {
    if path == STRAIGHT {
        row.to_string()
    } else {
        format!("{row}+{path}")
    }
}

/// The main table's lines: every stack row straight, an MCP row also behind each guard path.
fn table_rows(spec: &StackStudySpec) -> Vec<TableRow> {
    let mut rows = Vec::new();
    for row in &spec.stacks {
        let line = |path: &str| TableRow {
            row: row_id(&row.id, path),
            stack: row.stack.clone(),
            packages: row.packages.clone(),
            option: row.option.clone(),
            path: path.to_string(),
        };
        rows.push(line(STRAIGHT));
        if row.server.is_some() {
            rows.extend(spec.guards.iter().map(|g| line(&g.id)));
        }
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

fn python_row(
    study: &StackStudy,
    r: usize,
    calls: &[(String, Vec<Call>)],
    timeout: Duration,
    work: &Path,
) -> Result<Vec<CallRow>, StackStudyError> {
    let row = &study.spec.stacks[r];
    let argv = row.command.as_deref().unwrap_or_default();
    let scratch = |v: u8| work.join(format!("{}-v{v}", row.id));
    let control = harness::answers(argv, &study.dir, 1, calls, timeout, &scratch(1))?;
    let drifted = harness::answers(argv, &study.dir, 2, calls, timeout, &scratch(2))?;
    let mut rows = Vec::new();
    for (c, (_, case_calls)) in calls.iter().enumerate() {
        rows.extend(judge_case(
            study,
            row.id.clone(),
            c,
            case_calls,
            &control[c],
            &drifted[c],
        ));
    }
    Ok(rows)
}

fn judge_case(
    study: &StackStudy,
    row: String,
    c: usize,
    calls: &[Call],
    control: &[Evidence],
    drifted: &[Evidence],
) -> Vec<CallRow> {
    let case = &study.spec.cases[c];
    // At version 1 nothing was renamed, and nothing new was required.
    let unchanged = spec::Case {
        renames: BTreeMap::new(),
        required: Vec::new(),
        ..case.clone()
    };
    calls
        .iter()
        .zip(control.iter().zip(drifted))
        .enumerate()
        .map(|(i, (call, (before, after)))| CallRow {
            row: row.clone(),
            case: case.id.clone(),
            call: i as u64,
            arguments: call.arguments.to_string(),
            control: judge(&unchanged, &call.arguments, before),
            judged: judge(case, &call.arguments, after),
            received: after
                .received
                .as_ref()
                .map(Value::to_string)
                .unwrap_or_default(),
            answer: answer_text(after),
            control_answer: answer_text(before),
        })
        .collect()
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

/// Counts of one table cell: a row's calls of one case that ran correctly at version 1.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CellCounts {
    pub calls: usize,
    pub control_failed: usize,
    pub correct: usize,
    pub silent: usize,
    pub loud: usize,
    pub crash: usize,
    pub refused: usize,
    /// Loud, crashed or refused calls whose error names the cause.
    pub names_cause: usize,
    /// Behind the guard: refused calls that ran correctly on the same row without it.
    pub needless_refusals: usize,
}

impl CellCounts {
    pub fn of<'a>(calls: impl Iterator<Item = &'a CallRow>) -> CellCounts {
        let mut counts = CellCounts::default();
        for call in calls {
            counts.calls += 1;
            if call.control.outcome != Outcome::Correct {
                counts.control_failed += 1;
                continue;
            }
            match call.judged.outcome {
                Outcome::Correct => counts.correct += 1,
                Outcome::Silent => counts.silent += 1,
                Outcome::Loud => counts.loud += 1,
                Outcome::Crash => counts.crash += 1,
                Outcome::Refused => counts.refused += 1,
            }
            if call.judged.outcome != Outcome::Correct && call.judged.names_cause {
                counts.names_cause += 1;
            }
        }
        counts
    }

    /// The calls the drift touched: those that did not run correctly.
    pub fn touched(&self) -> usize {
        self.silent + self.loud + self.crash + self.refused
    }
}
