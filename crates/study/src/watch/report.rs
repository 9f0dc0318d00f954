//! A record's report: `summary.json`, `changes.csv`, `events.csv`, `report.md` and two figures
//! (each server's changes over time, and changes by kind), all derived from the record alone.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use plotters::style::RGBColor;
use serde_json::json;

use super::history::{Event, History};
use super::judge::KINDS;
use driftlab_plot::plot::contract_chart::{render_scaled, ContractRow, Scale};
use driftlab_plot::plot::timeline::{self, Kind, Lane, Link, Mark};
use driftlab_plot::plot::{self, Medium};

const TIMELINE: &str = "watch-timeline";
const KINDS_FIGURE: &str = "watch-kinds";

/// The kinds as drawn, in [`KINDS`] order: what breaks a caller widest and darkest; lightness
/// steps of 20 L* or more (26, 0, 68, 47, 89), and the grey of "no rule looks" dashed.
const DRAWN: [Kind; 6] = [
    Kind {
        label: "breaking",
        colour: RGBColor(121, 23, 23),
        stroke: 5,
    },
    Kind {
        label: "unknown (could not be judged)",
        colour: RGBColor(0, 0, 0),
        stroke: 4,
    },
    Kind {
        label: "compatible",
        colour: RGBColor(83, 175, 226),
        stroke: 3,
    },
    Kind {
        label: "text only",
        colour: RGBColor(183, 81, 0),
        stroke: 2,
    },
    Kind {
        label: "changed where no rule looks",
        colour: RGBColor(112, 112, 112),
        stroke: 2,
    },
    Kind {
        label: "bytes only (key order, spacing)",
        colour: RGBColor(224, 224, 224),
        stroke: 1,
    },
];

fn kind_index(kind: &str) -> usize {
    KINDS.iter().position(|k| *k == kind).unwrap_or(4)
}

/// The headline: counted events (flaps folded, families once, bytes never) that break a caller.
pub fn headline(history: &History) -> String {
    let counted: Vec<&Event> = history.counted_events().collect();
    let breaking = counted.iter().filter(|e| e.kind == "breaking").count();
    let served: usize = history.families.iter().map(|f| f.members.len()).sum();
    format!(
        "{breaking} of {} observed changes break a caller ({served} servers that served a contract, in {} families counted once each; flaps within {} folded, byte-only changes not counted)",
        counted.len(),
        history.families.len(),
        span(history.window),
    )
}

fn span(seconds: u64) -> String {
    match seconds {
        s if s % 86_400 == 0 => format!("{} d", s / 86_400),
        s if s % 3600 == 0 => format!("{} h", s / 3600),
        s => format!("{s} s"),
    }
}

/// Every file of the report, by name, from `history` under `title`.
pub fn render(
    history: &History,
    title: &str,
    rule_set: &str,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut files = vec![
        ("summary.json".to_string(), summary(history, rule_set)),
        ("changes.csv".to_string(), changes_csv(history)?),
        ("events.csv".to_string(), events_csv(history)?),
        (
            "report.md".to_string(),
            markdown(history, title, rule_set).into_bytes(),
        ),
    ];
    files.extend(figures(history, title)?);
    Ok(files)
}

fn counts(events: &[&Event]) -> serde_json::Map<String, serde_json::Value> {
    KINDS
        .iter()
        .filter(|k| **k != "bytes")
        .map(|k| {
            (
                k.to_string(),
                json!(events.iter().filter(|e| e.kind == *k).count()),
            )
        })
        .collect()
}

