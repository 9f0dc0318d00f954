//! `check --lock`'s work: every server the plan runs is captured and gated against its lock
//! entry (plus the `launch-changed` finding when its config entry changed), each finding placed
//! in the lockfile, and the servers the plan does not run reported with why. The report is
//! [`LockReport`]; the command line only prints it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use super::capture::{capture_each, Captured, NotCaptured, ToCapture};
use super::check::{artifact_change, launch_change, Plan};
use super::Lockfile;
use driftlab_check::check::{FailOn, Finding, Rule};
use driftlab_check::verdict::{evaluate_with, Outcome, ResolvedPolicy};
use driftlab_contract::payload::PayloadError;
use driftlab_contract::surface::Surface;
use driftlab_report::report::anchor::{self as placing, Anchor, Side};
use driftlab_report::report::region::{Locator, Place};
use driftlab_report::report::servers::{LockReport, ServerGate, ServerState};
use driftlab_report::report::GateReport;

/// How each server is gated.
pub struct GateSettings<'a> {
    /// The rules each server's contract is diffed with.
    pub rules: &'a [&'static dyn Rule],
    /// The policy (severities and waivers).
    pub policy: &'a ResolvedPolicy,
    /// The severity a server fails at.
    pub fail_on: FailOn,
    /// Compare tools only, not the rest of the contract.
    pub tools_only: bool,
    /// How long to wait for each answer of a server.
    pub timeout: Duration,
    /// The largest message a server may send.
    pub max_bytes: usize,
    /// Servers captured at once.
    pub jobs: usize,
    /// Where findings are placed (the lockfile's repository-relative URI), when they are.
    pub anchor_uri: Option<String>,
}

/// A server gated against its entry, with what its report borrows.
pub struct Checked {
    /// The server's name.
    pub name: String,
    /// How the approved side is named in reports (the lockfile's entry).
    pub approved: String,
    /// How the candidate side is named (the live server).
    pub candidate: String,
    /// What the gate found.
    pub outcome: Outcome,
    /// Where findings are placed in the lockfile, when they are.
    pub anchor: Option<Anchor>,
}

/// Why a server of the plan was not gated.
pub enum NotGated {
    /// Not started (it needs a person's input, OAuth, ...): reported, does not fail.
    Skipped(String),
    /// The config has it and the lock does not vouch for it: fails.
    Unlocked(String),
    /// The lock has it and the config no longer does: fails (the lock is stale).
    Removed,
}

/// Every server of a `check --lock` run.
pub struct LockGate {
    /// The lockfile, as reports name it.
    pub lock_name: String,
    /// The severity a server fails at.
    pub fail_on: FailOn,
    /// The servers gated.
    pub checked: Vec<Checked>,
    /// Per server in plan order: its index in `checked`, or why it was not gated.
    pub states: Vec<(String, Result<usize, NotGated>)>,
    /// Servers that could not be captured, one line each: the lock is not verified.
    pub failures: Vec<String>,
}

