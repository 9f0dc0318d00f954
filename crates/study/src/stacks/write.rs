//! The six-stack study's results folder: calls.csv (every call on every row and path),
//! summary.csv and summary.json (outcome counts per row and case, and each survey claim against
//! its cell), a figure and report.md. Every byte depends only on the spec and what the stacks
//! did.

use std::path::Path;

use plotters::style::RGBColor;
use serde::Serialize;

use super::cells::{counts, row_total};
use super::patterns::{patterns, repair_totals, Pattern};
use super::report::report;
use super::verdicts::Tally;
use super::verdicts::{claims, ClaimResult};
use super::{
    CellCounts, StackStudyError, StudyResults, TableRow, ADAPTERS_FIGURE_STEM, CALLS_CSV,
    FIGURE_STEM, REPORT, STRAIGHT, SUMMARY_CSV, SUMMARY_JSON,
};
use driftlab_contract::fs::write_files_atomic;
use driftlab_plot::plot::contract_chart::{render_stacked, ContractRow};
use driftlab_plot::plot::Medium;
use driftlab_record::provenance::{self, Provenance};

/// Every file [`write`] writes: a folder holding only these is an earlier run's.
pub fn file_names() -> Vec<String> {
    let mut names: Vec<String> = [CALLS_CSV, SUMMARY_CSV, SUMMARY_JSON, REPORT]
        .map(String::from)
        .to_vec();
    for stem in [FIGURE_STEM, ADAPTERS_FIGURE_STEM] {
        names.extend(driftlab_plot::plot::file_names(stem, &Medium::DEFAULTS));
    }
    names.push(provenance::MANIFEST.into());
    names
}

/// Outcome colours, in the order of `Outcome`'s variants, a needless refusal (of a call that ran
/// correctly without the guard) apart: four steps of lightness (L* 47, 26, 68, 0), the guard's
/// two (46, 68) hatched by the chart where they meet a step already taken.
const SEGMENTS: [(&str, RGBColor); 6] = [
    ("ran correctly", RGBColor(0, 127, 93)),
    ("accepted, wrong (silent)", RGBColor(121, 23, 23)),
    ("rejected with an error (loud)", RGBColor(83, 175, 226)),
    ("the body failed, or no answer", RGBColor(0, 0, 0)),
    ("refused by the guard", RGBColor(0, 114, 178)),
    (
        "refused needlessly (it ran correctly without the guard)",
        RGBColor(213, 145, 183),
    ),
];

#[derive(Serialize)]
struct RowJson<'a> {
    #[serde(flatten)]
    row: &'a TableRow,
    cells: Vec<(&'a str, CellCounts)>,
}

#[derive(Serialize)]
struct SummaryJson<'a> {
    title: &'a str,
    seed: u64,
    calls_per_case: u64,
    cases: Vec<&'a str>,
    rows: Vec<RowJson<'a>>,
    /// The rows grouped by their outcome in every input case (report.md's "At a glance").
    patterns: Vec<Pattern>,
    /// The repairs summed over the unguarded rows and the guarded paths.
    repairs: Repairs,
    /// The claims counted by verdict: the survey's, and driftlab's own about its guard apart.
    claims_tally: ClaimsTally,
    claims: &'a [ClaimResult<'a>],
}

#[derive(Serialize)]
struct ClaimsTally {
    survey: Tally,
    guard: Tally,
}

#[derive(Serialize)]
struct Repairs {
    unguarded: CellCounts,
    guarded: CellCounts,
}

fn calls_csv(results: &StudyResults) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "row",
        "case",
        "class",
        "call",
        "arguments",
        "control",
        "outcome",
        "detail",
        "names_cause",
        "received",
        "answer",
        "control_answer",
        "retry",
        "retry_outcome",
        "retry_detail",
        "retry_received",
        "retry_meaning",
        "retry_meaning_detail",
    ])?;
    for call in &results.calls {
        let class = results
            .spec
            .cases
            .iter()
            .find(|c| c.id == call.case)
            .map_or("", |c| c.class.as_str());
        w.write_record([
            call.row.as_str(),
            &call.case,
            class,
            &call.call.to_string(),
            &call.arguments,
            call.control.outcome.as_str(),
            call.judged.outcome.as_str(),
            &call.judged.detail,
            if call.judged.names_cause { "yes" } else { "no" },
            &call.received,
            &call.answer,
            &call.control_answer,
            &call.retry,
            call.retried.as_ref().map_or("", |r| r.outcome.as_str()),
            call.retried.as_ref().map_or("", |r| r.detail.as_str()),
            &call.retry_received,
            call.meaning.as_ref().map_or("", |m| m.kept.as_str()),
            call.meaning.as_ref().map_or("", |m| m.detail.as_str()),
        ])?;
    }
    driftlab_contract::fs::csv_text::finish(w)
}

