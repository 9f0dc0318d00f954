//! `launch-changed`: the config starts a server otherwise than the lockfile recorded (another
//! command, arguments, URL or package version). The lock vouches for the contract of what it
//! recorded; for anything else nothing is vouched, so the change is never passed silently.
//! Judged by `driftlab check --lock` from the lockfile; a surface does not carry its launch.

use crate::check::{Comparison, Finding, Rule, RuleKind, Severity};

/// The `launch-changed` rule (its findings are made by `lock::check`).
pub struct LaunchChanged;

impl Rule for LaunchChanged {
    fn id(&self) -> &'static str {
        "launch-changed"
    }
    fn added_in(&self) -> &'static str {
        "2026-12-03"
    }
    fn severity(&self) -> Severity {
        Severity::Unknown
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Lock
    }
    fn summary(&self) -> &'static str {
        "check --lock: the config starts the server otherwise than the lockfile recorded (command, arguments, URL or package version): the lock vouches for nothing else (`driftlab lock --update NAME` re-records it)"
    }
    fn source(&self) -> &'static str {
        "driftlab lockfile (docs/lock.md): a lock pins what runs as well as what it lists"
    }
    fn part(&self) -> &'static str {
        "server"
    }
    fn check(&self, _: &Comparison<'_>, _: &mut Vec<Finding>) {}
}

impl LaunchChanged {
    /// The finding for a server whose launch went from `old` to `new` (one line each).
    pub fn finding(old: String, new: String) -> Finding {
        let mut finding = Finding::at(
            &LaunchChanged,
            None,
            "/launch".into(),
            format!("the server is started otherwise than locked: {old} -> {new}"),
        );
        finding.old = Some(old);
        finding.new = Some(new);
        finding.subject = Some("launch".into());
        finding
    }
}