fn summary(history: &History, rule_set: &str) -> Vec<u8> {
    let counted: Vec<&Event> = history.counted_events().collect();
    let all: Vec<&Event> = history.events.iter().collect();
    let flaps: Vec<&&Event> = all.iter().filter(|e| e.flap).collect();
    let value = json!({
        "headline": headline(history),
        "rule_set": rule_set,
        "window_seconds": history.window,
        "servers": history.servers.len(),
        "servers_changed": history.events.iter().map(|e| &e.server).collect::<std::collections::BTreeSet<_>>().len(),
        "polls": history.polls.values().sum::<usize>(),
        "failed_polls": history.failures.len(),
        "servers_with_contract": history.families.iter().map(|f| f.members.len()).sum::<usize>(),
        "recorded_changes": history.changes.len() + history.byte_only.len(),
        "changes": history.changes.len(),
        "byte_only_changes": history.byte_only.len(),
        "events": all.len(),
        "events_by_kind": counts(&all),
        "flaps": flaps.len(),
        "changes_in_flaps": flaps.iter().map(|e| e.steps.len()).sum::<usize>(),
        "families": history.families.len(),
        "families_of_several": history.families.iter().filter(|f| f.members.len() > 1).map(|f| &f.members).collect::<Vec<_>>(),
        "counted_events": counted.len(),
        "counted_events_by_kind": counts(&counted),
    });
    let mut bytes = serde_json::to_vec_pretty(&value).expect("serializes");
    bytes.push(b'\n');
    bytes
}

fn event_of(history: &History) -> BTreeMap<usize, usize> {
    let mut of = BTreeMap::new();
    for (e, event) in history.events.iter().enumerate() {
        for step in &event.steps {
            of.insert(*step, e + 1);
        }
    }
    of
}

fn changes_csv(history: &History) -> Result<Vec<u8>, String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let event = event_of(history);
    writer
        .write_record([
            "server", "at", "from", "to", "kind", "findings", "breaking", "event",
        ])
        .map_err(|e| e.to_string())?;
    // Byte-only changes have a row but no event: their index is none of the changes'.
    let mut all: Vec<(usize, &super::history::Change)> = history
        .changes
        .iter()
        .enumerate()
        .chain(history.byte_only.iter().map(|c| (usize::MAX, c)))
        .collect();
    all.sort_by(|a, b| (&a.1.server, a.1.seconds).cmp(&(&b.1.server, b.1.seconds)));
    for (index, change) in all {
        let breaking = change
            .judged
            .findings
            .iter()
            .filter(|f| f.severity == "breaking")
            .count();
        writer
            .write_record([
                change.server.as_str(),
                &change.at,
                short(&change.from),
                short(&change.to),
                &change.judged.kind,
                &change.judged.findings.len().to_string(),
                &breaking.to_string(),
                &event.get(&index).map_or(String::new(), |e| e.to_string()),
            ])
            .map_err(|e| e.to_string())?;
    }
    driftlab_contract::fs::csv_text::finish(writer).map_err(|e| e.to_string())
}

fn short(digest: &str) -> &str {
    let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
    &hex[..hex.len().min(12)]
}

fn family_of<'a>(history: &'a History, server: &str) -> &'a [String] {
    history
        .families
        .iter()
        .find(|f| f.members.iter().any(|m| m == server))
        .map_or(&[], |f| &f.members)
}

fn events_csv(history: &History) -> Result<Vec<u8>, String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer
        .write_record([
            "event", "server", "family", "first", "last", "steps", "kind", "flap", "returned",
        ])
        .map_err(|e| e.to_string())?;
    for (i, event) in history.events.iter().enumerate() {
        let first = &history.changes[event.steps[0]];
        let last = &history.changes[*event.steps.last().expect("an event has a step")];
        writer
            .write_record([
                &(i + 1).to_string(),
                &event.server,
                &family_of(history, &event.server).join(" "),
                &first.at,
                &last.at,
                &event.steps.len().to_string(),
                event.kind,
                &event.flap.to_string(),
                &event.returned.to_string(),
            ])
            .map_err(|e| e.to_string())?;
    }
    driftlab_contract::fs::csv_text::finish(writer).map_err(|e| e.to_string())
}

