//! The guard study's results folder: calls.csv (every call on every path), summary.csv and
//! summary.json (verdict counts per server and class, and per class over all servers), a figure
//! and report.md. Every byte depends only on the spec and what the servers answered.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use plotters::style::RGBColor;
use serde::Serialize;

use super::counts::{PathCounts, SummaryRow};
use super::tables::{calls_csv, summary_csv};
use super::{CallRow, GuardStudyError, StudyResults};
use driftlab_contract::fs::write_files_atomic;
use driftlab_mutate::mutate::Label;
use driftlab_plot::plot::contract_chart::{render_stacked, ContractRow};
use driftlab_plot::plot::Medium;
use driftlab_record::provenance::{self, Provenance};

pub const CALLS_CSV: &str = "calls.csv";
pub const SUMMARY_CSV: &str = "summary.csv";
pub const SUMMARY_JSON: &str = "summary.json";
pub const REPORT: &str = "report.md";
pub const FIGURE_STEM: &str = "silent-failures";

/// Every file [`write`] writes: a folder holding only these is an earlier guard study's.
pub fn file_names() -> Vec<String> {
    let mut names: Vec<String> = [CALLS_CSV, SUMMARY_CSV, SUMMARY_JSON, REPORT]
        .map(String::from)
        .to_vec();
    names.extend(driftlab_plot::plot::file_names(
        FIGURE_STEM,
        &Medium::DEFAULTS,
    ));
    names.push(provenance::MANIFEST.into());
    names
}

/// Verdict colours, in `Verdict::ALL` order, a needless refusal apart: four steps of lightness
/// (L* 47, 26, 68, 0), the guard's two (46, 68) hatched by the chart where they meet a step
/// already taken.
const SEGMENTS: [(&str, RGBColor); 6] = [
    ("accepted, correct", RGBColor(0, 127, 93)),
    ("accepted, wrong (silent failure)", RGBColor(121, 23, 23)),
    (
        "rejected by the server with an error",
        RGBColor(83, 175, 226),
    ),
    ("crash or timeout", RGBColor(0, 0, 0)),
    (
        "refused by the guard with a correction",
        RGBColor(0, 114, 178),
    ),
    (
        "refused needlessly (it ran correctly without the guard)",
        RGBColor(213, 145, 183),
    ),
];

#[derive(Serialize)]
struct SummaryJson<'a> {
    title: &'a str,
    seed: u64,
    calls_per_tool: u64,
    guard_modes: &'a [String],
    servers: Vec<&'a str>,
    classes: &'a [String],
    calls_failing_in_control: usize,
    totals: &'a SummaryRow,
    /// The breaking classes over every server, each path by name: what the docs quote (a
    /// JSON pointer names a path here, where `totals` lists them by place).
    breaking: ByName<'a>,
    rows: &'a [SummaryRow],
    skipped: &'a [super::Skipped],
}

#[derive(Serialize)]
struct ByName<'a> {
    calls: usize,
    paths: BTreeMap<&'a str, &'a PathCounts>,
}

impl<'a> ByName<'a> {
    fn of(row: &'a SummaryRow) -> ByName<'a> {
        ByName {
            calls: row.calls,
            paths: row.paths.iter().map(|(n, c)| (n.as_str(), c)).collect(),
        }
    }
}

/// The calls under breaking drift and under the rest, each summed over every server and class.
fn breaking_and_other(results: &StudyResults) -> (SummaryRow, SummaryRow) {
    let rows = || results.rows.iter();
    let breaking = |r: &&CallRow| r.label == Label::Breaking;
    (
        summarise(
            results,
            "all",
            "breaking classes",
            "breaking",
            rows().filter(breaking),
        ),
        summarise(
            results,
            "all",
            "other classes",
            "not breaking",
            rows().filter(|r| !breaking(r)),
        ),
    )
}

fn path_names(results: &StudyResults) -> Vec<String> {
    std::iter::once("without-guard".to_string())
        .chain(
            results
                .spec
                .guard_modes
                .iter()
                .map(|m| format!("guard-{m}")),
        )
        .collect()
}

fn summarise<'a>(
    results: &StudyResults,
    server: &str,
    class: &str,
    label: &str,
    rows: impl Iterator<Item = &'a CallRow>,
) -> SummaryRow {
    let names = path_names(results);
    let mut paths: Vec<(String, PathCounts)> = names
        .into_iter()
        .map(|n| (n, PathCounts::default()))
        .collect();
    let mut calls = 0;
    for row in rows.filter(|r| r.control == "success") {
        calls += 1;
        let straight = row.straight.verdict;
        paths[0].1.add(straight, straight, None);
        for (g, result) in row.guarded.iter().enumerate() {
            let retry = row.retried.get(g).and_then(Option::as_ref);
            paths[g + 1].1.add(result.verdict, straight, retry);
        }
    }
    SummaryRow {
        server: server.into(),
        class: class.into(),
        label: label.into(),
        calls,
        paths,
    }
}

