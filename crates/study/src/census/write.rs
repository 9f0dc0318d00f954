//! A census's results folder: `releases.csv`, `pairs.csv`, `findings.csv`, `summary.json`,
//! `report.md`, a figure (screen and print), and `manifest.json` pinning those and every
//! capture under `captures/`. Derived files only: the captures are the census's data.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::anchor::Anchor;
use super::break_kind::BreakKind;
use super::derive::{Census, Pair, PairVerdict, Record};
use super::failures;
use super::figures;
use super::spec::CensusSpec;
use super::version::Bump;
use driftlab_check::check::Severity;
use driftlab_plot::plot::{self, Medium};
use driftlab_record::provenance::{self, Provenance};

/// One row per release.
pub(crate) const RELEASES_CSV: &str = "releases.csv";
/// One row per consecutive pair.
pub(crate) const PAIRS_CSV: &str = "pairs.csv";
/// One row per finding.
pub(crate) const FINDINGS_CSV: &str = "findings.csv";
/// The census's counts.
pub const SUMMARY_JSON: &str = "summary.json";
/// The report.
pub const REPORT: &str = "report.md";
/// The folder of each release's capture or failure record.
pub const CAPTURES: &str = "captures";

/// Every derived file the census writes (the captures are its own, too).
pub fn file_names() -> Vec<String> {
    let mut names: Vec<String> = [RELEASES_CSV, PAIRS_CSV, FINDINGS_CSV, SUMMARY_JSON, REPORT]
        .map(String::from)
        .to_vec();
    for stem in figures::STEMS {
        names.extend(plot::file_names(stem, &Medium::DEFAULTS));
    }
    names.push(provenance::MANIFEST.into());
    names
}

#[derive(Serialize)]
struct ReleaseRow<'a> {
    package: &'a str,
    version: &'a str,
    status: &'a str,
    tools: Option<usize>,
    prompts: Option<usize>,
    resources: Option<usize>,
    protocol: &'a str,
    /// `yes` where the release's steps ran in the census sandbox, `unsandboxed` where they ran
    /// on the machine itself, empty where nothing of it ran.
    sandboxed: &'static str,
    /// Its dependencies were installed as of this time (its publish time: npm `--before`, uv
    /// `--exclude-newer`); empty: as of the day it ran.
    installed_as_of: &'a str,
    /// The registry's deprecation message, if any.
    deprecated: &'a str,
    /// Why PyPI yanked it (`yes` where no reason was given), if it did.
    yanked: &'a str,
    /// Why it gave no contract, as a bucket ([`failures::FailureKind`]).
    failure: &'static str,
    reason: &'a str,
}

#[derive(Serialize)]
struct PairRow<'a> {
    package: &'a str,
    old: &'a str,
    new: &'a str,
    bump: &'a str,
    verdict: &'a str,
    releases_between_without_contract: usize,
    breaking: usize,
    unknown: usize,
    warning: usize,
    compatible: usize,
    info: usize,
    breaking_proven: usize,
    reverts_to: &'a str,
    numbering: &'a str,
    break_kind: &'a str,
    old_protocol: &'a str,
    new_protocol: &'a str,
}

#[derive(Serialize)]
struct FindingRow<'a> {
    package: &'a str,
    old: &'a str,
    new: &'a str,
    bump: &'a str,
    severity: &'a str,
    rule: &'a str,
    tool: &'a str,
    pointer: &'a str,
    message: &'a str,
    /// A value the new release rejects, as compact JSON.
    witness: String,
}

/// Counts of pairs per bump kind.
#[derive(Serialize, Default, Clone, Copy)]
pub(crate) struct BumpCounts {
    /// Pairs of this bump.
    pub pairs: usize,
    /// Of them, pairs with a breaking finding.
    pub breaking: usize,
}

#[derive(Serialize)]
struct Summary<'a> {
    id: &'a str,
    title: &'a str,
    rule_set: &'a str,
    packages: usize,
    /// Packages the registry does not have: they are not counted as releases.
    packages_not_on_registry: usize,
    /// Packages the registry has, none of whose releases this census's Python can install
    /// (Requires-Python, platform): not counted as releases either.
    packages_without_installable_version: usize,
    releases: usize,
    releases_captured: usize,
    releases_failed: usize,
    /// Releases without a contract, per bucket ([`failures::FailureKind`]).
    releases_failed_by_why: BTreeMap<&'static str, usize>,
    /// Releases installed with their dependencies as of their publish time (npm `--before`, uv
    /// `--exclude-newer`).
    releases_installed_as_published: usize,
    /// Releases whose server ran, and how many of those ran in the sandbox.
    server_runs: usize,
    server_runs_sandboxed: usize,
    /// Releases whose steps ran on the machine itself (`--no-sandbox`, or captured before the
    /// census had its sandbox).
    releases_unsandboxed: usize,
    pairs: usize,
    pairs_breaking: usize,
    pairs_reverting: usize,
    breaking_findings: usize,
    breaking_findings_proven: usize,
    by_bump: BTreeMap<&'static str, BumpCounts>,
    /// Per rule: in how many pairs it fired.
    pairs_by_rule: BTreeMap<&'static str, usize>,
    /// The pairs as cargo-semver-checks counts them: by what their version promised.
    anchor: Anchor,
    headline: String,
}

