//! `driftlab capture`: record what a live server lists, losslessly.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::live::{Scope, ServerArgs};
use driftlab_contract::payload::{self, Limits, DEFAULT_MAX_BYTES};
use driftlab_live::live::capture::ListOutcome;
use driftlab_live::live::capture_file::{self, Runs};
use driftlab_live::live::Capture;

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
    let runs = (args.runs > 1).then(|| Runs::compare(&first, &later));
    let captured_at = driftlab_contract::text::now_rfc3339();
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
        Some(path) => driftlab_contract::fs::write_atomic(path, &bytes)
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
