//! `driftlab check --lock`: gate every server of a client config against its lockfile entry, in
//! one run: one verdict per server, one overall exit code.

use std::io::IsTerminal;
use std::path::Path;

use anyhow::{anyhow, bail, Result};

use super::gate::{self, GateOptions};
use super::live::{scoped, ServerArgs};
use super::servers::{self, Captured, ConfigArgs, NotCaptured};
use crate::check::Finding;
use crate::config::ConfiguredServer;
use crate::lock::check::{launch_change, plan, Plan};
use crate::lock::{self, Lockfile};
use crate::report::anchor::{self as placing, Anchor, Side};
use crate::report::region::Locator;
use crate::report::servers::{LockReport, ServerGate, ServerState};
use crate::report::GateReport;
use crate::verdict::{evaluate_with, Outcome, Verdict};

/// A server gated against its entry, with what its report borrows.
struct Checked {
    name: String,
    approved: String,
    candidate: String,
    outcome: Outcome,
    anchor: Option<Anchor>,
}

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
    let (lock, lock_text) = Lockfile::read(lock_path).map_err(|e| anyhow!(e))?;
    let config_path = match config_flag {
        Some(path) => path.to_path_buf(),
        None => lock::config_path_from_lock(&lock.config.path, lock_path),
    };
    let config = select.read(&config_path)?;
    let plans = plan(&lock, &config, &select.servers).map_err(|e| anyhow!(e))?;
    let to_run: Vec<&ConfiguredServer> = plans
        .iter()
        .filter_map(|(_, p)| match p {
            Plan::Run(server, _) => Some(*server),
            _ => None,
        })
        .collect();
    servers::consent(&config_path, &to_run, select.yes)?;
    let policy = gate::policy(options)?;
    let rules = gate::check_rules(options, true);
    let timeout = super::live::timeout(server.timeout)?;
    let lock_name = lock_path.display().to_string();
    let anchor_uri = match options.format.places_findings() || options.sarif.is_some() {
        true => Some(
            super::anchor::relative_uri(lock_path)
                .map_err(|e| anyhow!("SARIF and annotations are placed in the lockfile: {e:#}"))?,
        ),
        false => None,
    };
    let mut checked = Vec::new();
    let mut states: Vec<(String, Result<usize, ServerState<'static>>)> = Vec::new();
    let mut failures = Vec::new();
    for (name, plan) in plans {
        let (configured, index) = match plan {
            Plan::Run(configured, index) => (configured, index),
            Plan::Skipped(why) => {
                states.push((name, Err(ServerState::Skipped(why))));
                continue;
            }
            Plan::Unlocked(why) => {
                states.push((name, Err(ServerState::Unlocked(why))));
                continue;
            }
            Plan::Removed => {
                states.push((name, Err(ServerState::Removed)));
                continue;
            }
        };
        let locked = &lock.servers[index];
        let Ok(start) = &configured.start else {
            unreachable!("only servers that can start are run")
        };
        let captured = match servers::capture(start, timeout, options.max_bytes) {
            Ok(captured) => captured,
            Err(NotCaptured::NeedsAuthorization(why)) => {
                states.push((name, Err(ServerState::Skipped(why))));
                continue;
            }
            Err(NotCaptured::Failed(e)) => {
                failures.push(format!("server {name:?}: {e:#}"));
                continue;
            }
        };
        let Captured { surface, .. } = captured;
        let approved = locked
            .surface(&lock_name)
            .map_err(|e| anyhow!(e))?
            .expect("a locked server has a contract");
        let extra = launch_change(locked, configured).into_iter().collect();
        let pinned = scoped(approved.clone(), options.scope);
        let outcome = evaluate_with(
            &rules,
            &pinned,
            &scoped(surface, options.scope),
            Some(&pinned),
            extra,
            &policy,
            options.fail_on,
        );
        let anchor = anchor_uri.as_ref().map(|uri| Anchor {
            uri: uri.clone(),
            places: places(&lock_text, index, &approved, &outcome.findings),
        });
        eprintln!(
            "driftlab: {name}: {} ({} finding(s))",
            outcome.verdict.as_str(),
            outcome.findings.len()
        );
        states.push((name.clone(), Ok(checked.len())));
        checked.push(Checked {
            approved: format!("{lock_name} [{name}]"),
            candidate: format!(
                "live:{}",
                crate::text::shorten(&configured.written.display(), 80)
            ),
            name,
            outcome,
            anchor,
        });
    }
    let report = LockReport {
        lock: &lock_name,
        fail_on: options.fail_on,
        servers: states
            .into_iter()
            .map(|(name, state)| ServerGate {
                name,
                state: match state {
                    Ok(i) => ServerState::Checked(gate_report(&checked[i])),
                    Err(state) => state,
                },
            })
            .collect(),
    };
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let text = options.format.servers(&report, colour);
    if let Some(path) = &options.sarif {
        crate::fs::write_atomic(path, crate::report::servers::sarif(&report).as_bytes())
            .map_err(|e| anyhow!("--sarif {}: cannot write: {e}", path.display()))?;
    }
    out!("{text}");
    if !options.no_step_summary && std::env::var_os("GITHUB_STEP_SUMMARY").is_some() {
        gate::append_to_env_file(
            "GITHUB_STEP_SUMMARY",
            &format!("{}\n", crate::report::servers::markdown(&report)),
        );
    }
    let outcomes: Vec<Outcome> = checked.iter().map(|c| c.outcome.clone()).collect();
    let verdict = report.verdict();
    gate::set_step_output_lines(verdict, &outcomes);
    if !failures.is_empty() {
        for failure in &failures {
            eprintln!("driftlab: {failure}");
        }
        bail!(
            "{} server(s) could not be captured, so the lock is not verified",
            failures.len()
        );
    }
    Ok(match verdict {
        Verdict::Pass => super::exit::PASS,
        Verdict::Drift => super::exit::DRIFT,
    })
}

/// Each finding's place in the lockfile: inside the server's `contract`, or its `launch`.
fn places(
    lock_text: &str,
    index: usize,
    approved: &crate::surface::Surface,
    findings: &[Finding],
) -> Vec<crate::report::region::Place> {
    let server = format!("/servers/{index}");
    let mut places = placing::place_under(
        lock_text,
        &format!("{server}/contract"),
        Side::Approved,
        approved,
        findings,
    );
    let mut locator = Locator::new(lock_text);
    for (finding, place) in findings.iter().zip(&mut places) {
        if finding.rule == "launch-changed" {
            if let Some(found) = locator.locate(&format!("{server}/launch")) {
                *place = found;
            }
        }
    }
    places
}

fn gate_report(checked: &Checked) -> GateReport<'_> {
    GateReport {
        command: "check",
        approved: Some(&checked.approved),
        candidate: &checked.candidate,
        outcome: &checked.outcome,
        anchor: checked.anchor.as_ref(),
        category: Some(&checked.name),
    }
}
