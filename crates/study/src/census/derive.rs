//! The census derived from its captures alone: each release's row, each consecutive pair's
//! diff (witnesses and rename pairing included, from the diff rules of a pinned rule set),
//! the bump between them, and reverts. Nothing here touches the network, so `--offline` and an
//! online run derive the same bytes from the same captures.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::break_kind::{break_kind, BreakKind};
use super::spec::{CensusSpec, Package};
use super::version::{Bump, Numbering, Version};
use driftlab_check::check::rules;
use driftlab_check::check::RuleKind;
use driftlab_check::check::{FailOn, Finding, Severity};
use driftlab_check::verdict::{evaluate, ResolvedPolicy};
use driftlab_contract::payload::input::surface_of_bytes;
use driftlab_contract::payload::Limits;
use driftlab_contract::surface::Surface;

/// A release that gave no contract: the stage it failed at and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// `install` or `capture`.
    pub stage: String,
    /// Why, in one line.
    pub reason: String,
    /// The release's steps ran in the census sandbox (absent from older records: they did not).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sandboxed: bool,
}

/// How a release was installed and what its registry said of it (`VERSION.install.json`,
/// written before its record). A release without one was installed with its dependencies as of
/// the day it ran, and its registry was not asked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Install {
    /// The time passed to the installer (npm `--before`): its publish time. Empty: today.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub as_of: String,
    /// The registry's deprecation message for the release (npm), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<String>,
    /// The reason a PyPI release's every file was yanked (may be empty), if they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yanked: Option<String>,
}

/// A release's record in `captures/`: its capture, or why there is none.
pub enum Record {
    /// Its contract.
    Captured(Box<Surface>),
    /// Why it gave none.
    Failed(Failure),
}

/// One release, in version order within its package.
pub struct Release {
    /// The package.
    pub package: String,
    /// The version.
    pub version: String,
    /// Its capture or failure.
    pub record: Record,
    /// The protocol version it spoke, or empty.
    pub protocol: String,
    /// Whether its steps ran in the sandbox (`None`: nothing of it ran).
    pub sandboxed: Option<bool>,
    /// Whether its server was started.
    pub server_ran: bool,
    /// Its dependencies were installed as of this time (its publish time); empty: as of the
    /// day it ran.
    pub installed_as_of: String,
    /// The registry's deprecation message, if it had one when the release was captured.
    pub deprecated: Option<String>,
    /// Why the registry yanked it, if it had when the release was captured.
    pub yanked: Option<String>,
}

/// What a pair's findings add up to, most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairVerdict {
    /// Some finding is breaking.
    Breaking,
    /// The worst finding could not be judged.
    Unknown,
    /// The worst finding is a warning.
    Warning,
    /// The worst finding is compatible.
    Compatible,
    /// Only informational findings.
    Info,
    /// No finding at all.
    Unchanged,
}

impl PairVerdict {
    /// How the census's tables spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            PairVerdict::Breaking => "breaking",
            PairVerdict::Unknown => "unknown",
            PairVerdict::Warning => "warning",
            PairVerdict::Compatible => "compatible",
            PairVerdict::Info => "info",
            PairVerdict::Unchanged => "unchanged",
        }
    }

    fn of(findings: &[Finding]) -> PairVerdict {
        match findings.iter().map(|f| f.severity).max() {
            None => PairVerdict::Unchanged,
            Some(Severity::Breaking) => PairVerdict::Breaking,
            Some(Severity::Unknown) => PairVerdict::Unknown,
            Some(Severity::Warning) => PairVerdict::Warning,
            Some(Severity::Compatible) => PairVerdict::Compatible,
            Some(Severity::Info) => PairVerdict::Info,
        }
    }
}

/// Two consecutive captured releases of a package and what changed between them.
pub struct Pair {
    /// The package.
    pub package: String,
    /// The older release's version.
    pub old: String,
    /// The newer release's version.
    pub new: String,
    /// The version bump between them.
    pub bump: Bump,
    /// Releases between the two that gave no contract.
    pub skipped: usize,
    /// What the findings add up to.
    pub verdict: PairVerdict,
    /// The findings, from the pinned rule set's diff rules.
    pub findings: Vec<Finding>,
    /// An earlier release (before `old`) whose whole contract `new` restores: a flap.
    pub reverts_to: Option<String>,
    /// How the older release numbers itself (what its bump promised).
    pub numbering: Numbering,
    /// What a breaking pair breaks, its most sweeping finding's kind.
    pub break_kind: Option<BreakKind>,
    /// The protocol version each capture spoke (empty when unknown).
    pub protocols: (String, String),
    /// Either release was withdrawn by its registry (deprecated or yanked): left out of the
    /// headline.
    pub withdrawn: bool,
}

