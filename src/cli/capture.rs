//! `driftlab capture`: record what a live server lists, losslessly.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::live::{Scope, ServerArgs};
use crate::live::capture::ListOutcome;
use crate::live::capture_file::{self, Runs};
use crate::live::era::Era;
use crate::live::Capture;
use crate::payload::{self, Limits, DEFAULT_MAX_BYTES};

/// Capture a live server's contract: spawn CMD (or POST to --url), `initialize`,
/// `notifications/initialized`, then `tools/list` following `nextCursor`, and `prompts/list`,
/// `resources/list` and `resources/templates/list` where the server declares them (a list the
/// server refuses is recorded as failed; the others are still captured).
///
/// The capture file keeps the server's result bytes exactly as sent (unknown fields, number
/// spelling, key order, malformed tools included), with the server's `initialize` answer, the
/// negotiated protocol version, what the server said besides, and timings. `driftlab check`,
/// `diff` and `snapshot` read it like any payload. Format: docs/capture-format.md.
///
/// Exit codes: 0 captured, 2 the server could not be started, failed, timed out or broke the
/// protocol (one line says which), 70 internal error.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    driftlab capture -o fs.json -- npx -y @modelcontextprotocol/server-filesystem /tmp\n  \
    driftlab capture --runs 3 -o time.json -- uvx mcp-server-time\n  \
    driftlab capture --url http://127.0.0.1:3001/mcp --header 'Authorization: Bearer …'")]