/// Per (server, class), then per class over all servers, in spec order; and the grand total.
pub fn summary(results: &StudyResults) -> (Vec<SummaryRow>, SummaryRow) {
    let mut out = Vec::new();
    let mut classes: Vec<(&str, &str)> = Vec::new();
    for server in &results.spec.servers {
        for class in &results.spec.classes {
            let mut rows = results
                .rows
                .iter()
                .filter(|r| r.server == server.name && r.class == class.as_str())
                .peekable();
            let Some(first) = rows.peek() else { continue };
            let label = first.label.as_str();
            if !classes.iter().any(|(c, _)| c == class) {
                classes.push((class.as_str(), label));
            }
            out.push(summarise(results, &server.name, class, label, rows));
        }
    }
    let mut order: Vec<(&str, &str)> = Vec::new();
    for class in &results.spec.classes {
        if let Some(found) = classes.iter().find(|(c, _)| c == class) {
            order.push(*found);
        }
    }
    for (class, label) in order {
        let rows = results.rows.iter().filter(|r| r.class == class);
        out.push(summarise(results, "all", class, label, rows));
    }
    let total = summarise(results, "all", "all", "all", results.rows.iter());
    (out, total)
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "–".into()
    } else {
        format!("{:.0}%", 100.0 * part as f64 / whole as f64)
    }
}

fn path_title(path: &str) -> String {
    match path.strip_prefix("guard-") {
        Some(mode) => format!("guard --on-drift {mode}"),
        None => "without guard".into(),
    }
}

/// report.md; `breaking` and `other` are [`breaking_and_other`]'s.
fn report(
    results: &StudyResults,
    rows: &[SummaryRow],
    total: &SummaryRow,
    (breaking, other): (&SummaryRow, &SummaryRow),
    reproduce: &str,
) -> String {
    let spec = &results.spec;
    let mut md = String::new();
    let _ = writeln!(md, "# {}\n", spec.title);
    let straight = &breaking.paths[0].1;
    let mut headline = format!(
        "Breaking drift, {} calls that worked before it: without a guard **{} ({}) were \
         accepted and run wrong** (an argument dropped silently), {} ({}) were rejected with an \
         error, {} ran correctly",
        breaking.calls,
        straight.accepted_wrong,
        percent(straight.accepted_wrong, breaking.calls),
        straight.rejected_with_error + straight.crash_timeout,
        percent(
            straight.rejected_with_error + straight.crash_timeout,
            breaking.calls
        ),
        straight.accepted_correct
    );
    for (i, (path, counts)) in breaking.paths.iter().enumerate().skip(1) {
        let _ = write!(
            headline,
            ". Behind `{}`: {} silent, {} refused with a correction ({} of them calls that \
             ran correctly without the guard; retried once as the refusal says, {} ran \
             correctly), {} rejected by the server, {} ran correctly",
            path_title(path),
            counts.accepted_wrong,
            counts.refused_by_guard,
            counts.needless_refusals,
            counts.repaired,
            counts.rejected_with_error + counts.crash_timeout,
            counts.accepted_correct
        );
        let needless = other.paths[i].1.refused_by_guard;
        let _ = write!(
            headline,
            ", and of {} calls under drift that is not breaking it refused {needless}",
            other.calls
        );
    }
    let _ = writeln!(md, "{headline}.\n");
    let _ = writeln!(
        md,
        "Servers: {}. Seed {}, {} seeded calls per callable tool, valid under the pinned \
         inputSchema. Each call ran against the undrifted server first (the control); {} calls \
         that failed there are left out of every count.\n",
        spec.servers
            .iter()
            .map(|s| format!("`{}`", s.name))
            .collect::<Vec<_>>()
            .join(", "),
        spec.seed,
        spec.calls_per_tool,
        results.control_failures
    );
    let _ = writeln!(md, "![Verdicts per class and path]({FIGURE_STEM}.svg)\n");
    let _ = writeln!(md, "{}\n", driftlab_plot::plot::print_links(&[FIGURE_STEM]));
    let _ = write!(md, "| class | label | calls |");
    for (path, _) in &total.paths {
        let _ = write!(md, " {}: silent | rejected | refused |", path_title(path));
    }
    let _ = writeln!(md);
    let _ = write!(md, "|---|---|---:|");
    for _ in &total.paths {
        let _ = write!(md, "---:|---:|---:|");
    }
    let _ = writeln!(md);
    for row in rows
        .iter()
        .filter(|r| r.server == "all")
        .chain([breaking, other, total])
    {
        let _ = write!(md, "| {} | {} | {} |", row.class, row.label, row.calls);
        for (_, c) in &row.paths {
            let _ = write!(
                md,
                " {} | {} | {} |",
                percent(c.accepted_wrong, row.calls),
                percent(c.rejected_with_error + c.crash_timeout, row.calls),
                percent(c.refused_by_guard, row.calls)
            );
        }
        let _ = writeln!(md);
    }
    let _ = writeln!(
        md,
        "\n*silent*: the server answered success but ran without an argument the client sent; \
         *rejected*: the server answered an error (or crashed, or timed out); *refused*: the \
         guard answered with a correction and the server never saw the call; a refusal is \
         *needless* where the call ran correctly without the guard. Each refused call is \
         retried once as a deterministic repairer rewrites it from the refusal's text and the \
         pinned inputSchema alone (`driftlab::guard::repair`: a renamed parameter's new name, \
         a new required parameter, the allowed values, the type, a renamed tool), behind the \
         same guard in a fresh session: `retried` and `repaired` (the retry ran correctly) in \
         `{SUMMARY_CSV}`, the retry's verdict in `{CALLS_CSV}`.\n"
    );
    if !results.skipped.is_empty() {
        let _ = writeln!(
            md,
            "Not run (no drift of the class lands on a callable tool):\n"
        );
        for s in &results.skipped {
            let _ = writeln!(md, "- `{}` × `{}`: {}", s.server, s.class, s.reason);
        }
        let _ = writeln!(md);
    }
    let _ = writeln!(md, "Reproduce:\n\n```sh\n{reproduce}\n```");
    md
}

