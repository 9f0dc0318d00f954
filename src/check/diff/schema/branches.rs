//! Unions and intersections: `anyOf`/`oneOf`/`allOf` branches paired with each other, and a
//! plain schema paired with the union branch that wraps it.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::keywords::type_set;
use super::{At, Direction, Walker};
use crate::check::diff::canonical;
use crate::check::diff::ChangeKind as K;
use crate::pointer;

impl<'a> Walker<'_, 'a, '_> {
    /// anyOf/oneOf: pair identical branches, then branches with the same types, in order; an
    /// extra branch widens what is allowed, a missing one narrows it. allOf: the reverse.
    pub(super) fn branches(
        &mut self,
        o: &'a Map<String, Value>,
        n: &'a Map<String, Value>,
        at: &At,
        depth: usize,
    ) {
        for keyword in ["anyOf", "oneOf", "allOf"] {
            let raw = (o.get(keyword), n.get(keyword));
            if raw.0 == raw.1 {
                continue;
            }
            let (Some(Value::Array(old)), Some(Value::Array(new))) = raw else {
                let why = format!(
                    "{}: {keyword} added or removed; the schemas cannot be paired",
                    self.subject(at)
                );
                self.unjudged(at.keyword(keyword), raw.0, raw.1, why);
                continue;
            };
            // Each old branch pairs with the first untaken equal new branch, else with the first
            // untaken one of the same types; both lookups hashed (unions can be huge).
            let signature = |b: &Value| format!("{:?}", type_set(b.get("type")));
            let mut equal = canonical::FirstUnclaimed::new(new.iter().map(canonical::key));
            let mut same_types = canonical::FirstUnclaimed::new(new.iter().map(signature));
            let mut new_taken = vec![false; new.len()];
            let mut pairs: Vec<(usize, usize)> = Vec::new();
            let mut unpaired_old = Vec::new();
            for (i, branch) in old.iter().enumerate() {
                match equal.claim(&canonical::key(branch), &mut new_taken) {
                    Some(j) => pairs.push((i, j)),
                    None => unpaired_old.push(i),
                }
            }
            let mut removed = Vec::new();
            for i in unpaired_old {
                match same_types.claim(&signature(&old[i]), &mut new_taken) {
                    Some(j) => pairs.push((i, j)),
                    None => removed.push(i),
                }
            }
            for (i, j) in pairs {
                let child = at.index(keyword, i, j, at.path.clone());
                self.walk(&old[i], &new[j], &child, depth + 1);
            }
            let added = new_taken.iter().filter(|t| !**t).count();
            let subject = self.subject(at);
            let narrows_when_removed = keyword != "allOf";
            if !removed.is_empty() {
                let message = format!("{subject}: {} {keyword} branch(es) removed", removed.len());
                self.branch_change(narrows_when_removed, at, keyword, raw, message);
            }
            if added > 0 {
                let message = format!("{subject}: {added} {keyword} branch(es) added");
                self.branch_change(!narrows_when_removed, at, keyword, raw, message);
            }
        }
    }

