//! `driftlab digest`: the canonical contract digests of a payload, capture or snapshot.

use anyhow::Result;

use driftlab_contract::digest::ContractDigests;
use driftlab_contract::payload::input::read_surface;
use driftlab_contract::payload::{Limits, DEFAULT_MAX_BYTES};

/// Print the canonical contract digests of a payload, capture or snapshot: RFC 8785 (JCS)
/// canonical JSON + SHA-256 of the whole contract, of the tool list, and per tool of the tool,
/// its description, inputSchema, outputSchema and annotations (docs/digests.md: the algorithm
/// and its test vectors). The contract is read as `driftlab snapshot` records it, so a capture
/// and the snapshot made from it have the same digests.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    driftlab digest approved.json\n  \
    driftlab digest --format json capture.json")]
pub struct Args {
    /// The payload, capture or snapshot (`-` for stdin).
    payload: String,
    /// `text` (one line per digest) or `json`.
    #[arg(long, value_enum, default_value_t = DigestFormat::Text)]
    format: DigestFormat,
    /// Largest payload accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BYTES)]
    max_bytes: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum DigestFormat {
    Text,
    Json,
}

pub fn run(args: Args) -> Result<u8> {
    let limits = Limits {
        max_bytes: args.max_bytes,
    };
    let surface = read_surface(&args.payload, limits)?;
    let snapshot = surface.to_snapshot_value();
    let digests = ContractDigests::of(&snapshot);
    match args.format {
        DigestFormat::Json => outln!("{}", serde_json::to_string_pretty(&digests)?),
        DigestFormat::Text => {
            outln!("algorithm  {}", digests.algorithm);
            outln!("contract   {}", digests.contract);
            outln!("tools      {}", digests.tools_list);
            for tool in &digests.tools {
                outln!("tool {:?}", tool.name);
                let parts = [
                    ("tool", Some(&tool.tool)),
                    ("description", tool.description.as_ref()),
                    ("inputSchema", tool.input_schema.as_ref()),
                    ("outputSchema", tool.output_schema.as_ref()),
                    ("annotations", tool.annotations.as_ref()),
                ];
                for (part, digest) in parts {
                    outln!("  {part:<13}{}", digest.map_or("(absent)", String::as_str));
                }
            }
        }
    }
    Ok(super::exit::PASS)
}
