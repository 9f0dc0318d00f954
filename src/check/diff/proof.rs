//! Proves the changes the schema walk reported for one schema of one tool: each change in what
//! the schema accepts gets a witness from one search of the pair (`check::witness`), or the
//! reason none was found. When the walk reported nothing breaking and the search still finds a
//! breaking value, that value is reported itself: the walk missed something.

use serde_json::Value;

use super::tool_diff::{Direction, ToolDiff};
use super::{ChangeKind, Proof};
use crate::check::witness::{self, Search};

pub(super) fn prove(
    diff: &mut ToolDiff<'_, '_>,
    first: usize,
    (old, new): (&Value, &Value),
    (old_base, new_base): (&str, &str),
    direction: Direction,
) {
    let (from, to, sides, side) = match direction {
        Direction::Request => (old, new, ("approved", "candidate"), "input"),
        Direction::Response => (new, old, ("candidate", "approved"), "output"),
    };
    // An output's consumers validate with the approved schema: names it lists are tried as
    // properties the candidate no longer constrains.
    let foreign = match direction {
        Direction::Request => Vec::new(),
        Direction::Response => property_names(old),
    };
    let label = format!("{}:{side}", diff.label);
    let search = Search::run((from, to), sides, &foreign, &label);
    let mut proven = false;
    for change in diff.out[first..]
        .iter_mut()
        .filter(|c| c.kind.needs_witness())
    {
        let search = match &search {
            Ok(search) => search,
            Err(why) => {
                change.proof = Proof::Missing(why.to_string());
                continue;
            }
        };
        change.proof = match search.witness(&places(change, old_base, new_base)) {
            Some(w) => {
                proven = true;
                Proof::Witness(w)
            }
            None => Proof::Missing(missing(direction, search.tried)),
        };
    }
    let Ok(search) = search else {
        return;
    };
    if proven {
        return;
    }
    if let Some(w) = search.any() {
        let message = match direction {
            Direction::Request => format!(
                "inputSchema: a value the approved schema accepts is rejected now, and no other \
                 finding says why: {}",
                crate::payload::short(&w.value)
            ),
            Direction::Response => format!(
                "outputSchema: the candidate allows a value the approved schema rejects, and no \
                 other finding says why: {}",
                crate::payload::short(&w.value)
            ),
        };
        diff.push(
            ChangeKind::ValueNowRejected,
            Some(old_base.to_string()),
            Some(new_base.to_string()),
            None,
            None,
            message,
        );
        if let Some(change) = diff.out.last_mut() {
            change.proof = Proof::Witness(w);
        }
    }
}

/// The instance pointers a change is about: where its pointers point on either side (a rename
/// is about the old name and the new one). Empty when neither maps to an instance place.
fn places(change: &super::Change, old_base: &str, new_base: &str) -> Vec<String> {
    let old = change
        .old_pointer
        .as_deref()
        .and_then(|p| p.strip_prefix(old_base));
    let new = change
        .new_pointer
        .as_deref()
        .and_then(|p| p.strip_prefix(new_base));
    let mut places: Vec<String> = [old, new]
        .into_iter()
        .flatten()
        .filter_map(witness::instance_place)
        .collect();
    places.dedup();
    places
}

fn missing(direction: Direction, tried: usize) -> String {
    match direction {
        Direction::Request => {
            format!("of {tried} values the approved schema accepts, the candidate's rejects none")
        }
        Direction::Response => format!(
            "of {tried} values the candidate's schema allows, the approved one rejects none"
        ),
    }
}

/// Every property name a schema lists anywhere, in document order, at most 64.
fn property_names(schema: &Value) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    for name in properties.keys() {
                        if names.len() < 64 && !names.contains(name) {
                            names.push(name.clone());
                        }
                    }
                }
                stack.extend(map.values().rev());
            }
            Value::Array(items) => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
    names
}
