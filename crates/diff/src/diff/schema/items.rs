//! An array's item schemas, read alike in every dialect: the listed positions (`prefixItems`,
//! or draft-07's tuple form `items: [...]`) and the schema of every item past them (`items`, or
//! draft-07's `additionalItems` after a tuple). So `items: [A, B]` in a draft-07 schema and
//! `prefixItems: [A, B]` in a 2020-12 one are the same contract, not a changed shape.

use serde_json::{Map, Value};

use super::nested::accepts_everything;
use super::{unchanged, At, Walker};
use crate::diff::ChangeKind as K;
use driftlab_contract::lookup::Lookup;

/// One side's item schemas, each with the keyword it is written under.
struct Items<'a> {
    positions: Option<(&'static str, &'a [Value])>,
    rest: (&'static str, Option<&'a Value>),
}

impl<'a> Items<'a> {
    fn of(node: &'a Map<String, Value>) -> Items<'a> {
        match node.field("items") {
            Some(Value::Array(tuple)) => Items {
                positions: Some(("items", tuple)),
                rest: ("additionalItems", node.field("additionalItems")),
            },
            items => Items {
                positions: node
                    .field("prefixItems")
                    .and_then(Value::as_array)
                    .map(|p| ("prefixItems", p.as_slice())),
                rest: ("items", items),
            },
        }
    }
}

impl<'a> Walker<'_, 'a, '_> {
    pub(super) fn items(
        &mut self,
        o: &'a Map<String, Value>,
        n: &'a Map<String, Value>,
        at: &At,
        depth: usize,
    ) {
        // A node one side declares to hold no array: its item keywords constrain no value that
        // side accepts, and the type change says what changed.
        if !holds_arrays(o) || !holds_arrays(n) {
            return;
        }
        let subject = self.subject(at);
        let path = format!("{}[]", at.path);
        let (old, new) = (Items::of(o), Items::of(n));
        match (old.positions, new.positions) {
            (Some((ka, a)), Some((kb, b))) => self.tuple((ka, kb), (a, b), at, &path, depth),
            (None, None) => {}
            (a, b) => {
                let keyword = a.or(b).map_or("prefixItems", |(k, _)| k);
                let why = format!(
                    "{subject}: item positions are listed on one side only; the two were not \
                     compared"
                );
                let raw = (a.map(|_| o.field(keyword)), b.map(|_| n.field(keyword)));
                self.unjudged(at.keyword(keyword), raw.0.flatten(), raw.1.flatten(), why);
            }
        }
        let keywords = (old.rest.0, new.rest.0);
        let pointers = at.keywords(keywords);
        let open = |v: Option<&Value>| v.is_none_or(accepts_everything);
        let closed = |v: Option<&Value>| v == Some(&Value::Bool(false));
        let raw = (old.rest.1, new.rest.1);
        let tightened = self.judged(K::ConstraintTightened, K::OutputCompatibleChange);
        let loosened = self.judged(K::ConstraintLoosened, K::OutputConstraintLoosened);
        match raw {
            (Some(a), Some(b)) if a.is_object() && b.is_object() => {
                if !unchanged(a, b) {
                    let child = At {
                        old: pointers.0,
                        new: pointers.1,
                        path,
                    };
                    self.walk(a, b, &child, depth + 1);
                }
            }
            (a, b) if a == b || (open(a) && open(b)) => {}
            (a, b) if open(a) || closed(b) => {
                let why = format!("{subject}: items now constrained");
                self.push(tightened, pointers, a, b, why);
            }
            (a, b) if closed(a) || open(b) => {
                let why = format!("{subject}: items restriction dropped");
                self.push(loosened, pointers, a, b, why);
            }
            (a, b) => {
                let why = format!("{subject}: items changed; the two were not compared");
                self.unjudged(pointers, a, b, why);
            }
        }
    }

    fn tuple(
        &mut self,
        keywords: (&str, &str),
        (a, b): (&'a [Value], &'a [Value]),
        at: &At,
        path: &str,
        depth: usize,
    ) {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            if unchanged(x, y) {
                continue;
            }
            let child = at.index(keywords, i, format!("{path}{i}"));
            self.walk(x, y, &child, depth + 1);
        }
        if a.len() != b.len() {
            let why = format!(
                "{}: {} has {} positions, now {}",
                self.subject(at),
                keywords.1,
                a.len(),
                b.len()
            );
            self.unjudged(at.keywords(keywords), None, None, why);
        }
    }
}

/// Whether a node may hold an array: no `type`, or one that lists `array`.
fn holds_arrays(node: &Map<String, Value>) -> bool {
    match node.field("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(types)) => types.iter().any(|t| t == "array"),
        _ => true,
    }
}
