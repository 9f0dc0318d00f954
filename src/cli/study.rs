//! `driftlab study`: run a study (or one shard of it) and write its results folder.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use super::artifacts::{self, write};
use crate::fs::AtomicFile;
use crate::output::{self, Manifest, RunRecord};
use crate::record::{Row, Shard, Summary};
use crate::report::table;
use crate::study::runner::{self, RowsMode};
use crate::study::spec::{DEFAULT_SPEC, DEFAULT_SPEC_PATH};
use crate::study::{Study, StudySpec};

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
    /// Results folder. Default: results/<study-id>/ (results/<study-id>-shard-K-of-N/ for a shard).
    #[arg(long, short, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Worker threads (default: one per core, or RAYON_NUM_THREADS). The results are the same
    /// at any count.
    #[arg(long, short = 'j', value_name = "N")]
    threads: Option<usize>,
    /// Overwrite a folder that holds results of a different study, spec or shard.
    #[arg(long)]
    force: bool,
    /// No progress bar and no table; errors only.
    #[arg(long, short)]
    quiet: bool,
    /// Skip the figures and report.md (rows, summaries and manifest are always written).
    #[arg(long)]
    no_figures: bool,
    /// Which rows to write to rows.csv; the summary always counts every row.
    #[arg(long, value_enum, default_value_t = RowsMode::All)]
    rows: RowsMode,
    /// Run only shard K of N (1-based): a deterministic slice of the surfaces, merged with
    /// `driftlab merge`. Shards write no figures or report.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    shard: Option<(u64, u64)>,
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

fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let bad = || format!("{text:?}: expected K/N with 1 <= K <= N, e.g. 3/8");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || n == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// Reads a spec file (or the embedded default), applies overrides and resolves it.
pub(super) fn load(spec: Option<&Path>, overrides: &Overrides) -> Result<(Study, String)> {
    let (text, name) = match spec {
        Some(path) => (
            crate::fs::read_text(path, crate::fs::MAX_SMALL_FILE)
                .map_err(|e| anyhow::anyhow!("study spec {e}"))?,
            path.display().to_string(),
        ),
        None => (DEFAULT_SPEC.to_string(), DEFAULT_SPEC_PATH.to_string()),
    };
    // A bad override is the flag's fault, not the spec file's: say so.
    if overrides.surfaces == Some(0) {
        bail!("--surfaces 0: must be at least 1");
    }
    if let Some(tools) = overrides.tools {
        let max = crate::study::spec::MAX_TOOLS;
        if tools == 0 || tools > max {
            bail!("--tools {tools}: must be between 1 and {max}");
        }
    }
    let mut spec = StudySpec::parse(&text, &name)?;
    spec.seed = overrides.seed.unwrap_or(spec.seed);
    spec.surfaces = overrides.surfaces.unwrap_or(spec.surfaces);
    spec.tools = overrides.tools.unwrap_or(spec.tools);
    Ok((spec.resolve(&name)?, name))
}

pub fn run(args: Args) -> Result<u8> {
    let started = Instant::now();
    set_threads(args.threads)?;
    let (study, _) = load(args.spec.as_deref(), &args.overrides)?;
    let shard = args
        .shard
        .map(|(k, n)| Shard::of(k, n, study.spec.surfaces));
    let out = args.out.clone().unwrap_or_else(|| {
        let name = match shard {
            Some(s) => format!("{}-shard-{}-of-{}", study.spec.id, s.index, s.count),
            None => study.spec.id.clone(),
        };
        Path::new("results").join(name)
    });
    // Everything is written into a staging folder beside `out` and swapped in at the end.
    let staged = output::StagedFolder::begin(&out).map_err(anyhow::Error::msg)?;
    guard_existing(&out, &study.spec, shard, args.rows, args.force)?;
    let dir = staged.path().to_path_buf();

    let range = shard.map_or(0..study.spec.surfaces, |s| s.first..s.end);
    let progress = progress_bar(range.end - range.start, args.quiet);
    let rows_path = dir.join(output::ROWS);
    let mut rows = match args.rows {
        RowsMode::None => None,
        _ => Some(csv::Writer::from_writer(
            AtomicFile::create(&rows_path)
                .with_context(|| format!("cannot write {}", rows_path.display()))?,
        )),
    };
    let mut summary = runner::run_range(
        &study,
        range,
        args.rows,
        |chunk: &[Row]| -> Result<()> {
            if let Some(writer) = rows.as_mut() {
                for row in chunk {
                    writer.serialize(row).with_context(|| {
                        format!("cannot write {}", out.join(output::ROWS).display())
                    })?;
                }
            }
            Ok(())
        },
        &|done| progress.inc(done),
    )?;
    progress.finish_and_clear();
    if let Some(writer) = rows {
        writer
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(AtomicFile::commit)
            .with_context(|| format!("cannot write {}", out.join(output::ROWS).display()))?;
    }
    summary.shard = shard;

    let finished = Finish {
        out: &dir,
        spec: &study.spec,
        rule_set: study.rule_set,
        command: reproduce_command(&args),
        research: artifacts::research_dir(args.spec.as_deref()),
        rows: args.rows,
        figures: !args.no_figures && shard.is_none(),
        started,
    };
    let files = finished.write(&summary)?;
    staged.commit().map_err(anyhow::Error::msg)?;
    if !args.quiet {
        if let Some(s) = shard {
            outln!(
                "shard {}/{}: surfaces {} to {} of 0 to {} (merge all shards with `driftlab merge`)\n",
                s.index,
                s.count,
                s.first,
                s.end.saturating_sub(1),
                study.spec.surfaces.saturating_sub(1)
            );
        }
        out!("{}", table::headline(&summary));
        outln!("\nresults: {}/ ({})", out.display(), files.join(", "));
    }
    Ok(super::exit::PASS)
}

