//! `driftlab snapshot`: record an approved surface from a payload.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use super::live::{surface_from, Scope, ServerArgs};
use driftlab_check::check::rules::of_kind;
use driftlab_check::check::{run_rules, RuleKind};
use driftlab_contract::payload::{Limits, DEFAULT_MAX_BYTES};

/// Record an approved snapshot: the payload's tools as a tools/list result {"tools":[…]}, tool
/// and field order kept, so it can be committed and used with `driftlab check --approved`.
/// When the payload is a capture (or a live server), the rest of the contract it recorded sits
/// beside the tools: `serverInfo`, `capabilities`, `instructions`, `prompts`, `resources` and
/// `resourceTemplates` (`--scope tools` leaves them out).
///
/// PAYLOAD may be a tools/list result, a JSON-RPC response, a bare array of tools, an array of
/// result pages, or a capture file with `toolsList`; `-` reads stdin. Instead of PAYLOAD, a live
/// server after `--` (or --url) is captured and recorded in one step.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    driftlab snapshot -o approved.json candidate.json\n  \
    driftlab snapshot -o approved.json -- npx -y @modelcontextprotocol/server-memory")]
pub struct Args {
    /// The payload to record (`-` for stdin); or give a live server after `--`.
    payload: Option<String>,
    /// Where to write the snapshot (atomically). Default: stdout.
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Largest payload accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BYTES)]
    max_bytes: usize,
    /// What is recorded: `all` (tools and whatever else of the contract the payload recorded;
    /// a live server is captured whole) or `tools` only.
    #[arg(long, value_enum, default_value_t = Scope::All)]
    scope: Scope,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run(args: Args) -> Result<u8> {
    let limits = Limits {
        max_bytes: args.max_bytes,
    };
    let (surface, _) = surface_from(
        args.payload.as_deref(),
        &args.server,
        limits,
        "payload",
        args.scope,
        None,
    )?;
    let value = surface.to_snapshot_value();
    let mut bytes = serde_json::to_vec_pretty(&value)?;
    bytes.push(b'\n');
    match &args.out {
        Some(path) => {
            driftlab_contract::fs::write_atomic(path, &bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!(
                "driftlab: recorded {} in {}",
                recorded(&surface),
                path.display()
            );
        }
        None => std::io::stdout().write_all(&bytes)?,
    }
    // Recording is not judging, but a snapshot with payload problems deserves a word.
    let problems = run_rules(&of_kind(RuleKind::Payload), &surface, &surface);
    if !problems.is_empty() {
        eprintln!(
            "driftlab: note: the snapshot has {} payload finding(s), e.g. {}: {}; see `driftlab check`",
            problems.len(),
            problems[0].rule,
            problems[0].message
        );
    }
    Ok(super::exit::PASS)
}

/// `12 tools`, or `12 tools, 4 prompts, 7 resources, 2 resource templates, instructions and
/// capabilities`; a list the payload did not record is named as such.
fn recorded(surface: &driftlab_contract::surface::Surface) -> String {
    use driftlab_contract::surface::contract::ListKind;
    let mut parts = vec![format!("{} tools", surface.len())];
    let Some(contract) = surface.contract() else {
        return parts.remove(0);
    };
    for kind in ListKind::ALL {
        parts.push(match contract.list(kind) {
            Some(items) if items.len() == 1 => format!("1 {}", kind.noun()),
            Some(items) => format!("{} {}", items.len(), kind.plural()),
            None => format!("no {} (not captured)", kind.plural()),
        });
    }
    if contract.announced.is_some() {
        parts.push("instructions and capabilities".into());
    }
    parts.join(", ")
}
