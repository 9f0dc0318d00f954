//! The output-contracts study: `driftlab scan` over a folder of captures, one per server,
//! written as a results folder (servers.csv, tools.csv, summary.json, a figure, report.md).
//! Every file is deterministic: the same captures and seed give the same bytes.

use std::path::Path;

use serde::Serialize;

use super::output_contract::Class;
use super::study_error::ScanStudyError;
use super::{ratio, scan_surface, ScanReport};
use crate::study::results::csv_bytes;
use driftlab_contract::fs::write_atomic;
use driftlab_contract::payload::{self, Limits};
use driftlab_plot::plot::contract_chart::{self, ContractRow};
use driftlab_record::provenance::{self, Provenance};

/// One row per server.
pub(crate) const SERVERS_CSV: &str = "servers.csv";
/// One row per tool.
pub(crate) const TOOLS_CSV: &str = "tools.csv";
/// The study's counts.
pub const SUMMARY_JSON: &str = "summary.json";
/// The report.
pub const REPORT: &str = "report.md";

/// Every file [`write`] writes into a results folder.
pub fn file_names() -> Vec<String> {
    let mut names: Vec<String> = [SERVERS_CSV, TOOLS_CSV, SUMMARY_JSON, REPORT]
        .map(String::from)
        .to_vec();
    names.extend(driftlab_plot::plot::file_names(
        contract_chart::FILE_STEM,
        &driftlab_plot::plot::Medium::DEFAULTS,
    ));
    names.push(provenance::MANIFEST.into());
    names
}

/// The published scanner's headline (31 servers, 265 tools), for the side-by-side.
pub(crate) const PUBLISHED: Published = Published {
    servers: 31,
    tools: 265,
    enforceable_share: 0.03,
    no_output_schema_share: 0.56,
    accepts_garbage_share: 0.42,
};

/// A published scanner's headline figures.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Published {
    /// Servers scanned.
    pub servers: usize,
    /// Tools scanned.
    pub tools: usize,
    /// The share of tools whose outputSchema is enforceable.
    pub enforceable_share: f64,
    /// The share of tools without an outputSchema.
    pub no_output_schema_share: f64,
    /// The share of tools whose outputSchema accepts a corrupted answer.
    pub accepts_garbage_share: f64,
}

/// The `*.json` files of `dir`, sorted by name.
fn json_files(dir: &Path) -> Result<Vec<std::path::PathBuf>, ScanStudyError> {
    driftlab_contract::fs::json_files(dir).map_err(|error| ScanStudyError::Folder {
        folder: dir.display().to_string(),
        error,
    })
}

/// Scans every `*.json` capture in `dir`, in file-name order.
pub(crate) fn scan_folder(
    dir: &Path,
    seed: u64,
    limits: Limits,
) -> Result<Vec<ScanReport>, ScanStudyError> {
    let files = json_files(dir)?;
    if files.is_empty() {
        return Err(ScanStudyError::NoCaptures(dir.display().to_string()));
    }
    files
        .iter()
        .map(|path| {
            let name = path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let bytes = driftlab_contract::fs::read_limited(path, limits.max_bytes)?;
            let surface = payload::read(&bytes, &path.display().to_string(), limits)?;
            Ok(scan_surface(&surface, &name, seed))
        })
        .collect()
}

#[derive(Serialize)]
struct ServerRow<'a> {
    server: &'a str,
    tools: usize,
    with_output_schema: usize,
    enforceable: usize,
    partially_enforceable: usize,
    vacuous: usize,
    invalid_output_schema: usize,
    fastmcp_wrapped: usize,
    input_rejects_unknown_parameter: usize,
    input_with_required: usize,
    input_rejects_missing_required: usize,
    input_meets_minimum_bar: usize,
}

#[derive(Serialize)]
struct ToolRow<'a> {
    server: &'a str,
    tool: &'a str,
    output: &'static str,
    unguarded_leaves: usize,
    fastmcp_wrapped: bool,
    rejects_unknown_parameter: bool,
    rejects_missing_required: &'static str,
    rejects_wrong_type: &'static str,
    rejects_outside_enum: &'static str,
    meets_minimum_bar: bool,
}

#[derive(Serialize)]
struct Summary<'a> {
    study: &'a str,
    seed: u64,
    servers: usize,
    totals: Totals,
    published: Published,
    per_server: Vec<ServerRow<'a>>,
}

#[derive(Serialize, Default)]
struct Totals {
    tools: usize,
    with_output_schema: usize,
    enforceable: usize,
    partially_enforceable: usize,
    vacuous: usize,
    invalid_output_schema: usize,
    fastmcp_wrapped: usize,
    no_output_schema: usize,
    input_rejects_unknown_parameter: usize,
    input_meets_minimum_bar: usize,
    input_with_required: usize,
    input_rejects_missing_required: usize,
}

