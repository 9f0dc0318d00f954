//! Masking: a change inside one branch of an `anyOf` refuses nothing while a sibling branch on
//! the other side still accepts every value of that branch's types (an open object beside
//! typed stages, say), however deep the change sits, in the branch or behind its `$ref`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::keywords::type_set;
use super::{At, Direction, Walker};
use crate::diff::ChangeKind as K;
use driftlab_contract::lookup::Lookup;
use driftlab_contract::pointer;

impl<'a> Walker<'_, 'a, '_> {
    /// Whether `anyOf` branches `old[i]` and `new[j]` (paired) are masked by an open sibling:
    /// then a change between them is reported as masked (or, for the same text whose `$ref`s
    /// may have changed behind it, not at all) and not walked.
    pub(super) fn masked(
        &mut self,
        (old, new): (&'a [Value], &'a [Value]),
        open: &(OpenBranches, OpenBranches),
        (i, j): (usize, usize),
        at: &At,
    ) -> bool {
        let same_text = old[i] == new[j];
        if same_text && !has_ref(&old[i]) {
            return false;
        }
        // A value of the side values come from, still accepted by an open sibling on the other
        // side, is never refused, whatever changed in its own branch.
        let (from, base, old_side, others, skip) = match self.direction {
            Direction::Request => (&old[i], &at.old, true, &open.1, j),
            Direction::Response => (&new[j], &at.new, false, &open.0, i),
        };
        let from = self
            .resolve(from, base, old_side)
            .map_or(from, |(target, _)| target);
        let types = type_set(from.field("type")).unwrap_or_default();
        let Some(k) = others.covering(&types, skip) else {
            return false;
        };
        if same_text {
            // Nothing to report here, and nothing refused below.
            return true;
        }
        let message = format!(
            "{}: anyOf branch {i} changed, but branch {k} still accepts every value it accepted; no value is refused",
            self.subject(at)
        );
        let child = (
            pointer::push_index(&pointer::push(&at.old, "anyOf"), i),
            pointer::push_index(&pointer::push(&at.new, "anyOf"), j),
        );
        self.push(
            K::BranchChangeMasked,
            child,
            Some(&old[i]),
            Some(&new[j]),
            message,
        );
        true
    }
}

/// The branches of one union that accept every value of their types (an open object, a bare
/// type), grouped by those types: found in one pass, so asking about each of n branches is not
/// n passes over the union (a union of 20,000 branches was 400 million looks).
pub(super) struct OpenBranches {
    /// Per set of types: the first two open branches with it, by index.
    by_types: BTreeMap<BTreeSet<String>, (usize, Option<usize>)>,
}

impl OpenBranches {
    pub(super) fn of(branches: &[Value]) -> OpenBranches {
        let mut by_types = BTreeMap::new();
        for (k, branch) in branches.iter().enumerate() {
            if let Some(types) = open_types(branch) {
                by_types
                    .entry(types)
                    .and_modify(|(_, second): &mut (usize, Option<usize>)| {
                        second.get_or_insert(k);
                    })
                    .or_insert((k, None));
            }
        }
        OpenBranches { by_types }
    }

    /// The first open branch, by index, other than `skip` that accepts every value of `types`.
    fn covering(&self, types: &BTreeSet<String>, skip: usize) -> Option<usize> {
        self.by_types
            .iter()
            .filter(|(open, _)| covers_types(open, types))
            .filter_map(|(_, &(first, second))| if first == skip { second } else { Some(first) })
            .min()
    }
}

/// The branches of an `anyOf` (of a schema whose root is `root`) that no open sibling in the
/// same union masks: those whose values some other branch does not accept whatever they are.
pub(super) fn unmasked_branches<'v>(
    root: &'v Value,
    branches: &'v [Value],
) -> impl Iterator<Item = &'v Value> {
    let open = OpenBranches::of(branches);
    branches.iter().enumerate().filter_map(move |(i, branch)| {
        let resolved = branch
            .field("$ref")
            .and_then(Value::as_str)
            .and_then(|r| root.pointer(r.strip_prefix('#')?))
            .unwrap_or(branch);
        let types = type_set(resolved.field("type")).unwrap_or_default();
        open.covering(&types, i).is_none().then_some(branch)
    })
}

/// The types a branch accepts every value of (an open object, a bare type): `None` when it
/// constrains more than its type.
fn open_types(branch: &Value) -> Option<BTreeSet<String>> {
    let map = branch.as_object()?;
    let annotation = |k: &str| {
        super::ANNOTATIONS.contains(&k) || matches!(k, "description" | "default" | "type")
    };
    let each_accepts_everything = |v: &Value| {
        v.as_object()
            .is_some_and(|m| m.values().all(super::nested::accepts_everything))
    };
    // `properties: {}`, `required: []` and an `additionalProperties` of `{}` constrain nothing
    // (the catch-all stage of a pipeline is often written so).
    let open = map.iter().all(|(k, v)| match k.as_str() {
        "additionalProperties" => super::nested::accepts_everything(v),
        "properties" | "patternProperties" => each_accepts_everything(v),
        "required" => v.as_array().is_some_and(Vec::is_empty),
        _ => annotation(k),
    });
    open.then(|| type_set(map.field("type"))).flatten()
}

/// Whether a schema holds a `$ref` anywhere (what it accepts may then change while its text
/// does not).
fn has_ref(schema: &Value) -> bool {
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if map.field("$ref").is_some() || map.field("$dynamicRef").is_some() {
                    return true;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}

/// Every type in `narrow` is in `wide` (an integer is a number).
fn covers_types(wide: &BTreeSet<String>, narrow: &BTreeSet<String>) -> bool {
    !narrow.is_empty()
        && narrow
            .iter()
            .all(|t| wide.contains(t) || (t == "integer" && wide.contains("number")))
}
