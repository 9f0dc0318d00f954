//! `driftlab figures`: re-render a results folder's figures and report from its summary.json,
//! without re-running the study.

use std::path::PathBuf;

use anyhow::{anyhow, Result};

use super::artifacts;
use crate::output::{self, Manifest};
use crate::record::Summary;

/// Re-render figures (SVG + PNG) and report.md from RESULTS_DIR/summary.json.
#[derive(clap::Args)]
pub struct Args {
    /// A results folder written by `driftlab study`.
    #[arg(value_name = "RESULTS_DIR")]
    dir: PathBuf,
}

pub fn run(args: Args) -> Result<u8> {
    // A study writing the folder now would swap it away under us.
    let _lock = output::folder::lock(&args.dir).map_err(|e| anyhow!(e))?;
    // Figures drawn from an edited summary would launder it: refuse one the manifest disowns.
    if Manifest::load(&args.dir).is_ok() {
        if let Some(m) = output::verify(&args.dir, Some(&[output::SUMMARY_JSON]))
            .map_err(|e| anyhow!(e))?
            .first()
        {
            anyhow::bail!(
                "{}: does not match manifest.json (sha256 {}, found {}): the folder was edited (see `driftlab verify`)",
                args.dir.join(&m.file).display(),
                m.expected,
                m.found
            );
        }
    }
    let summary: Summary = crate::fs::read_json(&args.dir.join(output::SUMMARY_JSON)).map_err(|e| {
        anyhow!("{e}: not the summary of a `driftlab study` folder, which is all `figures` redraws (a `guard-study` or `scan --corpus` folder is redrawn by rerunning its command)")
    })?;
    let figures = artifacts::write_figures(&args.dir, &summary)?;
    match Manifest::load(&args.dir) {
        Ok(mut manifest) => {
            artifacts::write_report(&args.dir, &summary, &manifest)?;
            let mut names: Vec<&str> = figures.iter().map(String::as_str).collect();
            names.push(output::REPORT);
            manifest
                .files
                .extend(output::hash_files(&args.dir, &names)?);
            artifacts::write(
                &args.dir,
                output::MANIFEST,
                &super::study::json_bytes(&manifest)?,
            )?;
            outln!(
                "wrote {} and {} in {}",
                figures.join(", "),
                output::REPORT,
                args.dir.display()
            );
        }
        Err(reason) => {
            // The figures are written, but the report is not: that is a failure, never exit 0.
            outln!("wrote {} in {}", figures.join(", "), args.dir.display());
            anyhow::bail!("report.md not written: {reason}");
        }
    }
    Ok(super::exit::PASS)
}
