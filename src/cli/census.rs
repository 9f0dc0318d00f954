//! `driftlab census`: replay the release history of real MCP servers and say how often a
//! release breaks its callers, and whether its version number said so.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Result};

use driftlab_record::provenance::Provenance;
use driftlab_study::census::sandbox::{self, Sandbox};
use driftlab_study::census::shard::{self, ShardFile};
use driftlab_study::census::spec::CensusSpec;
use driftlab_study::census::version::Scheme;
use driftlab_study::census::{self, online, scratch, write};

/// Replay the release history of MCP servers from npm and PyPI: install each chosen release
/// into a fresh folder of its own (npm with --ignore-scripts, a venv per PyPI release, wheels
/// only) and capture its whole contract, every step in bubblewrap (a cleared environment, no
/// /proc of driftlab, a tmpfs HOME and /tmp, limits on processes, file size and memory; the
/// server without network), diff each pair of consecutive releases (version order) with
/// witnesses, and set the version bump beside what broke. Without a working bwrap a census
/// refuses to run, unless --no-sandbox.
///
/// Captures are kept in OUT/captures/ and never fetched twice; releases.csv, pairs.csv,
/// findings.csv, summary.json, report.md, the census-timeline, census-classes and census-bumps
/// figures (screen and print) and manifest.json are derived from them alone, so `--offline`
/// rewrites the same bytes with no network. A census runs other people's code: each command is printed first and a terminal
/// asked (--yes for CI). Method and spec format: docs/census.md.
#[derive(clap::Args)]
#[command(after_help = "Example:\n  \
    driftlab census research/2026-12-05-mcp-census/census.toml --yes\n  \
    driftlab census research/2026-12-05-mcp-census/census.toml --offline")]
pub struct Args {
    /// The census spec (TOML).
    spec: PathBuf,
    /// The results folder, captures included [default: results/<id of the spec>].
    #[arg(long, short, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Derive from the captures already in the folder: no install, no server, no network.
    #[arg(long)]
    offline: bool,
    /// Install and run the releases without asking (CI).
    #[arg(long, short = 'y')]
    yes: bool,
    /// Write into a folder that holds files a census does not write.
    #[arg(long)]
    force: bool,
    /// Run installs and servers on this machine unconfined, with the network (no bwrap needed);
    /// every row, the summary and the report then say `unsandboxed`.
    #[arg(long)]
    no_sandbox: bool,
    /// Run only shard K of N (1-based): packages ⌊(K−1)·P/N⌋ to ⌊K·P/N⌋−1 of the spec's P,
    /// into results/<id>-shard-K-of-N by default; `driftlab merge` joins all N into the
    /// unsharded census's bytes. `auto` reads K and N from the batch system
    /// (DRIFTLAB_SHARD_INDEX/_COUNT, JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID/_COUNT).
    #[arg(long, value_name = "K/N", value_parser = super::shard::parse)]
    shard: Option<super::shard::ShardChoice>,
}