fn server_row(r: &ScanReport) -> ServerRow<'_> {
    ServerRow {
        server: &r.source,
        tools: r.tools,
        with_output_schema: r.with_output_schema,
        enforceable: r.enforceable,
        partially_enforceable: r.partially_enforceable,
        vacuous: r.vacuous,
        invalid_output_schema: r.invalid_output_schema,
        fastmcp_wrapped: r.fastmcp_wrapped,
        input_rejects_unknown_parameter: r.input.rejects_unknown_parameter,
        input_with_required: r.input.with_required,
        input_rejects_missing_required: r.input.rejects_missing_required,
        input_meets_minimum_bar: r.input.meets_minimum_bar,
    }
}

fn answer(a: Option<bool>) -> &'static str {
    match a {
        Some(true) => "yes",
        Some(false) => "no",
        None => "n/a",
    }
}

fn class_name(class: Option<Class>) -> &'static str {
    match class {
        Some(Class::Enforceable) => "enforceable",
        Some(Class::Partial) => "partial",
        Some(Class::Vacuous) => "vacuous",
        Some(Class::Invalid) => "invalid",
        None => "none",
    }
}

/// The live reports in `dir` when it lies inside the results folder `out`: each by its path in
/// `out` (`live/x.json`), with its bytes, for the manifest to pin.
pub(crate) fn kept_live(dir: &Path, out: &Path) -> Result<Vec<(String, Vec<u8>)>, ScanStudyError> {
    let (Ok(dir), Ok(out)) = (dir.canonicalize(), out.canonicalize()) else {
        return Ok(Vec::new());
    };
    let Ok(inside) = dir.strip_prefix(&out) else {
        return Ok(Vec::new());
    };
    json_files(&dir)?
        .iter()
        .map(|path| {
            let name = inside.join(path.file_name().unwrap_or_default());
            let bytes = std::fs::read(path).map_err(|error| ScanStudyError::Folder {
                folder: path.display().to_string(),
                error,
            })?;
            Ok((name.to_string_lossy().replace('\\', "/"), bytes))
        })
        .collect()
}

/// Live scans (JSON reports of `driftlab scan --format json -- …`), one per file in `dir`, in
/// file-name order: (file stem, probes as `(probe, verdict, code)`).
pub(crate) fn read_live(dir: &Path) -> Result<Vec<LiveScan>, ScanStudyError> {
    let files = json_files(dir)?;
    files
        .iter()
        .map(|path| {
            let report: serde_json::Value = driftlab_contract::fs::read_json(path)?;
            let probes = report["probes"]
                .as_array()
                .ok_or_else(|| ScanStudyError::NotALiveReport(path.display().to_string()))?
                .iter()
                .map(|p| {
                    let text = |k: &str| p[k].as_str().unwrap_or("").to_string();
                    let code = p["code"].as_i64().map_or(String::new(), |c| c.to_string());
                    (text("probe"), text("verdict"), code)
                })
                .collect();
            let name = path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            Ok((name, probes))
        })
        .collect()
}

/// One probe of a live scan: (probe, verdict, error code or empty).
pub(crate) type ProbeRow = (String, String, String);
/// One live scan: the server's name and its probes.
pub(crate) type LiveScan = (String, Vec<ProbeRow>);
/// Live probe results to tabulate in the report.
pub(crate) type LiveProbes = [LiveScan];

