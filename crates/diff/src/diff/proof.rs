//! Proves the changes the schema walk reported for one schema of one tool: each change in what
//! the schema accepts gets a witness from one search of the pair (`witness`), or the
//! reason none was found. When the walk reported nothing breaking and the search still finds a
//! breaking value, that value is reported itself: the walk missed something.

use serde_json::Value;

use super::tool_diff::{Direction, ToolDiff};
use super::{ChangeKind, Proof, Proving};
use crate::witness::{self, Search, Target};

pub(super) fn prove(
    diff: &mut ToolDiff<'_, '_>,
    first: usize,
    (old, new): (&Value, &Value),
    (old_base, new_base): (&str, &str),
    direction: Direction,
) {
    if diff.proving == Proving::Verdict && !diff.out[first..].iter().any(kind_needs_witness) {
        for change in diff.out[first..].iter_mut() {
            if change.kind.needs_witness() {
                change.proof = Proof::Missing(NOT_SEARCHED.into());
            }
        }
        return;
    }
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
    let targets: Vec<Target> = diff.out[first..]
        .iter()
        .filter(|c| provable(c))
        .filter_map(|c| target(c, (old_base, new_base), direction))
        .collect();
    let search = Search::run((from, to), sides, &foreign, &targets, &label);
    let mut proven = false;
    for change in diff.out[first..].iter_mut().filter(|c| provable(c)) {
        let search = match &search {
            Ok(search) => search,
            Err(why) => {
                change.proof = Proof::Missing(why.to_string());
                continue;
            }
        };
        let node = target(change, (old_base, new_base), direction).map(|t| t.to);
        let places = places(change, (old, new), (old_base, new_base));
        let witness = search.witness(&places, node.as_deref());
        if change.kind == ChangeKind::OutputPropertyAddedToClosed {
            // A warning, not a break: the answer it carries is attached when found.
            if let Some(w) = witness {
                proven = true;
                change.proof = Proof::Witness(w);
            }
            continue;
        }
        if change.kind == ChangeKind::SchemaChangeUnjudged {
            // A changed pattern: a string the one side matches and the other refuses orders
            // the two after all. Without one it stays unjudged, as its message says.
            if let Some(w) = witness {
                proven = true;
                narrowed_pattern(change, direction);
                change.proof = Proof::Witness(w);
            }
            continue;
        }
        change.proof = match witness {
            Some(w) => {
                proven = true;
                Proof::Witness(w)
            }
            None => Proof::Missing(missing(direction, search)),
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
                driftlab_contract::payload::short(&w.value)
            ),
            Direction::Response => format!(
                "outputSchema: the candidate allows a value the approved schema rejects, and no \
                 other finding says why: {}",
                driftlab_contract::payload::short(&w.value)
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
/// is about the old name and the new one; a place in a definition, about where it is
/// referenced). Empty when neither maps to an instance place.
fn places(
    change: &super::Change,
    (old_root, new_root): (&Value, &Value),
    (old_base, new_base): (&str, &str),
) -> Vec<String> {
    let old = change
        .old_pointer
        .as_deref()
        .and_then(|p| p.strip_prefix(old_base))
        .map(|p| witness::instance_places(old_root, p));
    let new = change
        .new_pointer
        .as_deref()
        .and_then(|p| p.strip_prefix(new_base))
        .map(|p| witness::instance_places(new_root, p));
    let mut places: Vec<String> = old.into_iter().chain(new).flatten().collect();
    places.sort();
    places.dedup();
    places
}

/// A change to prove: one about which values a schema accepts, or a changed pattern (two
/// patterns do not order by their text, but a witness orders them).
fn provable(change: &super::Change) -> bool {
    change.kind.needs_witness()
        || change.kind == ChangeKind::OutputPropertyAddedToClosed
        || (change.kind == ChangeKind::SchemaChangeUnjudged
            && [&change.old_pointer, &change.new_pointer]
                .iter()
                .all(|p| p.as_deref().is_some_and(|p| p.ends_with("/pattern"))))
}

/// Why a change is unproven under [`Proving::Verdict`].
const NOT_SEARCHED: &str = "not searched: only the verdict was asked for";

/// A change whose kind its witness decides: a changed pattern (see [`narrowed_pattern`]).
fn kind_needs_witness(change: &super::Change) -> bool {
    change.kind == ChangeKind::SchemaChangeUnjudged && provable(change)
}

/// A changed pattern with a witness is a narrowing of the input (or a widening of the output).
fn narrowed_pattern(change: &mut super::Change, direction: Direction) {
    let (kind, now) = match direction {
        Direction::Request => (
            ChangeKind::ConstraintTightened,
            "a string the approved pattern matches is refused now",
        ),
        Direction::Response => (
            ChangeKind::OutputConstraintLoosened,
            "the candidate's pattern allows a string the approved one refuses",
        ),
    };
    change.kind = kind;
    if let Some(cut) = change.message.find("; the two were not compared") {
        change.message.truncate(cut);
        change.message.push_str("; ");
        change.message.push_str(now);
    }
}

/// The schema node a change is about, on each side (relative to the schema's root): the node
/// whose keyword changed, or the object whose property did.
fn target(
    change: &super::Change,
    (old_base, new_base): (&str, &str),
    direction: Direction,
) -> Option<Target> {
    let relative = |pointer: &Option<String>, base: &str| {
        pointer
            .as_deref()
            .and_then(|p| p.strip_prefix(base))
            .map(node_of)
    };
    let old = relative(&change.old_pointer, old_base);
    let new = relative(&change.new_pointer, new_base);
    let (old, new) = match (old, new) {
        (Some(o), Some(n)) => (o, n),
        (Some(o), None) => (o.clone(), o),
        (None, Some(n)) => (n.clone(), n),
        (None, None) => return None,
    };
    Some(match direction {
        Direction::Request => Target { from: old, to: new },
        Direction::Response => Target { from: new, to: old },
    })
}

/// The node holding the keyword or property a schema pointer ends at.
fn node_of(pointer: &str) -> String {
    let tokens: Vec<&str> = pointer.split('/').collect();
    let keep = match tokens.as_slice() {
        [.., holder, _] if matches!(*holder, "properties" | "patternProperties") => {
            tokens.len() - 2
        }
        [.., "anyOf" | "oneOf" | "allOf" | "prefixItems", index]
            if index.parse::<usize>().is_ok() =>
        {
            tokens.len() - 2
        }
        [_, ..] if tokens.len() > 1 => tokens.len() - 1,
        _ => tokens.len(),
    };
    tokens[..keep].join("/")
}

/// Why no witness proves a change: none of the values tried breaks, or those that break are
/// refused elsewhere (another finding's place), not where this change is.
fn missing(direction: Direction, search: &Search) -> String {
    let (tried, accepted, breaking) = (search.tried, search.accepted, search.breaking());
    match (direction, breaking) {
        (Direction::Request, 0) => format!(
            "{tried} values tried, {accepted} of them accepted by the approved schema, none of \
             those rejected by the candidate's"
        ),
        (Direction::Request, n) => format!(
            "{tried} values tried, {accepted} of them accepted by the approved schema; the \
             candidate's rejects {n} of those, each at another finding's place, none here"
        ),
        (Direction::Response, 0) => format!(
            "{tried} values tried, {accepted} of them allowed by the candidate's schema, none of \
             those rejected by the approved one"
        ),
        (Direction::Response, n) => format!(
            "{tried} values tried, {accepted} of them allowed by the candidate's schema; the \
             approved one rejects {n} of those, each at another finding's place, none here"
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::diff::{compare_proving, ChangeKind, Proof, Proving};
    use driftlab_contract::payload;

    /// Under `Proving::Verdict` a changed pattern the automata do not read (`\p{L}`) is still
    /// searched (its witness decides its kind), while a narrowed type is left unproven.
    #[test]
    fn proving_the_verdict_searches_only_where_a_witness_decides_the_kind() {
        let surface = |pattern: &str, count: &str| {
            let tools = json!({"tools": [{"name": "t", "inputSchema": {"type": "object",
                "properties": {"r": {"type": "string", "pattern": pattern},
                               "n": {"type": count}}}}]});
            payload::read(
                &serde_json::to_vec(&tools).unwrap(),
                "p",
                Default::default(),
            )
            .unwrap()
        };
        let old = surface(r"^[a-zA-Z0-9._-]+\p{L}?$", "number");
        let new = surface(r"^[a-zA-Z0-9._]+(?:[-._a-zA-Z0-9]*)\p{L}?$", "integer");
        let kinds = |proving| {
            compare_proving(&old, &new, proving)
                .into_iter()
                .map(|c| (c.kind, matches!(c.proof, Proof::Witness(_))))
                .collect::<Vec<_>>()
        };
        let with_witnesses = kinds(Proving::Witnesses);
        assert!(with_witnesses.contains(&(ChangeKind::ConstraintTightened, true)));
        assert!(with_witnesses.contains(&(ChangeKind::TypeNarrowed, true)));
        let verdict = kinds(Proving::Verdict);
        assert!(verdict.contains(&(ChangeKind::ConstraintTightened, true)));
        assert!(verdict.contains(&(ChangeKind::TypeNarrowed, true)));
        // Without a changed pattern, nothing is searched.
        let new = surface(r"^[a-zA-Z0-9._-]+\p{L}?$", "integer");
        let lean = compare_proving(&old, &new, Proving::Verdict);
        assert_eq!(lean.len(), 1);
        assert_eq!(lean[0].kind, ChangeKind::TypeNarrowed);
        assert_eq!(lean[0].proof, Proof::Missing(super::NOT_SEARCHED.into()));
    }
}