pub fn run(args: Args) -> Result<u8> {
    let text =
        std::fs::read_to_string(&args.spec).map_err(|e| anyhow!("{}: {e}", args.spec.display()))?;
    let whole = CensusSpec::parse(&text).map_err(|e| anyhow!("{}: {e}", args.spec.display()))?;
    // As the other studies do: the command names the spec's own folder, so a copy written
    // elsewhere (a test's) has the same bytes.
    let command = format!(
        "driftlab census {} --offline --out results/{}",
        args.spec.display(),
        whole.id
    );
    let shard = match args.shard {
        Some(choice) => Some(choice.resolve().map_err(|e| anyhow!(e))?),
        None => None,
    };
    let (spec, folder_name, shard_file) = match shard {
        None => (whole.clone(), whole.id.clone(), None),
        Some((k, n)) => {
            let record = ShardFile::new(&text, &whole, k, n, &command);
            eprintln!(
                "driftlab census: shard {k}/{n}: packages {} of {}",
                record.packages.len(),
                whole.packages.len()
            );
            let name = format!("{}-shard-{k}-of-{n}", whole.id);
            (whole.shard(k, n), name, Some(record))
        }
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(&folder_name));
    let mut ours = write::file_names();
    ours.extend([write::CAPTURES.to_string(), "run.json".to_string()]);
    if shard_file.is_some() {
        ours.push(shard::SHARD_FILE.to_string());
    }
    driftlab_study::study::results::staging::refuse_foreign(
        &out,
        |name| ours.iter().any(|o| o == name),
        "a census",
        args.force,
    )?;
    if args.offline {
        if !out.join(write::CAPTURES).is_dir() {
            bail!(
                "{}: no captures/ to derive from; run without --offline first",
                out.display()
            );
        }
    } else {
        // Everything a release runs is found and the sandbox tried before consent is asked:
        // a census that cannot confine what it runs runs nothing.
        let tools =
            scratch::Tools::find(&spec).map_err(|e| anyhow!("{}: {e}", args.spec.display()))?;
        let sandbox = match args.no_sandbox {
            true => None,
            false => Some(Sandbox::probe(tools.roots()).map_err(|why| {
                anyhow!(
                    "the census sandbox does not work here: {why}; {}",
                    sandbox::HOW_TO_INSTALL
                )
            })?),
        };
        super::consent::ask(
            &format!(
                "about to install and run the releases {} names",
                args.spec.display()
            ),
            &commands(&spec, &tools, args.no_sandbox),
            args.yes,
            "a census installs and runs other people's code: give --yes to allow it where no \
             terminal can ask (CI)",
        )?;
        eprintln!(
            "driftlab census: {}",
            match &sandbox {
                Some(_) => "every install and server runs in bwrap, each release in a folder of its own; servers without network",
                None => "UNSANDBOXED (--no-sandbox): installs and servers run on this machine with the network; every row says so",
            }
        );
        // A new folder of a random name, mode 0700, removed when the census ends.
        let scratch = scratch::Scratch::create(tools, sandbox)
            .map_err(|e| anyhow!("cannot make a scratch folder: {e}"))?;
        let _remove = driftlab_contract::cleanup::remove_on_signal(scratch.root().to_path_buf());
        let fetched = census::fetch(&spec, &out.join(write::CAPTURES), &scratch, &|line| {
            eprintln!("driftlab census: {line}")
        });
        drop(scratch);
        fetched.map_err(|e| anyhow!(e))?;
    }
    let (command, extra) = match (&shard_file, shard) {
        (Some(record), Some((k, n))) => (
            format!(
                "driftlab census {} --offline --shard {k}/{n} --out results/{folder_name}",
                args.spec.display()
            ),
            vec![record.file().map_err(|e| anyhow!(e))?],
        ),
        _ => (command, Vec::new()),
    };
    // The inputs are the spec's folder; the releases ran in installs of their own, recorded in
    // the captures, so no environment is pinned (and --offline rewrites the same bytes).
    let provenance = Provenance::of_spec(&args.spec, &[], &out)
        .map_err(|e| anyhow!("hashing the inputs beside {}: {e}", args.spec.display()))?;
    let (census, names) = census::derive_and_write(&spec, &out, (&command, &provenance), extra)
        .map_err(|e| anyhow!(e))?;
    eprintln!(
        "driftlab census: {} releases, {} pairs; wrote {} to {}",
        census.releases.len(),
        census.pairs.len(),
        names.join(", "),
        out.display()
    );
    outln!("{}", write::headline(&census));
    Ok(super::exit::PASS)
}

/// What the census will run, per package, for the consent prompt.
fn commands(spec: &CensusSpec, tools: &scratch::Tools, no_sandbox: bool) -> Vec<String> {
    let sandbox = match no_sandbox {
        true => "(UNSANDBOXED, with the network)",
        false => "(in bwrap, without network)",
    };
    let install = match no_sandbox {
        true => "(UNSANDBOXED)",
        false => "(in bwrap, a folder of its own)",
    };
    let registry = spec.npm_registry.as_deref().unwrap_or(online::NPM_REGISTRY);
    let index = spec.pypi_index.as_deref().unwrap_or(online::PYPI_INDEX);
    let mut lines = Vec::new();
    for package in &spec.packages {
        let Ok(p) = package.package() else { continue };
        let env: Vec<String> = package.env.keys().map(|k| format!("{k}=…")).collect();
        let run = |program: String| {
            let mut words = vec![
                sandbox.to_string(),
                "with only PATH HOME TMPDIR".to_string(),
            ];
            words.extend(env.iter().cloned());
            words.push(program);
            words.extend(package.args.iter().cloned());
            words.join(" ")
        };
        match p.scheme {
            Scheme::Npm => {
                lines.push(format!(
                    "{} npm install --ignore-scripts {}@<each release> --registry {registry} --before=<its publish time>",
                    install, p.name
                ));
                lines.push(format!(
                    "  then: {}",
                    run(format!(
                        "node <its bin{}>",
                        package
                            .bin
                            .as_deref()
                            .map(|b| format!(" {b}"))
                            .unwrap_or_default()
                    ))
                ));
            }
            Scheme::Pypi => {
                let installer = match &tools.uv {
                    Some(uv) => format!(
                        "{} pip install --exclude-newer=<its upload time>",
                        uv.display()
                    ),
                    None => "pip install (no uv: dependencies as of today)".to_string(),
                };
                lines.push(format!(
                    "{} {} -m venv, then {installer} --only-binary=:all: {}==<each release> --index-url {index}",
                    install,
                    spec.python.as_deref().unwrap_or("python3"),
                    p.name
                ));
                let program = match (&package.script, &package.module) {
                    (Some(script), _) => script.clone(),
                    (None, Some(module)) => format!("python -m {module}"),
                    (None, None) => String::new(),
                };
                lines.push(format!("  then: {}", run(program)));
            }
        }
    }
    lines
}