fn csv_bytes<T: Serialize>(rows: &[T]) -> Result<Vec<u8>, String> {
    crate::study::results::csv_bytes(rows).map_err(|e| e.to_string())
}

/// The census's headline: the pairs whose version promised compatibility first
/// ([`Anchor::headline`]).
pub fn headline(census: &Census) -> String {
    Anchor::of(census).headline()
}

/// Every derived file, rendered (the manifest last, over these and the captures).
pub fn render(
    census: &Census,
    (id, title): (&str, &str),
    (command, provenance): (&str, &Provenance),
    captures: &[(String, Vec<u8>)],
    extra: Vec<(String, Vec<u8>)>,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let releases: Vec<ReleaseRow> = census
        .releases
        .iter()
        .map(|r| {
            let (status, reason, surface) = match &r.record {
                Record::Captured(s) => ("captured", "", Some(s)),
                Record::Failed(f) => {
                    let status = match f.stage.as_str() {
                        "install" => "install-failed",
                        "capture" => "capture-failed",
                        _ => "unlisted",
                    };
                    (status, f.reason.as_str(), None)
                }
            };
            let contract = surface.and_then(|s| s.contract());
            let failure = failures::failure_of(r).map_or("", failures::FailureKind::as_str);
            ReleaseRow {
                failure,
                installed_as_of: &r.installed_as_of,
                deprecated: r.deprecated.as_deref().unwrap_or_default(),
                yanked: match r.yanked.as_deref() {
                    Some("") => "yes",
                    other => other.unwrap_or_default(),
                },
                package: &r.package,
                version: &r.version,
                status,
                tools: surface.map(|s| s.len()),
                prompts: contract.and_then(|c| c.prompts.as_ref()).map(Vec::len),
                resources: contract.and_then(|c| c.resources.as_ref()).map(Vec::len),
                protocol: &r.protocol,
                sandboxed: match r.sandboxed {
                    None => "",
                    Some(true) => "yes",
                    Some(false) => "unsandboxed",
                },
                reason,
            }
        })
        .collect();
    let pairs: Vec<PairRow> = census
        .pairs
        .iter()
        .map(|p| PairRow {
            package: &p.package,
            old: &p.old,
            new: &p.new,
            bump: p.bump.as_str(),
            verdict: p.verdict.as_str(),
            releases_between_without_contract: p.skipped,
            breaking: p.count(Severity::Breaking),
            unknown: p.count(Severity::Unknown),
            warning: p.count(Severity::Warning),
            compatible: p.count(Severity::Compatible),
            info: p.count(Severity::Info),
            breaking_proven: p.breaking_proven(),
            reverts_to: p.reverts_to.as_deref().unwrap_or(""),
            numbering: p.numbering.as_str(),
            break_kind: p.break_kind.map_or("", BreakKind::as_str),
            old_protocol: &p.protocols.0,
            new_protocol: &p.protocols.1,
        })
        .collect();
    let findings: Vec<FindingRow> = census
        .pairs
        .iter()
        .flat_map(|p| {
            p.findings.iter().map(move |f| FindingRow {
                package: &p.package,
                old: &p.old,
                new: &p.new,
                bump: p.bump.as_str(),
                severity: f.severity.as_str(),
                rule: f.rule,
                tool: f.tool.as_ref().map_or("", |t| t.name.as_str()),
                pointer: &f.pointer,
                message: &f.message,
                witness: f
                    .witness
                    .as_ref()
                    .map(|w| serde_json::to_string(&w.value).unwrap_or_default())
                    .unwrap_or_default(),
            })
        })
        .collect();
    let summary = summary(census, id, title);
    let summary_json = crate::study::results::json_bytes(&summary).map_err(|e| e.to_string())?;
    let mut files = vec![
        (RELEASES_CSV.to_string(), csv_bytes(&releases)?),
        (PAIRS_CSV.to_string(), csv_bytes(&pairs)?),
        (FINDINGS_CSV.to_string(), csv_bytes(&findings)?),
        (SUMMARY_JSON.to_string(), summary_json),
        (
            REPORT.to_string(),
            report(census, &summary, title, command).into_bytes(),
        ),
    ];
    files.extend(figures::render(census, title)?);
    files.extend(extra);
    let mut pinned = files.clone();
    pinned.extend(captures.iter().cloned());
    files.push(provenance::folder_manifest(command, provenance, &pinned));
    Ok(files)
}

