//! The gate's decision: run rules on a pair of payloads, apply a policy, and decide pass or drift.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::check::{rules, run_rules, Baseline, Finding, Rule, Severity};
use driftlab_contract::surface::Surface;

pub use crate::check::FailOn;

/// The gate's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No finding fails the gate (exit code 0).
    Pass,
    /// Some finding does (exit code 1).
    Drift,
}

impl Verdict {
    /// `pass` or `drift`, as reports spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Drift => "drift",
        }
    }
}

/// A policy file: severity overrides per rule and findings accepted by fingerprint.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// A severity per rule id (`[severity]`).
    #[serde(default)]
    pub severity: BTreeMap<String, String>,
    /// The waivers (`[[accept]]`).
    #[serde(default)]
    pub accept: Vec<Accept>,
    /// Findings the approved snapshot already had fail the gate too (`--fail-on-existing`).
    #[serde(default)]
    pub fail_on_existing: bool,
}

/// One `[[accept]]` waiver as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Accept {
    /// The accepted finding's fingerprint.
    pub fingerprint: String,
    /// Why the finding is accepted: required (an empty one is refused with the key named).
    #[serde(default)]
    pub reason: String,
    /// The last day (`YYYY-MM-DD`, UTC) the waiver holds; after it the finding counts again.
    #[serde(default)]
    pub until: Option<String>,
    /// `check --lock`: the one server (as the lockfile names it) whose finding this is; without
    /// it the waiver holds for every server (and for `check` and `diff`).
    #[serde(default)]
    pub server: Option<String>,
}

/// A waiver as the gate applies it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Waiver {
    /// The accepted finding's fingerprint.
    pub fingerprint: String,
    /// Why it is accepted.
    pub reason: String,
    /// The last day it holds, if any.
    pub until: Option<String>,
    /// The one server it holds for, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
}

/// A policy file that cannot be used: its path and what is wrong (with the place).
#[derive(Debug, Error, PartialEq)]
#[error("{path}: {message}")]
pub struct PolicyError {
    /// The policy file.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// A policy checked against the registry.
#[derive(Debug, Clone, Default)]
pub struct ResolvedPolicy {
    severity: BTreeMap<String, Severity>,
    /// The waivers that hold here, by fingerprint.
    accept: BTreeMap<String, Waiver>,
    /// Waivers scoped to one server: they hold only in [`ResolvedPolicy::for_server`]'s view.
    scoped: Vec<Waiver>,
    /// Today (`YYYY-MM-DD`, UTC), against which `until` is read; empty: no waiver expires.
    pub today: String,
    /// Pre-existing findings (see [`evaluate`]'s baseline) fail the gate too.
    pub fail_on_existing: bool,
}

impl Policy {
    /// Reads a policy file's `text` and checks it against the registry; `path` names it in errors.
    pub fn parse(text: &str, path: &str) -> Result<ResolvedPolicy, PolicyError> {
        let error = |message: String| PolicyError {
            path: path.to_string(),
            message,
        };
        let policy: Policy = toml::from_str(text).map_err(|e| {
            let (line, column, message) = driftlab_contract::text::toml_error(text, &e);
            error(format!("{line}:{column}: {message}"))
        })?;
        let mut resolved = ResolvedPolicy {
            fail_on_existing: policy.fail_on_existing,
            today: today().map_err(|e| error(e.to_string()))?,
            ..ResolvedPolicy::default()
        };
        for (rule, severity) in policy.severity {
            if rules::by_id(&rule).is_none() {
                return Err(error(format!(
                    "`severity.{rule}`: unknown rule (see `driftlab rules`)"
                )));
            }
            let parsed = Severity::parse(&severity).ok_or_else(|| {
                error(format!(
                    "`severity.{rule}`: unknown severity {severity:?} (breaking, unknown, warning, compatible, info)"
                ))
            })?;
            resolved.severity.insert(rule, parsed);
        }
        for (i, accept) in policy.accept.into_iter().enumerate() {
            if accept.fingerprint.len() != 16
                || !accept.fingerprint.bytes().all(|b| b.is_ascii_hexdigit())
            {
                return Err(error(format!(
                    "`accept[{i}].fingerprint`: expected 16 hex digits as printed by driftlab"
                )));
            }
            if let Some(until) = accept.until.as_deref().filter(|d| !is_date(d)) {
                return Err(error(format!(
                    "`accept[{i}].until`: expected a date as YYYY-MM-DD, got {until:?}"
                )));
            }
            if accept.reason.trim().is_empty() {
                return Err(error(format!(
                    "`accept[{i}].reason`: say why the finding is accepted (the report shows it beside the finding)"
                )));
            }
            if accept
                .server
                .as_deref()
                .is_some_and(|s| s.trim().is_empty())
            {
                return Err(error(format!(
                    "`accept[{i}].server`: name a server of the lockfile, or leave the key out"
                )));
            }
            let fingerprint = accept.fingerprint.to_ascii_lowercase();
            let waiver = Waiver {
                fingerprint: fingerprint.clone(),
                reason: accept.reason,
                until: accept.until,
                server: accept.server,
            };
            match waiver.server {
                Some(_) => resolved.scoped.push(waiver),
                None => {
                    resolved.accept.insert(fingerprint, waiver);
                }
            }
        }
        Ok(resolved)
    }
}

impl ResolvedPolicy {
    /// The policy as it holds for one server of `check --lock`: its own waivers (which win over
    /// an unscoped one with the same fingerprint) beside the unscoped ones.
    pub fn for_server(&self, server: &str) -> ResolvedPolicy {
        let mut view = self.clone();
        view.scoped.clear();
        for waiver in &self.scoped {
            if waiver.server.as_deref() == Some(server) {
                view.accept
                    .insert(waiver.fingerprint.clone(), waiver.clone());
            }
        }
        view
    }
}

impl Waiver {
    /// Past its `until` day (`today` empty: never).
    pub fn expired(&self, today: &str) -> bool {
        self.until
            .as_deref()
            .is_some_and(|until| !today.is_empty() && until < today)
    }
}

/// `YYYY-MM-DD` with a month 01-12 and a day 01-31 (dates in this form order as strings).
fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && digits(0..4)
        && digits(5..7)
        && digits(8..10)
        && (1..=12).contains(&text[5..7].parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&text[8..10].parse::<u32>().unwrap_or(0))
}

