//! `driftlab merge`: combine shard results into the folder an unsharded run would have written,
//! byte for byte (only the manifest's `run` section differs).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;

use crate::report::table;
use crate::study::results;

/// Merge the results of `driftlab study --shard K/N` runs (all N shards of one study).
#[derive(clap::Args)]
pub struct Args {
    /// The shard folders, in any order.
    #[arg(required = true, value_name = "SHARD_DIR")]
    shards: Vec<PathBuf>,
    /// The merged results folder.
    #[arg(long, short, value_name = "DIR")]
    out: PathBuf,
    /// Overwrite a folder that holds results of a different study.
    #[arg(long)]
    force: bool,
    /// Skip the figures and report.md.
    #[arg(long)]
    no_figures: bool,
    /// No table; errors only.
    #[arg(long, short)]
    quiet: bool,
}

pub fn run(args: Args) -> Result<u8> {
    let merged = results::merge(
        &args.shards,
        &args.out,
        args.force,
        !args.no_figures,
        Instant::now(),
    )?;
    if !args.quiet {
        out!("{}", table::headline(&merged.summary));
        outln!(
            "\nmerged {} shards: {}/ ({})",
            merged.shards,
            args.out.display(),
            merged.files.join(", ")
        );
    }
    Ok(super::exit::PASS)
}