    /// One side is a union (`anyOf`/`oneOf`) and the other a plain schema: the plain schema is
    /// paired with the branch that best matches it and compared with that branch alone; the
    /// other branches are what the union adds (a widening) or what unwrapping drops (a
    /// narrowing). Returns whether it handled the pair.
    pub(super) fn union_wrap(
        &mut self,
        old: &'a Value,
        new: &'a Value,
        o: &'a Map<String, Value>,
        n: &'a Map<String, Value>,
        at: &At,
        depth: usize,
    ) -> bool {
        for keyword in ["anyOf", "oneOf"] {
            let (wrapped, plain, plain_map, union, branches) =
                match (union_of(o, keyword), union_of(n, keyword)) {
                    (None, Some(b)) if !is_union(o) => (true, old, o, n, b),
                    (Some(b), None) if !is_union(n) => (false, new, n, o, b),
                    _ => continue,
                };
            let best = best_branch(plain_map, union, keyword, branches);
            let others = branches.len() - 1;
            let subject = self.subject(at);
            let raw = if wrapped {
                (None, n.get(keyword))
            } else {
                (o.get(keyword), None)
            };
            // The plain side against its branch; pointers on the union side go into the branch.
            let branch_at = pointer::push_index(
                &pointer::push(if wrapped { &at.new } else { &at.old }, keyword),
                best,
            );
            let child = if wrapped {
                At {
                    old: at.old.clone(),
                    new: branch_at,
                    path: at.path.clone(),
                }
            } else {
                At {
                    old: branch_at,
                    new: at.new.clone(),
                    path: at.path.clone(),
                }
            };
            let branch = &branches[best];
            if !covers(branch, plain_map, union, keyword) {
                if wrapped {
                    self.walk(plain, branch, &child, depth + 1);
                } else {
                    self.walk(branch, plain, &child, depth + 1);
                }
            }
            if others > 0 {
                let message = if wrapped {
                    format!("{subject}: wrapped in {keyword} with {others} more branch(es); what it accepted before is one branch")
                } else {
                    format!(
                        "{subject}: {keyword} of {} branches reduced to one",
                        branches.len()
                    )
                };
                // Wrapping widens what is valid; unwrapping narrows it.
                self.branch_change(!wrapped, at, keyword, raw, message);
            }
            return true;
        }
        false
    }

    /// `narrows`: the change shrinks the set of valid values.
    fn branch_change(
        &mut self,
        narrows: bool,
        at: &At,
        keyword: &str,
        raw: (Option<&Value>, Option<&Value>),
        message: String,
    ) {
        let kind = match (self.direction, narrows) {
            (Direction::Request, true) => K::TypeNarrowed,
            (Direction::Request, false) => K::TypeWidened,
            (Direction::Response, true) => K::OutputCompatibleChange,
            (Direction::Response, false) => K::OutputPropertyTypeChanged,
        };
        self.push(kind, at.keyword(keyword), raw.0, raw.1, message);
    }
}

fn union_of<'v>(schema: &'v Map<String, Value>, keyword: &str) -> Option<&'v Vec<Value>> {
    schema
        .get(keyword)
        .and_then(Value::as_array)
        .filter(|b| !b.is_empty())
}

fn is_union(schema: &Map<String, Value>) -> bool {
    union_of(schema, "anyOf").is_some() || union_of(schema, "oneOf").is_some()
}

/// Whether `branch`, with the union's sibling keywords (they apply to every branch), is exactly
/// `plain`: wrapping then changed nothing for the values `plain` accepted.
fn covers(
    branch: &Value,
    plain: &Map<String, Value>,
    union: &Map<String, Value>,
    keyword: &str,
) -> bool {
    let Some(branch) = branch.as_object() else {
        return false;
    };
    let mut merged: Map<String, Value> = union
        .iter()
        .filter(|(k, _)| k.as_str() != keyword)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (k, v) in branch {
        merged.insert(k.clone(), v.clone());
    }
    merged.len() == plain.len() && plain.iter().all(|(k, v)| merged.get(k) == Some(v))
}

/// The branch most like `plain`: one it covers, else by the same types, then the most shared
/// property names, then the most shared keyword values; the first on ties.
fn best_branch(
    plain: &Map<String, Value>,
    union: &Map<String, Value>,
    keyword: &str,
    branches: &[Value],
) -> usize {
    if let Some(i) = branches
        .iter()
        .position(|b| covers(b, plain, union, keyword))
    {
        return i;
    }
    let names = |m: &Map<String, Value>| -> BTreeSet<String> {
        m.get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    };
    let plain_names = names(plain);
    let plain_types = type_set(plain.get("type"));
    let score = |b: &Value| -> (bool, usize, usize) {
        let Some(b) = b.as_object() else {
            return (false, 0, 0);
        };
        let same_types = type_set(b.get("type")) == plain_types;
        let shared_names = names(b).intersection(&plain_names).count();
        let shared_values = b.iter().filter(|(k, v)| plain.get(*k) == Some(*v)).count();
        (same_types, shared_names, shared_values)
    };
    let mut best = 0;
    for i in 1..branches.len() {
        if score(&branches[i]) > score(&branches[best]) {
            best = i;
        }
    }
    best
}
