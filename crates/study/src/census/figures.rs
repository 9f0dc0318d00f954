//! The census's three figures, each for the screen and for print: the release timeline of every
//! package with a pair (links coloured by verdict), the classes of change (the pairs each rule
//! fired in, by its most severe finding there), and the share of breaking pairs by version bump.

use std::collections::BTreeMap;

use plotters::style::RGBColor;

use super::derive::{Census, PairVerdict, Record};
use super::version::Bump;
use driftlab_check::check::Severity;
use driftlab_plot::plot::contract_chart::{render_scaled, render_stacked, ContractRow, Scale};
use driftlab_plot::plot::timeline::{self, Kind, Lane, Link, Mark};
use driftlab_plot::plot::{self, Medium};

pub(crate) const TIMELINE: &str = "census-timeline";
pub const CLASSES: &str = "census-classes";
pub(crate) const BUMPS: &str = "census-bumps";
/// Every figure's stem, in the report's order.
pub(crate) const STEMS: [&str; 3] = [TIMELINE, CLASSES, BUMPS];

// Five steps of lightness, so the verdicts part in grey print too: L* 26, 0, 47, 68 and 89.
const BREAKING: RGBColor = RGBColor(121, 23, 23);
const UNKNOWN: RGBColor = RGBColor(0, 0, 0);
const WARNING: RGBColor = RGBColor(183, 81, 0);
const COMPATIBLE: RGBColor = RGBColor(83, 175, 226);
const UNCHANGED: RGBColor = RGBColor(224, 224, 224);

/// A pair's verdict as drawn: breaking and unknown widest, unchanged thinnest.
const VERDICTS: [Kind; 5] = [
    Kind {
        label: "breaking",
        colour: BREAKING,
        stroke: 4,
    },
    Kind {
        label: "unknown (could not be judged)",
        colour: UNKNOWN,
        stroke: 4,
    },
    Kind {
        label: "warning (dangerous)",
        colour: WARNING,
        stroke: 3,
    },
    Kind {
        label: "compatible or info",
        colour: COMPATIBLE,
        stroke: 2,
    },
    Kind {
        label: "unchanged",
        colour: UNCHANGED,
        stroke: 2,
    },
];

fn verdict_index(verdict: PairVerdict) -> usize {
    match verdict {
        PairVerdict::Breaking => 0,
        PairVerdict::Unknown => 1,
        PairVerdict::Warning => 2,
        PairVerdict::Compatible | PairVerdict::Info => 3,
        PairVerdict::Unchanged => 4,
    }
}

fn segments_of(kinds: &[Kind]) -> Vec<(&'static str, RGBColor)> {
    kinds.iter().map(|k| (k.label, k.colour)).collect()
}

/// Every figure's files in every default medium.
pub fn render(census: &Census, title: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    let title = if title.is_empty() { "Census" } else { title };
    let mut files = timeline_files(census, title)?;
    files.extend(classes_files(census, title)?);
    files.extend(bumps_files(census, title)?);
    Ok(files)
}

/// How many packages the timeline draws: those with at least one pair.
pub(crate) fn timeline_packages(census: &Census) -> usize {
    lanes(census).len()
}

fn lanes(census: &Census) -> Vec<Lane> {
    let mut lanes: Vec<Lane> = Vec::new();
    for release in &census.releases {
        if lanes.last().is_none_or(|l| l.label != release.package) {
            lanes.push(Lane {
                label: release.package.clone(),
                marks: Vec::new(),
                links: Vec::new(),
            });
        }
        let lane = lanes.last_mut().expect("pushed above");
        lane.marks.push(Mark {
            version: release.version.clone(),
            captured: matches!(release.record, Record::Captured(_)),
        });
    }
    for lane in &mut lanes {
        let index = |version: &str| lane.marks.iter().position(|m| m.version == version);
        let links: Vec<Link> = census
            .pairs
            .iter()
            .filter(|p| p.package == lane.label)
            .filter_map(|p| {
                Some(Link {
                    from: index(&p.old)?,
                    to: index(&p.new)?,
                    kind: verdict_index(p.verdict),
                })
            })
            .collect();
        lane.links = links;
    }
    lanes.retain(|l| !l.links.is_empty());
    lanes
}

fn timeline_files(census: &Census, title: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    let lanes = lanes(census);
    let title = format!("{title}: each package's releases in version order, pairs by verdict");
    plot::files_in(&Medium::DEFAULTS, |medium| {
        timeline::render(TIMELINE, &title, &VERDICTS, &lanes, medium)
    })
    .map_err(|e| e.to_string())
}

/// Per rule: the pairs it fired in, by the most severe finding it made in each.
fn classes_files(census: &Census, title: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut by_rule: BTreeMap<&'static str, Vec<usize>> = BTreeMap::new();
    for pair in &census.pairs {
        let mut worst: BTreeMap<&'static str, Severity> = BTreeMap::new();
        for finding in &pair.findings {
            let entry = worst.entry(finding.rule).or_insert(finding.severity);
            *entry = (*entry).max(finding.severity);
        }
        for (rule, severity) in worst {
            let position = Severity::ALL.iter().position(|s| *s == severity);
            by_rule.entry(rule).or_insert_with(|| vec![0; 5])[position.unwrap_or(4)] += 1;
        }
    }
    let mut rows: Vec<ContractRow> = by_rule
        .into_iter()
        .map(|(rule, counts)| ContractRow {
            label: rule.to_string(),
            counts,
        })
        .collect();
    // Most frequent first; ties by name (the map's order, kept by a stable sort).
    rows.sort_by_key(|r| std::cmp::Reverse(r.counts.iter().sum::<usize>()));
    let segments: [(&str, RGBColor); 5] = [
        ("breaking", BREAKING),
        ("unknown", UNKNOWN),
        ("warning", WARNING),
        ("compatible", COMPATIBLE),
        ("info", UNCHANGED),
    ];
    let title =
        format!("{title}: classes of change, the release pairs each rule fired in (by severity)");
    plot::files_in(&Medium::DEFAULTS, |medium| {
        render_scaled(
            CLASSES,
            &title,
            &segments,
            &rows,
            ("pair", "pairs"),
            Scale::Count,
            medium,
        )
    })
    .map_err(|e| e.to_string())
}

/// One bar per bump kind: its pairs by verdict.
fn bumps_files(census: &Census, title: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    let rows: Vec<ContractRow> = Bump::ALL
        .iter()
        .map(|&bump| {
            let mut counts = vec![0; VERDICTS.len()];
            for pair in census.pairs.iter().filter(|p| p.bump == bump) {
                counts[verdict_index(pair.verdict)] += 1;
            }
            ContractRow {
                label: format!("{bump} bumps"),
                counts,
            }
        })
        .collect();
    let segments = segments_of(&VERDICTS);
    let title = format!("{title}: release pairs by version bump, share by verdict");
    plot::files_in(&Medium::DEFAULTS, |medium| {
        render_stacked(BUMPS, &title, &segments, &rows, ("pair", "pairs"), medium)
    })
    .map_err(|e| e.to_string())
}