fn summary<'a>(census: &'a Census, id: &'a str, title: &'a str) -> Summary<'a> {
    let mut by_bump: BTreeMap<&'static str, BumpCounts> = Bump::ALL
        .iter()
        .map(|b| (b.as_str(), BumpCounts::default()))
        .collect();
    let mut pairs_by_rule: BTreeMap<&'static str, usize> = BTreeMap::new();
    for pair in &census.pairs {
        let counts = by_bump.entry(pair.bump.as_str()).or_default();
        counts.pairs += 1;
        counts.breaking += usize::from(pair.verdict == PairVerdict::Breaking);
        let mut rules: Vec<&'static str> = pair.findings.iter().map(|f| f.rule).collect();
        rules.sort_unstable();
        rules.dedup();
        for rule in rules {
            *pairs_by_rule.entry(rule).or_default() += 1;
        }
    }
    let anchor = Anchor::of(census);
    let listed = census.releases.iter().filter(|r| failures::is_release(r));
    let by_why = failures::counts(census);
    let failed = listed
        .clone()
        .filter(|r| matches!(r.record, Record::Failed(_)))
        .count();
    let releases = listed.count();
    let mut packages: Vec<&str> = census.releases.iter().map(|r| r.package.as_str()).collect();
    packages.dedup();
    Summary {
        id,
        title,
        rule_set: &census.rule_set,
        packages: packages.len(),
        // A package that lists no release is one row, in its bucket.
        packages_not_on_registry: by_why["not-on-registry"],
        packages_without_installable_version: by_why["no-installable-version"],
        releases,
        releases_captured: releases - failed,
        releases_failed: failed,
        releases_failed_by_why: by_why,
        releases_installed_as_published: census
            .releases
            .iter()
            .filter(|r| !r.installed_as_of.is_empty())
            .count(),
        server_runs: census.releases.iter().filter(|r| r.server_ran).count(),
        server_runs_sandboxed: census
            .releases
            .iter()
            .filter(|r| r.server_ran && r.sandboxed == Some(true))
            .count(),
        releases_unsandboxed: census
            .releases
            .iter()
            .filter(|r| r.sandboxed == Some(false))
            .count(),
        pairs: census.pairs.len(),
        pairs_breaking: census
            .pairs
            .iter()
            .filter(|p| p.verdict == PairVerdict::Breaking)
            .count(),
        pairs_reverting: census
            .pairs
            .iter()
            .filter(|p| p.reverts_to.is_some())
            .count(),
        breaking_findings: census
            .pairs
            .iter()
            .map(|p| p.count(Severity::Breaking))
            .sum(),
        breaking_findings_proven: census.pairs.iter().map(Pair::breaking_proven).sum(),
        by_bump,
        pairs_by_rule,
        headline: anchor.headline(),
        anchor,
    }
}

