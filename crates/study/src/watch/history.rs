//! A record read back as history: each server's changes, flaps folded into one event, servers
//! that serve the same contracts counted once as a family.

use std::collections::BTreeMap;

use super::record::{Judged, Record, Seen};
use super::time::unix_seconds;

/// One observed change of one server's contract.
#[derive(Debug, Clone)]
pub struct Change {
    /// The server.
    pub server: String,
    /// When it was first seen (RFC 3339), and as seconds.
    pub at: String,
    /// `at` in seconds since the Unix epoch.
    pub seconds: u64,
    /// The older contract's digest.
    pub from: String,
    /// The newer contract's digest.
    pub to: String,
    /// What it does to a caller.
    pub judged: Judged,
}

/// Changes of one server folded together: a change, or a flap (the server changed back to a
/// contract it served earlier in the event, each step within the window of the last).
#[derive(Debug, Clone)]
pub struct Event {
    /// The server.
    pub server: String,
    /// Indexes into [`History::changes`], in time order.
    pub steps: Vec<usize>,
    /// The worst kind among the steps.
    pub kind: &'static str,
    /// Whether it is a flap: some step returned to a contract seen earlier in the event.
    pub flap: bool,
    /// Whether the event ends where it started (a flap that left nothing changed).
    pub returned: bool,
}

/// Servers with the same history of contracts (by value), counted once.
#[derive(Debug, Clone)]
pub struct Family {
    /// The members, by name; the first stands for the family.
    pub members: Vec<String>,
}

/// Polls that saw no contract.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The server.
    pub server: String,
    /// When.
    pub at: String,
    /// `auth`, `timeout`, …
    pub failed: String,
    /// Why.
    pub reason: String,
}

/// Everything a report is made of.
#[derive(Debug, Clone)]
pub struct History {
    /// Every server in the record, by name.
    pub servers: Vec<String>,
    /// Polls per server.
    pub polls: BTreeMap<String, usize>,
    /// When each server first served a contract.
    pub first_seen: BTreeMap<String, String>,
    /// Every change that is more than bytes, by server then time.
    pub changes: Vec<Change>,
    /// Changes in bytes only (the same JSON value), never drift.
    pub byte_only: Vec<Change>,
    /// Changes folded into events, by server then time.
    pub events: Vec<Event>,
    /// Servers grouped by their history of contracts.
    pub families: Vec<Family>,
    /// Polls that failed.
    pub failures: Vec<Failure>,
    /// The flap window, in seconds.
    pub window: u64,
}

impl History {
    /// The events of families' first members only: what the ecosystem summary counts.
    pub fn counted_events(&self) -> impl Iterator<Item = &Event> {
        self.events.iter().filter(|e| {
            self.families
                .iter()
                .any(|f| f.members.first() == Some(&e.server))
        })
    }
}

/// Reads `record` as history, folding flaps within `window` seconds.
pub fn read(record: &Record, window: u64) -> Result<History, String> {
    let mut history = History {
        servers: record.servers()?,
        polls: BTreeMap::new(),
        first_seen: BTreeMap::new(),
        changes: Vec::new(),
        byte_only: Vec::new(),
        events: Vec::new(),
        families: Vec::new(),
        failures: Vec::new(),
        window,
    };
    // Contract digest → digest of its value (key order and whitespace aside), for flaps and
    // families: the logs say it, so no contract is read.
    let mut values: BTreeMap<String, String> = BTreeMap::new();
    let mut sequences: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    for server in history.servers.clone() {
        let log = record.log(&server)?;
        history.polls.insert(server.clone(), log.len());
        let mut sequence: Vec<String> = Vec::new();
        let first_change = history.changes.len();
        for observation in log {
            let seconds = unix_seconds(&observation.at)
                .ok_or_else(|| format!("{server}: {:?} is not an RFC 3339 time", observation.at))?;
            match observation.seen {
                Seen::Failed { failed, reason } => history.failures.push(Failure {
                    server: server.clone(),
                    at: observation.at,
                    failed,
                    reason,
                }),
                Seen::Contract {
                    contract,
                    value,
                    previous,
                    change,
                } => {
                    values.insert(contract.clone(), value.clone());
                    history
                        .first_seen
                        .entry(server.clone())
                        .or_insert_with(|| observation.at.clone());
                    if sequence.last() != Some(&value) {
                        sequence.push(value);
                    }
                    let (Some(from), Some(judged)) = (previous, change) else {
                        continue;
                    };
                    let change = Change {
                        server: server.clone(),
                        at: observation.at,
                        seconds,
                        from,
                        to: contract,
                        judged,
                    };
                    if change.judged.kind == "bytes" {
                        history.byte_only.push(change);
                    } else {
                        history.changes.push(change);
                    }
                }
            }
        }
        fold(&mut history, first_change, &values)?;
        // A server that never served a contract belongs to no family.
        if !sequence.is_empty() {
            sequences.entry(sequence).or_default().push(server);
        }
    }
    history.families = sequences
        .into_values()
        .map(|members| Family { members })
        .collect();
    history
        .families
        .sort_by(|a, b| a.members.first().cmp(&b.members.first()));
    Ok(history)
}

/// Folds one server's changes (from `first` on) into events.
fn fold(
    history: &mut History,
    first: usize,
    values: &BTreeMap<String, String>,
) -> Result<(), String> {
    let value_of = |digest: &str| {
        values
            .get(digest)
            .cloned()
            .ok_or_else(|| format!("{digest}: named as `previous` before any line names it"))
    };
    let mut open: Option<(Event, Vec<String>, u64)> = None;
    for index in first..history.changes.len() {
        let change = &history.changes[index];
        let (from, to) = (value_of(&change.from)?, value_of(&change.to)?);
        let joins = open.as_ref().is_some_and(|(_, seen, last)| {
            change.seconds.saturating_sub(*last) <= history.window && seen.contains(&to)
        });
        if joins {
            let (event, seen, last) = open.as_mut().expect("checked above");
            event.steps.push(index);
            event.flap = true;
            event.kind = worse(event.kind, kind_name(&change.judged.kind));
            seen.push(to.clone());
            *last = change.seconds;
            event.returned = seen.first() == Some(&to);
        } else {
            if let Some((event, _, _)) = open.take() {
                history.events.push(event);
            }
            open = Some((
                Event {
                    server: change.server.clone(),
                    steps: vec![index],
                    kind: kind_name(&change.judged.kind),
                    flap: false,
                    returned: false,
                },
                vec![from, to],
                change.seconds,
            ));
        }
    }
    if let Some((event, _, _)) = open {
        history.events.push(event);
    }
    Ok(())
}

fn kind_name(kind: &str) -> &'static str {
    super::judge::KINDS
        .into_iter()
        .find(|k| *k == kind)
        .unwrap_or("unjudged")
}

fn worse(a: &'static str, b: &'static str) -> &'static str {
    let rank = |k| super::judge::KINDS.iter().position(|x| *x == k);
    if rank(b) < rank(a) {
        b
    } else {
        a
    }
}
