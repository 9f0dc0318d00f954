//! Unions and intersections: `anyOf`/`oneOf`/`allOf` branches paired with each other, and a
//! plain schema paired with the union branch that wraps it.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::keywords::type_set;
use super::masking::OpenBranches;
use super::{At, Direction, Walker};
use crate::diff::canonical;
use crate::diff::ChangeKind as K;
use driftlab_contract::lookup::Lookup;
use driftlab_contract::pointer;

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
        let keywords: &[&str] = if self.union_keyword_swapped(o, n, at, depth) {
            &["allOf"]
        } else {
            &["anyOf", "oneOf", "allOf"]
        };
        self.branches_of(o, n, at, depth, keywords);
    }

    /// `anyOf` on one side and `oneOf` on the other, over the same kind of branches: when the
    /// `oneOf` side's branches are pairwise disjoint (no value matches two), the two accept the
    /// same values; the branches are then paired and compared like those of one union. When
    /// they may overlap, `anyOf` -> `oneOf` narrows (a value matching two branches is refused)
    /// and the reverse widens. Returns whether it handled the pair.
    fn union_keyword_swapped(
        &mut self,
        o: &'a Map<String, Value>,
        n: &'a Map<String, Value>,
        at: &At,
        depth: usize,
    ) -> bool {
        let swap = |a: &Map<String, Value>, b: &Map<String, Value>| {
            a.field("anyOf").is_some()
                && a.field("oneOf").is_none()
                && b.field("oneOf").is_some()
                && b.field("anyOf").is_none()
        };
        let (old_kw, new_kw) = if swap(o, n) {
            ("anyOf", "oneOf")
        } else if swap(n, o) {
            ("oneOf", "anyOf")
        } else {
            return false;
        };
        let (Some(old @ Value::Array(old_branches)), Some(new @ Value::Array(new_branches))) =
            (o.field(old_kw), n.field(new_kw))
        else {
            return false;
        };
        let (one_of, one_of_at, on_old) = if new_kw == "oneOf" {
            (new_branches, &at.new, false)
        } else {
            (old_branches, &at.old, true)
        };
        let resolved: Vec<&Value> = one_of
            .iter()
            .map(|b| self.resolve(b, one_of_at, on_old).map_or(b, |(t, _)| t))
            .collect();
        let disjoint = resolved
            .iter()
            .enumerate()
            .all(|(i, a)| resolved[i + 1..].iter().all(|b| disjoint(a, b)));
        if disjoint {
            self.pair_branches((old_kw, new_kw), (old, new), at, depth);
        } else {
            let subject = self.subject(at);
            let message = format!(
                "{subject}: {old_kw} became {new_kw} over branches a value can match more than once ({})",
                if new_kw == "oneOf" { "such a value is now refused" } else { "such a value is now accepted" }
            );
            let raw = (o.field(old_kw), n.field(new_kw));
            let pointers = (
                pointer::push(&at.old, old_kw),
                pointer::push(&at.new, new_kw),
            );
            let kind = match (self.direction, new_kw == "oneOf") {
                (Direction::Request, true) => K::TypeNarrowed,
                (Direction::Request, false) => K::TypeWidened,
                (Direction::Response, true) => K::OutputCompatibleChange,
                (Direction::Response, false) => K::OutputPropertyTypeChanged,
            };
            self.push(kind, pointers, raw.0, raw.1, message);
            self.pair_branches((old_kw, new_kw), (old, new), at, depth);
        }
        true
    }

    fn branches_of(
        &mut self,
        o: &'a Map<String, Value>,
        n: &'a Map<String, Value>,
        at: &At,
        depth: usize,
        keywords: &[&str],
    ) {
        for &keyword in keywords {
            let raw = (o.field(keyword), n.field(keyword));
            if raw.0 == raw.1 {
                continue;
            }
            let (Some(old @ Value::Array(_)), Some(new @ Value::Array(_))) = raw else {
                let why = format!(
                    "{}: {keyword} added or removed; the schemas cannot be paired",
                    self.subject(at)
                );
                self.unjudged(at.keyword(keyword), raw.0, raw.1, why);
                continue;
            };
            self.pair_branches((keyword, keyword), (old, new), at, depth);
        }
    }

    /// Pairs the branches of two unions (`keywords`: old side's, new side's) and compares each
    /// pair; an extra branch widens what is allowed, a missing one narrows it (allOf: the
    /// reverse).
    fn pair_branches(
        &mut self,
        (old_kw, new_kw): (&str, &str),
        raw: (&'a Value, &'a Value),
        at: &At,
        depth: usize,
    ) {
        let (Value::Array(old), Value::Array(new)) = raw else {
            return;
        };
        // Each old branch pairs with the first untaken equal new branch, else with the first
        // untaken one of the same types; both lookups hashed (unions can be huge).
        // Types are read behind `$ref`s: a referenced branch pairs by what it accepts.
        let signature = |b: &'a Value, base: &str, old_side: bool| {
            let b = self
                .resolve(b, base, old_side)
                .map_or(b, |(target, _)| target);
            format!("{:?}", type_set(b.field("type")))
        };
        let mut equal = canonical::FirstUnclaimed::new(new.iter().map(canonical::key));
        let mut same_types =
            canonical::FirstUnclaimed::new(new.iter().map(|b| signature(b, &at.new, false)));
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
            match same_types.claim(&signature(&old[i], &at.old, true), &mut new_taken) {
                Some(j) => pairs.push((i, j)),
                None => removed.push(i),
            }
        }
        let open = (OpenBranches::of(old), OpenBranches::of(new));
        for (i, j) in pairs {
            let child = At {
                old: pointer::push_index(&pointer::push(&at.old, old_kw), i),
                new: pointer::push_index(&pointer::push(&at.new, new_kw), j),
                path: at.path.clone(),
            };
            if (old_kw, new_kw) == ("anyOf", "anyOf") && self.masked((old, new), &open, (i, j), at)
            {
                continue;
            }
            self.walk(&old[i], &new[j], &child, depth + 1);
        }
        let added = new_taken.iter().filter(|t| !**t).count();
        let subject = self.subject(at);
        let narrows_when_removed = new_kw != "allOf";
        let raw = (Some(raw.0), Some(raw.1));
        let pointers = (
            pointer::push(&at.old, old_kw),
            pointer::push(&at.new, new_kw),
        );
        if !removed.is_empty() {
            let message = format!("{subject}: {} {new_kw} branch(es) removed", removed.len());
            self.branch_change(narrows_when_removed, pointers.clone(), raw, message);
        }
        if added > 0 {
            let message = format!("{subject}: {added} {new_kw} branch(es) added");
            self.branch_change(!narrows_when_removed, pointers, raw, message);
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
                    (None, Some(b)) if !is_union(o) || self.holds(b, old, &at.new, false) => {
                        (true, old, o, n, b)
                    }
                    (Some(b), None) if !is_union(n) || self.holds(b, new, &at.old, true) => {
                        (false, new, n, o, b)
                    }
                    _ => continue,
                };
            if self.type_union(wrapped, o, n, keyword, at) {
                return true;
            }
            // Branches are judged by what they accept: a `$ref` branch by its target.
            let union_side = if wrapped { &at.new } else { &at.old };
            let resolved: Vec<&Value> = branches
                .iter()
                .map(|b| {
                    self.resolve(b, union_side, !wrapped)
                        .map_or(b, |(target, _)| target)
                })
                .collect();
            let best = resolved
                .iter()
                .position(|r| *r == plain)
                .unwrap_or_else(|| best_branch(plain_map, union, keyword, &resolved));
            let others = branches.len() - 1;
            let subject = self.subject(at);
            let raw = if wrapped {
                (None, n.field(keyword))
            } else {
                (o.field(keyword), None)
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
            if !covers(resolved[best], plain_map, union, keyword) {
                if wrapped {
                    self.walk(plain, branch, &child, depth + 1);
                } else {
                    self.walk(branch, plain, &child, depth + 1);
                }
            }
            // Under oneOf, a value the old schema accepted that another branch also matches
            // fails "exactly one": wrapping then refuses it, and unwrapping accepts it again.
            let overlaps = keyword == "oneOf"
                && resolved
                    .iter()
                    .enumerate()
                    .any(|(i, b)| i != best && !disjoint(b, resolved[best]));
            if overlaps {
                let message = if wrapped {
                    format!("{subject}: wrapped in oneOf with {others} more branch(es) a value it accepted can also match; such a value now matches two branches and is refused")
                } else {
                    format!("{subject}: oneOf of {} branches reduced to one; values that matched two branches are accepted now", branches.len())
                };
                self.branch_change(wrapped, at.keyword(keyword), raw, message);
            } else if others > 0 {
                let message = if wrapped {
                    format!("{subject}: wrapped in {keyword} with {others} more branch(es); what it accepted before is one branch")
                } else {
                    format!(
                        "{subject}: {keyword} of {} branches reduced to one",
                        branches.len()
                    )
                };
                // Wrapping widens what is valid; unwrapping narrows it.
                self.branch_change(!wrapped, at.keyword(keyword), raw, message);
            }
            return true;
        }
        false
    }

    /// `narrows`: the change shrinks the set of valid values.
    fn branch_change(
        &mut self,
        narrows: bool,
        pointers: (String, String),
        raw: (Option<&Value>, Option<&Value>),
        message: String,
    ) {
        let kind = match (self.direction, narrows) {
            (Direction::Request, true) => K::TypeNarrowed,
            (Direction::Request, false) => K::TypeWidened,
            (Direction::Response, true) => K::OutputCompatibleChange,
            (Direction::Response, false) => K::OutputPropertyTypeChanged,
        };
        self.push(kind, pointers, raw.0, raw.1, message);
    }
}

