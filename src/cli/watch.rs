//! `driftlab watch`: remote MCP servers followed over time, each change judged by direction.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};

use driftlab_check::check::rules::sets;
use driftlab_check::check::{Rule, RuleKind};
use driftlab_record::provenance::{self, Inputs, Provenance};
use driftlab_study::watch::record::{Record, Seen};
use driftlab_study::watch::{history, import, poll, report, time, verify};

/// Follow MCP servers over time: each poll appends what every endpoint serves to a record of
/// plain files (a git repository can hold it), judging each change of contract by direction on
/// the spot; flaps, byte-only changes and servers that serve the same contracts are told apart
/// in the report. Record format, spec format and scheduling: docs/watch.md.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: WatchCommand,
}

#[derive(clap::Subcommand)]
enum WatchCommand {
    Poll(PollArgs),
    Import(ImportArgs),
    Report(ReportArgs),
    Verify(VerifyArgs),
}

/// Poll every endpoint of a watch spec once (for a scheduler: cron, a GitHub Actions
/// `schedule:`, a Kubernetes CronJob) and append one line per endpoint to its log in the
/// record: the contract's digest, and when it differs from the last one seen, the change
/// judged (kind, every finding, witnesses). A failed endpoint (401, timeout, TLS, a server that
/// answers garbage) is a line with its reason, never a change and never a crash.
///
/// Exit codes: 0 polled (whatever the servers did), 2 an unreadable spec or record.
#[derive(clap::Args)]
#[command(after_help = "Example:\n  \
    driftlab watch poll watch.toml --record watch-record\n  \
    driftlab watch poll watch.toml --record watch-record --shard auto")]
struct PollArgs {
    /// The watch spec (TOML: one [[server]] per endpoint, with `url` and `headers`, or
    /// `command`).
    spec: PathBuf,
    /// The record folder (made on the first poll, pinned to the newest rule set).
    #[arg(long, value_name = "DIR")]
    record: PathBuf,
    /// The time this poll is recorded at (RFC 3339) [default: now]: for replays and tests.
    #[arg(long, value_name = "TIME")]
    now: Option<String>,
    /// Poll only shard K of N (1-based): servers ⌊(K−1)·S/N⌋ to ⌊K·S/N⌋−1 of the spec's S. `auto`
    /// reads K and N from the batch system (DRIFTLAB_SHARD_INDEX/_COUNT, JOB_COMPLETION_INDEX,
    /// SLURM_ARRAY_TASK_ID/_COUNT). Each server has its own log, so shards never write the
    /// same file.
    #[arg(long, value_name = "K/N", value_parser = super::shard::parse)]
    shard: Option<super::shard::ShardChoice>,
}

/// Read another watcher's history into a new record, judging every recorded change:
/// `--from mcp-drift` reads a clone of algomaster99/mcp-drift (its git history of
/// `snapshots/tools/<server>.json`, one observation per commit, at the commit's time).
#[derive(clap::Args)]
#[command(after_help = "Example:\n  \
    git clone https://github.com/algomaster99/mcp-drift\n  \
    driftlab watch import --from mcp-drift mcp-drift --record mcp-drift-record")]
