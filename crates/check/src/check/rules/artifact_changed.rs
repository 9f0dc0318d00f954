//! `artifact-changed`: the code a locked server runs is not what was locked, under the same
//! command, package and version (a local edit, a republished tag, a tampered cache). Its
//! contract may be identical; the lock vouched for the code too. Judged by `driftlab check
//! --lock` from the lockfile's `artifact` digest ([`crate::lock::artifact`]).

use crate::check::{Comparison, Finding, Rule, RuleKind, Severity};

/// The `artifact-changed` rule (its findings are made by `lock::check`).
pub struct ArtifactChanged;

impl Rule for ArtifactChanged {
    fn id(&self) -> &'static str {
        "artifact-changed"
    }
    fn added_in(&self) -> &'static str {
        "2026-12-05"
    }
    fn severity(&self) -> Severity {
        Severity::Breaking
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Lock
    }
    fn summary(&self) -> &'static str {
        "check --lock: the installed code the server runs (package files, a distribution's RECORD files, a pinned image digest or the entry file) differs from what was locked under the same launch: a server swapped in place (`driftlab lock --update NAME` re-records it once reviewed)"
    }
    fn source(&self) -> &'static str {
        "driftlab lockfile (docs/lock.md): the artifact digest pins the code under a version"
    }
    fn part(&self) -> &'static str {
        "server"
    }
    fn check(&self, _: &Comparison<'_>, _: &mut Vec<Finding>) {}
}

impl ArtifactChanged {
    /// The finding for a server whose artifact went from `old` to `new` (`None`: unreadable now).
    pub fn finding(what: &str, old: &str, new: Option<&str>) -> Finding {
        let now = new.unwrap_or("no longer readable");
        let mut finding = Finding::at(
            &ArtifactChanged,
            None,
            "/artifact".into(),
            format!("the code the server runs changed under the same launch: {what} was {old}, is {now}"),
        );
        finding.old = Some(old.to_string());
        finding.new = Some(now.to_string());
        finding.subject = Some("artifact".into());
        finding
    }
}