/// Writes the results folder for `reports` (one per server) into `out`.
pub fn write(
    out: &Path,
    (study, seed): (&str, u64),
    (command, provenance): (&str, &Provenance),
    reports: &[ScanReport],
    (live, kept): (&LiveProbes, &[(String, Vec<u8>)]),
) -> Result<(), ScanStudyError> {
    let io = |file: &str, error: std::io::Error| ScanStudyError::Write {
        file: out.join(file).display().to_string(),
        error,
    };
    let encode = |file: &'static str, why: String| ScanStudyError::Encode { file, why };
    std::fs::create_dir_all(out).map_err(|e| io("", e))?;
    let servers: Vec<ServerRow> = reports.iter().map(server_row).collect();
    let tools: Vec<ToolRow> = reports
        .iter()
        .flat_map(|r| {
            r.tool_results.iter().map(move |t| ToolRow {
                server: &r.source,
                tool: &t.name,
                output: class_name(t.output.as_ref().map(|o| o.class)),
                unguarded_leaves: t.output.as_ref().map_or(0, |o| o.unguarded.len()),
                fastmcp_wrapped: t.fastmcp_wrapped,
                rejects_unknown_parameter: t.input.rejects_unknown_parameter,
                rejects_missing_required: answer(t.input.rejects_missing_required),
                rejects_wrong_type: answer(t.input.rejects_wrong_type),
                rejects_outside_enum: answer(t.input.rejects_outside_enum),
                meets_minimum_bar: t.input.meets_minimum_bar,
            })
        })
        .collect();
    let mut totals = Totals::default();
    for r in reports {
        totals.tools += r.tools;
        totals.with_output_schema += r.with_output_schema;
        totals.enforceable += r.enforceable;
        totals.partially_enforceable += r.partially_enforceable;
        totals.vacuous += r.vacuous;
        totals.invalid_output_schema += r.invalid_output_schema;
        totals.fastmcp_wrapped += r.fastmcp_wrapped;
        totals.input_rejects_unknown_parameter += r.input.rejects_unknown_parameter;
        totals.input_meets_minimum_bar += r.input.meets_minimum_bar;
        totals.input_with_required += r.input.with_required;
        totals.input_rejects_missing_required += r.input.rejects_missing_required;
    }
    totals.no_output_schema = totals.tools - totals.with_output_schema;
    let mut report = render_report(study, seed, command, &totals, &servers);
    if !live.is_empty() {
        report.push_str(&render_live(live));
    }
    let summary = Summary {
        study,
        seed,
        servers: reports.len(),
        totals,
        published: PUBLISHED,
        per_server: servers,
    };
    let mut summary_bytes =
        serde_json::to_vec_pretty(&summary).map_err(|e| encode(SUMMARY_JSON, e.to_string()))?;
    summary_bytes.push(b'\n');
    let rows = chart_rows(reports);
    let figures =
        driftlab_plot::plot::files_in(&driftlab_plot::plot::Medium::DEFAULTS, |medium| {
            contract_chart::render(
                "What each server's outputSchema does with a corrupted answer (share of its tools)",
                &rows,
                medium,
            )
        })?;
    let files: [(&str, Vec<u8>); 4] = [
        (
            SERVERS_CSV,
            csv_bytes(&summary.per_server).map_err(|e| encode(SERVERS_CSV, e.to_string()))?,
        ),
        (
            TOOLS_CSV,
            csv_bytes(&tools).map_err(|e| encode(TOOLS_CSV, e.to_string()))?,
        ),
        (SUMMARY_JSON, summary_bytes),
        (REPORT, report.into_bytes()),
    ];
    let mut files: Vec<(String, Vec<u8>)> = files
        .into_iter()
        .map(|(name, bytes)| (name.to_string(), bytes))
        .collect();
    files.extend(figures);
    // The live reports kept in the folder are pinned too, though this write leaves them be.
    let mut pinned = files.clone();
    pinned.extend(kept.iter().cloned());
    files.push(provenance::folder_manifest(command, provenance, &pinned));
    for (name, bytes) in &files {
        write_atomic(&out.join(name), bytes).map_err(|e| io(name, e))?;
    }
    Ok(())
}

/// Rows of the figure, most enforceable first, then most partial, then fewest vacuous, by name.
fn chart_rows(reports: &[ScanReport]) -> Vec<ContractRow> {
    let mut rows: Vec<ContractRow> = reports
        .iter()
        .map(|r| ContractRow {
            label: r.source.clone(),
            counts: vec![
                r.enforceable,
                r.partially_enforceable,
                r.vacuous,
                r.invalid_output_schema,
                r.tools - r.with_output_schema,
            ],
        })
        .collect();
    let share = |row: &ContractRow, i: usize| ratio(row.counts[i], row.counts.iter().sum());
    rows.sort_by(|a, b| {
        share(b, 0)
            .total_cmp(&share(a, 0))
            .then(share(b, 1).total_cmp(&share(a, 1)))
            .then(share(a, 2).total_cmp(&share(b, 2)))
            .then(a.label.cmp(&b.label))
    });
    rows
}

fn pct(part: usize, whole: usize) -> String {
    format!("{:.1}%", 100.0 * ratio(part, whole))
}