struct ImportArgs {
    /// The layout of the history to read.
    #[arg(long, value_enum)]
    from: ImportLayout,
    /// The watcher's git repository (a clone).
    repo: PathBuf,
    /// The record to make (it must have no log for the imported servers).
    #[arg(long, value_name = "DIR")]
    record: PathBuf,
    /// The rule set a new record is pinned to [default: the newest this build knows]; an
    /// existing record keeps its own.
    #[arg(long, value_name = "SET")]
    rule_set: Option<String>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ImportLayout {
    /// algomaster99/mcp-drift: snapshots/tools/<server>.json in git history
    McpDrift,
}

/// Derive a record's report: summary.json (the headline "X of Y observed changes break a
/// caller"), changes.csv, events.csv, report.md, the watch-timeline and watch-kinds figures
/// (screen and print) and manifest.json, from the record alone.
#[derive(clap::Args)]
#[command(after_help = "Example:\n  \
    driftlab watch report watch-record --out watch-report --window 7d")]
struct ReportArgs {
    /// The record folder.
    record: PathBuf,
    /// Where to write the report [default: RECORD/report].
    #[arg(long, short, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Changes back to an earlier contract within this span of the last step fold into one
    /// flap event (`7d`, `36h`, `90m`).
    #[arg(long, value_name = "SPAN", default_value = "7d")]
    window: String,
    /// The report's title.
    #[arg(long, default_value = "Watched MCP servers")]
    title: String,
    /// Write nothing: exit 1 when a file in OUT differs from what the record derives.
    #[arg(long)]
    check: bool,
}

/// Re-derive a record offline: every contract must hash to its name and every log line must be
/// what judging the stored contracts again gives, byte for byte.
///
/// Exit codes: 0 it re-derives, 1 some line or contract does not, 2 unreadable.
#[derive(clap::Args)]
struct VerifyArgs {
    /// The record folder.
    record: PathBuf,
}

pub fn run(args: Args) -> Result<u8> {
    match args.command {
        WatchCommand::Poll(args) => run_poll(args),
        WatchCommand::Import(args) => run_import(args),
        WatchCommand::Report(args) => run_report(args),
        WatchCommand::Verify(args) => run_verify(args),
    }
}

/// The diff rules of the record's pinned set.
fn rules_of(record: &Record) -> Result<Vec<&'static dyn Rule>> {
    let set = record.header().map_err(|e| anyhow!(e))?.rule_set;
    sets::of_kind_as_of(RuleKind::Diff, &set).ok_or_else(|| {
        anyhow!("the record is pinned to rule set {set:?}, which this build does not know (`driftlab rules`)")
    })
}

fn run_poll(args: PollArgs) -> Result<u8> {
    let path = args.spec.display().to_string();
    let text = std::fs::read_to_string(&args.spec).map_err(|e| anyhow!("{path}: {e}"))?;
    let spec = poll::WatchSpec::parse(&text, &path).map_err(|e| anyhow!(e))?;
    let now = match args.now {
        Some(at) => {
            let seconds = time::unix_seconds(&at)
                .ok_or_else(|| anyhow!("--now {at}: expected an RFC 3339 time"))?;
            driftlab_contract::text::rfc3339(seconds)
        }
        None => driftlab_contract::text::now_rfc3339(),
    };
    let shard = match args.shard {
        Some(choice) => choice.resolve().map_err(|e| anyhow!(e))?,
        None => (1, 1),
    };
    let record = Record::open_or_create(&args.record, sets::latest()).map_err(|e| anyhow!(e))?;
    let rules = rules_of(&record)?;
    let env = |name: &str| std::env::var(name).ok();
    let polled = poll::poll(&spec, &record, &rules, &now, shard, &env).map_err(|e| anyhow!(e))?;
    for p in &polled {
        eprintln!(
            "driftlab watch: {}: {}",
            p.server,
            said(&p.observation.seen)
        );
    }
    eprintln!(
        "driftlab watch: polled {} of {} servers at {now} -> {}",
        polled.len(),
        spec.servers.len(),
        args.record.display()
    );
    Ok(super::exit::PASS)
}

/// One poll in a few words.
fn said(seen: &Seen) -> String {
    match seen {
        Seen::Failed { failed, reason } => format!("failed ({failed}): {reason}"),
        Seen::Contract {
            change: Some(change),
            ..
        } => format!(
            "changed: {} ({} findings)",
            change.kind,
            change.findings.len()
        ),
        Seen::Contract { .. } => "unchanged (or first seen)".to_string(),
    }
}

