//! `driftlab verify`: is a results folder still the bytes its manifest pinned?

use std::path::PathBuf;

use anyhow::{anyhow, Result};

use driftlab_study::study::results;

/// Re-hash every file a results folder's manifest.json pins (rows.csv, summaries, figures,
/// report) and report any that was edited, truncated or removed. To check the numbers
/// themselves, rerun the study: its command is in manifest.json, and the same spec and seed give
/// the same bytes.
///
/// A folder without a manifest.json (the `guard-study` and `scan --corpus` folders have none:
/// their commands rewrite them whole) is skipped with a line that says so, and the others are
/// still checked.
///
/// Exit codes: 0 every file of every manifest matches, 1 some file does not, 2 a manifest is
/// unreadable or no folder had one.
#[derive(clap::Args)]
#[command(after_help = "Example:\n  driftlab verify results/mcp-contract-drift-2026-08-22")]
pub struct Args {
    /// Results folders written by `driftlab study`, `sweep` or `merge`.
    #[arg(required = true, value_name = "RESULTS_DIR")]
    dirs: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<u8> {
    let (mut edited, mut unreadable, mut verified) = (false, false, 0);
    for dir in &args.dirs {
        if !dir.join(results::MANIFEST).exists() {
            outln!(
                "SKIPPED {}: no manifest.json (not a folder of `driftlab study`, `sweep` or `merge`; rerun the command that wrote it to check it)",
                dir.display()
            );
            continue;
        }
        let checked = results::verify(dir, None)
            .and_then(|mismatches| Ok((mismatches, results::pinned_files(dir)?)));
        let (mismatches, pinned) = match checked {
            Ok(checked) => checked,
            Err(why) => {
                unreadable = true;
                outln!("UNREADABLE {why}");
                continue;
            }
        };
        verified += 1;
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
    if edited {
        Ok(super::exit::DRIFT)
    } else if unreadable || verified == 0 {
        Err(anyhow!(
            "no results folder was verified in full (see the lines above)"
        ))
    } else {
        Ok(super::exit::PASS)
    }
}
