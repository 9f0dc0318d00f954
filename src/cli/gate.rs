//! `driftlab check` and `driftlab diff`: the drift gate for real tools/list payloads.

use std::io::IsTerminal;

use anyhow::{anyhow, bail, Result};

use super::anchor::{self, Compared};
use super::live::{scoped, surface_from, Scope, ServerArgs};
use driftlab_check::check::rules::profiles::{ClientProfile, PROFILES};
use driftlab_check::check::rules::{gate_rules, of_kind};
use driftlab_check::check::{Rule, RuleKind};
use driftlab_check::verdict::{evaluate, FailOn, Policy, ResolvedPolicy, Verdict};
use driftlab_contract::payload::input::{read_surface, read_surface_beside};
use driftlab_contract::payload::{Limits, DEFAULT_MAX_BYTES};
use driftlab_contract::surface::Surface;
use driftlab_report::report::{self, Format, GateReport};

/// Options shared by check and diff.
#[derive(clap::Args)]
pub struct GateOptions {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(super) format: Format,
    /// Lowest severity that fails the gate (exit 1). `breaking` also fails on `unknown`.
    #[arg(long, value_enum, default_value_t = FailOn::Breaking)]
    pub(super) fail_on: FailOn,
    /// Policy file (TOML): `[severity]` rule = "info" overrides, `[[accept]]` fingerprint = "…",
    /// `fail_on_existing = true`.
    #[arg(long, value_name = "FILE")]
    pub(super) policy: Option<String>,
    /// Largest payload accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BYTES)]
    pub(super) max_bytes: usize,
    /// What is compared: `all` (tools, and the prompts, resources, resource templates,
    /// instructions and capabilities both files record; a live server is captured whole) or
    /// `tools` only.
    #[arg(long, value_enum, default_value_t = Scope::All)]
    pub(super) scope: Scope,
    /// Also judge what a client rejects beyond the specification (repeatable): `spec` (the MCP
    /// name rule), `strict-64` (names of at most 64 characters), `copilot` (no `.` in names, at
    /// most 64 characters), `gemini` (no $ref, $defs or additionalProperties in inputSchema).
    /// `check` reports tools the client rejects (warning) and, with --approved, tools it accepted
    /// and rejects now (breaking, the profile named); `diff` the latter.
    #[arg(long = "profile", value_name = "NAME", value_parser = profile_names())]
    pub(super) profiles: Vec<String>,
    /// With `check --approved`: findings the approved snapshot already had (reported as
    /// pre-existing) fail the gate too. Also a policy key: `fail_on_existing = true`.
    #[arg(long)]
    pub(super) fail_on_existing: bool,
    /// The repository file SARIF results and `--format github` annotations point at, each on
    /// the line of its finding. Default: the candidate file; for a live server, the approved
    /// snapshot (for `--approved REV:PATH`, PATH in the working tree). It must be inside the
    /// repository (`GITHUB_WORKSPACE`, else the enclosing git work tree, else this folder).
    #[arg(long, alias = "sarif-anchor", value_name = "FILE")]
    pub(super) anchor: Option<String>,
    /// Names this gate's SARIF alert set: `automationDetails.id` is `driftlab/NAME/`, so two
    /// servers gated in one workflow stay two sets. Default: the anchor file's path.
    #[arg(long, value_name = "NAME")]
    pub(super) category: Option<String>,
    /// Also write the SARIF report to FILE (atomically), whatever --format prints: one run gives
    /// log annotations (`--format github`) and a file for code scanning.
    #[arg(long, value_name = "FILE")]
    pub(super) sarif: Option<std::path::PathBuf>,
    /// Do not append the Markdown report to the file `GITHUB_STEP_SUMMARY` names (by default it
    /// is appended whenever that variable is set, bounded to 1 MiB).
    #[arg(long)]
    pub(super) no_step_summary: bool,
}

/// Check a candidate tools/list payload: the payload rules and, with --approved, every diff rule.
#[derive(clap::Args)]
#[command(long_about = check_about(), after_help = "Examples:\n  \
    driftlab check --approved approved.json candidate.json\n  \
    driftlab check --approved approved.json --format sarif -- npx -y @modelcontextprotocol/server-memory")]
pub struct CheckArgs {
    /// The approved snapshot (see `driftlab snapshot`), a file or `REV:PATH` read from git (e.g.
    /// `origin/main:mcp/approved.json`). Without it only payload rules run.
    #[arg(long, value_name = "FILE")]
    approved: Option<String>,
    /// Gate every server of a client config against its entry in this lockfile (see `driftlab
    /// lock`): one verdict per server (PASS, DRIFT, UNLOCKED, REMOVED, SKIPPED) and one exit
    /// code; SARIF has a run per server and lands in the lockfile.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["approved", "candidate", "url", "command"])]
    pub(super) lock: Option<std::path::PathBuf>,
    /// With --lock: the client config (default: the one the lockfile names).
    #[arg(long, value_name = "FILE", requires = "lock")]
    pub(super) config: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub(super) select: super::servers::ConfigArgs,
    /// The candidate payload (`-` for stdin); or give a live server after `--`.
    candidate: Option<String>,
    #[command(flatten)]
    pub(super) options: GateOptions,
    #[command(flatten)]
    pub(super) server: ServerArgs,
}