fn run_import(args: ImportArgs) -> Result<u8> {
    let ImportLayout::McpDrift = args.from;
    let set = args.rule_set.as_deref().unwrap_or(sets::latest());
    if sets::of_kind_as_of(RuleKind::Diff, set).is_none() {
        return Err(anyhow!(
            "--rule-set {set}: not a rule set this build knows (`driftlab rules`)"
        ));
    }
    let record = Record::open_or_create(&args.record, set).map_err(|e| anyhow!(e))?;
    let rules = rules_of(&record)?;
    let imported = import::import_mcp_drift(&args.repo, &record, &rules).map_err(|e| anyhow!(e))?;
    for skipped in &imported.skipped {
        eprintln!("driftlab watch import: skipped {skipped}");
    }
    eprintln!(
        "driftlab watch import: {} observations from {} commits -> {}",
        imported.observations,
        imported.commits,
        args.record.display()
    );
    Ok(super::exit::PASS)
}

fn run_report(args: ReportArgs) -> Result<u8> {
    let window = time::span_seconds(&args.window).ok_or_else(|| {
        anyhow!(
            "--window {}: expected a span such as 7d, 36h or 90m",
            args.window
        )
    })?;
    let record = Record::open(&args.record).map_err(|e| anyhow!(e))?;
    let rule_set = record.header().map_err(|e| anyhow!(e))?.rule_set;
    let history = history::read(&record, window).map_err(|e| anyhow!(e))?;
    let mut files = report::render(&history, &args.title, &rule_set).map_err(|e| anyhow!(e))?;
    let out = args.out.unwrap_or_else(|| args.record.join("report"));
    let command = format!(
        "driftlab watch report {} --out {} --window {} --title {:?}",
        args.record.display(),
        out.display(),
        args.window,
        args.title
    );
    // The record is the report's one input; nothing runs.
    let inputs = Inputs::of_folder(&args.record, None, Some(&out))
        .map_err(|e| anyhow!("{}: cannot read the record: {e}", args.record.display()))?;
    let provenance = Provenance::of(inputs, &[]);
    files.push(provenance::folder_manifest(&command, &provenance, &files));
    if args.check {
        return check_folder(&out, &files);
    }
    std::fs::create_dir_all(&out).map_err(|e| anyhow!("{}: {e}", out.display()))?;
    driftlab_contract::fs::write_files_atomic(&out, files)
        .map_err(|(path, e)| anyhow!("{}: {e}", path.display()))?;
    println!("{}", report::headline(&history));
    eprintln!("driftlab watch report: -> {}", out.display());
    Ok(super::exit::PASS)
}

fn check_folder(out: &Path, files: &[(String, Vec<u8>)]) -> Result<u8> {
    let stale: Vec<&str> = files
        .iter()
        .filter(|(name, bytes)| match std::fs::read(out.join(name)) {
            // The manifest names the code that wrote it, which a later commit changes.
            Ok(old) if name == provenance::MANIFEST => !provenance::same_but_code(&old, bytes),
            Ok(old) => old != *bytes,
            Err(_) => true,
        })
        .map(|(name, _)| name.as_str())
        .collect();
    if stale.is_empty() {
        eprintln!("driftlab watch report: {} is up to date", out.display());
        return Ok(super::exit::PASS);
    }
    eprintln!(
        "driftlab watch report: {} differs from what the record derives: {}",
        out.display(),
        stale.join(", ")
    );
    Ok(super::exit::DRIFT)
}

fn run_verify(args: VerifyArgs) -> Result<u8> {
    let record = Record::open(&args.record).map_err(|e| anyhow!(e))?;
    let rules = rules_of(&record)?;
    let verified = verify::verify(&record, &rules).map_err(|e| anyhow!(e))?;
    for problem in &verified.problems {
        eprintln!(
            "driftlab watch verify: {}: {problem}",
            args.record.display()
        );
    }
    if !verified.problems.is_empty() {
        eprintln!(
            "driftlab watch verify: {}: {} of {} lines do not re-derive",
            args.record.display(),
            verified.problems.len(),
            verified.lines
        );
        return Ok(super::exit::DRIFT);
    }
    eprintln!(
        "driftlab watch verify: {}: {} lines, {} changes re-judged, all as recorded",
        args.record.display(),
        verified.lines,
        verified.changes
    );
    Ok(super::exit::PASS)
}
