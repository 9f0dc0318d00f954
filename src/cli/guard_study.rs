//! `driftlab guard-study`: what happens to an old client's calls when the server drifts, with
//! and without the guard.

use std::path::PathBuf;

use anyhow::{anyhow, Result};

use super::study_folder::{run_and_write, Folder};

use driftlab_record::provenance::Provenance;

use driftlab_proxy::guard::study::{self, GuardStudy};

/// Measure silent failures: for each server and mutation class of a spec, send seeded calls that
/// are valid under the server's real (pinned) contract to the server drifted by `driftlab wrap
/// --drift CLASS --enforce-drift`, once straight and once through `driftlab guard` per guard
/// mode, and classify each: accepted and correct, accepted but wrong (an argument dropped
/// silently), rejected with an error, crash or timeout, refused by the guard with a correction.
///
/// Writes calls.csv, summary.csv, summary.json, silent-failures.svg/png and report.md to --out.
/// The spec format and the method: research/2026-11-30-silent-failures/ (study.toml, METHOD.md).
#[derive(clap::Args)]
#[command(after_help = "Example:\n  \
    driftlab guard-study research/2026-11-30-silent-failures/study.toml")]
pub struct Args {
    /// The study spec (TOML).
    spec: PathBuf,
    /// The results folder [default: results/<id of the spec>].
    #[arg(long, short, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Overwrite a folder that holds anything but a guard study's files.
    #[arg(long)]
    force: bool,
    /// Sessions run in parallel (0: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,
    /// Run the spec's commands without asking. Without it each command is printed first and a
    /// terminal is asked; with no terminal to ask (CI), nothing runs.
    #[arg(long, short = 'y')]
    yes: bool,
}

pub fn run(args: Args) -> Result<u8> {
    let study = GuardStudy::load(&args.spec)?;
    let driftlab = std::env::current_exe()
        .map_err(|e| anyhow!("cannot find the driftlab binary to run wrap and guard: {e}"))?;
    super::consent::spec(&args.spec, &study.dir, &study.commands(), args.yes)?;
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("results").join(&study.spec.id));
    // The report names the default folder, so a rerun elsewhere writes the same bytes.
    let reproduce = format!(
        "driftlab guard-study {} --out results/{}",
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
        command: "guard-study",
        out: &out,
        ours: &study::file_names(),
        writer: "a guard study",
        force: args.force,
        threads: args.threads,
    };
    run_and_write(
        folder,
        |work, progress| study::run(&study, &driftlab, work, progress),
        |results, dir| study::write(results, dir, (&reproduce, &provenance)),
        |results| results.rows.len(),
    )
}
