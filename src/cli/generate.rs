//! `driftlab generate`: the generated surfaces (and optionally every candidate) as JSON Lines.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::{json, Value};

use super::study::{load, Overrides};
use crate::fs::AtomicFile;
use crate::mutate;

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
                Err(e) if is_broken_pipe(&e) => {}
                other => other?,
            }
        }
    }
    Ok(super::exit::PASS)
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        let kind = match cause.downcast_ref::<serde_json::Error>() {
            Some(e) => e.io_error_kind(),
            None => cause.downcast_ref::<io::Error>().map(io::Error::kind),
        };
        kind == Some(io::ErrorKind::BrokenPipe)
    })
}

fn write_any(study: &crate::study::Study, args: &Args, out: &mut dyn Write) -> Result<()> {
    if args.checker_requests {
        write_requests(study, out)
    } else {
        write_lines(study, args.candidates, out)
    }
}

/// The request lines of every comparison, in the order a study sends them.
fn write_requests(study: &crate::study::Study, out: &mut dyn Write) -> Result<()> {
    use crate::check::external::{request_line, Request};
    if !study.spec.live.is_empty() {
        anyhow::bail!("a live study's candidates come from its servers: run the study instead");
    }
    for index in 0..study.spec.surfaces {
        let (approved, candidates) = crate::study::runner::checker_comparisons(study, index);
        for (id, candidate) in &candidates {
            let request = Request {
                id: *id,
                approved: &approved,
                candidate,
            };
            out.write_all(&request_line(&request))?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

fn write_lines(study: &crate::study::Study, candidates: bool, out: &mut dyn Write) -> Result<()> {
    let spec = &study.spec;
    for index in 0..spec.surfaces {
        let (_, base) = crate::study::runner::base_surface(study, index);
        line(out, &json!({"surface": index, "payload": &base}))?;
        if !candidates {
            continue;
        }
        for class in study.classes() {
            let mut candidate = base.clone().into_owned();
            let outcome = class.apply(&mut candidate, &mut mutate::stream(spec.seed, class, index));
            let record = match outcome {
                Ok(applied) => json!({
                    "surface": index,
                    "mutation": class.id(),
                    "tool_index": applied.tool_index,
                    "detail": applied.detail,
                    "payload": candidate,
                }),
                Err(not_applicable) => json!({
                    "surface": index,
                    "mutation": class.id(),
                    "not_applicable": not_applicable.0,
                    "payload": Value::Null,
                }),
            };
            line(out, &record)?;
        }
    }
    Ok(())
}

fn line(out: &mut dyn Write, value: &Value) -> Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")?;
    Ok(())
}
