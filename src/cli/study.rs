//! `driftlab study`: run a study (or one shard of it) and write its results folder.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Result};
use indicatif::{ProgressBar, ProgressStyle};

use driftlab_record::provenance::{CodeVersion, Provenance};
use driftlab_record::{Row, Shard};
use driftlab_study::study::headline as table;
use driftlab_study::study::results::{self, Finish, ResultsFolder};
use driftlab_study::study::runner::{self, RowsMode};
use driftlab_study::study::spec::{DEFAULT_SPEC, DEFAULT_SPEC_PATH};
use driftlab_study::study::{Study, StudySpec};

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
    /// Results folder. Default: results/<study-id>/, with `-seed-S`, `-surfaces-N`, `-tools-T`
    /// for each of those overridden (so the spec's own run is never replaced), and
    /// `-shard-K-of-N` for a shard.
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
    /// `driftlab merge`. Shards write no figures or report. `auto` reads K and N from the batch
    /// system (DRIFTLAB_SHARD_INDEX/_COUNT, JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID/_COUNT).
    #[arg(long, value_name = "K/N", value_parser = super::shard::parse)]
    shard: Option<super::shard::ShardChoice>,
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
            driftlab_contract::fs::read_text(path, driftlab_contract::fs::MAX_SMALL_FILE)
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
        let max = driftlab_study::study::spec::MAX_TOOLS;
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
    let shard = match args.shard {
        Some(choice) => {
            let (k, n) = choice.resolve().map_err(anyhow::Error::msg)?;
            Some(Shard::of(k, n, study.spec.surfaces))
        }
        None => None,
    };
    let out = args.out.clone().unwrap_or_else(|| {
        let id = default_name(&study.spec.id, &args.overrides);
        let name = match shard {
            Some(s) => format!("{id}-shard-{}-of-{}", s.index, s.count),
            None => id,
        };
        Path::new("results").join(name)
    });
    let provenance = provenance_of(args.spec.as_deref(), &study, &out)?;
    // Everything is written into a staging folder beside `out` and swapped in at the end.
    let folder = ResultsFolder::begin(&out, &study.spec, shard, args.rows, args.force)?;
    let range = shard.map_or(0..study.spec.surfaces, |s| s.first..s.end);
    let progress = progress_bar(range.end - range.start, args.quiet);
    let mut rows = folder.rows(args.rows)?;
    let mut summary = runner::run_range(
        &study,
        range,
        args.rows,
        |chunk: &[Row]| rows.as_mut().map_or(Ok(()), |file| file.write(chunk)),
        &|done| progress.inc(done),
    )?;
    progress.finish_and_clear();
    if let Some(file) = rows {
        file.commit()?;
    }
    summary.shard = shard;

    let finished = Finish {
        out: folder.path(),
        spec: &study.spec,
        rule_set: study.rule_set,
        command: reproduce_command(&args),
        research: results::research_dir(args.spec.as_deref()),
        rows: args.rows,
        figures: !args.no_figures && shard.is_none(),
        started,
        provenance,
    };
    let files = finished.write(&summary)?;
    folder.commit()?;
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

/// What a study's results are made from: the code, the spec's folder (an external checker's
/// scripts among it) and the environment its servers and checkers run in; for the embedded
/// default spec, which the manifest holds whole, the code alone.
pub(super) fn provenance_of(spec: Option<&Path>, study: &Study, out: &Path) -> Result<Provenance> {
    let Some(spec) = spec else {
        return Ok(Provenance {
            code: Some(CodeVersion::current()),
            ..Provenance::default()
        });
    };
    let commands: Vec<Vec<String>> = study
        .spec
        .gates
        .iter()
        .filter_map(|gate| gate.command.clone())
        .chain(study.spec.live.iter().map(|server| server.command.clone()))
        .collect();
    Provenance::of_spec(spec, &commands, out).map_err(|e| {
        anyhow::anyhow!(
            "hashing the inputs in the folder of {}: {e}",
            spec.display()
        )
    })
}

/// The default folder name of a run: the study's id, and the seed and sizes that override its
/// spec. A run of the spec as written goes to `results/<id>`; one at another seed or size goes
/// beside it, never into the folder of the spec's own run (which a checkout may hold), so its
/// Reproduce line runs as printed there too.
fn default_name(id: &str, o: &Overrides) -> String {
    let mut name = id.to_string();
    for (what, value) in [("seed", o.seed), ("surfaces", o.surfaces)] {
        if let Some(value) = value {
            name.push_str(&format!("-{what}-{value}"));
        }
    }
    if let Some(tools) = o.tools {
        name.push_str(&format!("-tools-{tools}"));
    }
    name
}

/// The command that reproduces the (unsharded) results. It names no `--out`: the results do
/// not depend on the folder (a merged run equals the unsharded one byte for byte), and the
/// default folder ([`default_name`]) of the line as printed holds the same study or nothing.
fn reproduce_command(args: &Args) -> String {
    let mut words = vec!["driftlab".to_string(), "study".into()];
    if let Some(spec) = &args.spec {
        words.push(spec.display().to_string());
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
            words.extend([flag.to_string(), value]);
        }
    }
    driftlab_contract::text::shell_line(&words)
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