/// Everything after the rows: summaries, figures, report, manifest. Shared by `study` and
/// `merge`, so a merged folder is written exactly as an unsharded run writes it.
pub(super) struct Finish<'a> {
    pub out: &'a Path,
    pub spec: &'a StudySpec,
    pub rule_set: &'a str,
    pub command: String,
    pub research: Option<String>,
    pub rows: RowsMode,
    pub figures: bool,
    pub started: Instant,
}

impl Finish<'_> {
    /// Writes every file but rows.csv; returns the names of all files in the folder.
    pub fn write(&self, summary: &Summary) -> Result<Vec<String>> {
        let out = self.out;
        write(
            out,
            output::SUMMARY_CSV,
            &output::csv_bytes(summary.csv_rows())?,
        )?;
        write(out, output::SUMMARY_JSON, &json_bytes(summary)?)?;
        write(
            out,
            output::METRICS_CSV,
            &output::csv_bytes(&summary.metrics)?,
        )?;

        let mut files: Vec<String> = Vec::new();
        if self.rows != RowsMode::None {
            files.push(output::ROWS.into());
        }
        files.extend(
            [
                output::SUMMARY_CSV,
                output::SUMMARY_JSON,
                output::METRICS_CSV,
            ]
            .map(String::from),
        );
        if self.figures {
            files.extend(artifacts::write_figures(out, summary)?);
        }
        let names: Vec<&str> = files.iter().map(String::as_str).collect();
        let mut manifest = Manifest {
            driftlab_version: env!("CARGO_PKG_VERSION").to_string(),
            seed: self.spec.seed,
            spec: self.spec.clone(),
            rule_set: self.rule_set.to_string(),
            rng: crate::rng::ALGORITHM.to_string(),
            command: self.command.clone(),
            research: self.research.clone(),
            rows: self.rows.as_str().to_string(),
            shard: summary.shard,
            files: output::hash_files(out, &names)?,
        };
        if self.figures {
            artifacts::write_report(out, summary, &manifest)?;
            manifest
                .files
                .extend(output::hash_files(out, &[output::REPORT])?);
            files.push(output::REPORT.into());
        }
        write(out, output::MANIFEST, &json_bytes(&manifest)?)?;
        files.push(output::MANIFEST.into());
        RunRecord::now(self.started).write(out)?;
        files.push(output::RUN_JSON.into());
        Ok(files)
    }
}

/// Refuses to overwrite another study's results (or a folder that holds other files), and to
/// replace a result with one that keeps fewer rows (`--rows none` over `--rows all`).
pub(super) fn guard_existing(
    out: &Path,
    spec: &StudySpec,
    shard: Option<Shard>,
    rows: RowsMode,
    force: bool,
) -> Result<()> {
    if force || !out.exists() {
        return Ok(());
    }
    if !out.is_dir() {
        bail!("{} exists and is not a folder", out.display());
    }
    let overwrite = "choose another folder with --out or overwrite with --force";
    match Manifest::read(out) {
        Some(m) if m.spec == *spec && m.shard == shard => {
            let kept = RowsMode::parse(&m.rows);
            if rows.evidence() < kept.evidence() {
                bail!(
                    "{} holds rows.csv with {} rows; --rows {} would discard them: {overwrite}",
                    out.display(),
                    kept.as_str(),
                    rows.as_str()
                );
            }
            Ok(())
        }
        Some(m) => bail!(
            "{} holds results of a different study or shard (id {}, seed {}, {} surfaces, {} tools{}); {overwrite}",
            out.display(),
            m.spec.id,
            m.spec.seed,
            m.spec.surfaces,
            m.spec.tools,
            m.shard.map_or(String::new(), |s| format!(", shard {}/{}", s.index, s.count))
        ),
        None if output::folder::entry_names(out).is_empty() => Ok(()),
        None => bail!(
            "{} is not empty and has no {}: not a driftlab results folder; {overwrite}",
            out.display(),
            output::MANIFEST
        ),
    }
}

/// The command that reproduces the (unsharded) results.
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
        (
            "--rows",
            (args.rows != RowsMode::All).then(|| args.rows.as_str().to_string()),
        ),
    ] {
        if let Some(value) = value {
            command.push_str(&format!(" {flag} {value}"));
        }
    }
    command
}

/// Sizes the worker pool (`-j N`); without it rayon's default (one per core, or
/// RAYON_NUM_THREADS) stands.
pub(super) fn set_threads(threads: Option<usize>) -> Result<()> {
    match threads {
        Some(0) => bail!("--threads 0: give at least 1 (omit it for one per core)"),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| anyhow::anyhow!("cannot start {n} threads: {e}")),
        None => Ok(()),
    }
}

pub(super) fn progress_bar(total: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    // Under 80 columns even at 1,000,000 surfaces; a whole-number rate ("2849/s").
    if let Ok(style) =
        ProgressStyle::with_template("{bar:24} {pos}/{len} surfaces {rate} eta {eta}")
    {
        bar.set_style(style.with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0}/s", state.per_sec());
            },
        ));
    }
    bar
}

/// Pretty JSON with a trailing newline.
pub(super) fn json_bytes<T: serde::Serialize>(value: &T) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    Ok(bytes)
}
