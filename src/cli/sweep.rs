//! `driftlab sweep`: run a spec at every seed × surface count of its `[sweep]` section.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Result};
use serde_json::json;

use super::study::{load, progress_bar, set_threads, Overrides};
use crate::study::results::json_bytes;
use crate::study::results::write;
use crate::study::results::{self, RunRecord};
use crate::study::sweep;

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
    let out = args
        .out
        .unwrap_or_else(|| Path::new("results").join(default_folder(&study.spec.id)));
    let staged = results::StagedFolder::begin(&out).map_err(anyhow::Error::msg)?;
    if !args.force {
        guard_existing(&out, &study.spec)?;
    }
    let total: u64 = sweep::configurations(&study).iter().map(|(_, n)| n).sum();
    let progress = progress_bar(total, args.quiet);
    let summaries = sweep::run(&study, &|done| progress.inc(done))?;
    progress.finish_and_clear();
    let rows = sweep::rows(&summaries);
    let spreads = sweep::spreads(&rows);

    let dir = staged.path();
    write(dir, "sweep.csv", &results::csv_bytes(&rows)?)?;
    write(dir, "sweep-summary.csv", &results::csv_bytes(&spreads)?)?;
    write(dir, "sweep-summary.json", &json_bytes(&spreads)?)?;
    let names = ["sweep.csv", "sweep-summary.csv", "sweep-summary.json"];
    let manifest = json!({
        "driftlab_version": env!("CARGO_PKG_VERSION"),
        "spec": study.spec,
        "rule_set": study.rule_set,
        "rng": crate::rng::ALGORITHM,
        "command": format!("driftlab sweep {}", args.spec.display()),
        "configurations": sweep::configurations(&study),
        "files": results::hash_files(dir, &names)?,
    });
    write(dir, results::MANIFEST, &json_bytes(&manifest)?)?;
    RunRecord::now(started).write(dir)?;
    staged.commit().map_err(anyhow::Error::msg)?;
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
            names.join(", ")
        );
    }
    Ok(super::exit::PASS)
}

/// A sweep replaces only an empty folder or an earlier sweep of the same spec: never a study's
/// results (its rows are evidence) nor a folder of other files.
fn guard_existing(out: &Path, spec: &crate::study::StudySpec) -> Result<()> {
    if results::staging::entry_names(out).is_empty() {
        return Ok(());
    }
    let overwrite = "choose another folder with --out or overwrite with --force";
    let manifest: Option<serde_json::Value> =
        crate::fs::read_json(&out.join(results::MANIFEST)).ok();
    let Some(manifest) = manifest else {
        bail!(
            "{} is not empty and has no {}: not a driftlab results folder; {overwrite}",
            out.display(),
            results::MANIFEST
        );
    };
    if manifest.get("configurations").is_none() {
        bail!(
            "{} holds a study's results, not a sweep: {overwrite}",
            out.display()
        );
    }
    if manifest.get("spec") != Some(&serde_json::to_value(spec)?) {
        bail!(
            "{} holds a sweep of a different spec: {overwrite}",
            out.display()
        );
    }
    Ok(())
}

/// `results/<id>-sweep/`, or `results/<id>/` for a spec whose id already says it is a sweep (so
/// `mcp-contract-drift-sweep` does not become `…-sweep-sweep`).
fn default_folder(id: &str) -> String {
    match id.ends_with("-sweep") || id == "sweep" {
        true => id.to_string(),
        false => format!("{id}-sweep"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_sweep_folder_says_sweep_once() {
        assert_eq!(super::default_folder("study"), "study-sweep");
        assert_eq!(super::default_folder("drift-sweep"), "drift-sweep");
    }
}