/// `check --help`: the payload rules named from the registry, so the list cannot go stale.
fn check_about() -> String {
    let payload: Vec<&str> = of_kind(RuleKind::Payload).iter().map(|r| r.id()).collect();
    format!(
        "Check a candidate tools/list payload: the payload rules ({}) and, with --approved, \
         every diff rule (`driftlab rules` lists them all).\n\n\
         PAYLOAD may be a tools/list result {{\"tools\":[…]}}, a JSON-RPC response, a bare array \
         of tools, an array of result pages, or a capture file with a `toolsList` field; `-` \
         reads stdin. Instead of PAYLOAD, a live server after `--` (or --url) is captured and \
         gated in one step (see `driftlab capture --help` for the live-server options); \
         --lock gates every server of a client config against its lockfile entry.\n\n\
         Exit codes: 0 pass, 1 drift at or above --fail-on, 2 unreadable input, 70 internal \
         error.",
        payload.join(", ")
    )
}

/// Compare two payloads (e.g. two releases) with the diff rules only.
///
/// Exit codes: 0 pass, 1 drift at or above --fail-on, 2 unreadable input, 70 internal error.
#[derive(clap::Args)]
pub struct DiffArgs {
    /// The old payload (a file, `REV:PATH` read from git, or `-` for stdin).
    old: String,
    /// The new payload (`-` for stdin).
    new: String,
    #[command(flatten)]
    options: GateOptions,
}

