//! `driftlab generate`: the generated surfaces (and optionally every candidate) as JSON Lines.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};

use super::study::{load, Overrides};
use driftlab_contract::fs::AtomicFile;
use driftlab_study::study::lines::{self, LinesError};
use driftlab_study::study::Study;

/// Write generated surfaces as JSON Lines, so any other checker can be fed the same data.
///
/// Each line is {"surface": i, "payload": {"tools": [...]}}. With --candidates, each surface is
/// followed by one line per mutation class (control included):
/// {"surface": i, "mutation": id, "tool_index": k|null, "detail": ..., "payload": ...}.
#[derive(clap::Args)]
pub struct Args {
    /// Study spec whose seed, sizes and classes to use. Default: the embedded published study.
    #[arg(value_name = "SPEC")]
    spec: Option<PathBuf>,
    /// The same as SPEC (kept for scripts that pass it as a flag).
    #[arg(long = "spec", value_name = "SPEC", conflicts_with = "spec")]
    spec_flag: Option<PathBuf>,
    #[command(flatten)]
    overrides: Overrides,
    /// Also write every mutated candidate.
    #[arg(long, conflicts_with = "checker_requests")]
    candidates: bool,
    /// Write instead the request lines a study sends an external checker (protocol 1, see
    /// docs/checker-protocol.md): `generate --checker-requests | python3 checker.py`.
    #[arg(long)]
    checker_requests: bool,
    /// Output file (written atomically). Default: stdout.
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<u8> {
    let (study, _) = load(
        args.spec.as_deref().or(args.spec_flag.as_deref()),
        &args.overrides,
    )?;
    match &args.out {
        Some(path) => {
            let mut file = AtomicFile::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            write_any(&study, &args, &mut file)?;
            file.commit()
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        None => {
            let stdout = io::stdout();
            let mut out = BufWriter::new(stdout.lock());
            match write_any(&study, &args, &mut out).and_then(|_| Ok(out.flush()?)) {
                // A closed pipe (`| head`) is a normal way to stop reading.
                Err(e) if e.is_broken_pipe() => {}
                other => other?,
            }
        }
    }
    Ok(super::exit::PASS)
}

fn write_any(study: &Study, args: &Args, out: &mut dyn Write) -> Result<(), LinesError> {
    if args.checker_requests {
        lines::write_requests(study, out)
    } else {
        lines::write_surfaces(study, args.candidates, out)
    }
}