/// A `DRIFTLAB_TODAY` that is not a date.
#[derive(Debug, thiserror::Error)]
#[error("DRIFTLAB_TODAY: expected a date as YYYY-MM-DD, got {0:?}")]
struct BadToday(String);

/// Today in UTC as `YYYY-MM-DD`; `DRIFTLAB_TODAY` sets it (for tests and reproducible reruns).
fn today() -> Result<String, BadToday> {
    if let Ok(day) = std::env::var("DRIFTLAB_TODAY") {
        return if is_date(&day) {
            Ok(day)
        } else {
            Err(BadToday(day))
        };
    }
    Ok(driftlab_contract::text::now_rfc3339()[..10].to_string())
}

/// What the gate decided, with everything a report needs.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Findings that count, most severe first (stable within a severity).
    pub findings: Vec<Finding>,
    /// Findings a policy accepted, with the reason given.
    pub accepted: Vec<(Finding, String)>,
    /// Waivers past their `until` date: their findings count again (they are in `findings`).
    pub expired: Vec<Waiver>,
    /// Waivers whose fingerprint no finding has any more: safe to delete.
    pub stale: Vec<Waiver>,
    /// The severity the gate fails at.
    pub fail_on: FailOn,
    /// Pre-existing findings fail the gate too (see [`Outcome::fails_gate`]).
    pub fail_on_existing: bool,
    /// The answer.
    pub verdict: Verdict,
}

impl Outcome {
    /// Whether `finding` is one that makes the gate fail: at or above `fail_on`, and new unless
    /// pre-existing findings count.
    pub fn fails_gate(&self, finding: &Finding) -> bool {
        self.fail_on.fails_finding(finding)
            && (self.fail_on_existing || finding.baseline != Some(Baseline::Unchanged))
    }

    /// Findings per severity, every severity present (zero included), most severe first.
    pub fn counts(&self) -> Vec<(Severity, usize)> {
        Severity::ALL
            .iter()
            .map(|&s| (s, self.findings.iter().filter(|f| f.severity == s).count()))
            .collect()
    }
}

