//! `driftlab stack-study`: what real agent stacks do with a version-1 call to a drifted tool,
//! and what the guard changes for the MCP ones.

use std::path::PathBuf;

use anyhow::{anyhow, Result};

use super::study_folder::{run_and_write, Folder};

use driftlab_record::provenance::Provenance;

use driftlab_study::stacks::{self, StackStudy};

/// Measure drift on real agent stacks: for each case of the bench (one tool at version 1 and a
/// drifted version 2) and each stack row of a spec, send seeded calls valid under version 1
/// through the stack's own invocation path (a Python harness per stack, or an MCP server on
/// stdio, also behind `driftlab guard` in each mode) at version 1 (the control) and at version
/// 2, and classify each from what the tool body received and the caller got back: ran
/// correctly, accepted but wrong (silent), rejected with an error (loud), crashed, or refused
/// by the guard. Holds each of the survey's claims in the spec against its cells.
///
/// Writes calls.csv, summary.csv, summary.json, six-stacks.svg/png and report.md to --out.
/// The stacks must be installed first: scripts/install-stacks.sh (a venv in the spec's folder)
/// and `npm ci --prefix servers`. Method: research/2026-12-03-six-stacks/METHOD.md.
#[derive(clap::Args)]
#[command(after_help = "Example:\n  \
    driftlab stack-study research/2026-12-03-six-stacks/study.toml")]
pub struct Args {
    /// The study spec (TOML).
    spec: PathBuf,
    /// The results folder [default: results/<id of the spec>].
    #[arg(long, short, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Overwrite a folder that holds anything but this study's files.
    #[arg(long)]
    force: bool,
    /// Stack rows and MCP cases run in parallel (0: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,
    /// Run the spec's commands without asking. Without it each command is printed first and a
    /// terminal is asked; with no terminal to ask (CI), nothing runs.
    #[arg(long, short = 'y')]
    yes: bool,
}

pub fn run(args: Args) -> Result<u8> {
    let study = StackStudy::load(&args.spec)?;
    let driftlab = std::env::current_exe()
        .map_err(|e| anyhow!("cannot find the driftlab binary to run guard: {e}"))?;
    super::consent::spec(&args.spec, &study.dir, &study.commands(), args.yes)?;
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("results").join(&study.spec.id));
    let reproduce = format!(
        "driftlab stack-study {} --out results/{}",
        args.spec.display(),
        study.spec.id
    );
    let provenance = Provenance::of_spec(&args.spec, &study.argvs(), &out).map_err(|e| {
        anyhow!(
            "hashing the inputs in the folder of {}: {e}",
            args.spec.display()
        )
    })?;
    let folder = Folder {
        command: "stack-study",
        out: &out,
        ours: &stacks::file_names(),
        writer: "a stack study",
        force: args.force,
        threads: args.threads,
    };
    run_and_write(
        folder,
        |work, progress| stacks::run(&study, &driftlab, work, progress),
        |results, dir| stacks::write(results, dir, (&reproduce, &provenance)),
        |results| results.calls.len(),
    )
}
