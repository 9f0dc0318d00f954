//! `driftlab merge`: combine shard results into the folder an unsharded run would have written,
//! byte for byte (for a study only `run.json` differs): the shards of a study or of a census.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{anyhow, bail, Result};

use driftlab_study::census::{self, shard};

use driftlab_study::study::headline as table;
use driftlab_study::study::results;

/// Merge the results of `driftlab study --shard K/N` or `driftlab census --shard K/N` runs (all
/// N shards of one study or census) into the folder the unsharded run writes, byte for byte.
#[derive(clap::Args)]
pub struct Args {
    /// The shard folders, in any order.
    #[arg(required = true, value_name = "SHARD_DIR")]
    shards: Vec<PathBuf>,
    /// The merged results folder.
    #[arg(long, short, value_name = "DIR")]
    out: PathBuf,
    /// Overwrite a folder that holds results of a different study (a census: captures).
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
    let census_shards = args.shards.iter().filter(|d| shard::is_shard(d)).count();
    if census_shards > 0 {
        return merge_census(&args, census_shards);
    }
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

fn merge_census(args: &Args, census_shards: usize) -> Result<u8> {
    if census_shards != args.shards.len() {
        bail!(
            "{} of the {} folders are census shards ({}) and the others are not: merge the shards of one census at a time",
            census_shards,
            args.shards.len(),
            shard::SHARD_FILE
        );
    }
    if args.no_figures {
        bail!("--no-figures: a merged census writes every file the unsharded census writes");
    }
    let mut ours = census::write::file_names();
    ours.extend([census::write::CAPTURES.to_string()]);
    results::staging::refuse_foreign(
        &args.out,
        |name| ours.iter().any(|o| o == name),
        "a census",
        args.force,
    )?;
    let (merged, names) =
        shard::merge(&args.shards, &args.out, args.force).map_err(|e| anyhow!(e))?;
    if !args.quiet {
        outln!("{}", census::write::headline(&merged));
        outln!(
            "\nmerged {} census shards: {}/ ({})",
            args.shards.len(),
            args.out.display(),
            names.join(", ")
        );
    }
    Ok(super::exit::PASS)
}