/// Runs `rules`, applies `policy`, decides the verdict. With a `baseline` (the approved
/// snapshot of `check --approved`), every finding is marked new or unchanged: unchanged when the
/// same rules find the same thing (same fingerprint) in the baseline itself, i.e. a defect the
/// approved snapshot already had. Unchanged findings are reported but fail the gate only with
/// `policy.fail_on_existing`.
pub fn evaluate(
    rules: &[&dyn Rule],
    approved: &Surface,
    candidate: &Surface,
    baseline: Option<&Surface>,
    policy: &ResolvedPolicy,
    fail_on: FailOn,
) -> Outcome {
    evaluate_with(
        rules,
        approved,
        candidate,
        baseline,
        Vec::new(),
        policy,
        fail_on,
    )
}

/// [`evaluate`] with `extra` findings made outside the rules' comparison (`check --lock`'s
/// `launch-changed`), judged by the same policy.
pub fn evaluate_with(
    rules: &[&dyn Rule],
    approved: &Surface,
    candidate: &Surface,
    baseline: Option<&Surface>,
    extra: Vec<Finding>,
    policy: &ResolvedPolicy,
    fail_on: FailOn,
) -> Outcome {
    let found = run_rules(rules, approved, candidate);
    let existing: HashSet<String> = baseline
        .map(|b| {
            // A finding can pre-exist only if its rule finds something in the candidate too:
            // the baseline runs just those rules (none, for a clean candidate).
            let finding: HashSet<&str> = found.iter().map(|f| f.rule).collect();
            let found_by: Vec<&dyn Rule> = rules
                .iter()
                .copied()
                .filter(|rule| finding.contains(rule.id()))
                .collect();
            run_rules(&found_by, b, b)
                .iter()
                .map(Finding::fingerprint)
                .collect()
        })
        .unwrap_or_default();
    let mut findings = Vec::new();
    let mut accepted = Vec::new();
    let mut used = HashSet::new();
    for mut finding in found.into_iter().chain(extra) {
        if let Some(&severity) = policy.severity.get(finding.rule) {
            finding.severity = severity;
        }
        if baseline.is_some() {
            finding.baseline = Some(if existing.contains(&finding.fingerprint()) {
                Baseline::Unchanged
            } else {
                Baseline::New
            });
        }
        let fingerprint = finding.fingerprint();
        match policy.accept.get(&fingerprint) {
            Some(waiver) => {
                used.insert(fingerprint);
                if waiver.expired(&policy.today) {
                    findings.push(finding);
                } else {
                    accepted.push((finding, waiver.reason.clone()));
                }
            }
            None => findings.push(finding),
        }
    }
    let expired = policy
        .accept
        .values()
        .filter(|w| used.contains(&w.fingerprint) && w.expired(&policy.today))
        .cloned()
        .collect();
    let stale = policy
        .accept
        .values()
        .filter(|w| !used.contains(&w.fingerprint))
        .cloned()
        .collect();
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    let mut outcome = Outcome {
        findings,
        accepted,
        expired,
        stale,
        fail_on,
        fail_on_existing: policy.fail_on_existing,
        verdict: Verdict::Pass,
    };
    if outcome.findings.iter().any(|f| outcome.fails_gate(f)) {
        outcome.verdict = Verdict::Drift;
    }
    outcome
}

#[cfg(test)]
// The tests see the table rules alone: the hand-written ones live in a crate above.
mod tests {
    use super::*;
    use crate::check::rules::of_kind;
    use crate::check::RuleKind;
    use driftlab_contract::payload;
    use serde_json::json;

    fn outcome(policy: &ResolvedPolicy, fail_on: FailOn) -> Outcome {
        let a = payload::from_value(
            json!([{"name": "a", "description": "x", "inputSchema": {"type": "object"}}]),
            "a",
        )
        .unwrap();
        let b = payload::from_value(
            json!([{"name": "a", "description": "y", "inputSchema": {"type": "object"}}]),
            "b",
        )
        .unwrap();
        evaluate(&of_kind(RuleKind::Diff), &a, &b, None, policy, fail_on)
    }