/// Writes every file of the results folder (each atomically) and returns their names.
pub fn write(
    results: &StudyResults,
    out: &Path,
    (reproduce, provenance): (&str, &Provenance),
) -> Result<Vec<String>, GuardStudyError> {
    let fail = GuardStudyError::Write;
    std::fs::create_dir_all(out).map_err(|e| fail(format!("{}: {e}", out.display())))?;
    let (rows, total) = summary(results);
    let (breaking, other) = breaking_and_other(results);
    let chart_rows: Vec<ContractRow> = rows
        .iter()
        .filter(|r| r.server == "all")
        .flat_map(|r| {
            r.paths.iter().map(move |(path, counts)| ContractRow {
                label: format!("{} · {}", r.class, path_title(path)),
                counts: counts.counts(),
            })
        })
        .collect();
    let title = format!(
        "{}: verdicts of calls that worked before the drift",
        results.spec.title
    );
    let figures = driftlab_plot::plot::files_in(&Medium::DEFAULTS, |medium| {
        render_stacked(
            FIGURE_STEM,
            &title,
            &SEGMENTS,
            &chart_rows,
            ("call", "calls"),
            medium,
        )
    })
    .map_err(|e| fail(e.to_string()))?;
    let json = SummaryJson {
        title: &results.spec.title,
        seed: results.spec.seed,
        calls_per_tool: results.spec.calls_per_tool,
        guard_modes: &results.spec.guard_modes,
        servers: results
            .spec
            .servers
            .iter()
            .map(|s| s.name.as_str())
            .collect(),
        classes: &results.spec.classes,
        calls_failing_in_control: results.control_failures,
        totals: &total,
        breaking: ByName::of(&breaking),
        rows: &rows,
        skipped: &results.skipped,
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
            summary_csv(&rows, &total).map_err(|e| fail(e.to_string()))?,
        ),
        (SUMMARY_JSON.into(), summary_json),
        (
            REPORT.into(),
            report(results, &rows, &total, (&breaking, &other), reproduce).into_bytes(),
        ),
    ];
    let mut files = files;
    files.extend(figures);
    files.push(provenance::folder_manifest(reproduce, provenance, &files));
    write_files_atomic(out, files).map_err(|(path, e)| fail(format!("{}: {e}", path.display())))
}