fn markdown(history: &History, title: &str, rule_set: &str) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# {title}\n");
    let _ = writeln!(md, "**{}.**\n", headline(history));
    let _ = writeln!(
        md,
        "Every change is judged by direction with the rule set `{rule_set}` (what a caller of the \
         older contract meets in the newer one): `breaking`, `unknown` (could not be judged), \
         `compatible`, `text` (descriptions and titles only), `unjudged` (the values differ where \
         no rule looks) or `bytes` (the same JSON value spelled differently; never drift). A \
         server that changes back to a contract it served earlier, each step within {} of the \
         last, makes one flap event, of its worst step's kind. Servers whose histories of \
         contracts are the same are one family, counted once. Failed polls are listed apart and \
         are never drift.\n",
        span(history.window)
    );
    // The figures are drawn when something changed.
    if !history.changes.is_empty() || !history.byte_only.is_empty() {
        let _ = writeln!(md, "![changes over time]({TIMELINE}.svg)\n");
        let _ = writeln!(md, "![changes by kind]({KINDS_FIGURE}.svg)\n");
        let _ = writeln!(
            md,
            "{}\n",
            driftlab_plot::plot::print_links(&[TIMELINE, KINDS_FIGURE])
        );
    }
    let _ = writeln!(md, "## Servers\n");
    let _ = writeln!(
        md,
        "| server | polls | changes | bytes only | events | flaps | breaking | unknown | compatible | text | unjudged |"
    );
    let _ = writeln!(
        md,
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    // Servers that never served a contract have nothing to count: they are listed once below.
    for server in history
        .servers
        .iter()
        .filter(|s| history.first_seen.contains_key(*s))
    {
        let events: Vec<&Event> = history
            .events
            .iter()
            .filter(|e| &e.server == server)
            .collect();
        let changes = history
            .changes
            .iter()
            .filter(|c| &c.server == server)
            .count();
        let bytes = history
            .byte_only
            .iter()
            .filter(|c| &c.server == server)
            .count();
        let of = |kind: &str| events.iter().filter(|e| e.kind == kind).count();
        let _ = writeln!(
            md,
            "| {server} | {} | {changes} | {bytes} | {} | {} | {} | {} | {} | {} | {} |",
            history.polls.get(server).copied().unwrap_or(0),
            events.len(),
            events.iter().filter(|e| e.flap).count(),
            of("breaking"),
            of("unknown"),
            of("compatible"),
            of("text"),
            of("unjudged"),
        );
    }
    let shared: Vec<_> = history
        .families
        .iter()
        .filter(|f| f.members.len() > 1)
        .collect();
    if !shared.is_empty() {
        let _ = writeln!(md, "\n## Families\n");
        for family in shared {
            let _ = writeln!(md, "- {} (counted once)", family.members.join(", "));
        }
    }
    let _ = writeln!(md, "\n## Events\n");
    for (i, event) in history.events.iter().enumerate() {
        let first = &history.changes[event.steps[0]];
        let what = match (event.flap, event.returned) {
            (true, true) => format!(
                ", a flap of {} steps that ended where it began",
                event.steps.len()
            ),
            (true, false) => format!(", a flap of {} steps", event.steps.len()),
            _ => String::new(),
        };
        let _ = writeln!(
            md,
            "{}. **{}** {} — {}{what}",
            i + 1,
            event.server,
            first.at,
            event.kind
        );
        for step in &event.steps {
            let change = &history.changes[*step];
            let breaking: Vec<_> = change
                .judged
                .findings
                .iter()
                .filter(|f| f.severity == "breaking")
                .collect();
            for finding in breaking.iter().take(3) {
                let _ = writeln!(md, "   - {}: {}", finding.rule, finding.message);
            }
            if breaking.len() > 3 {
                let _ = writeln!(
                    md,
                    "   - and {} more breaking findings (the line of {} in the record)",
                    breaking.len() - 3,
                    change.at
                );
            }
        }
    }
    if !history.byte_only.is_empty() {
        let _ = writeln!(md, "\n## Bytes only\n");
        for change in &history.byte_only {
            let _ = writeln!(md, "- {} {}", change.server, change.at);
        }
    }
    if !history.failures.is_empty() {
        // Each kind and reason once, with the servers and polls it covers.
        let mut grouped: BTreeMap<(&str, &str), (Vec<&str>, usize)> = BTreeMap::new();
        for failure in &history.failures {
            let entry = grouped
                .entry((failure.failed.as_str(), failure.reason.as_str()))
                .or_default();
            entry.1 += 1;
            if !entry.0.contains(&failure.server.as_str()) {
                entry.0.push(&failure.server);
            }
        }
        let never = history
            .servers
            .iter()
            .filter(|s| !history.first_seen.contains_key(*s))
            .count();
        let _ = writeln!(md, "\n## Failed polls\n");
        if never > 0 {
            let _ = writeln!(
                md,
                "{never} of the servers never served a contract: each of their polls is below.\n"
            );
        }
        let _ = writeln!(
            md,
            "| kind | reason | polls | servers |\n|---|---|---:|---|"
        );
        for ((kind, reason), (servers, polls)) in grouped {
            let _ = writeln!(
                md,
                "| {kind} | {} | {polls} | {} |",
                reason.replace('|', "\\|"),
                servers.join(", ")
            );
        }
    }
    md
}