    #[test]
    fn fail_on_thresholds() {
        let none = ResolvedPolicy::default();
        assert_eq!(outcome(&none, FailOn::Breaking).verdict, Verdict::Pass);
        assert_eq!(outcome(&none, FailOn::Warning).verdict, Verdict::Drift);
        assert_eq!(outcome(&none, FailOn::Any).verdict, Verdict::Drift);
        assert!(FailOn::Breaking.fails(Severity::Unknown));
        assert!(!FailOn::Breaking.fails(Severity::Warning));
    }

    #[test]
    fn policy_changes_severity_and_accepts_by_fingerprint() {
        let o = outcome(&ResolvedPolicy::default(), FailOn::Warning);
        let fingerprint = o.findings[0].fingerprint();
        let p = Policy::parse(
            "[severity]\ntool-description-changed = \"breaking\"\n",
            "p.toml",
        )
        .unwrap();
        let o = outcome(&p, FailOn::Breaking);
        assert_eq!(o.verdict, Verdict::Drift);
        assert_eq!(o.findings[0].severity, Severity::Breaking);
        let text = format!(
            "[[accept]]\nfingerprint = \"{fingerprint}\"\nreason = \"reworded on purpose\"\n"
        );
        let o = outcome(&Policy::parse(&text, "p.toml").unwrap(), FailOn::Any);
        assert_eq!(o.verdict, Verdict::Pass);
        assert_eq!(o.accepted[0].1, "reworded on purpose");
    }

    #[test]
    fn waivers_expire_after_their_day_and_unused_ones_are_stale() {
        let fingerprint =
            outcome(&ResolvedPolicy::default(), FailOn::Warning).findings[0].fingerprint();
        let text = format!(
            "[[accept]]\nfingerprint = \"{fingerprint}\"\nreason = \"r\"\nuntil = \"2027-01-31\"\n\
             [[accept]]\nfingerprint = \"00000000000000ff\"\nreason = \"gone\"\n"
        );
        let mut policy = Policy::parse(&text, "p.toml").unwrap();
        for (today, holds) in [("2027-01-31", true), ("2027-02-01", false)] {
            policy.today = today.into();
            let o = outcome(&policy, FailOn::Warning);
            assert_eq!(o.verdict == Verdict::Pass, holds, "{today}");
            assert_eq!(o.expired.len(), usize::from(!holds), "{today}");
            assert_eq!(o.accepted.len(), usize::from(holds), "{today}");
            assert_eq!(o.stale.len(), 1);
            assert_eq!(o.stale[0].reason, "gone");
        }
        let e = Policy::parse(
            "[[accept]]\nfingerprint = \"00000000000000ff\"\nuntil = \"31.1.2027\"\n",
            "p.toml",
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("`accept[0].until`: expected a date"),
            "{e}"
        );
    }

    #[test]
    fn dates_are_year_month_day() {
        assert!(!is_date("2026-13-01") && !is_date("2026-1-01") && is_date("2027-01-31"));
        assert!(is_date(&today().unwrap()));
    }

    #[test]
    fn bad_policies_name_the_key() {
        let e = Policy::parse("[severity]\nnope = \"info\"\n", "p.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.toml: `severity.nope`: unknown rule (see `driftlab rules`)"
        );
        let e = Policy::parse("[severity]\ntool-added = \"meh\"\n", "p.toml").unwrap_err();
        assert!(e.to_string().contains("unknown severity \"meh\""));
        let e = Policy::parse("[severity]\ntool-added = 3\n", "p.toml").unwrap_err();
        assert!(e.to_string().starts_with("p.toml: 2:14: "), "{e}");
        let e = Policy::parse("[[accept]]\nreason = \"x\"\n", "p.toml").unwrap_err();
        assert!(
            e.to_string().starts_with("p.toml: 1:1: ") && e.to_string().contains("fingerprint"),
            "{e}"
        );
        let e = Policy::parse("[[accept]]\nfingerprint = \"xyz\"\n", "p.toml").unwrap_err();
        assert!(e.to_string().contains("`accept[0].fingerprint`"));
        for reason in ["", "reason = \"  \"\n"] {
            let text = format!("[[accept]]\nfingerprint = \"00000000000000ff\"\n{reason}");
            let e = Policy::parse(&text, "p.toml").unwrap_err();
            assert!(
                e.to_string()
                    .starts_with("p.toml: `accept[0].reason`: say why"),
                "{e}"
            );
        }
    }
}
