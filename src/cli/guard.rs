//! `driftlab guard`: an admission guard on the pinned contract, in front of a stdio server.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use driftlab_contract::payload::input::read_surface;
use driftlab_contract::payload::{Limits, DEFAULT_MAX_BYTES};
use driftlab_proxy::guard::{
    Guard, GuardOptions, OnAuditFailure, OnDrift, OnOutput, Scope, ServerWords,
};
use driftlab_proxy::proxy;

/// Guard an agent at run time: run CMD as an MCP server (or reach one at --url) behind a proxy
/// that holds it to the approved (pinned) contract.
///
/// The client always sees the pinned tools/list. The guard lists the server's tools itself
/// after initialization and on every notifications/tools/list_changed, and diffs them against
/// the pin with the gate's engine. Every tools/call must name a pinned tool the server still
/// offers, use only known argument names (even where the schema allows others: that is how a
/// renamed parameter is silently dropped), and be valid for the pinned and the live inputSchema;
/// otherwise the client gets an `isError: true` result with a correction the model can act on
/// and the server never sees the call. A refusal names only what was approved (pinned names and
/// values): what the live server changed is said by kind (`"query": parameter-renamed (…)`),
/// never in the server's words, unless --quote-server-words. More than --max-retries refusals
/// for a tool within --window-secs open its circuit.
/// Answers are checked against the pinned outputSchema.
///
/// With --url the client still speaks stdio to the guard, and the guard speaks Streamable HTTP
/// (either protocol era) to the server, with the same admission, refusals and audit.
#[derive(clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "Examples:\n  \
    driftlab guard --approved approved.json -- npx -y @modelcontextprotocol/server-memory\n  \
    driftlab guard --approved approved.json --on-drift warn --audit guard.jsonl -- node dist/index.js\n  \
    driftlab guard --lock mcp.lock --server memory -- npx -y @modelcontextprotocol/server-memory\n  \
    driftlab guard --approved approved.json --url https://example.com/mcp --header 'Authorization: Bearer ${TOKEN}'\n  \
    driftlab guard install --config ~/.cursor/mcp.json --lock mcp.lock"
)]
pub struct Args {
    #[command(subcommand)]
    action: Option<super::guard_install::Action>,
    /// The pinned contract: an approved snapshot or any payload or capture.
    #[arg(long, value_name = "FILE", required_unless_present = "lock")]
    approved: Option<String>,
    /// Pin the contract a lockfile recorded for --server (see `driftlab lock`) instead.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "approved",
        requires = "server"
    )]
    lock: Option<std::path::PathBuf>,
    /// With --lock: the server whose entry is the pin.
    #[arg(long, value_name = "NAME", requires = "lock")]
    server: Option<String>,
    /// What breaking drift between the pin and the live server does.
    #[arg(long, value_enum, default_value_t = OnDrift::Refuse)]
    on_drift: OnDrift,
    /// `trust`: with --on-drift refuse, also refuse a tool whose change lowers a trusting
    /// client's guard (an annotation that stops a host asking, hidden characters, an
    /// instruction, URL or tool reference added, an unknown key, a new x-mcp-header, a remote
    /// $ref; docs/rules.md, "The trust profile"), naming only the kinds of change. Otherwise
    /// breaking drift alone is refused.
    #[arg(long, value_enum, default_value_t = driftlab_check::check::FailOn::Breaking)]
    fail_on: driftlab_check::check::FailOn,
    /// With --on-drift refuse: refuse only the drifted tools, or every tool of the server.
    #[arg(long, value_enum, default_value_t = Scope::Tool)]
    refuse_scope: Scope,
    /// Refusals allowed per tool within the window before its circuit opens.
    #[arg(long, value_name = "N", default_value_t = 3)]
    max_retries: u32,
    /// The window of --max-retries, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    window_secs: u64,
    /// What an answer that breaks the pinned outputSchema becomes.
    #[arg(long, value_enum, default_value_t = OnOutput::Warn)]
    on_output: OnOutput,
    /// Let refusals quote what the live server says (its new names, values, messages), each
    /// quote stripped of control, bidirectional and invisible characters and capped at 200
    /// characters. Without it a refusal says what changed by kind only: a refusal is the one
    /// place a pinned server's unapproved words would reach the model.
    #[arg(long)]
    quote_server_words: bool,
    /// `renames`: a call in the approved form to a tool or a parameter the server renamed is
    /// sent in the server's new names, where the rename is proven (the live input schema is the
    /// pinned one with those names changed, nothing else), and recorded in the audit log
    /// (`translate`); the agent, which sees only the pinned tools, gets its answer as if nothing
    /// moved. Any other drift is decided as without it.
    #[arg(long, value_enum, value_name = "WHAT")]
    translate: Option<Translate>,
    /// Write every decision as a JSON line here.
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
    /// How long the guard waits for the server to answer each page of its own tools/list;
    /// calls wait for that listing and are refused when it fails or times out.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    list_timeout: f64,
    /// What happens when the audit log cannot be written (a full disk): refuse every call from
    /// then on, or say so on stderr and keep deciding.
    #[arg(long, value_enum, default_value_t = OnAuditFailure::Refuse)]
    on_audit_failure: OnAuditFailure,
    /// The longest line either side may send; each direction also holds at most about this
    /// many bytes in flight (a peer that stops reading slows the other down instead).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BYTES)]
    max_bytes: usize,
    /// Reach the server at this Streamable HTTP endpoint instead of running a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// A header sent with every request to --url, as `Name: value` (repeatable). It is sent as
    /// given: `guard install` writes a config's own variable references here, which the client
    /// expands when it starts the guard.
    #[arg(long = "header", value_name = "NAME:VALUE", requires = "url")]
    headers: Vec<String>,
    /// With --url: seconds each HTTP exchange (a tools/call and its answer) may take.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 300.0,
        requires = "url"
    )]
    http_timeout: f64,
    /// The server command and its arguments, after `--` (run directly, never through a shell).
    #[arg(last = true, value_name = "CMD", required_unless_present = "url")]
    command: Vec<String>,
}

