//! `driftlab sweep`: run a spec at every seed × surface count of its `[sweep]` section.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Result};

use super::study::{load, progress_bar, provenance_of, set_threads, Overrides};
use driftlab_study::study::results;
use driftlab_study::study::sweep;

/// Run a sweep: the spec's study at every combination of `[sweep] seeds` and `surfaces`.
///
/// Writes DIR/sweep.csv (a row per configuration × gate × class), DIR/sweep-summary.csv and
/// .json (mean, standard deviation, min and max of each rate across seeds, per surface count),
/// and DIR/manifest.json. No rows.csv: run one configuration with `driftlab study` for evidence.
#[derive(clap::Args)]
pub struct Args {
    /// Study spec with a [sweep] section.
    spec: PathBuf,
    /// Output folder. Default: results/<study-id>-sweep/ (results/<study-id>/ when the id ends in
    /// `-sweep`).
    #[arg(long, short, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Worker threads (default: one per core, or RAYON_NUM_THREADS). The results are the same
    /// at any count.
    #[arg(long, short = 'j', value_name = "N")]
    threads: Option<usize>,
    /// Overwrite a folder that holds anything but this spec's sweep.
    #[arg(long)]
    force: bool,
    /// No table; errors only.
    #[arg(long, short)]
    quiet: bool,
}

pub fn run(args: Args) -> Result<u8> {
    let started = Instant::now();
    set_threads(args.threads)?;
    let (study, name) = load(Some(&args.spec), &Overrides::default())?;
    if study.spec.sweep.is_none() {
        bail!("{name}: no [sweep] section (seeds = [...], surfaces = [...])");
    }
    let out = args.out.unwrap_or_else(|| {
        Path::new("results").join(results::sweep::default_folder(&study.spec.id))
    });
    let provenance = provenance_of(Some(&args.spec), &study, &out)?;
    let staged = results::sweep::begin(&out, &study.spec, args.force)?;
    let total: u64 = sweep::configurations(&study).iter().map(|(_, n)| n).sum();
    let progress = progress_bar(total, args.quiet);
    let summaries = sweep::run(&study, &|done| progress.inc(done))?;
    progress.finish_and_clear();
    let command = format!("driftlab sweep {}", args.spec.display());
    let spreads =
        results::sweep::write(staged, &study, (&command, &provenance), &summaries, started)?;
    if !args.quiet {
        outln!(
            "{:<10} {:<32} {:<26} {:>5} {:>8} {:>8}",
            "surfaces",
            "gate",
            "mutation",
            "runs",
            "mean",
            "sd"
        );
        for s in &spreads {
            let show = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.4}"));
            outln!(
                "{:<10} {:<32} {:<26} {:>5} {:>8} {:>8}",
                s.surfaces,
                s.gate,
                s.mutation,
                s.configurations,
                show(s.mean_rate),
                show(s.sd_rate)
            );
        }
        outln!(
            "\nresults: {}/ ({}, manifest.json)",
            out.display(),
            results::sweep::FILES.join(", ")
        );
    }
    Ok(super::exit::PASS)
}