impl Pair {
    /// Breaking findings that are [`proven`].
    pub(crate) fn breaking_proven(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Breaking && proven(f))
            .count()
    }

    /// Whether the two captures spoke different protocol versions: a change between them may
    /// be the protocol's, not the server's.
    pub(crate) fn mixed_protocol(&self) -> bool {
        let (a, b) = &self.protocols;
        !a.is_empty() && !b.is_empty() && a != b
    }

    /// Findings of `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }
}

/// A breaking finding is proven when it carries a value the new schema rejects, or names a
/// thing that is gone (a removed or renamed tool, parameter, prompt…).
pub fn proven(finding: &Finding) -> bool {
    finding.witness.is_some()
        || finding.rule.ends_with("-removed")
        || finding.rule.ends_with("-renamed")
}

/// Everything the tables, figures and report are made of.
pub struct Census {
    /// Every release, by package then version.
    pub releases: Vec<Release>,
    /// Every consecutive captured pair.
    pub pairs: Vec<Pair>,
    /// Lines for the report: versions a spec names that have no record, and so on.
    pub notes: Vec<String>,
    /// The rule set the pairs were diffed with.
    pub rule_set: String,
}

/// What a package's registry said when asked for its versions and could not answer.
pub(crate) const VERSIONS_FAILED: &str = "versions.failed.json";

/// The file names of a release's record: its capture, or its failure.
pub(crate) fn capture_name(version: &str) -> String {
    format!("{version}.json")
}

/// The file name of how a release was installed ([`Install`]).
pub(crate) fn install_name(version: &str) -> String {
    format!("{version}.install.json")
}

/// The file name of a release's failure record.
pub(crate) fn failure_name(version: &str) -> String {
    format!("{version}.failed.json")
}

/// The versions recorded for `package` under `captures`, captured or failed.
pub(crate) fn recorded_versions(captures: &Path, package: &Package) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(captures.join(package.folder())) else {
        return Vec::new();
    };
    let mut versions: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if name == VERSIONS_FAILED || name.ends_with(".install.json") {
                return None;
            }
            let version = name
                .strip_suffix(".failed.json")
                .or_else(|| name.strip_suffix(".json"))?;
            Some(version.to_string())
        })
        .collect();
    versions.sort();
    versions.dedup();
    versions
}

/// Reads every chosen release's record and derives the pairs.
pub fn derive(spec: &CensusSpec, captures: &Path, rule_set: &str) -> Result<Census, String> {
    let rules = rules::sets::of_kind_as_of(RuleKind::Diff, rule_set).ok_or_else(|| {
        format!("rule set {rule_set:?} is not one this build knows (`driftlab rules`)")
    })?;
    let mut census = Census {
        releases: Vec::new(),
        pairs: Vec::new(),
        notes: Vec::new(),
        rule_set: rule_set.to_string(),
    };
    for package_spec in &spec.packages {
        let package = package_spec.package()?;
        let chosen = package_spec.choose(package.scheme, &recorded_versions(captures, &package));
        for version in &chosen.missing {
            census.notes.push(format!(
                "{} {version}: no record in captures/ (not yet captured)",
                package.key()
            ));
        }
        census.notes.extend(
            chosen
                .skipped
                .iter()
                .map(|why| format!("{}: {why}", package.key())),
        );
        let unlisted = captures.join(package.folder()).join(VERSIONS_FAILED);
        if unlisted.is_file() && chosen.releases.is_empty() {
            let failure: Failure =
                driftlab_contract::fs::read_json(&unlisted).map_err(|e| e.to_string())?;
            census.releases.push(Release {
                package: package.key(),
                version: String::new(),
                record: Record::Failed(failure),
                protocol: String::new(),
                sandboxed: None,
                server_ran: false,
                installed_as_of: String::new(),
                deprecated: None,
                yanked: None,
            });
            continue;
        }
        let first = census.releases.len();
        for (_, version) in &chosen.releases {
            census
                .releases
                .push(read_release(captures, &package, version)?);
        }
        let versions: Vec<&Version> = chosen.releases.iter().map(|(v, _)| v).collect();
        pairs_of(
            &census.releases[first..],
            &versions,
            &rules,
            &mut census.pairs,
        );
    }
    Ok(census)
}

