//! `driftlab wrap`: a seeded fault- and drift-injection proxy in front of a stdio MCP server.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};

use driftlab_contract::payload::DEFAULT_MAX_BYTES;
use driftlab_mutate::mutate;
use driftlab_proxy::proxy::wrap::{Fault, WrapHooks, WrapOptions};
use driftlab_proxy::proxy::{self};

/// The seed when none is given: fixed, so a rehearsal replays by default.
pub const DEFAULT_SEED: u64 = 1;

/// Rehearse failures: run CMD as an MCP server behind a proxy that speaks MCP stdio on this
/// process's stdin/stdout, forwards every message byte for byte, and injects seeded faults into
/// chosen responses (--faults, --only, -p) and contract drift into tools/list results (--drift:
/// any mutation class of `driftlab mutations`, applied on the wire).
///
/// Every decision depends only on the seed and the order of the responses (the k-th response to
/// each method has its own random stream), so the same session replayed gives the same bytes.
/// The seed is printed on stderr; --log FILE records every decision as JSON Lines.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    driftlab wrap --faults timeout,corrupt,truncate,malformed -p 0.3 -- npx -y @modelcontextprotocol/server-memory\n  \
    driftlab wrap --drift parameter-renamed --log wrap.jsonl -- node dist/index.js\n  \
    driftlab capture -- driftlab wrap --drift tool-removed -- node dist/index.js")]
pub struct Args {
    /// Faults to inject, comma-separated; each hit picks one of them (drawn).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "LIST")]
    faults: Vec<Fault>,
    /// Mutation classes applied to every tools/list result, in order (see `driftlab mutations`).
    #[arg(long, value_delimiter = ',', value_name = "CLASS[,CLASS…]")]
    drift: Vec<String>,
    /// Methods whose responses may get a fault, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "METHODS",
        default_value = "tools/call"
    )]
    only: Vec<String>,
    /// Probability that a response in scope gets a fault.
    #[arg(
        short = 'p',
        long = "probability",
        value_name = "PROB",
        default_value_t = 1.0
    )]
    probability: f64,
    /// Seed of every decision.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Drift of the k-th tools/list response draws from the stream of study surface N + k
    /// (`driftlab study` with live servers sets it; see METHOD.md of the live drift study);
    /// with --enforce-drift every response draws from surface N's.
    #[arg(long, value_name = "N", default_value_t = 0)]
    drift_index: u64,
    /// Behave as a server that implements the drifted contract, so an old client's calls meet
    /// what they would after an upgrade: every listing shows the drift of stream N, and each
    /// tools/call is handled the way the MCP SDKs do: an unknown tool is refused (-32602),
    /// arguments the drifted schema does not declare are dropped silently, the rest is validated
    /// against the drifted inputSchema (invalid: -32602), and a call that passes runs on the real
    /// server with renamed tools and parameters mapped back. Logged as drifted-server-* decisions;
    /// a call before the first listing passes unchanged (drifted-server-unlisted).
    #[arg(long, requires = "drift")]
    enforce_drift: bool,
    /// Drift only the tool of this name: the drift classes see a listing of it alone (e.g.
    /// --drift parameter-renamed --drift-tool read_text_file renames one of its parameters).
    #[arg(long, value_name = "NAME", requires = "drift")]
    drift_tool: Option<String>,
    /// Delay of the `latency` fault, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    latency_ms: u64,
    /// Write every decision as a JSON line here.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// The longest line either side may send; each direction also holds at most about this
    /// many bytes in flight (a peer that stops reading slows the other down instead).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BYTES)]
    max_bytes: usize,
    /// The server command and its arguments, after `--` (run directly, never through a shell).
    #[arg(last = true, value_name = "CMD", required = true)]
    command: Vec<String>,
}

pub fn run(args: Args) -> Result<u8> {
    if !(0.0..=1.0).contains(&args.probability) {
        bail!(
            "-p {}: expected a probability between 0 and 1",
            args.probability
        );
    }
    let drift = args
        .drift
        .iter()
        .map(|id| {
            let class = mutate::by_id(id).ok_or_else(|| {
                anyhow!("--drift {id}: no such mutation class (see `driftlab mutations`)")
            })?;
            match class.part() {
                "tools" => Ok(class),
                part => bail!("--drift {id}: the class changes the {part}, and wrap drifts tools/list results only (classes of part `tools` in `driftlab mutations`)"),
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let log: Option<Box<dyn Write>> = match &args.log {
        Some(path) => Some(Box::new(BufWriter::new(
            File::create(path)
                .with_context(|| format!("{}: cannot create the log", path.display()))?,
        ))),
        None => None,
    };
    eprintln!(
        "driftlab wrap: seed {} (replay with --seed {})",
        args.seed, args.seed
    );
    let mut hooks = WrapHooks::new(
        WrapOptions {
            faults: args.faults,
            drift,
            only: args.only,
            per_million: (args.probability * 1_000_000.0).round() as u64,
            seed: args.seed,
            drift_index: args.drift_index,
            enforce_drift: args.enforce_drift,
            drift_tool: args.drift_tool,
            latency: Duration::from_millis(args.latency_ms),
        },
        log,
    );
    let upstream = proxy::Upstream::Command(args.command.clone());
    let end =
        proxy::run(&upstream, &mut hooks, args.max_bytes).with_context(|| upstream.label())?;
    if end.server_ended() {
        eprintln!("driftlab wrap: the server ended ({})", end.server);
    }
    if let Some(why) = end.failure {
        bail!("{}: {why}", upstream.label());
    }
    Ok(super::exit::PASS)
}