fn summary_csv(results: &StudyResults) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "row",
        "stack",
        "option",
        "path",
        "case",
        "calls",
        "control_failed",
        "correct",
        "silent",
        "loud",
        "crash",
        "refused",
        "names_cause",
        "needless_refusals",
        "retried",
        "repaired",
        "exact",
        "coerced",
        "lost",
        "invented",
        "other_tool",
    ])?;
    for row in &results.rows {
        for case in &results.spec.cases {
            let c = counts(results, &row.row, &case.id);
            let n = [
                c.calls,
                c.control_failed,
                c.correct,
                c.silent,
                c.loud,
                c.crash,
                c.refused,
                c.names_cause,
                c.needless_refusals,
                c.retried,
                c.repaired,
                c.exact,
                c.coerced,
                c.lost,
                c.invented,
                c.other_tool,
            ]
            .map(|n| n.to_string());
            let mut record = vec![
                row.row.clone(),
                row.stack.clone(),
                row.option.clone(),
                row.path.clone(),
                case.id.clone(),
            ];
            record.extend(n);
            w.write_record(&record)?;
        }
    }
    driftlab_contract::fs::csv_text::finish(w)
}

/// One bar per row: its calls that ran at version 1, by outcome.
fn chart_rows(results: &StudyResults, rows: &[&TableRow]) -> Vec<ContractRow> {
    rows.iter()
        .map(|row| {
            let total = row_total(results, &row.row);
            let path = if row.path == STRAIGHT {
                String::new()
            } else {
                format!(" + {}", row.path)
            };
            ContractRow {
                label: format!("{} · {}{path}", row.stack, row.option),
                counts: vec![
                    total.correct,
                    total.silent,
                    total.loud,
                    total.crash,
                    total.refused - total.needless_refusals,
                    total.needless_refusals,
                ],
            }
        })
        .collect()
}

/// Writes every file of the results folder (each atomically) and returns their names.
pub fn write(
    results: &StudyResults,
    out: &Path,
    (reproduce, provenance): (&str, &Provenance),
) -> Result<Vec<String>, StackStudyError> {
    let fail = |e: String| StackStudyError::Write(e);
    std::fs::create_dir_all(out).map_err(|e| fail(format!("{}: {e}", out.display())))?;
    let claims = claims(results);
    let mut figures = Vec::new();
    for (stem, adapter, what) in [
        (
            FIGURE_STEM,
            false,
            "the stacks' own tools and the MCP servers",
        ),
        (
            ADAPTERS_FIGURE_STEM,
            true,
            "through each stack's MCP adapter",
        ),
    ] {
        let rows: Vec<&TableRow> = results
            .rows
            .iter()
            .filter(|r| r.adapter == adapter)
            .collect();
        let title = format!(
            "{}, {what}: outcomes of version-1 calls at version 2 (each bar: every call of the \
             row's cases that ran at version 1)",
            results.spec.title
        );
        let chart_rows = chart_rows(results, &rows);
        figures.extend(
            driftlab_plot::plot::files_in(&Medium::DEFAULTS, |medium| {
                render_stacked(
                    stem,
                    &title,
                    &SEGMENTS,
                    &chart_rows,
                    ("call", "calls"),
                    medium,
                )
            })
            .map_err(|e| fail(e.to_string()))?,
        );
    }
    let (unguarded, guarded) = repair_totals(results);
    let json = SummaryJson {
        title: &results.spec.title,
        seed: results.spec.seed,
        calls_per_case: results.spec.calls_per_case,
        cases: results.spec.cases.iter().map(|c| c.id.as_str()).collect(),
        rows: results
            .rows
            .iter()
            .map(|row| RowJson {
                row,
                cells: results
                    .spec
                    .cases
                    .iter()
                    .map(|c| (c.id.as_str(), counts(results, &row.row, &c.id)))
                    .collect(),
            })
            .collect(),
        patterns: patterns(results),
        repairs: Repairs { unguarded, guarded },
        claims_tally: ClaimsTally {
            survey: Tally::of(
                claims
                    .iter()
                    .filter(|c| !c.row.contains('+'))
                    .map(|c| c.verdict),
            ),
            guard: Tally::of(
                claims
                    .iter()
                    .filter(|c| c.row.contains('+'))
                    .map(|c| c.verdict),
            ),
        },
        claims: &claims,
    };
    let mut summary_json = serde_json::to_vec_pretty(&json).map_err(|e| fail(e.to_string()))?;
    summary_json.push(b'\n');
    let files: Vec<(String, Vec<u8>)> = vec![
        (
            CALLS_CSV.into(),
            calls_csv(results).map_err(|e| fail(e.to_string()))?,
        ),
        (
            SUMMARY_CSV.into(),
            summary_csv(results).map_err(|e| fail(e.to_string()))?,
        ),
        (SUMMARY_JSON.into(), summary_json),
        (
            REPORT.into(),
            report(results, &claims, reproduce).into_bytes(),
        ),
    ];
    let mut files = files;
    files.extend(figures);
    files.push(provenance::folder_manifest(reproduce, provenance, &files));
    write_files_atomic(out, files).map_err(|(path, e)| fail(format!("{}: {e}", path.display())))
}
