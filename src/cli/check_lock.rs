//! `driftlab check --lock`: gate every server of a client config against its lockfile entry, in
//! one run: one verdict per server, one overall exit code.

use std::io::IsTerminal;
use std::path::Path;

use anyhow::{anyhow, bail, Result};
use serde_json::Value;

use super::gate::{self, GateOptions};
use super::live::{scoped, ServerArgs};
use super::servers::{self, Captured, ConfigArgs, NotCaptured};
use crate::check::rules::LaunchChanged;
use crate::check::Finding;
use crate::config::ConfiguredServer;
use crate::lock::{self, LockedServer, Lockfile, Package};
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

/// What happens to one server of the run.
enum Plan<'c> {
    Run(&'c ConfiguredServer, usize),
    Skipped(String),
    Unlocked(String),
    Removed,
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

/// Which servers run and what happens to the others: the config's servers in its order, then
/// those only the lock has (`--server` narrows both).
fn plan<'c>(
    lock: &Lockfile,
    config: &'c crate::config::ClientConfig,
    only: &[String],
) -> Result<Vec<(String, Plan<'c>)>> {
    for name in only {
        if config.server(name).is_none() && lock.server(name).is_none() {
            bail!("--server {name}: neither the config nor the lockfile has such a server");
        }
    }
    let wanted = |name: &str| only.is_empty() || only.iter().any(|n| n == name);
    let mut plans = Vec::new();
    for configured in config.servers.iter().filter(|s| wanted(&s.name)) {
        let name = configured.name.clone();
        let index = lock.servers.iter().position(|s| s.name == name);
        let plan = match (index, &configured.start) {
            (None, _) => Plan::Unlocked(format!(
                "the config has it and the lockfile does not (`driftlab lock --update {name}` records it)"
            )),
            (Some(_), Err(why)) => Plan::Skipped(why.clone()),
            (Some(i), Ok(_)) => match &lock.servers[i].skipped {
                Some(why) => Plan::Unlocked(format!(
                    "locked as skipped ({why}); it can start now: `driftlab lock --update {name}` records it"
                )),
                None => Plan::Run(configured, i),
            },
        };
        plans.push((name, plan));
    }
    for locked in lock.servers.iter().filter(|s| wanted(&s.name)) {
        if config.server(&locked.name).is_none() {
            plans.push((locked.name.clone(), Plan::Removed));
        }
    }
    Ok(plans)
}

/// `launch-changed` when the config starts the server otherwise than the lock recorded.
fn launch_change(locked: &LockedServer, configured: &ConfiguredServer) -> Option<Finding> {
    let launch = configured.written.to_json();
    let package = super::lock::package_of(configured);
    let same_package = |a: &Option<Package>, b: &Option<Package>| {
        let key = |p: &Option<Package>| {
            p.as_ref()
                .map(|p| (p.ecosystem.clone(), p.name.clone(), p.version.clone()))
        };
        key(a) == key(b)
    };
    if locked.launch == launch && same_package(&locked.package, &package) {
        return None;
    }
    Some(LaunchChanged::finding(
        describe(&locked.launch, locked.package.as_ref()),
        describe(&launch, package.as_ref()),
    ))
}

/// `npx -y x@1 [npm x@1]`, on one line.
fn describe(launch: &Value, package: Option<&Package>) -> String {
    let what = match (launch.get("command"), launch.get("url")) {
        (Some(Value::Array(argv)), _) => argv
            .iter()
            .map(|w| w.as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join(" "),
        (_, Some(Value::String(url))) => url.clone(),
        _ => launch.to_string(),
    };
    let what = crate::text::shorten(&what, 160);
    match package {
        Some(p) => format!("{what} [{}]", p.describe()),
        None => what,
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Start, Written};

    fn configured(argv: &[&str]) -> ConfiguredServer {
        let argv: Vec<String> = argv.iter().map(|w| w.to_string()).collect();
        ConfiguredServer {
            name: "s".into(),
            written: Written::Command(argv.clone()),
            start: Ok(Start::Stdio {
                argv,
                env: Vec::new(),
                cwd: None,
            }),
        }
    }

    fn locked(argv: &[&str]) -> LockedServer {
        let server = configured(argv);
        LockedServer::skipped(
            "s",
            server.written.to_json(),
            super::super::lock::package_of(&server),
            "",
        )
    }

    #[test]
    fn launch_changed_names_the_old_and_new_launch_and_package() {
        let npx = ["npx", "-y", "@acme/server@1.0.0"];
        assert!(launch_change(&locked(&npx), &configured(&npx)).is_none());
        let bumped = launch_change(
            &locked(&npx),
            &configured(&["npx", "-y", "@acme/server@1.1.0"]),
        )
        .expect("a new version is a changed launch");
        assert_eq!(bumped.rule, "launch-changed");
        assert_eq!(bumped.severity, crate::check::Severity::Unknown);
        assert_eq!(
            bumped.old.as_deref(),
            Some("npx -y @acme/server@1.0.0 [npm @acme/server@1.0.0]")
        );
        assert_eq!(
            bumped.new.as_deref(),
            Some("npx -y @acme/server@1.1.0 [npm @acme/server@1.1.0]")
        );
        let args = launch_change(
            &locked(&npx),
            &configured(&["npx", "-y", "@acme/server@1.0.0", "--ro"]),
        );
        assert!(args.is_some());
    }
}
