//! `driftlab scan`: can a server's declared contract reject a wrong answer?

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::live::ServerArgs;
use driftlab_contract::payload::input::read_surface;
use driftlab_contract::payload::{self, Limits, DEFAULT_MAX_BYTES};
use driftlab_live::live::{capture_on, Session};
use driftlab_study::scan::corpus_study::CorpusStudy;
use driftlab_study::scan::{self, probes, render, ScanReport};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// readable summary and one line per tool
    Text,
    /// the documented JSON contract
    Json,
    /// a table for pull-request comments and job summaries
    Markdown,
    /// a shields.io endpoint badge (enforceable output contracts)
    Badge,
}

/// Scan a server's declared contract: output-contract coverage and enforceability (does the
/// outputSchema reject a corrupted but well-typed answer?), input-contract strength (does the
/// inputSchema refuse an unknown parameter, a missing required one, a wrong type, a value
/// outside an enum?) and, for a live server, three error-conformance probes (an unknown method,
/// an unknown tool, a call without required arguments; no tool is ever called with valid
/// arguments).
///
/// PAYLOAD is any payload or capture file (`-` for stdin); or give a live server after `--` (or
/// --url). The method is in research/2026-11-30-output-contracts/METHOD.md.
///
/// Exit codes: 0 scanned (and every threshold met), 1 a threshold not met, 2 usage error,
/// unreadable input or a server that could not be captured, 70 internal error.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    driftlab scan capture.json\n  \
    driftlab scan --format json --min-enforceable 0.5 -- npx -y @modelcontextprotocol/server-memory")]
pub struct Args {
    /// The payload or capture to scan (`-` for stdin); or give a live server after `--`.
    payload: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Seed of the corrupted values (sentinels are fixed; unbounded numbers and unconstrained
    /// booleans are drawn).
    #[arg(long, default_value_t = scan::DEFAULT_SEED)]
    seed: u64,
    /// Fail (exit 1) when fewer than this share of all tools have an enforceable outputSchema.
    #[arg(long, value_name = "RATIO")]
    min_enforceable: Option<f64>,
    /// Fail (exit 1) when fewer than this share of the probes that ran are answered correctly
    /// (live servers only).
    #[arg(long, value_name = "RATIO")]
    min_error_handling: Option<f64>,
    /// Scan every *.json capture in this folder (one per server) as a study, and write its
    /// results folder to --out: servers.csv, tools.csv, summary.json, a figure, report.md.
    #[arg(long, value_name = "DIR", requires = "out")]
    corpus: Option<PathBuf>,
    /// With --corpus: a folder of live scan reports (`scan --format json -- …`, see
    /// scripts/scan-pinned-servers.sh) whose error probes the study report tabulates.
    #[arg(long, value_name = "DIR", requires = "corpus")]
    live: Option<PathBuf>,
    /// The results folder of a --corpus study.
    #[arg(long, short, value_name = "DIR", requires = "corpus")]
    out: Option<PathBuf>,
    /// With --corpus: write into a folder that holds files a scan study does not write.
    #[arg(long, requires = "corpus")]
    force: bool,
    /// Largest payload accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BYTES)]
    max_bytes: usize,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run(args: Args) -> Result<u8> {
    for (flag, value) in [
        ("--min-enforceable", args.min_enforceable),
        ("--min-error-handling", args.min_error_handling),
    ] {
        if let Some(r) = value {
            if !(0.0..=1.0).contains(&r) {
                bail!("{flag} {r}: expected a share between 0 and 1");
            }
        }
    }
    let limits = Limits {
        max_bytes: args.max_bytes,
    };
    if let (Some(corpus), Some(out)) = (&args.corpus, &args.out) {
        return corpus_study(corpus, out, &args, limits);
    }
    let report = match (args.payload.as_deref(), args.server.target()?) {
        (Some(_), Some(_)) => {
            bail!("give either a payload file or a live server (`-- CMD…` or --url), not both")
        }
        (None, None) => bail!(
            "nothing to scan: give a payload file (`-` for stdin) or a live server after `--`"
        ),
        (Some(path), None) => {
            if args.min_error_handling.is_some() {
                bail!("--min-error-handling needs a live server (the probes call it)");
            }
            scan::scan_surface(&read_surface(path, limits)?, path, args.seed)
        }
        (None, Some(target)) => {
            let options = args.server.options(limits.max_bytes)?;
            let mut session = Session::new(args.server.connect(&target, &options)?);
            let label = target.label();
            let capture = capture_on(&mut session, &options).with_context(|| label.clone())?;
            let surface = payload::read(&capture.tools_list_bytes(), &label, limits)?;
            let mut report = scan::scan_surface(&surface, &label, args.seed);
            report.probes = Some(probes::run(&mut session, &surface, options.timeout));
            session.close();
            report
        }
    };
    out!(
        "{}",
        match args.format {
            Format::Text => render::text(&report),
            Format::Json => render::json(&report),
            Format::Markdown => render::markdown(&report),
            Format::Badge => render::badge(&report),
        }
    );
    Ok(if thresholds_met(&report, &args) {
        super::exit::PASS
    } else {
        super::exit::DRIFT
    })
}

/// `--corpus DIR --out DIR`: the output-contracts study over a folder of captures.
fn corpus_study(corpus: &Path, out: &Path, args: &Args, limits: Limits) -> Result<u8> {
    if args.payload.is_some() || args.server.target()?.is_some() {
        bail!("--corpus scans a folder: give no payload file or live server with it");
    }
    let reports = CorpusStudy {
        corpus,
        live: args.live.as_deref(),
        out,
        seed: args.seed,
        limits,
        force: args.force,
    }
    .run()?;
    let tools: usize = reports.iter().map(|r| r.tools).sum();
    let enforceable: usize = reports.iter().map(|r| r.enforceable).sum();
    eprintln!(
        "driftlab: scanned {} servers, {tools} tools: {enforceable} enforceable output contracts -> {}",
        reports.len(),
        out.display()
    );
    Ok(super::exit::PASS)
}

/// Whether every requested threshold holds; says on stderr which does not.
fn thresholds_met(report: &ScanReport, args: &Args) -> bool {
    let mut met = true;
    if let Some(min) = args.min_enforceable {
        let share = report.enforceable_share();
        if share < min {
            eprintln!(
                "driftlab: enforceable output contracts {share:.3} < --min-enforceable {min}"
            );
            met = false;
        }
    }
    if let (Some(min), Some(share)) = (args.min_error_handling, report.error_handling_share()) {
        if share < min {
            eprintln!("driftlab: correctly refused probes {share:.3} < --min-error-handling {min}");
            met = false;
        }
    }
    met
}