impl LockGate {
    /// Gates every server of `plans` (what [`super::check::plan`] decided); `note` hears one
    /// line per gated server.
    pub fn run(
        lock: &Lockfile,
        lock_text: &str,
        lock_name: &str,
        plans: Vec<(String, Plan<'_>)>,
        settings: &GateSettings<'_>,
        note: &(dyn Fn(&str) + Sync),
    ) -> Result<LockGate, PayloadError> {
        // The code under each unchanged launch is checked before anything starts: a server
        // whose code is not what was locked is not run (the injected code would run with it).
        let mut code_changed: HashMap<String, Finding> = HashMap::new();
        for (name, plan) in &plans {
            if let Plan::Run(configured, index) = plan {
                let locked = &lock.servers[*index];
                if let Some(why) = locked.artifact.as_ref().and_then(|a| a.not_pinned.as_ref()) {
                    note(&format!("warning: {name}: its code is {why}"));
                }
                if launch_change(locked, configured).is_none() {
                    if let Some(finding) = artifact_change(locked, configured) {
                        note(&format!(
                            "{name}: not started: the code it runs is not what was locked"
                        ));
                        code_changed.insert(name.clone(), finding);
                    }
                }
            }
        }
        let mut captures = capture_runs(&plans, &code_changed, settings, note).into_iter();
        let mut gate = LockGate {
            lock_name: lock_name.to_string(),
            fail_on: settings.fail_on,
            checked: Vec::new(),
            states: Vec::new(),
            failures: Vec::new(),
        };
        for (name, plan) in plans {
            let (configured, index) = match plan {
                Plan::Run(configured, index) => (configured, index),
                Plan::Skipped(why) => {
                    gate.states.push((name, Err(NotGated::Skipped(why))));
                    continue;
                }
                Plan::Unlocked(why) => {
                    gate.states.push((name, Err(NotGated::Unlocked(why))));
                    continue;
                }
                Plan::Removed => {
                    gate.states.push((name, Err(NotGated::Removed)));
                    continue;
                }
            };
            let locked = &lock.servers[index];
            let approved = locked
                .surface(lock_name)?
                .expect("a locked server has a contract");
            let captured = match code_changed.get(&name) {
                // Not started: its contract is not compared, its code is the finding.
                Some(_) => Ok(Captured {
                    surface: approved.clone(),
                    protocol: super::LockedProtocol {
                        version: None,
                        era: String::new(),
                    },
                }),
                None => captures.next().expect("a capture per server run"),
            };
            let surface = match captured {
                Ok(Captured { surface, .. }) => surface,
                Err(NotCaptured::NeedsAuthorization(why)) => {
                    gate.states.push((name, Err(NotGated::Skipped(why))));
                    continue;
                }
                Err(NotCaptured::Failed(why)) => {
                    gate.failures.push(format!("server {name:?}: {why}"));
                    continue;
                }
            };
            let launch = launch_change(locked, configured);
            // The code under an unchanged launch; a changed launch vouches for nothing anyway.
            let artifact = code_changed.remove(&name);
            let started = artifact.is_none();
            let extra = launch.into_iter().chain(artifact).collect();
            let scope = |s: Surface| match settings.tools_only {
                true => s.with_contract(None),
                false => s,
            };
            let pinned = scope(approved.clone());
            let outcome = evaluate_with(
                settings.rules,
                &pinned,
                &scope(surface),
                Some(&pinned),
                extra,
                &settings.policy.for_server(&name),
                settings.fail_on,
            );
            let anchor = settings.anchor_uri.as_ref().map(|uri| Anchor {
                uri: uri.clone(),
                places: places(lock_text, index, &approved, &outcome.findings),
            });
            note(&format!(
                "{name}: {} ({} finding(s))",
                outcome.verdict.as_str(),
                outcome.findings.len()
            ));
            gate.states.push((name.clone(), Ok(gate.checked.len())));
            gate.checked.push(Checked {
                approved: format!("{lock_name} [{name}]"),
                candidate: format!(
                    "{}:{}",
                    // A server whose code changed was not run: its contract is not compared.
                    if started { "live" } else { "not started" },
                    driftlab_contract::text::shorten(&configured.written.display(), 80)
                ),
                name,
                outcome,
                anchor,
            });
        }
        Ok(gate)
    }

    /// The report of every server, in plan order.
    pub fn report(&self) -> LockReport<'_> {
        LockReport {
            lock: &self.lock_name,
            fail_on: self.fail_on,
            servers: self
                .states
                .iter()
                .map(|(name, state)| ServerGate {
                    name: name.clone(),
                    state: match state {
                        Ok(i) => ServerState::Checked(gate_report(&self.checked[*i])),
                        Err(NotGated::Skipped(why)) => ServerState::Skipped(why.clone()),
                        Err(NotGated::Unlocked(why)) => ServerState::Unlocked(why.clone()),
                        Err(NotGated::Removed) => ServerState::Removed,
                    },
                })
                .collect(),
        }
    }
}

/// The capture of every server the plans run, in plan order, `settings.jobs` at once; `note`
/// hears each one's own time, in order.
fn capture_runs(
    plans: &[(String, Plan<'_>)],
    not_started: &HashMap<String, Finding>,
    settings: &GateSettings<'_>,
    note: &(dyn Fn(&str) + Sync),
) -> Vec<Result<Captured, NotCaptured>> {
    let runs: Vec<(&str, ToCapture<'_>)> = plans
        .iter()
        .filter_map(|(name, plan)| match plan {
            Plan::Run(configured, _) if !not_started.contains_key(name) => {
                let start = configured.start.as_ref().ok()?;
                let written = &configured.written;
                Some((name.as_str(), ToCapture { start, written }))
            }
            _ => None,
        })
        .collect();
    let (names, servers): (Vec<&str>, Vec<ToCapture<'_>>) = runs.into_iter().unzip();
    let results = Mutex::new(Vec::with_capacity(servers.len()));
    let (timeout, max_bytes) = (settings.timeout, settings.max_bytes);
    capture_each(
        &servers,
        timeout,
        max_bytes,
        settings.jobs,
        &|i, result, took| {
            let how = match &result {
                Ok(_) => "captured",
                Err(_) => "not captured",
            };
            note(&format!(
                "{}: {how} in {:.2} s",
                names[i],
                took.as_secs_f64()
            ));
            results
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(result);
        },
    );
    results.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// Each finding's place in the lockfile: inside the server's `contract`, or its `launch`.
fn places(lock_text: &str, index: usize, approved: &Surface, findings: &[Finding]) -> Vec<Place> {
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
        let member = match finding.rule {
            "launch-changed" => "launch",
            "artifact-changed" => "artifact",
            _ => continue,
        };
        if let Some(found) = locator.locate(&format!("{server}/{member}")) {
            *place = found;
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
