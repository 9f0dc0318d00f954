//! `check --lock` reports: one gate per server of a lockfile. A checked server's part is its own
//! gate report (so it reads as `check --approved` does); a server that was not checked says
//! why. Each output format renders it beside the gate report (`Render::servers`, in the
//! format's own file).

use super::GateReport;
use driftlab_check::verdict::{FailOn, Verdict};

/// One server's part of the run.
pub enum ServerState<'a> {
    /// Gated against its lock entry.
    Checked(GateReport<'a>),
    /// Not started (it needs a person's input, OAuth, ...): reported, does not fail.
    Skipped(String),
    /// The config has it and the lock does not vouch for it: fails.
    Unlocked(String),
    /// The lock has it and the config no longer does: fails (the lock is stale).
    Removed,
}

/// One server of a `check --lock` run and what became of it.
pub struct ServerGate<'a> {
    /// The server's name in the config.
    pub name: String,
    /// Checked, skipped, unlocked or removed.
    pub state: ServerState<'a>,
}

impl ServerGate<'_> {
    /// Whether the server fails the run: drift, or a server the lock does not vouch for.
    pub fn fails(&self) -> bool {
        match &self.state {
            ServerState::Checked(report) => report.outcome.verdict == Verdict::Drift,
            ServerState::Skipped(_) => false,
            ServerState::Unlocked(_) | ServerState::Removed => true,
        }
    }

    /// `PASS`, `DRIFT`, `SKIPPED`, `UNLOCKED` or `REMOVED`.
    pub fn status(&self) -> &'static str {
        match &self.state {
            ServerState::Checked(r) if r.outcome.verdict == Verdict::Pass => "PASS",
            ServerState::Checked(_) => "DRIFT",
            ServerState::Skipped(_) => "SKIPPED",
            ServerState::Unlocked(_) => "UNLOCKED",
            ServerState::Removed => "REMOVED",
        }
    }

    /// Why a server that was not checked was not, in one line.
    pub(super) fn why(&self) -> String {
        match &self.state {
            ServerState::Checked(_) => String::new(),
            ServerState::Skipped(why) => why.clone(),
            ServerState::Unlocked(why) => why.clone(),
            ServerState::Removed => {
                "locked, but the config no longer has it (`driftlab lock` re-records the config)"
                    .into()
            }
        }
    }
}

/// The whole run.
pub struct LockReport<'a> {
    /// The lockfile's path.
    pub lock: &'a str,
    /// The severity the run fails at.
    pub fail_on: FailOn,
    /// Every server, in config order.
    pub servers: Vec<ServerGate<'a>>,
}

impl LockReport<'_> {
    /// `DRIFT` when any server fails, else `PASS`.
    pub fn verdict(&self) -> Verdict {
        match self.servers.iter().any(ServerGate::fails) {
            true => Verdict::Drift,
            false => Verdict::Pass,
        }
    }

    /// `4 servers: 3 pass, 1 drift (memory), 1 skipped`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        for status in ["PASS", "DRIFT", "UNLOCKED", "REMOVED", "SKIPPED"] {
            let names: Vec<&str> = self
                .servers
                .iter()
                .filter(|s| s.status() == status)
                .map(|s| s.name.as_str())
                .collect();
            if !names.is_empty() {
                let label = status.to_ascii_lowercase();
                parts.push(match status {
                    "PASS" => format!("{} {label}", names.len()),
                    _ => format!("{} {label} ({})", names.len(), names.join(", ")),
                });
            }
        }
        format!("{} server(s): {}", self.servers.len(), parts.join(", "))
    }
}