/// No value matches both schemas, as far as their declared types or a shared required key's
/// distinct `const`/`enum` values show (an integer is a number).
fn disjoint(a: &Value, b: &Value) -> bool {
    let types = |v: &Value| {
        type_set(v.field("type")).map(|mut t| {
            if t.contains("integer") {
                t.insert("number".into());
            }
            t
        })
    };
    if let (Some(x), Some(y)) = (types(a), types(b)) {
        if x.is_disjoint(&y) {
            return true;
        }
    }
    let values = |v: &Value, key: &str| -> Option<Vec<Value>> {
        let required = v.field("required")?.as_array()?.iter().any(|r| r == key);
        let schema = v.field("properties")?.field(key)?;
        let values = match (schema.field("const"), schema.field("enum")) {
            (Some(c), _) => vec![c.clone()],
            (None, Some(Value::Array(e))) => e.clone(),
            _ => return None,
        };
        required.then_some(values)
    };
    let keys = a.field("properties").and_then(Value::as_object);
    keys.into_iter()
        .flatten()
        .any(|(key, _)| match (values(a, key), values(b, key)) {
            (Some(x), Some(y)) => x.iter().all(|v| !y.contains(v)),
            _ => false,
        })
}

pub(super) fn union_of<'v>(
    schema: &'v Map<String, Value>,
    keyword: &str,
) -> Option<&'v Vec<Value>> {
    schema
        .field(keyword)
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
    merged.len() == plain.len() && plain.iter().all(|(k, v)| merged.field(k) == Some(v))
}

/// The branch most like `plain`: one it covers, else by the same types, then the most shared
/// property names, then the most shared keyword values; the first on ties.
fn best_branch(
    plain: &Map<String, Value>,
    union: &Map<String, Value>,
    keyword: &str,
    branches: &[&Value],
) -> usize {
    if let Some(i) = branches
        .iter()
        .position(|b| covers(b, plain, union, keyword))
    {
        return i;
    }
    let names = |m: &Map<String, Value>| -> BTreeSet<String> {
        m.field("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    };
    let plain_names = names(plain);
    let plain_types = type_set(plain.field("type"));
    let score = |b: &&Value| -> (bool, usize, usize) {
        let Some(b) = b.as_object() else {
            return (false, 0, 0);
        };
        let same_types = type_set(b.field("type")) == plain_types;
        let shared_names = names(b).intersection(&plain_names).count();
        let shared_values = b.iter().filter(|(k, v)| plain.field(k) == Some(*v)).count();
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
