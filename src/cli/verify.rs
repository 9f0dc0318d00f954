//! `driftlab verify`: is a results folder still the bytes its manifest pinned?

use std::path::PathBuf;

use anyhow::{anyhow, Result};

use driftlab_record::provenance::{Changed, InputsCheck, ProvenanceCheck};
use driftlab_study::study::results;

/// Re-hash every file a results folder's manifest.json pins (rows.csv, summaries, figures,
/// report) and every input it was made from (the spec and the files of its folder), and report
/// any that changed.
///
/// The inputs are looked for here and in each folder above the results folder. Then the commit
/// that wrote the folder is looked up in this checkout's history, and the environment it ran in
/// (interpreters, packages, servers) compared with what is installed here. To check the numbers
/// themselves, rerun the study: its command is in manifest.json, and the same spec and seed give
/// the same bytes.
///
/// A folder without a manifest.json is skipped with a line that says so, and the others are
/// still checked. Inputs that cannot be found, the commit and the environment are reported, not
/// failed: they tell where a rerun may differ.
///
/// Exit codes: 0 every file and input of every manifest matches, 1 some file or input does
/// not, 2 a manifest is unreadable or no folder had one.
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
        let provenance = results::provenance(dir).unwrap_or_default().check(dir);
        let stale = match &provenance.inputs {
            Some(InputsCheck::Checked { changed, .. }) => changed.clone(),
            _ => Vec::new(),
        };
        if mismatches.is_empty() && stale.is_empty() {
            outln!(
                "OK      {}: {pinned} files match manifest.json",
                dir.display()
            );
        } else if mismatches.is_empty() {
            edited = true;
            outln!(
                "STALE   {}: {pinned} files match manifest.json, but {} input(s) changed since",
                dir.display(),
                stale.len()
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
        print_provenance(&provenance, &stale)?;
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

/// The lines under a folder's verdict: its inputs, the code that wrote it, its environment.
fn print_provenance(check: &ProvenanceCheck, stale: &[Changed]) -> Result<()> {
    match &check.inputs {
        Some(InputsCheck::Checked { at, pinned, .. }) if stale.is_empty() => {
            outln!("    inputs: all {pinned} pinned match, in {}", at.display());
        }
        Some(InputsCheck::Checked { at, .. }) => {
            outln!("    inputs, in {}:", at.display());
            for c in stale {
                outln!(
                    "    {}: pinned sha256 {}, found {}",
                    c.file,
                    c.expected,
                    c.found
                );
            }
        }
        Some(InputsCheck::NotFound) => {
            outln!("    inputs: not checked (their folder is not here or above the results)");
        }
        None => outln!("    inputs: none recorded"),
    }
    if let Some(code) = &check.code {
        outln!("    code: {code}");
    }
    if !check.environment.is_empty() {
        outln!("    environment here differs from the recorded one (a rerun may differ):");
        for line in &check.environment {
            outln!("      {line}");
        }
    }
    Ok(())
}