fn report(census: &Census, summary: &Summary<'_>, title: &str, command: &str) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# {}\n",
        if title.is_empty() { summary.id } else { title }
    );
    let _ = writeln!(md, "**Result.** {}", summary.headline);
    let _ = writeln!(
        md,
        "{} of the {} breaking findings carry a witness (a value the new release rejects) or name what was removed or renamed. {} of {} releases gave no contract (why: below, and `failure` in `releases.csv`); {} pair(s) restore an earlier release's whole contract (a revert).\n",
        summary.breaking_findings_proven,
        summary.breaking_findings,
        summary.releases_failed,
        summary.releases,
        summary.pairs_reverting
    );
    let _ = writeln!(
        md,
        "{} of the {} server runs were sandboxed without network (bwrap; `sandboxed` in `releases.csv`); {}.\n",
        summary.server_runs_sandboxed,
        summary.server_runs,
        match summary.releases_unsandboxed {
            0 => "every install and server ran in the sandbox".to_string(),
            n => format!("{n} release(s) were installed and run **unsandboxed**, on the machine itself with the network (`--no-sandbox`, or captured before the census had its sandbox), with dummy credentials and loopback addresses from the spec"),
        }
    );
    let _ = writeln!(
        md,
        "## Against cargo-semver-checks\n\ncargo-semver-checks' study of crates.io counts the releases whose version promised compatibility. Here they are the pairs whose bump is minor or patch by Cargo's rule (a 0.x minor is major, so only a 0.x patch promises); calendar-versioned packages (a year as the major component) promise no SemVer and are counted apart. A breaking pair is counted by its most sweeping finding: a tool, or a parameter every call carries, removed or renamed, or a new one every call must carry (every caller of the tool breaks); values narrowed (the calls that send them break); an output changed; another part (prompts, resources, capabilities).\n\n{}\n{} pair(s) were captured under two protocol versions (`old_protocol` and `new_protocol` in `pairs.csv`): a change between them may be the protocol's.\n",
        summary.anchor.table(),
        summary.anchor.pairs_mixed_protocol
    );
    let _ = writeln!(
        md,
        "## Releases without a contract\n\n{} of the {} releases were installed with their dependencies as they were when the release was published (npm `--before`, uv `--exclude-newer` for PyPI; `installed_as_of` in `releases.csv`), the rest as of the day they were installed (pip takes no date: PyPI releases installed without uv, or where the index gave no upload time, and releases captured before the census did this).\n\n{}",
        summary.releases_installed_as_published,
        summary.releases,
        failures::table(census)
    );
    let _ = writeln!(
        md,
        "## By version bump\n\n| bump | pairs | breaking |\n|---|---:|---:|"
    );
    for (bump, counts) in &summary.by_bump {
        let _ = writeln!(md, "| {bump} | {} | {} |", counts.pairs, counts.breaking);
    }
    let _ = writeln!(md, "\nA bump's kind follows Cargo: the leftmost non-zero component is the major one (a 0.x minor is major); either side a pre-release makes it `pre-release`. Releases are paired in version order (SemVer for npm, PEP 440 for PyPI), not by publish date.\n");
    let _ = writeln!(
        md,
        "![Release pairs by version bump]({}.svg)\n",
        figures::BUMPS
    );
    let _ = writeln!(
        md,
        "## Pairs\n\nThe timeline draws the {} packages with at least one pair (versions under the dots on screen; the print versions leave them to the table).\n\n![Release timelines]({}.svg)\n",
        figures::timeline_packages(census),
        figures::TIMELINE
    );
    let _ = writeln!(md, "| package | old | new | bump | verdict | breaking (proven) | reverts to |\n|---|---|---|---|---|---:|---|");
    for p in &census.pairs {
        let breaking = p.count(Severity::Breaking);
        let proven_count = p.breaking_proven();
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {} | {} | {breaking} ({proven_count}) | {} |",
            p.package,
            p.old,
            p.new,
            p.bump,
            p.verdict.as_str(),
            p.reverts_to.as_deref().unwrap_or("")
        );
    }
    let _ = writeln!(md, "\n## Classes of change\n\nIn how many pairs each rule fired (rule set `{}`):\n\n| rule | pairs |\n|---|---:|", census.rule_set);
    for (rule, count) in &summary.pairs_by_rule {
        let _ = writeln!(md, "| `{rule}` | {count} |");
    }
    let _ = writeln!(
        md,
        "\n![Classes of change]({}.svg)\n\n{}\n",
        figures::CLASSES,
        plot::print_links(&figures::STEMS)
    );
    if !census.notes.is_empty() {
        let _ = writeln!(md, "## Notes\n");
        for note in &census.notes {
            let _ = writeln!(md, "- {note}");
        }
        md.push('\n');
    }
    let _ = writeln!(
        md,
        "## Reproduce\n\nFrom the captures alone (no network):\n\n```sh\n{command}\n```"
    );
    md
}

/// Every capture file of `spec`'s packages under `dir/captures` and each contract they name,
/// as (relative name, bytes), sorted by name (another package's folder there is not the census's: a shard's folder may
/// hold the whole census's captures).
pub(crate) fn read_captures(
    dir: &Path,
    spec: &CensusSpec,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut out = Vec::new();
    let mut stack = Vec::new();
    let captures = dir.join(CAPTURES);
    let mut contracts = std::collections::BTreeSet::new();
    for package in &spec.packages {
        stack.push(captures.join(package.package()?.folder()));
    }
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.filter_map(|e| e.ok()) {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(relative) = path.strip_prefix(dir) {
                let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                let name = relative.to_string_lossy().replace('\\', "/");
                // A capture's contract is the census's too (once, however many name it).
                if super::store::is_capture(&name) {
                    if let Ok(Some(contract)) = super::store::contract_of(&captures, &bytes, &name)
                    {
                        contracts.insert(contract);
                    }
                }
                out.push((name, bytes));
            }
        }
    }
    for path in contracts {
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let relative = path.strip_prefix(dir).unwrap_or(&path);
        out.push((relative.to_string_lossy().replace('\\', "/"), bytes));
    }
    out.sort();
    Ok(out)
}
