//! `driftlab figures`: re-render a results folder's figures and report from its summary.json,
//! without re-running the study.

use std::path::PathBuf;

use anyhow::{anyhow, Result};

use driftlab_plot::plot::{Medium, Print, PrintWidth, DEFAULT_DPI};
use driftlab_record::Summary;
use driftlab_study::study::results::{self, Manifest};

/// Re-render figures (SVG + PNG) and report.md from RESULTS_DIR/summary.json: for the screen
/// and for print at one column (3.5 in) and full width (7 in), every text at least 7 pt.
#[derive(clap::Args)]
pub struct Args {
    /// A results folder written by `driftlab study`.
    #[arg(value_name = "RESULTS_DIR")]
    dir: PathBuf,
    /// Redraw only the print version at this width (`3.5in` or `7in`), as
    /// FIGURE-3.5in.svg/.png or FIGURE-7in.svg/.png. Without it, every version is redrawn.
    #[arg(long, value_name = "WIDTH", value_parser = parse_width)]
    width: Option<PrintWidth>,
    /// The print PNGs' resolution (their SVGs are vector). Without --width, both print widths
    /// are redrawn at it; the screen version is left as it is.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(72..=2400))]
    dpi: Option<u32>,
}

fn parse_width(text: &str) -> Result<PrintWidth, String> {
    text.parse()
}

/// The media to redraw: every default, or the print widths asked for at the dpi asked for.
fn media(args: &Args) -> Vec<Medium> {
    if args.width.is_none() && args.dpi.is_none() {
        return Medium::DEFAULTS.to_vec();
    }
    let widths = match args.width {
        Some(width) => vec![width],
        None => PrintWidth::ALL.to_vec(),
    };
    let dpi = args.dpi.unwrap_or(DEFAULT_DPI);
    widths
        .into_iter()
        .map(|width| Medium::Print(Print { width, dpi }))
        .collect()
}

pub fn run(args: Args) -> Result<u8> {
    // A study writing the folder now would swap it away under us.
    let _lock = results::staging::lock(&args.dir)?;
    // Figures drawn from an edited summary would launder it: refuse one the manifest disowns.
    if Manifest::load(&args.dir).is_ok() {
        if let Some(m) = results::verify(&args.dir, Some(&[results::SUMMARY_JSON]))?.first() {
            anyhow::bail!(
                "{}: does not match manifest.json (sha256 {}, found {}): the folder was edited (see `driftlab verify`)",
                args.dir.join(&m.file).display(),
                m.expected,
                m.found
            );
        }
    }
    let summary: Summary = driftlab_contract::fs::read_json(&args.dir.join(results::SUMMARY_JSON)).map_err(|e| {
        anyhow!("{e}: not the summary of a `driftlab study` folder, which is all `figures` redraws (a `guard-study` or `scan --corpus` folder is redrawn by rerunning its command)")
    })?;
    let figures = results::write_figures_in(&args.dir, &summary, &media(&args))?;
    match Manifest::load(&args.dir) {
        Ok(mut manifest) => {
            results::write_report(&args.dir, &summary, &manifest)?;
            let mut names: Vec<&str> = figures.iter().map(String::as_str).collect();
            names.push(results::REPORT);
            manifest
                .files
                .extend(results::hash_files(&args.dir, &names)?);
            results::write(
                &args.dir,
                results::MANIFEST,
                &results::json_bytes(&manifest)?,
            )?;
            outln!(
                "wrote {} and {} in {}",
                figures.join(", "),
                results::REPORT,
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
