//! `driftlab study`: run a study and write its results folder.

use std::fs;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use super::artifacts::{self, write};
use crate::output::{self, AtomicFile, Manifest, RunInfo};
use crate::record::Row;
use crate::report::table;
use crate::study::spec::{DEFAULT_SPEC, DEFAULT_SPEC_PATH};
use crate::study::{self, Study, StudySpec};

/// Run a study: generate surfaces, apply every mutation, run every gate, write the results.
///
/// With no SPEC, runs the embedded published study
/// (research/mcp-contract-drift-2026-08-22/study.toml).
#[derive(clap::Args)]
pub struct Args {
    /// Study spec (TOML). Default: the embedded published study.
    spec: Option<PathBuf>,
    #[command(flatten)]
    overrides: Overrides,
    /// Results folder. Default: results/<study-id>/.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Overwrite a folder that holds results of a different study or spec.
    #[arg(long)]
    force: bool,
    /// No progress bar and no table; errors only.
    #[arg(long, short)]
    quiet: bool,
    /// Skip the figures and report.md (rows, summaries and manifest are always written).
    #[arg(long)]
    no_figures: bool,
}

/// Spec fields that can be overridden on the command line.
#[derive(clap::Args, Default)]
pub struct Overrides {
    /// Override the spec's seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Override the number of surfaces.
    #[arg(long)]
    surfaces: Option<u64>,
    /// Override the number of tools per surface.
    #[arg(long)]
    tools: Option<usize>,
}

/// Reads a spec file (or the embedded default), applies overrides and resolves it.
pub(super) fn load(spec: Option<&Path>, overrides: &Overrides) -> Result<(Study, String)> {
    let (text, name) = match spec {
        Some(path) => (
            fs::read_to_string(path)
                .with_context(|| format!("cannot read study spec {}", path.display()))?,
            path.display().to_string(),
        ),
        None => (DEFAULT_SPEC.to_string(), DEFAULT_SPEC_PATH.to_string()),
    };
    let mut spec = StudySpec::parse(&text, &name)?;
    spec.seed = overrides.seed.unwrap_or(spec.seed);
    spec.surfaces = overrides.surfaces.unwrap_or(spec.surfaces);
    spec.tools = overrides.tools.unwrap_or(spec.tools);
    Ok((spec.resolve(&name)?, name))
}

pub fn run(args: Args) -> Result<u8> {
    let started = Instant::now();
    let started_at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (study, _) = load(args.spec.as_deref(), &args.overrides)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("results").join(&study.spec.id));
    guard_existing(&out, &study.spec, args.force)?;
    fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;

    let progress = progress_bar(study.spec.surfaces, args.quiet);
    let rows_path = out.join(output::ROWS);
    let rows_file = AtomicFile::create(&rows_path)
        .with_context(|| format!("cannot write {}", rows_path.display()))?;
    let mut rows = csv::Writer::from_writer(rows_file);
    let summary = study::run(
        &study,
        |chunk: &[Row]| -> Result<()> {
            for row in chunk {
                rows.serialize(row)?;
            }
            Ok(())
        },
        &|done| progress.inc(done),
    )
    .with_context(|| format!("while writing {}", rows_path.display()))?;
    progress.finish_and_clear();
    rows.into_inner()
        .map_err(|e| e.into_error())
        .and_then(AtomicFile::commit)
        .with_context(|| format!("cannot write {}", rows_path.display()))?;

    let mut summary_csv = csv::Writer::from_writer(Vec::new());
    for row in summary.csv_rows() {
        summary_csv.serialize(row)?;
    }
    let summary_csv = summary_csv.into_inner().map_err(|e| e.into_error())?;
    write(&out, output::SUMMARY_CSV, &summary_csv)?;
    write(&out, output::SUMMARY_JSON, &json_bytes(&summary)?)?;

    let mut files: Vec<String> = [output::ROWS, output::SUMMARY_CSV, output::SUMMARY_JSON]
        .map(String::from)
        .to_vec();
    if !args.no_figures {
        files.extend(artifacts::write_figures(&out, &summary)?);
    }
    let names: Vec<&str> = files.iter().map(String::as_str).collect();
    let mut manifest = Manifest {
        driftlab_version: env!("CARGO_PKG_VERSION").to_string(),
        seed: study.spec.seed,
        spec: study.spec.clone(),
        rng: crate::rng::ALGORITHM.to_string(),
        command: reproduce_command(&args),
        research: artifacts::research_dir(args.spec.as_deref()),
        files: output::hash_files(&out, &names)?,
        run: RunInfo {
            started_at: output::rfc3339(started_at),
            duration_ms: started.elapsed().as_millis() as u64,
            host: output::host_name(),
            threads: rayon::current_num_threads(),
        },
    };
    if !args.no_figures {
        artifacts::write_report(&out, &summary, &manifest)?;
        manifest
            .files
            .extend(output::hash_files(&out, &[output::REPORT])?);
        files.push(output::REPORT.into());
    }
    write(&out, output::MANIFEST, &json_bytes(&manifest)?)?;

    if !args.quiet {
        print!("{}", table::headline(&summary));
        files.push(output::MANIFEST.into());
        println!("\nresults: {}/ ({})", out.display(), files.join(", "));
    }
    Ok(super::exit::PASS)
}

/// Refuses to overwrite another study's results (or a folder that holds other files).
fn guard_existing(out: &Path, spec: &StudySpec, force: bool) -> Result<()> {
    if force || !out.exists() {
        return Ok(());
    }
    if !out.is_dir() {
        bail!("{} exists and is not a folder", out.display());
    }
    match Manifest::read(out) {
        Some(m) if m.spec == *spec => Ok(()),
        Some(m) => bail!(
            "{} holds results of a different study (id {}, seed {}, {} surfaces, {} tools); \
             choose another folder with --out or overwrite with --force",
            out.display(),
            m.spec.id,
            m.spec.seed,
            m.spec.surfaces,
            m.spec.tools
        ),
        None if fs::read_dir(out).map_or(true, |mut d| d.next().is_none()) => Ok(()),
        None => bail!(
            "{} is not empty and has no {}: not a driftlab results folder; \
             choose another folder with --out or overwrite with --force",
            out.display(),
            output::MANIFEST
        ),
    }
}

fn reproduce_command(args: &Args) -> String {
    let mut command = String::from("driftlab study");
    if let Some(spec) = &args.spec {
        command.push_str(&format!(" {}", spec.display()));
    }
    let o = &args.overrides;
    for (flag, value) in [
        ("--seed", o.seed.map(|v| v.to_string())),
        ("--surfaces", o.surfaces.map(|v| v.to_string())),
        ("--tools", o.tools.map(|v| v.to_string())),
    ] {
        if let Some(value) = value {
            command.push_str(&format!(" {flag} {value}"));
        }
    }
    command
}

fn progress_bar(total: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} surfaces  {per_sec}  eta {eta}")
    {
        bar.set_style(style);
    }
    bar
}

/// Pretty JSON with a trailing newline.
pub(super) fn json_bytes<T: serde::Serialize>(value: &T) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    Ok(bytes)
}