/// The error probes of the live scans: one row per server.
fn render_live(live: &LiveProbes) -> String {
    let mut out = String::from(
        "\n## Error probes on live servers\n\nEach pinned server scanned live (`live/<server>.json`): \
         an unknown method, an unknown tool, a call without required arguments. `jsonrpc_error` \
         and `tool_error` are correct refusals.\n\n| server | unknown method | unknown tool | missing arguments | correct |\n|---|---|---|---|---:|\n",
    );
    for (server, probes) in live {
        let cell = |i: usize| {
            probes.get(i).map_or(String::new(), |(_, verdict, code)| {
                if code.is_empty() {
                    verdict.clone()
                } else {
                    format!("{verdict} ({code})")
                }
            })
        };
        let ran: Vec<&ProbeRow> = probes.iter().filter(|p| p.1 != "skipped").collect();
        let good = ran
            .iter()
            .filter(|p| p.1 == "jsonrpc_error" || p.1 == "tool_error")
            .count();
        out.push_str(&format!(
            "| `{server}` | {} | {} | {} | {good}/{} |\n",
            cell(0),
            cell(1),
            cell(2),
            ran.len()
        ));
    }
    out
}

fn render_report(
    study: &str,
    seed: u64,
    command: &str,
    t: &Totals,
    servers: &[ServerRow],
) -> String {
    let n = servers.len();
    let with_any = servers.iter().filter(|s| s.with_output_schema > 0).count();
    let mut out = format!(
        "# Output contracts across real MCP servers ({study})\n\n\
         **{enforceable} of {tools} tools ({ep}) declare an outputSchema that rejects a corrupted but \
         well-typed answer; {none} ({np}) declare none, and {vacuous} ({vp}) declare one that accepts \
         it.** {partial} more ({pp}) reject it only because some of its values are constrained. \
         On the input side, {unknown} of {tools} tools ({up}) refuse a call with an unknown \
         parameter, the minimum for a renamed parameter not to be silently dropped.\n\n\
         {n} servers (one capture each, from the shared corpus), {with_any} of them declare at least one \
         outputSchema. Seed {seed}.\n\n",
        enforceable = t.enforceable,
        tools = t.tools,
        ep = pct(t.enforceable, t.tools),
        none = t.no_output_schema,
        np = pct(t.no_output_schema, t.tools),
        vacuous = t.vacuous,
        vp = pct(t.vacuous, t.tools),
        partial = t.partially_enforceable,
        pp = pct(t.partially_enforceable, t.tools),
        unknown = t.input_rejects_unknown_parameter,
        up = pct(t.input_rejects_unknown_parameter, t.tools),
    );
    out.push_str("## Side by side with the published scan\n\n");
    out.push_str("| measure | published (31 servers, 265 tools) | this study |\n|---|---:|---:|\n");
    let p = PUBLISHED;
    let rows = [
        ("servers", p.servers.to_string(), n.to_string()),
        ("tools", p.tools.to_string(), t.tools.to_string()),
        (
            "outputSchema rejects a corrupted answer",
            format!("{:.0}%", p.enforceable_share * 100.0),
            pct(t.enforceable, t.tools),
        ),
        (
            "no outputSchema",
            format!("{:.0}%", p.no_output_schema_share * 100.0),
            pct(t.no_output_schema, t.tools),
        ),
        (
            "outputSchema accepts a corrupted answer",
            format!("{:.0}%", p.accepts_garbage_share * 100.0),
            pct(t.vacuous, t.tools),
        ),
        (
            "partially enforceable (not separated there)",
            "–".into(),
            pct(t.partially_enforceable, t.tools),
        ),
    ];
    for (label, published, ours) in rows {
        out.push_str(&format!("| {label} | {published} | {ours} |\n"));
    }
    out.push_str(
        "\nDifferences come from the method, not from tuning: this scan judges every `anyOf`/`oneOf` \
         branch and every non-null type (the published one follows the first), asserts `format` \
         always (there it depends on an installed validator), and separates *partially enforceable* \
         schemas (every corrupted answer rejected, but some leaves unguarded) from enforceable ones; \
         and the server sets differ (see LIMITS.md).\n\n",
    );
    out.push_str("![Output contracts per server](output-contracts.svg)\n\n");
    out.push_str(&driftlab_plot::plot::print_links(&[
        contract_chart::FILE_STEM,
    ]));
    out.push_str("\n\n## Per server\n\n");
    out.push_str("| server | tools | outputSchema | enforceable | partial | vacuous | invalid | wrapped | input refuses unknown | input minimum bar |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for s in servers {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            s.server,
            s.tools,
            s.with_output_schema,
            s.enforceable,
            s.partially_enforceable,
            s.vacuous,
            s.invalid_output_schema,
            s.fastmcp_wrapped,
            s.input_rejects_unknown_parameter,
            s.input_meets_minimum_bar
        ));
    }
    out.push_str(&format!(
        "\nPer tool: `tools.csv`. Method: `research/{study}/METHOD.md`; limits: `LIMITS.md`.\n\n\
         Reproduce: `{command}`\n"
    ));
    out
}