/// `check` of payloads or one live server (`check --lock` is [`super::check_lock`]).
pub fn check(args: CheckArgs) -> Result<u8> {
    let select = &args.select;
    if !select.servers.is_empty()
        || select.client.is_some()
        || select.yes
        || select.workspace.is_some()
    {
        bail!("--server, --client, --yes and --workspace choose servers of a client config: give --lock FILE");
    }
    let limits = Limits {
        max_bytes: args.options.max_bytes,
    };
    // The snapshot first: the candidate's unchanged tools then share what it parsed.
    let snapshot = match &args.approved {
        Some(path) => Some(scoped(read_surface(path, limits)?, args.options.scope)),
        None => None,
    };
    let (candidate, candidate_name) = surface_from(
        args.candidate.as_deref(),
        &args.server,
        limits,
        "candidate",
        args.options.scope,
        snapshot.as_ref(),
    )?;
    let rules = gate_rules(profiles(&args.options), args.approved.is_some());
    // With no snapshot the candidate is compared with itself: diff rules would find nothing.
    let approved = snapshot.as_ref().unwrap_or(&candidate);
    let compared = Compared {
        approved: args.approved.as_deref(),
        candidate: args.candidate.as_deref(),
    };
    gate(
        "check",
        &compared,
        &candidate_name,
        approved,
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
    let old = scoped(read_surface(&args.old, limits)?, args.options.scope);
    let new = read_surface_beside(&args.new, limits, Some(&old))?;
    let new = scoped(new, args.options.scope);
    let mut rules = of_kind(RuleKind::Diff);
    rules.extend(profiles(&args.options).map(|p| p.rule(true)));
    let compared = Compared {
        approved: Some(&args.old),
        candidate: Some(&args.new),
    };
    gate(
        "diff",
        &compared,
        &args.new,
        &old,
        &new,
        &rules,
        &args.options,
    )
}

/// The `--profile` names clap accepts.
fn profile_names() -> clap::builder::PossibleValuesParser {
    PROFILES.iter().map(|p| p.name).collect::<Vec<_>>().into()
}

/// The client profiles `--profile` chose, each once, in [`PROFILES`] order.
pub(super) fn profiles(options: &GateOptions) -> impl Iterator<Item = &'static ClientProfile> + '_ {
    PROFILES
        .iter()
        .filter(|p| options.profiles.iter().any(|name| name == p.name))
}

fn gate(
    command: &str,
    compared: &Compared<'_>,
    candidate_path: &str,
    approved: &Surface,
    candidate: &Surface,
    rules: &[&'static dyn Rule],
    options: &GateOptions,
) -> Result<u8> {
    let policy = policy(options)?;
    let approved_path = compared.approved;
    // Only `check --approved` has a snapshot whose own defects are pre-existing.
    let baseline = (command == "check" && approved_path.is_some()).then_some(approved);
    if options.fail_on_existing && baseline.is_none() {
        bail!("--fail-on-existing: only `check --approved` has pre-existing findings (those the approved snapshot already had)");
    }
    let outcome = evaluate(
        rules,
        approved,
        candidate,
        baseline,
        &policy,
        options.fail_on,
    );
    let limits = Limits {
        max_bytes: options.max_bytes,
    };
    let sarif_wanted = options.format == Format::Sarif || options.sarif.is_some();
    let anchor = match sarif_wanted || options.format.places_findings() {
        true => anchor::resolve(options.anchor.as_deref(), compared, &outcome, limits)?,
        false => None,
    };
    if sarif_wanted && anchor.is_none() {
        bail!(
            "SARIF: code scanning shows results only in files of the repository, and the \
             candidate is {candidate_path}: give --approved FILE or --anchor FILE"
        );
    }
    let category = options
        .category
        .clone()
        .or_else(|| anchor.as_ref().map(|a| a.uri.clone()));
    let report = GateReport {
        command,
        approved: approved_path,
        candidate: candidate_path,
        outcome: &outcome,
        anchor: anchor.as_ref(),
        category: category.as_deref(),
    };
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let text = options.format.gate(&report, colour);
    if let Some(path) = &options.sarif {
        driftlab_contract::fs::write_atomic(path, report::sarif::render(&report).as_bytes())
            .map_err(|e| anyhow!("--sarif {}: cannot write: {e}", path.display()))?;
    }
    out!("{text}");
    if !options.no_step_summary {
        append_step_summary(&report);
    }
    set_step_outputs(&outcome);
    Ok(match outcome.verdict {
        Verdict::Pass => super::exit::PASS,
        Verdict::Drift => super::exit::DRIFT,
    })
}

/// The `--policy` file, with `--fail-on-existing` applied.
pub(super) fn policy(options: &GateOptions) -> Result<ResolvedPolicy> {
    let mut policy = match &options.policy {
        Some(path) => {
            let text = driftlab_contract::fs::read_text(
                std::path::Path::new(path),
                driftlab_contract::fs::MAX_SMALL_FILE,
            )
            .map_err(|e| anyhow!("policy {e}"))?;
            Policy::parse(&text, path)?
        }
        None => ResolvedPolicy::default(),
    };
    policy.fail_on_existing |= options.fail_on_existing;
    Ok(policy)
}

/// Appends `verdict`, `breaking` and `findings` to `GITHUB_OUTPUT` when set, so a workflow can
/// branch on them (the Action's outputs).
fn set_step_outputs(outcome: &driftlab_check::verdict::Outcome) {
    set_step_output_lines(outcome.verdict, std::slice::from_ref(outcome));
}

/// [`set_step_outputs`] for several gates at once (`check --lock`): the overall verdict and the
/// findings of all.
pub(super) fn set_step_output_lines(
    verdict: Verdict,
    outcomes: &[driftlab_check::verdict::Outcome],
) {
    let findings = outcomes.iter().flat_map(|o| &o.findings);
    let breaking = findings
        .clone()
        .filter(|f| f.severity == driftlab_check::check::Severity::Breaking)
        .count();
    let lines = format!(
        "verdict={}\nbreaking={breaking}\nfindings={}\n",
        verdict.as_str(),
        findings.count()
    );
    append_to_env_file("GITHUB_OUTPUT", &lines);
}

/// Appends `text` to the file the environment variable `name` names, if set; a file that cannot
/// be written is reported and does not change the verdict.
pub(super) fn append_to_env_file(name: &str, text: &str) {
    use std::io::Write;
    let Some(path) = std::env::var_os(name).filter(|p| !p.is_empty()) else {
        return;
    };
    let written = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&path)
        .and_then(|mut f| f.write_all(text.as_bytes()));
    if let Err(e) = written {
        eprintln!(
            "driftlab: warning: {name} {}: cannot append: {e}",
            std::path::Path::new(&path).display()
        );
    }
}

/// Appends the Markdown report to `GITHUB_STEP_SUMMARY` when set, so a pull request from a fork
/// (which cannot upload SARIF) still shows the findings. A summary that cannot be written is
/// reported and does not change the verdict.
fn append_step_summary(report: &GateReport<'_>) {
    if std::env::var_os("GITHUB_STEP_SUMMARY").is_some() {
        let text = report::markdown::render_within(report, report::markdown::STEP_SUMMARY_BYTES);
        append_to_env_file("GITHUB_STEP_SUMMARY", &format!("{text}\n"));
    }
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;

    /// The `--format` row of docs/gate.md lists exactly the formats clap accepts, in order.
    #[test]
    fn the_docs_name_every_gate_format() {
        let readme = include_str!("../../docs/gate.md");
        let names: Vec<String> = driftlab_report::report::Format::value_variants()
            .iter()
            .filter_map(|f| f.to_possible_value())
            .map(|v| v.get_name().to_string())
            .collect();
        let row = format!("| `--format {}` |", names.join("\\|"));
        assert!(readme.contains(&row), "docs/gate.md lacks the row {row}");
    }
}
