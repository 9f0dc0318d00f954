//! Where a class's drift lands in a server's pinned contract (a tool that old clients can call),
//! and the seeded calls made to it.

use std::collections::HashMap;

use serde_json::Value;

use super::session::Call;
use super::{Cell, GuardStudy, Pinned, StudyServer};
use driftlab_mutate::mutate::{self, MutationClass};

/// Surface indices tried for a drift that lands on a callable tool.
const MAX_DRIFT_INDEX: u64 = 256;

/// Why a class has no cell on a server; the reason the study's report gives.
#[derive(Debug, thiserror::Error)]
pub(super) enum NotPlaced {
    #[error("no callable tool")]
    NoCallableTool,
    /// `last` says why the last draw missed.
    #[error("not applicable in {MAX_DRIFT_INDEX} draws: {last}")]
    NeverLands { last: String },
}

/// The first surface index whose drift of `class` lands on a callable tool.
pub(super) fn place<'a>(
    study: &GuardStudy,
    server: &'a StudyServer,
    class: &'static dyn MutationClass,
    pinned: &Pinned,
) -> Result<Cell<'a>, NotPlaced> {
    let callable: HashMap<&str, usize> = pinned
        .calls
        .iter()
        .map(|(name, calls)| (name.as_str(), calls.len()))
        .collect();
    let names: Vec<Option<&str>> = pinned
        .list
        .get("tools")
        .and_then(Value::as_array)
        .map(|t| {
            t.iter()
                .map(|t| t.get("name").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    let mut last = String::from("never applicable");
    for k in 0..MAX_DRIFT_INDEX {
        let mut drifted = pinned.list.clone();
        let mut rng = mutate::stream(study.spec.seed, class, k);
        match class.apply(&mut drifted, &mut rng) {
            Err(na) => last = na.0,
            Ok(applied) => {
                // A drift that adds a tool touches none an old client calls: aim at them all.
                let grew = drifted
                    .get("tools")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len)
                    > names.len();
                let touched = applied.tool_index.filter(|_| !grew);
                let targets: Vec<String> = match touched {
                    Some(i) => match names.get(i).copied().flatten() {
                        Some(name) if callable.get(name).is_some_and(|&n| n > 0) => {
                            vec![name.to_string()]
                        }
                        _ => {
                            last = "the drift lands on no callable tool".into();
                            continue;
                        }
                    },
                    None => pinned
                        .calls
                        .iter()
                        .filter(|(_, c)| !c.is_empty())
                        .map(|(n, _)| n.clone())
                        .collect(),
                };
                if targets.is_empty() {
                    return Err(NotPlaced::NoCallableTool);
                }
                return Ok(Cell {
                    server,
                    class,
                    drift_index: k,
                    drift: applied.detail,
                    targets,
                });
            }
        }
    }
    Err(NotPlaced::NeverLands { last })
}

/// The calls aimed at `targets`, tool by tool in list order.
pub(super) fn cell_calls(pinned: &Pinned, targets: &[String]) -> Vec<Call> {
    pinned
        .calls
        .iter()
        .filter(|(name, _)| targets.contains(name))
        .flat_map(|(_, calls)| calls.iter().cloned())
        .collect()
}