pub struct Args {
    /// Where to write the capture (atomically). Default: stdout.
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Capture N times, each from a fresh server, and report whether tools/list is
    /// byte-identical across runs (a server whose list changes between runs makes a gate flap).
    #[arg(long, value_name = "N", default_value_t = 1)]
    runs: usize,
    /// Largest tools/list (and largest single message) accepted, in bytes; the same again for
    /// each other list.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BYTES)]
    max_bytes: usize,
    /// What is listed: `all` (tools, prompts, resources and resource templates) or `tools` only.
    #[arg(long, value_enum, default_value_t = Scope::All)]
    scope: Scope,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run(args: Args) -> Result<u8> {
    let Some(target) = args.server.target()? else {
        bail!("no server: give a command after `--` (e.g. `driftlab capture -- npx -y @modelcontextprotocol/server-memory`) or --url");
    };
    if !(1..=1000).contains(&args.runs) {
        bail!("--runs {}: expected 1 to 1000", args.runs);
    }
    let mut options = args.server.options(args.max_bytes)?;
    options.whole_contract = args.scope == Scope::All;
    let started = Instant::now();
    let first = args.server.capture(&target, &options)?;
    let mut later = Vec::new();
    for _ in 1..args.runs {
        later.push(args.server.capture(&target, &options)?);
    }
    let runs = (args.runs > 1).then(|| compare_runs(&first, &later));
    let captured_at = crate::text::rfc3339(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    );
    let bytes = capture_file::render(&first, &target, &captured_at, runs.as_ref());
    // Never write a file driftlab itself cannot read (a server's `1e999`, lone surrogate or
    // deep nesting, in its initialize result or its tools).
    let unlimited = Limits {
        max_bytes: usize::MAX,
    };
    if let Err(e) = payload::parse_json(&bytes, "the capture", unlimited) {
        bail!("the server's answers cannot be kept as a capture driftlab can read: {e}; nothing was written");
    }
    match &args.out {
        Some(path) => crate::fs::write_atomic(path, &bytes)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout().write_all(&bytes)?,
    }
    summarise(&first, &target.label(), &args, started);
    if let Some(runs) = &runs {
        report_runs(runs);
    }
    Ok(super::exit::PASS)
}

/// One line on stderr: what was captured, and whether driftlab can read it as a payload.
fn summarise(capture: &Capture, label: &str, args: &Args, started: Instant) {
    let limits = Limits {
        max_bytes: args.max_bytes,
    };
    let tools = match payload::read(&capture.tools_list_bytes(), label, limits) {
        Ok(surface) => format!("{} tools", surface.len()),
        Err(e) => format!("a tools/list driftlab cannot read as a payload ({e})"),
    };
    let place = args
        .out
        .as_ref()
        .map_or("stdout".to_string(), |p| p.display().to_string());
    eprintln!(
        "driftlab: captured {tools} in {} page(s), {} bytes, protocol {}, from {label} in {:.2} s -> {place}",
        capture.pages.len(),
        capture.tools_list_len(),
        capture.protocol_version.as_deref().unwrap_or("(not named)"),
        started.elapsed().as_secs_f64(),
    );
    for list in &capture.other_lists {
        let method = list.kind.method();
        match &list.outcome {
            ListOutcome::Listed { pages, .. } => {
                let items = payload::contract::count_items(pages, list.kind);
                eprintln!("driftlab: {method}: {items} in {} page(s)", pages.len());
            }
            ListOutcome::NotDeclared => {
                eprintln!(
                    "driftlab: {method}: not listed (the server does not declare `{}`)",
                    list.kind.capability()
                )
            }
            ListOutcome::Failed(why) => {
                eprintln!("driftlab: warning: {method}: not captured: {why}")
            }
        }
    }
}

fn compare_runs(first: &Capture, later: &[Capture]) -> Runs {
    let names = |c: &Capture| -> Option<Vec<String>> {
        let bytes = c.tools_list_bytes();
        payload::read(
            &bytes,
            "run",
            Limits {
                max_bytes: usize::MAX,
            },
        )
        .ok()
        .map(|s| s.tools().map(|t| t.label()).collect())
    };
    let first_bytes = first.tools_list_bytes();
    let first_names = names(first);
    let differing_runs: Vec<usize> = later
        .iter()
        .enumerate()
        .filter(|(_, c)| c.tools_list_bytes() != first_bytes)
        .map(|(i, _)| i + 2)
        .collect();
    let first_parts = contract_parts(first);
    let mut differing_parts = std::collections::BTreeMap::new();
    for (run, capture) in later.iter().enumerate() {
        let parts = contract_parts(capture);
        for (method, bytes) in &first_parts {
            let same = parts.iter().any(|(m, b)| m == method && b == bytes);
            if !same {
                differing_parts
                    .entry(*method)
                    .or_insert_with(Vec::new)
                    .push(run + 2);
            }
        }
    }
    Runs {
        count: later.len() + 1,
        bytes_identical: differing_runs.is_empty(),
        same_tool_order: later.iter().all(|c| names(c) == first_names),
        differing_runs,
        differing_parts,
    }
}

/// What a run answered beyond tools/list, per method: the announcement's bytes, and each other
/// list's page bytes (a refused list counts as refused, whatever the error said).
fn contract_parts(capture: &Capture) -> Vec<(&'static str, Vec<u8>)> {
    let announcement = match capture.negotiation.era {
        Era::Handshake => "initialize",
        Era::Modern => "server/discover",
    };
    let mut parts = vec![(
        announcement,
        capture.initialize_result.get().as_bytes().to_vec(),
    )];
    for list in &capture.other_lists {
        let bytes = match &list.outcome {
            ListOutcome::Listed { pages, .. } => pages
                .iter()
                .flat_map(|page| page.get().as_bytes().iter().copied().chain([b'\n']))
                .collect(),
            ListOutcome::NotDeclared => b"not declared".to_vec(),
            ListOutcome::Failed(_) => b"failed".to_vec(),
        };
        parts.push((list.kind.method(), bytes));
    }
    parts
}

fn report_runs(runs: &Runs) {
    if runs.bytes_identical {
        eprintln!(
            "driftlab: tools/list was byte-identical in all {} runs",
            runs.count
        );
    } else {
        let which: Vec<String> = runs.differing_runs.iter().map(usize::to_string).collect();
        eprintln!(
            "driftlab: warning: tools/list differs between runs (run(s) {} differ from run 1; tool order {}): \
             a gate on this server will flap; the capture file records run 1",
            which.join(", "),
            if runs.same_tool_order { "the same" } else { "differs too" },
        );
    }
    for (method, differing) in &runs.differing_parts {
        let which: Vec<String> = differing.iter().map(usize::to_string).collect();
        eprintln!(
            "driftlab: warning: the {method} result differs between runs (run(s) {} differ from run 1): \
             a whole-contract gate on this server will flap",
            which.join(", ")
        );
    }
}