fn lanes(history: &History) -> Vec<Lane> {
    let mut lanes = Vec::new();
    for server in &history.servers {
        let mut steps: Vec<&super::history::Change> = history
            .changes
            .iter()
            .chain(&history.byte_only)
            .filter(|c| &c.server == server)
            .collect();
        if steps.is_empty() {
            continue;
        }
        steps.sort_by_key(|c| c.seconds);
        let first = history.first_seen.get(server).map_or("", String::as_str);
        let mut marks = vec![Mark {
            version: day(first).to_string(),
            captured: true,
        }];
        let mut links = Vec::new();
        for change in steps {
            marks.push(Mark {
                version: day(&change.at).to_string(),
                captured: true,
            });
            links.push(Link {
                from: marks.len() - 2,
                to: marks.len() - 1,
                kind: kind_index(&change.judged.kind),
            });
        }
        lanes.push(Lane {
            label: server.clone(),
            marks,
            links,
        });
    }
    lanes
}

/// `MM-DD` of an RFC 3339 time.
fn day(at: &str) -> &str {
    at.get(5..10).unwrap_or(at)
}

fn figures(history: &History, title: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    let lanes = lanes(history);
    let mut files = Vec::new();
    if !lanes.is_empty() {
        let heading = format!("{title}: each server's changes in time order, by kind");
        files.extend(
            plot::files_in(&Medium::DEFAULTS, |medium| {
                timeline::render(TIMELINE, &heading, &DRAWN, &lanes, medium)
            })
            .map_err(|e| e.to_string())?,
        );
    }
    let rows: Vec<ContractRow> = history
        .servers
        .iter()
        .filter_map(|server| {
            let mut counts = vec![0; KINDS.len()];
            for change in history.changes.iter().chain(&history.byte_only) {
                if &change.server == server {
                    counts[kind_index(&change.judged.kind)] += 1;
                }
            }
            (counts.iter().sum::<usize>() > 0).then(|| ContractRow {
                label: server.clone(),
                counts,
            })
        })
        .collect();
    if !rows.is_empty() {
        let segments: Vec<(&str, RGBColor)> = DRAWN.iter().map(|k| (k.label, k.colour)).collect();
        let heading = format!("{title}: recorded changes per server, by kind (flaps unfolded)");
        files.extend(
            plot::files_in(&Medium::DEFAULTS, |medium| {
                render_scaled(
                    KINDS_FIGURE,
                    &heading,
                    &segments,
                    &rows,
                    ("change", "changes"),
                    Scale::Count,
                    medium,
                )
            })
            .map_err(|e| e.to_string())?,
        );
    }
    Ok(files)
}
