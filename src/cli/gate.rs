//! `driftlab check` and `driftlab diff`: the drift gate for real tools/list payloads.

use std::io::IsTerminal;

use anyhow::{anyhow, bail, Result};

use super::input::read_surface;
use super::live::{surface_from, ServerArgs};
use crate::check::rules::of_kind;
use crate::check::{Rule, RuleKind};
use crate::payload::{Limits, DEFAULT_MAX_BYTES};
use crate::report::{self, GateReport};
use crate::surface::Surface;
use crate::verdict::{evaluate, FailOn, Policy, ResolvedPolicy, Verdict};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// readable in a terminal; coloured on a TTY unless NO_COLOR is set
    Text,
    /// the documented JSON contract
    Json,
    /// a table for pull-request comments and job summaries
    Markdown,
    /// SARIF 2.1.0 for code scanning
    Sarif,
    /// GitHub Actions workflow annotations
    Github,
    /// JUnit XML for GitLab, Jenkins and other CI test reports (a test case per finding)
    Junit,
}

/// Options shared by check and diff.
#[derive(clap::Args)]
pub struct GateOptions {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Lowest severity that fails the gate (exit 1). `breaking` also fails on `unknown`.
    #[arg(long, value_enum, default_value_t = FailOn::Breaking)]
    fail_on: FailOn,
    /// Policy file (TOML): `[severity]` rule = "info" overrides, `[[accept]]` fingerprint = "…",
    /// `fail_on_existing = true`.
    #[arg(long, value_name = "FILE")]
    policy: Option<String>,
    /// Largest payload accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BYTES)]
    max_bytes: usize,
    /// With `check --approved`: findings the approved snapshot already had (reported as
    /// pre-existing) fail the gate too. Also a policy key: `fail_on_existing = true`.
    #[arg(long)]
    fail_on_existing: bool,
}

/// Check a candidate tools/list payload: payload rules (name rule, input schema present, not
/// null, object root, duplicate names, outputSchema root) and, with --approved, every diff rule.
///
/// PAYLOAD may be a tools/list result {"tools":[…]}, a JSON-RPC response, a bare array of tools,
/// an array of result pages, or a capture file with a `toolsList` field; `-` reads stdin.
/// Instead of PAYLOAD, a live server after `--` (or --url) is captured and gated in one step
/// (see `driftlab capture --help` for the live-server options).
///
/// Exit codes: 0 pass, 1 drift at or above --fail-on, 2 unreadable input, 70 internal error.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    driftlab check --approved approved.json candidate.json\n  \
    driftlab check --approved approved.json --format sarif -- npx -y @modelcontextprotocol/server-memory")]
pub struct CheckArgs {
    /// The approved snapshot (see `driftlab snapshot`). Without it only payload rules run.
    #[arg(long, value_name = "FILE")]
    approved: Option<String>,
    /// The candidate payload (`-` for stdin); or give a live server after `--`.
    candidate: Option<String>,
    #[command(flatten)]
    options: GateOptions,
    #[command(flatten)]
    server: ServerArgs,
}

/// Compare two payloads (e.g. two releases) with the diff rules only.
///
/// Exit codes: 0 pass, 1 drift at or above --fail-on, 2 unreadable input, 70 internal error.
#[derive(clap::Args)]
pub struct DiffArgs {
    /// The old payload.
    old: String,
    /// The new payload (`-` for stdin).
    new: String,
    #[command(flatten)]
    options: GateOptions,
}

pub fn check(args: CheckArgs) -> Result<u8> {
    let limits = Limits {
        max_bytes: args.options.max_bytes,
    };
    let (candidate, candidate_name) =
        surface_from(args.candidate.as_deref(), &args.server, limits, "candidate")?;
    let mut rules = of_kind(RuleKind::Payload);
    let approved = match &args.approved {
        Some(path) => {
            rules.extend(of_kind(RuleKind::Diff));
            read_surface(path, limits)?
        }
        // With no snapshot the candidate is compared with itself: diff rules would find nothing.
        None => candidate.clone(),
    };
    gate(
        "check",
        args.approved.as_deref(),
        &candidate_name,
        &approved,
        &candidate,
        &rules,
        &args.options,
    )
}

pub fn diff(args: DiffArgs) -> Result<u8> {
    let limits = Limits {
        max_bytes: args.options.max_bytes,
    };
    if args.old == "-" && args.new == "-" {
        bail!("diff - -: stdin can be read once; give at most one of the payloads as `-`");
    }
    let old = read_surface(&args.old, limits)?;
    let new = read_surface(&args.new, limits)?;
    let rules = of_kind(RuleKind::Diff);
    gate(
        "diff",
        Some(&args.old),
        &args.new,
        &old,
        &new,
        &rules,
        &args.options,
    )
}

fn gate(
    command: &str,
    approved_path: Option<&str>,
    candidate_path: &str,
    approved: &Surface,
    candidate: &Surface,
    rules: &[&'static dyn Rule],
    options: &GateOptions,
) -> Result<u8> {
    let policy = match &options.policy {
        Some(path) => {
            let text =
                crate::output::read_text(std::path::Path::new(path), crate::output::MAX_SMALL_FILE)
                    .map_err(|e| anyhow!("policy {e}"))?;
            Policy::parse(&text, path).map_err(|e| anyhow!(e))?
        }
        None => ResolvedPolicy::default(),
    };
    let mut policy = policy;
    policy.fail_on_existing |= options.fail_on_existing;
    // Only `check --approved` has a snapshot whose own defects are pre-existing.
    let baseline = (command == "check" && approved_path.is_some()).then_some(approved);
    let outcome = evaluate(
        rules,
        approved,
        candidate,
        baseline,
        &policy,
        options.fail_on,
    );
    let report = GateReport {
        command,
        approved: approved_path,
        candidate: candidate_path,
        outcome: &outcome,
    };
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let text = match options.format {
        Format::Text => report::text::render(&report, colour),
        Format::Json => report::json::render(&report),
        Format::Junit => report::junit::render(&report),
        Format::Markdown => report::markdown::render(&report),
        Format::Sarif => report::sarif::render(&report),
        Format::Github => report::github::render(&report),
    };
    out!("{text}");
    Ok(match outcome.verdict {
        Verdict::Pass => super::exit::PASS,
        Verdict::Drift => super::exit::DRIFT,
    })
}