fn read_release(captures: &Path, package: &Package, version: &str) -> Result<Release, String> {
    let folder = captures.join(package.folder());
    let failed = folder.join(failure_name(version));
    let install = folder.join(install_name(version));
    let install: Install = match install.is_file() {
        true => driftlab_contract::fs::read_json(&install).map_err(|e| e.to_string())?,
        false => Install::default(),
    };
    let release = |record, protocol, sandboxed, server_ran| Release {
        package: package.key(),
        version: version.to_string(),
        record,
        protocol,
        sandboxed,
        server_ran,
        installed_as_of: install.as_of.clone(),
        deprecated: install.deprecated.clone(),
        yanked: install.yanked.clone(),
    };
    if failed.is_file() {
        let failure: Failure =
            driftlab_contract::fs::read_json(&failed).map_err(|e| e.to_string())?;
        let (sandboxed, server_ran) = (failure.sandboxed, failure.stage == "capture");
        return Ok(release(
            Record::Failed(failure),
            String::new(),
            Some(sandboxed),
            server_ran,
        ));
    }
    let path = folder.join(capture_name(version));
    let limits = Limits {
        max_bytes: usize::MAX,
    };
    let whole = super::store::read_capture(captures, &path)?;
    let file: serde_json::Value =
        serde_json::from_slice(&whole).map_err(|e| format!("{}: {e}", path.display()))?;
    let surface =
        surface_of_bytes(whole, &path.to_string_lossy(), limits).map_err(|e| e.to_string())?;
    let protocol = file
        .get("protocolVersion")
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string();
    // A sandboxed run's recorded command starts with the sandbox.
    let sandboxed =
        file.pointer("/server/command/0").and_then(|v| v.as_str()) == Some(super::sandbox::PROGRAM);
    Ok(release(
        Record::Captured(Box::new(surface)),
        protocol,
        Some(sandboxed),
        true,
    ))
}

/// What a revert must restore: the contract's digest, the server's own version aside.
fn revert_key(surface: &Surface) -> String {
    let mut value = surface.to_snapshot_value();
    if let Some(info) = value
        .get_mut("serverInfo")
        .and_then(serde_json::Value::as_object_mut)
    {
        info.remove("version");
    }
    driftlab_contract::digest::digest(&value)
}

/// Consecutive captured releases of one package, paired; a pair that changes something and
/// whose new contract no diff rule tells from an earlier release's reverts to it.
fn pairs_of(
    releases: &[Release],
    versions: &[&Version],
    rules: &[&'static dyn driftlab_check::check::Rule],
    pairs: &mut Vec<Pair>,
) {
    let captured: Vec<(usize, &Surface)> = releases
        .iter()
        .enumerate()
        .filter_map(|(i, r)| match &r.record {
            Record::Captured(surface) => Some((i, &**surface)),
            Record::Failed(_) => None,
        })
        .collect();
    let policy = ResolvedPolicy::default();
    let same = |a: &Surface, b: &Surface| {
        evaluate(rules, a, b, None, &policy, FailOn::Any)
            .findings
            .is_empty()
    };
    // Reverts are looked up by contract digest, so a history costs one diff per pair, not one
    // per earlier release: the earlier releases with the same digest, most recent first.
    let keys: Vec<String> = captured.iter().map(|(_, s)| revert_key(s)).collect();
    let mut earlier: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, window) in captured.windows(2).enumerate() {
        let ((i, old), (j, new)) = (window[0], window[1]);
        if k > 0 {
            earlier.entry(keys[k - 1].as_str()).or_default().push(k - 1);
        }
        let outcome = evaluate(rules, old, new, None, &policy, FailOn::Any);
        // A change that restores what callers saw before: the same contract (a server's own
        // version string is not part of it), which every diff rule confirms.
        let reverts_to = match outcome.findings.is_empty() {
            true => None,
            false => earlier
                .get(keys[k + 1].as_str())
                .and_then(|list| list.iter().rev().find(|&&e| same(captured[e].1, new)))
                .map(|&e| releases[captured[e].0].version.clone()),
        };
        pairs.push(Pair {
            package: releases[i].package.clone(),
            old: releases[i].version.clone(),
            new: releases[j].version.clone(),
            bump: Bump::between(versions[i], versions[j]),
            skipped: j - i - 1,
            verdict: PairVerdict::of(&outcome.findings),
            break_kind: break_kind(&outcome.findings, old),
            findings: outcome.findings,
            reverts_to,
            numbering: versions[i].numbering(),
            protocols: (releases[i].protocol.clone(), releases[j].protocol.clone()),
            withdrawn: [&releases[i], &releases[j]]
                .iter()
                .any(|r| r.deprecated.is_some() || r.yanked.is_some()),
        });
    }
}
