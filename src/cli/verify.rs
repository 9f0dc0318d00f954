//! `driftlab verify`: is a results folder still the bytes its manifest pinned?

use std::path::PathBuf;

use anyhow::{anyhow, Result};

use crate::output;

/// Re-hash every file a results folder's manifest.json pins (rows.csv, summaries, figures,
/// report) and report any that was edited, truncated or removed. To check the numbers
/// themselves, rerun the study: its command is in manifest.json, and the same spec and seed give
/// the same bytes.
///
/// Exit codes: 0 every file matches, 1 some file does not, 2 no readable manifest.
#[derive(clap::Args)]
#[command(after_help = "Example:\n  driftlab verify results/mcp-contract-drift-2026-08-22")]
pub struct Args {
    /// Results folders written by `driftlab study`, `sweep` or `merge`.
    #[arg(required = true, value_name = "RESULTS_DIR")]
    dirs: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<u8> {
    let mut edited = false;
    for dir in &args.dirs {
        let mismatches = output::verify(dir, None).map_err(|e| anyhow!(e))?;
        let pinned = output::Manifest::load(dir)
            .map_err(|e| anyhow!(e))?
            .files
            .len();
        if mismatches.is_empty() {
            outln!(
                "OK      {}: {pinned} files match manifest.json",
                dir.display()
            );
        } else {
            edited = true;
            outln!(
                "EDITED  {}: {} of {pinned} files differ from manifest.json",
                dir.display(),
                mismatches.len()
            );
            for m in mismatches {
                outln!(
                    "    {}: pinned sha256 {}, found {}",
                    m.file,
                    m.expected,
                    m.found
                );
            }
        }
    }
    Ok(if edited {
        super::exit::DRIFT
    } else {
        super::exit::PASS
    })
}