/// What `--translate` sends in the server's new form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Translate {
    /// Proven renames of a tool or of its parameters.
    Renames,
}

pub fn run(args: Args) -> Result<u8> {
    if let Some(action) = args.action {
        return super::guard_install::run(action);
    }
    let (pinned, pin_name) = match (&args.approved, &args.lock, &args.server) {
        (Some(path), _, _) => (
            read_surface(
                path,
                Limits {
                    max_bytes: DEFAULT_MAX_BYTES,
                },
            )?,
            path.clone(),
        ),
        (None, Some(lock), Some(server)) => locked_pin(lock, server)?,
        _ => bail!("give --approved FILE, or --lock FILE --server NAME"),
    };
    if pinned.is_empty() {
        bail!("{pin_name}: the pinned contract has no tools");
    }
    let audit: Option<Box<dyn Write>> = match &args.audit {
        Some(path) => Some(Box::new(BufWriter::new(File::create(path).with_context(
            || format!("{}: cannot create the audit log", path.display()),
        )?))),
        None => None,
    };
    let options = GuardOptions {
        on_drift: args.on_drift,
        scope: args.refuse_scope,
        max_retries: args.max_retries,
        window: Duration::from_secs(args.window_secs),
        on_output: args.on_output,
        on_audit_failure: args.on_audit_failure,
        fail_on: args.fail_on,
        server_words: match args.quote_server_words {
            true => ServerWords::Quoted,
            false => ServerWords::Kinds,
        },
        translate_renames: args.translate == Some(Translate::Renames),
        list_timeout: Duration::try_from_secs_f64(args.list_timeout)
            .ok()
            .filter(|d| !d.is_zero())
            .with_context(|| {
                format!(
                    "--list-timeout {}: expected a positive number of seconds",
                    args.list_timeout
                )
            })?,
    };
    let mut guard = Guard::new(pinned, options, audit);
    // A schema that does not compile would validate nothing: refuse to start on it.
    if let Some((tool, why)) = guard.broken_pins().first() {
        // Debug formatting escapes what a server put in the name.
        bail!("{pin_name}: the pinned tool {tool:?}: {why}");
    }
    let upstream = match &args.url {
        Some(url) => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                bail!(
                    "--url {}: expected an http:// or https:// URL",
                    driftlab_live::live::redact::shown_url(url)
                );
            }
            proxy::Upstream::Http(proxy::http_upstream::HttpUpstream {
                url: url.clone(),
                headers: args
                    .headers
                    .iter()
                    .map(|h| super::live::parse_header(h))
                    .collect::<Result<_>>()?,
                timeout: super::live::timeout(args.http_timeout).map_err(|_| {
                    anyhow::anyhow!(
                        "--http-timeout {}: expected seconds above 0 and at most 86400",
                        args.http_timeout
                    )
                })?,
            })
        }
        None => proxy::Upstream::Command(args.command.clone()),
    };
    let end =
        proxy::run(&upstream, &mut guard, args.max_bytes).with_context(|| upstream.label())?;
    if end.server_ended() {
        eprintln!("driftlab guard: the server ended ({})", end.server);
    }
    if let Some(why) = end.failure {
        bail!("{}: {why}", upstream.label());
    }
    if let Some(why) = guard.audit_failure() {
        bail!("the audit log could not be written: {why}");
    }
    Ok(super::exit::PASS)
}

/// The contract `lock` recorded for `server`, and a name for it in messages.
fn locked_pin(
    lock: &std::path::Path,
    server: &str,
) -> Result<(driftlab_contract::surface::Surface, String)> {
    let (lock_file, _) = driftlab_lock::lock::Lockfile::read(lock)?;
    let name = format!("{} [{server}]", lock.display());
    let entry = lock_file.server(server).ok_or_else(|| {
        anyhow::anyhow!("{}: no server {server:?} in the lockfile", lock.display())
    })?;
    match entry.surface(&lock.display().to_string()) {
        Ok(Some(surface)) => Ok((surface, name)),
        Ok(None) => bail!(
            "{name}: the lockfile has no contract for it ({}): nothing to pin",
            entry.skipped.as_deref().unwrap_or("skipped")
        ),
        Err(e) => bail!(e),
    }
}
