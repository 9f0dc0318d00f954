//! `driftlab stack-study`: what real agent stacks do with a version-1 call to a drifted tool,
//! and what the guard changes for the MCP ones.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{anyhow, Result};

use crate::stacks::{self, StackStudy};
use crate::study::results::{self, StagedFolder};

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
}

pub fn run(args: Args) -> Result<u8> {
    let study = StackStudy::load(&args.spec)?;
    let driftlab = std::env::current_exe()
        .map_err(|e| anyhow!("cannot find the driftlab binary to run guard: {e}"))?;
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("results").join(&study.spec.id));
    let staged = StagedFolder::begin(&out)?;
    let ours = stacks::file_names();
    results::staging::refuse_foreign(
        &out,
        |name| ours.iter().any(|o| o == name),
        "a stack study",
        args.force,
    )
    .map_err(|e| anyhow!(e))?;
    let work = std::env::temp_dir().join(format!("driftlab-stack-study-{}", std::process::id()));
    let _remove_work = crate::cleanup::remove_on_signal(work.clone());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .map_err(|e| anyhow!("cannot start {} threads: {e}", args.threads))?;
    let started = Instant::now();
    let progress = |line: &str| {
        eprintln!(
            "driftlab stack-study: [{:>5.1} s] {line}",
            started.elapsed().as_secs_f64()
        )
    };
    let results = pool.install(|| stacks::run(&study, &driftlab, &work, &progress));
    let _ = std::fs::remove_dir_all(&work);
    let results = results?;
    let reproduce = format!(
        "driftlab stack-study {} --out results/{}",
        args.spec.display(),
        study.spec.id
    );
    let files = stacks::write(&results, staged.path(), &reproduce)?;
    staged.commit()?;
    eprintln!(
        "driftlab stack-study: {} calls in {:.1} s; wrote {} to {}",
        results.calls.len(),
        started.elapsed().as_secs_f64(),
        files.join(", "),
        out.display()
    );
    Ok(super::exit::PASS)
}
