//! `driftlab check --lock`: gate every server of a client config against its lockfile entry, in
//! one run: one verdict per server, one overall exit code.

use std::io::IsTerminal;
use std::path::Path;

use anyhow::{anyhow, bail, Result};

use super::gate::{self, GateOptions};
use super::live::{Scope, ServerArgs};
use super::servers::{self, ConfigArgs};
use driftlab_check::verdict::{Outcome, Verdict};
use driftlab_lock::config::ConfiguredServer;
use driftlab_lock::lock::check::{plan, Plan};
use driftlab_lock::lock::gate::{GateSettings, LockGate};
use driftlab_lock::lock::Lockfile;

pub(super) fn run(
    lock_path: &Path,
    config_flag: Option<&Path>,
    select: &ConfigArgs,
    server: &ServerArgs,
    options: &GateOptions,
) -> Result<u8> {
    if options.anchor.is_some() || options.category.is_some() {
        bail!(
            "--anchor and --category do not apply to --lock: findings are placed in the lockfile, \
             and each server is its own SARIF category (driftlab/<server>/)"
        );
    }
    let (lock, lock_text) = Lockfile::read(lock_path)?;
    let config = select.read_locked(&lock, lock_path, config_flag)?;
    let config_path = config.path.clone();
    let plans = plan(&lock, &config, &select.servers)?;
    let to_run: Vec<&ConfiguredServer> = plans
        .iter()
        .filter_map(|(_, p)| match p {
            Plan::Run(server, _) => Some(*server),
            _ => None,
        })
        .collect();
    servers::consent(&config_path, &to_run, select.yes)?;
    let policy = gate::policy(options)?;
    let rules = driftlab_check::check::rules::gate_rules(gate::profiles(options), true);
    let timeout = super::live::timeout(server.timeout)?;
    let lock_name = lock_path.display().to_string();
    let anchor_uri = match options.format.places_findings() || options.sarif.is_some() {
        true => Some(
            driftlab_contract::fs::repository::relative_uri(lock_path).map_err(|e| {
                let why = driftlab_contract::text::with_causes(&e);
                anyhow!("SARIF and annotations are placed in the lockfile: {why}")
            })?,
        ),
        false => None,
    };
    let settings = GateSettings {
        rules: &rules,
        policy: &policy,
        fail_on: options.fail_on,
        tools_only: options.scope == Scope::Tools,
        timeout,
        max_bytes: options.max_bytes,
        jobs: select.jobs(),
        anchor_uri,
    };
    let note = |line: &str| eprintln!("driftlab: {line}");
    let gate = LockGate::run(&lock, &lock_text, &lock_name, plans, &settings, &note)?;
    let report = gate.report();
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let text = options.format.servers(&report, colour);
    if let Some(path) = &options.sarif {
        driftlab_contract::fs::write_atomic(
            path,
            driftlab_report::report::Format::Sarif
                .servers(&report, false)
                .as_bytes(),
        )
        .map_err(|e| anyhow!("--sarif {}: cannot write: {e}", path.display()))?;
    }
    out!("{text}");
    if !options.no_step_summary && std::env::var_os("GITHUB_STEP_SUMMARY").is_some() {
        gate::append_to_env_file(
            "GITHUB_STEP_SUMMARY",
            &format!(
                "{}\n",
                driftlab_report::report::Format::Markdown.servers(&report, false)
            ),
        );
    }
    let outcomes: Vec<Outcome> = gate.checked.iter().map(|c| c.outcome.clone()).collect();
    let verdict = report.verdict();
    gate::set_step_output_lines(verdict, &outcomes);
    if !gate.failures.is_empty() {
        for failure in &gate.failures {
            eprintln!("driftlab: {failure}");
        }
        bail!(
            "{} server(s) could not be captured, so the lock is not verified",
            gate.failures.len()
        );
    }
    Ok(match verdict {
        Verdict::Pass => super::exit::PASS,
        Verdict::Drift => super::exit::DRIFT,
    })
}
