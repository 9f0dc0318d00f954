//! Compares two JSON Schemas of the same tool, keyword by keyword, judging each change by the
//! direction data flows: an input schema as a request (narrowing what is accepted breaks callers),
//! an output schema as a response (widening what may come back breaks consumers).
//!
//! Walks `properties`, `items`, `prefixItems`, `additionalProperties`, `anyOf`/`oneOf`/`allOf`
//! (pairing branches), shared `$defs`/`definitions`, and follows local `$ref`s that differ
//! (cycle-safe). Depth and work are bounded. What cannot be judged soundly is reported as
//! `schema-change-unjudged` with its pointer — never passed silently.

use std::collections::{BTreeSet, HashSet};

use serde_json::{Map, Value};

use super::canonical;
use super::pairing::MAX_RENAME_COMPARISONS;
use super::property_renames::{list_values, PropertyRenames};
use super::tool::ToolDiff;
use super::ChangeKind as K;
use crate::pointer;
use crate::surface::required_names;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// inputSchema: what the server accepts.
    Request,
    /// outputSchema: what the server may return.
    Response,
}

/// Deeper schemas are not compared further (reported as unjudged). Every schema level is at
/// least two JSON levels, so this covers anything the reader accepts (`payload::MAX_DEPTH`).
pub const MAX_DEPTH: usize = 1000;
/// At most this many schema nodes are compared per tool schema.
const MAX_NODES: usize = 20_000;

/// Keywords that only annotate; a change is reported as information.
pub(super) const ANNOTATIONS: &[&str] = &[
    "title",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$id",
    "$anchor",
];
/// Keywords handled by dedicated comparisons below.
const HANDLED: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "items",
    "prefixItems",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "default",
    "description",
    "$schema",
    "$defs",
    "definitions",
    "$ref",
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "multipleOf",
    "pattern",
    "format",
    "uniqueItems",
];
/// Count bounds (minimum/maximum and their exclusive forms are compared as effective bounds).
const LOWER_BOUNDS: &[&str] = &["minLength", "minItems", "minProperties"];
const UPPER_BOUNDS: &[&str] = &["maxLength", "maxItems", "maxProperties"];

struct Walker<'d, 'a, 'o> {
    diff: &'d mut ToolDiff<'a, 'o>,
    old_root: &'a Value,
    new_root: &'a Value,
    old_base: String,
    new_base: String,
    direction: Direction,
    visited: HashSet<(String, String)>,
    nodes: usize,
}

/// A place in both schemas: pointers into the payloads and a readable parameter path.
#[derive(Clone)]
struct At {
    old: String,
    new: String,
    /// e.g. `owner`, `filter.labels[]`; empty at the root.
    path: String,
}

impl At {
    fn child(&self, keyword: &str, key: Option<&str>, path: String) -> At {
        let (mut old, mut new) = (
            pointer::push(&self.old, keyword),
            pointer::push(&self.new, keyword),
        );
        if let Some(key) = key {
            old = pointer::push(&old, key);
            new = pointer::push(&new, key);
        }
        At { old, new, path }
    }

    fn index(&self, keyword: &str, old_i: usize, new_i: usize, path: String) -> At {
        At {
            old: pointer::push_index(&pointer::push(&self.old, keyword), old_i),
            new: pointer::push_index(&pointer::push(&self.new, keyword), new_i),
            path,
        }
    }

    fn keyword(&self, keyword: &str) -> (String, String) {
        (
            pointer::push(&self.old, keyword),
            pointer::push(&self.new, keyword),
        )
    }
}

pub(super) fn compare<'a>(
    diff: &mut ToolDiff<'a, '_>,
    old: &'a Value,
    new: &'a Value,
    old_pointer: &str,
    new_pointer: &str,
    direction: Direction,
) {
    let mut walker = Walker {
        diff,
        old_root: old,
        new_root: new,
        old_base: old_pointer.to_string(),
        new_base: new_pointer.to_string(),
        direction,
        visited: HashSet::new(),
        nodes: 0,
    };
    let at = At {
        old: old_pointer.to_string(),
        new: new_pointer.to_string(),
        path: String::new(),
    };
    walker.dialect(old, new, &at);
    walker.definitions(old, new, &at);
    walker.walk(old, new, &at, 0);
}

impl<'a> Walker<'_, 'a, '_> {
    fn push(
        &mut self,
        kind: K,
        at: (String, String),
        old: Option<&Value>,
        new: Option<&Value>,
        message: String,
    ) {
        self.diff
            .push(kind, Some(at.0), Some(at.1), old, new, message);
    }

    fn subject(&self, at: &At) -> String {
        let side = match self.direction {
            Direction::Request => "parameter",
            Direction::Response => "output property",
        };
        if at.path.is_empty() {
            match self.direction {
                Direction::Request => "inputSchema".into(),
                Direction::Response => "outputSchema".into(),
            }
        } else {
            format!("{side} {:?}", at.path)
        }
    }

    fn unjudged(
        &mut self,
        at: (String, String),
        old: Option<&Value>,
        new: Option<&Value>,
        why: String,
    ) {
        self.push(K::SchemaChangeUnjudged, at, old, new, why);
    }

    fn walk(&mut self, old: &'a Value, new: &'a Value, at: &At, depth: usize) {
        // Deep schemas recurse deeply: grow the stack on the heap rather than overflow it.
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            self.walk_here(old, new, at, depth)
        });
    }

    fn walk_here(&mut self, old: &'a Value, new: &'a Value, at: &At, depth: usize) {
        if old == new {
            return;
        }
        self.nodes += 1;
        if depth > MAX_DEPTH || self.nodes > MAX_NODES {
            let why = format!(
                "{} changed; nested deeper than {MAX_DEPTH} levels or too large to compare",
                self.subject(at)
            );
            self.unjudged((at.old.clone(), at.new.clone()), Some(old), Some(new), why);
            return;
        }
        // Follow $refs that differ; identical refs point into shared definitions, compared once.
        let (old_ref, new_ref) = (old.get("$ref"), new.get("$ref"));
        if old_ref != new_ref {
            let (Some((o, op)), Some((n, np))) = (
                self.resolve(old, &at.old, true),
                self.resolve(new, &at.new, false),
            ) else {
                let why = format!(
                    "{}: $ref changed and cannot be resolved locally",
                    self.subject(at)
                );
                self.unjudged(at.keyword("$ref"), old_ref, new_ref, why);
                return;
            };
            if !self.visited.insert((op.clone(), np.clone())) {
                return;
            }
            let target = At {
                old: op,
                new: np,
                path: at.path.clone(),
            };
            self.walk(o, n, &target, depth + 1);
            return;
        }
        let (Some(o), Some(n)) = (as_schema(old), as_schema(new)) else {
            let why = format!("{} changed between non-object schemas", self.subject(at));
            self.unjudged((at.old.clone(), at.new.clone()), Some(old), Some(new), why);
            return;
        };
        if self.union_wrap(old, new, o, n, at, depth) {
            return;
        }
        self.types(o, n, at);
        self.enums(o, n, at);
        self.bounds(o, n, at);
        self.text_constraints(o, n, at);
        self.additional_properties(o, n, at, depth);
        self.properties(o, n, at, depth);
        self.items(o, n, at, depth);
        self.branches(o, n, at, depth);
        self.default_and_description(o, n, at);
        self.others(o, n, at);
    }

    /// The target of a local `$ref` (`#/...`), or the node itself when it has none.
    fn resolve(&self, node: &'a Value, at: &str, old: bool) -> Option<(&'a Value, String)> {
        let Some(reference) = node.get("$ref") else {
            return Some((node, at.to_string()));
        };
        let fragment = reference.as_str()?.strip_prefix('#')?;
        let (root, base) = if old {
            (self.old_root, &self.old_base)
        } else {
            (self.new_root, &self.new_base)
        };
        let mut target = root.pointer(fragment)?;
        let mut target_pointer = format!("{base}{fragment}");
        // Chains of refs: bounded, a cycle of pure refs resolves to nothing.
        for _ in 0..32 {
            match target
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
            {
                Some(next) => {
                    target = root.pointer(next)?;
                    target_pointer = format!("{base}{next}");
                }
                None => return Some((target, target_pointer)),
            }
        }
        None
    }

    fn dialect(&mut self, old: &Value, new: &Value, at: &At) {
        let (o, n) = (old.get("$schema"), new.get("$schema"));
        if o != n {
            let message = format!(
                "JSON Schema dialect ($schema) of {} changed",
                self.subject(at)
            );
            self.push(
                K::SchemaDialectChanged,
                at.keyword("$schema"),
                o,
                n,
                message,
            );
        }
    }

    /// Definitions present on both sides, compared once each, in the root's direction.
    fn definitions(&mut self, old: &'a Value, new: &'a Value, at: &At) {
        for keyword in ["$defs", "definitions"] {
            let (Some(o), Some(n)) = (
                old.get(keyword).and_then(Value::as_object),
                new.get(keyword).and_then(Value::as_object),
            ) else {
                continue;
            };
            for (name, old_def) in o {
                if let Some(new_def) = n.get(name) {
                    let child = at.child(keyword, Some(name), format!("${name}"));
                    if self.visited.insert((child.old.clone(), child.new.clone())) {
                        self.walk(old_def, new_def, &child, 1);
                    }
                }
            }
        }
    }

    fn types(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, at: &At) {
        let (old, new) = (o.get("type"), n.get("type"));
        if old == new {
            return;
        }
        let (Some(old_set), Some(new_set)) = (type_set(old), type_set(new)) else {
            let why = format!("{}: type keyword is malformed", self.subject(at));
            self.unjudged(at.keyword("type"), old, new, why);
            return;
        };
        let widened = accepts_all(&new_set, &old_set);
        let narrowed = accepts_all(&old_set, &new_set);
        if widened && narrowed {
            return; // e.g. ["number","integer"] vs "number"
        }
        let subject = self.subject(at);
        let (kind, how) = match (self.direction, widened, narrowed) {
            (Direction::Request, true, _) => (K::TypeWidened, "widened"),
            (Direction::Request, _, true) => (K::TypeNarrowed, "narrowed"),
            (Direction::Request, _, _) => (K::TypeChanged, "changed"),
            (Direction::Response, _, true) => (K::OutputCompatibleChange, "narrowed"),
            (Direction::Response, _, _) => (
                K::OutputPropertyTypeChanged,
                if widened { "widened" } else { "changed" },
            ),
        };
        let message = format!(
            "{subject}: type {how} from {} to {}",
            show_types(&old_set),
            show_types(&new_set)
        );
        self.push(kind, at.keyword("type"), old, new, message);
    }

    fn enums(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, at: &At) {
        let values = |m: &Map<String, Value>| -> Option<Vec<Value>> {
            match (m.get("enum"), m.get("const")) {
                (Some(Value::Array(v)), _) => Some(v.clone()),
                (_, Some(c)) => Some(vec![c.clone()]),
                _ => None,
            }
        };
        let (old, new) = (values(o), values(n));
        if old == new {
            return;
        }
        let keyword = if o.contains_key("enum") || n.contains_key("enum") {
            "enum"
        } else {
            "const"
        };
        let pointers = at.keyword(keyword);
        let subject = self.subject(at);
        let raw = (o.get(keyword), n.get(keyword));
        match (old, new) {
            (None, Some(_)) => self.tightened(
                at,
                keyword,
                raw,
                format!("{subject}: {keyword} added (only listed values allowed)"),
            ),
            (Some(_), None) => self.loosened(
                at,
                keyword,
                raw,
                format!("{subject}: {keyword} removed (any value allowed)"),
            ),
            (Some(old), Some(new)) => {
                // Hashed, so 100k-value enums are compared in one pass each.
                let keys =
                    |vs: &[Value]| -> HashSet<String> { vs.iter().map(canonical::key).collect() };
                let (old_keys, new_keys) = (keys(&old), keys(&new));
                let removed: Vec<&Value> = old
                    .iter()
                    .filter(|v| !new_keys.contains(&canonical::key(v)))
                    .collect();
                let added: Vec<&Value> = new
                    .iter()
                    .filter(|v| !old_keys.contains(&canonical::key(v)))
                    .collect();
                let list = |vs: &[&Value]| list_values(vs);
                if !removed.is_empty() {
                    let kind = self.judged(K::EnumValueRemoved, K::OutputCompatibleChange);
                    let message =
                        format!("{subject}: value(s) {} no longer allowed", list(&removed));
                    self.push(kind, pointers.clone(), raw.0, raw.1, message);
                }
                if !added.is_empty() {
                    let kind = self.judged(K::EnumValueAdded, K::OutputEnumValueAdded);
                    let message = format!("{subject}: value(s) {} now allowed", list(&added));
                    self.push(kind, pointers, raw.0, raw.1, message);
                }
            }
            (None, None) => {}
        }
    }

    /// The change kind for this schema's direction: `request` for an inputSchema, `response` for
    /// an outputSchema.
    fn judged(&self, request: K, response: K) -> K {
        match self.direction {
            Direction::Request => request,
            Direction::Response => response,
        }
    }

    fn tightened(
        &mut self,
        at: &At,
        keyword: &str,
        raw: (Option<&Value>, Option<&Value>),
        message: String,
    ) {
        let kind = self.judged(K::ConstraintTightened, K::OutputCompatibleChange);
        self.push(kind, at.keyword(keyword), raw.0, raw.1, message);
    }

    fn loosened(
        &mut self,
        at: &At,
        keyword: &str,
        raw: (Option<&Value>, Option<&Value>),
        message: String,
    ) {
        let kind = self.judged(K::ConstraintLoosened, K::OutputConstraintLoosened);
        self.push(kind, at.keyword(keyword), raw.0, raw.1, message);
    }

    /// minimum/exclusiveMinimum and maximum/exclusiveMaximum are compared as one effective bound
    /// each (so `exclusiveMinimum: 0` and `minimum: 1` are the same bound for an integer).
    fn numeric_bounds(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, at: &At) {
        let subject = self.subject(at);
        for (inclusive, exclusive, lower) in [
            ("minimum", "exclusiveMinimum", true),
            ("maximum", "exclusiveMaximum", false),
        ] {
            let raw_old = (o.get(inclusive), o.get(exclusive));
            let raw_new = (n.get(inclusive), n.get(exclusive));
            if raw_old == raw_new {
                continue;
            }
            let keyword = if n.contains_key(exclusive)
                || (!n.contains_key(inclusive) && o.contains_key(exclusive))
            {
                exclusive
            } else {
                inclusive
            };
            let raw = (o.get(keyword), n.get(keyword));
            let (Some(old), Some(new)) = (
                bound(o, inclusive, exclusive, lower),
                bound(n, inclusive, exclusive, lower),
            ) else {
                let why = format!("{subject}: {inclusive}/{exclusive} changed to a non-number");
                self.unjudged(at.keyword(keyword), raw.0, raw.1, why);
                continue;
            };
            let show = |b: Option<Bound>| b.map_or("none".to_string(), |b| b.show(lower));
            let message = format!(
                "{subject}: {} bound {} -> {}",
                if lower { "lower" } else { "upper" },
                show(old),
                show(new)
            );
            match (old, new) {
                (a, b) if a == b => {}
                (None, Some(_)) => self.tightened(at, keyword, raw, message),
                (Some(_), None) => self.loosened(at, keyword, raw, message),
                (Some(a), Some(b)) => {
                    if a.tighter_than(&b, lower) {
                        self.loosened(at, keyword, raw, message);
                    } else {
                        self.tightened(at, keyword, raw, message);
                    }
                }
                (None, None) => {}
            }
        }
    }

    fn bounds(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, at: &At) {
        self.numeric_bounds(o, n, at);
        let subject = self.subject(at);
        for (keywords, lower) in [(LOWER_BOUNDS, true), (UPPER_BOUNDS, false)] {
            for &keyword in keywords {
                let raw = (o.get(keyword), n.get(keyword));
                if raw.0 == raw.1 {
                    continue;
                }
                let number = |v: Option<&Value>| v.map(|v| v.as_f64());
                match (number(raw.0), number(raw.1)) {
                    (None, Some(Some(_))) => {
                        self.tightened(at, keyword, raw, format!("{subject}: {keyword} added"))
                    }
                    (Some(Some(_)), None) => {
                        self.loosened(at, keyword, raw, format!("{subject}: {keyword} removed"))
                    }
                    (Some(Some(a)), Some(Some(b))) => {
                        let tighter = if lower { b > a } else { b < a };
                        let message = format!("{subject}: {keyword} {a} -> {b}");
                        if tighter {
                            self.tightened(at, keyword, raw, message);
                        } else {
                            self.loosened(at, keyword, raw, message);
                        }
                    }
                    _ => {
                        let why = format!("{subject}: {keyword} changed to a non-number");
                        self.unjudged(at.keyword(keyword), raw.0, raw.1, why);
                    }
                }
            }
        }
    }

    /// pattern, format, multipleOf, uniqueItems: adding one tightens, removing loosens, changing
    /// one cannot be judged (two regular expressions or formats do not order).
    fn text_constraints(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, at: &At) {
        let subject = self.subject(at);
        for keyword in ["pattern", "format", "multipleOf"] {
            let raw = (o.get(keyword), n.get(keyword));
            match raw {
                (a, b) if a == b => {}
                (None, Some(_)) => {
                    self.tightened(at, keyword, raw, format!("{subject}: {keyword} added"))
                }
                (Some(_), None) => {
                    self.loosened(at, keyword, raw, format!("{subject}: {keyword} removed"))
                }
                _ => {
                    let why = format!("{subject}: {keyword} changed; the two cannot be ordered");
                    self.unjudged(at.keyword(keyword), raw.0, raw.1, why);
                }
            }
        }
        let unique = |m: &Map<String, Value>| {
            m.get("uniqueItems")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        let raw = (o.get("uniqueItems"), n.get("uniqueItems"));
        match (unique(o), unique(n)) {
            (false, true) => self.tightened(
                at,
                "uniqueItems",
                raw,
                format!("{subject}: items must now be unique"),
            ),
            (true, false) => self.loosened(
                at,
                "uniqueItems",
                raw,
                format!("{subject}: items no longer need to be unique"),
            ),
            _ => {}
        }
    }

    fn additional_properties(
        &mut self,
        o: &'a Map<String, Value>,
        n: &'a Map<String, Value>,
        at: &At,
        depth: usize,
    ) {
        let raw = (o.get("additionalProperties"), n.get("additionalProperties"));
        if raw.0 == raw.1 {
            return;
        }
        let subject = self.subject(at);
        let closed = |v: Option<&Value>| v == Some(&Value::Bool(false));
        let open = |v: Option<&Value>| v.is_none() || v == Some(&Value::Bool(true));
        match raw {
            (a, b) if open(a) && !open(b) => self.tightened(
                at,
                "additionalProperties",
                raw,
                format!("{subject}: additionalProperties {} (unlisted properties restricted)", if closed(b) { "set to false" } else { "now constrained" }),
            ),
            (a, b) if !open(a) && open(b) => self.loosened(
                at,
                "additionalProperties",
                raw,
                format!("{subject}: additionalProperties restriction dropped (unlisted properties allowed)"),
            ),
            (a, b) if closed(a) => self.loosened(at, "additionalProperties", raw, format!("{subject}: additionalProperties false replaced by a schema {}", b.map(crate::payload::short).unwrap_or_default())),
            (_, b) if closed(b) => self.tightened(at, "additionalProperties", raw, format!("{subject}: additionalProperties set to false")),
            (Some(a), Some(b)) => {
                let child = at.child("additionalProperties", None, format!("{}{{*}}", at.path));
                self.walk(a, b, &child, depth + 1);
            }
            _ => {}
        }
    }

    fn properties(
        &mut self,
        o: &'a Map<String, Value>,
        n: &'a Map<String, Value>,
        at: &At,
        depth: usize,
    ) {
        let old_props = o
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(empty_map());
        let new_props = n
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(empty_map());
        let (old_req, new_req) = (required_names(o), required_names(n));
        let name = |key: &str| {
            if at.path.is_empty() {
                key.to_string()
            } else {
                format!("{}.{key}", at.path)
            }
        };

        for (key, old_schema) in old_props {
            let Some(new_schema) = new_props.get(key) else {
                continue;
            };
            let child = at.child("properties", Some(key), name(key));
            self.walk(old_schema, new_schema, &child, depth + 1);
        }

        let removed: Vec<&String> = old_props
            .keys()
            .filter(|k| !new_props.contains_key(*k))
            .collect();
        let added: Vec<&String> = new_props
            .keys()
            .filter(|k| !old_props.contains_key(*k))
            .collect();
        let mut renames = PropertyRenames::new(&added, new_props);
        for key in removed {
            let rename = renames.best(key, &old_props[key.as_str()]);
            let old_at = pointer::push(&pointer::push(&at.old, "properties"), key);
            match (rename, self.direction) {
                (Some(new_key), Direction::Request) => {
                    let new_key = renames.take(new_key);
                    let new_at = pointer::push(&pointer::push(&at.new, "properties"), new_key);
                    let message = format!(
                        "parameter {:?} was likely renamed to {:?}",
                        name(key),
                        name(new_key)
                    );
                    self.push(
                        K::ParameterRenamed,
                        (old_at, new_at),
                        Some(&Value::from(key.as_str())),
                        Some(&Value::from(new_key.as_str())),
                        message,
                    );
                }
                _ => {
                    let (kind, what) = match self.direction {
                        Direction::Request => (K::ParameterRemoved, "parameter"),
                        Direction::Response => (K::OutputPropertyRemoved, "output property"),
                    };
                    let message = format!("{what} {:?} was removed", name(key));
                    self.diff.push(
                        kind,
                        Some(old_at),
                        None,
                        old_props.get(key.as_str()),
                        None,
                        message,
                    );
                }
            }
        }
        if renames.capped {
            let why = format!(
                "{}: more than {MAX_RENAME_COMPARISONS} property pairs to compare; the rename search stopped and the rest are reported as removed and added",
                self.subject(at)
            );
            self.unjudged(at.keyword("properties"), None, None, why);
        }
        for key in renames.untaken() {
            let new_at = pointer::push(&pointer::push(&at.new, "properties"), key);
            let (kind, message) = match (self.direction, new_req.contains(key.as_str())) {
                (Direction::Request, true) => (
                    K::RequiredParameterAdded,
                    format!("required parameter {:?} was added", name(key)),
                ),
                (Direction::Request, false) => (
                    K::OptionalParameterAdded,
                    format!("optional parameter {:?} was added", name(key)),
                ),
                (Direction::Response, _) => (
                    K::OutputCompatibleChange,
                    format!("output property {:?} was added", name(key)),
                ),
            };
            self.diff.push(
                kind,
                None,
                Some(new_at),
                None,
                new_props.get(key.as_str()),
                message,
            );
        }
        // A name that entered or left `required`: judged unless its property was itself added or
        // removed (reported above). Names without a property schema on either side count too.
        for key in old_req.symmetric_difference(&new_req) {
            if old_props.contains_key(key) == new_props.contains_key(key) {
                self.requiredness(&name(key), new_req.contains(key), o, n, at);
            }
        }
    }

    /// `path` became required (`is`) or optional.
    fn requiredness(
        &mut self,
        path: &str,
        is: bool,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        at: &At,
    ) {
        let (kind, message) = match (self.direction, is) {
            (Direction::Request, true) => (
                K::ParameterBecameRequired,
                format!("parameter {path:?} became required"),
            ),
            (Direction::Request, false) => (
                K::ParameterBecameOptional,
                format!("parameter {path:?} became optional"),
            ),
            (Direction::Response, false) => (
                K::OutputPropertyBecameOptional,
                format!("output property {path:?} is no longer guaranteed (became optional)"),
            ),
            (Direction::Response, true) => (
                K::OutputCompatibleChange,
                format!("output property {path:?} became required"),
            ),
        };
        self.push(
            kind,
            at.keyword("required"),
            o.get("required"),
            n.get("required"),
            message,
        );
    }

    fn items(
        &mut self,
        o: &'a Map<String, Value>,
        n: &'a Map<String, Value>,
        at: &At,
        depth: usize,
    ) {
        let path = format!("{}[]", at.path);
        match (o.get("items"), n.get("items")) {
            (Some(a), Some(b)) if a.is_object() && b.is_object() => {
                let child = at.child("items", None, path.clone());
                self.walk(a, b, &child, depth + 1);
            }
            (Some(Value::Array(a)), Some(Value::Array(b))) => {
                self.tuple("items", a, b, at, &path, depth)
            }
            (a, b) if a != b => {
                let why = format!("{}: items changed shape", self.subject(at));
                self.unjudged(at.keyword("items"), a, b, why);
            }
            _ => {}
        }
        match (o.get("prefixItems"), n.get("prefixItems")) {
            (Some(Value::Array(a)), Some(Value::Array(b))) => {
                self.tuple("prefixItems", a, b, at, &path, depth)
            }
            (a, b) if a != b => {
                let why = format!("{}: prefixItems changed", self.subject(at));
                self.unjudged(at.keyword("prefixItems"), a, b, why);
            }
            _ => {}
        }
    }

    fn tuple(
        &mut self,
        keyword: &str,
        a: &'a [Value],
        b: &'a [Value],
        at: &At,
        path: &str,
        depth: usize,
    ) {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            let child = at.index(keyword, i, i, format!("{path}{i}"));
            self.walk(x, y, &child, depth + 1);
        }
        if a.len() != b.len() {
            let why = format!(
                "{}: {keyword} has {} positions, now {}",
                self.subject(at),
                a.len(),
                b.len()
            );
            self.unjudged(at.keyword(keyword), None, None, why);
        }
    }

    /// anyOf/oneOf: pair identical branches, then branches with the same types, in order; an
    /// extra branch widens what is allowed, a missing one narrows it. allOf: the reverse.
    fn branches(
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
    fn union_wrap(
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

    fn default_and_description(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, at: &At) {
        let subject = self.subject(at);
        let raw = (o.get("default"), n.get("default"));
        if raw.0 != raw.1 {
            let kind = self.judged(K::DefaultChanged, K::SchemaAnnotationChanged);
            self.push(
                kind,
                at.keyword("default"),
                raw.0,
                raw.1,
                format!("{subject}: default changed"),
            );
        }
        let raw = (o.get("description"), n.get("description"));
        if raw.0 != raw.1 {
            let kind = self.judged(K::ParameterDescriptionChanged, K::SchemaAnnotationChanged);
            self.push(
                kind,
                at.keyword("description"),
                raw.0,
                raw.1,
                format!("{subject}: description changed"),
            );
        }
    }

    fn others(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, at: &At) {
        let mut seen: HashSet<&String> = HashSet::new();
        for key in o.keys().chain(n.keys()) {
            if HANDLED.contains(&key.as_str()) || !seen.insert(key) {
                continue;
            }
            let raw = (o.get(key), n.get(key));
            if raw.0 == raw.1 {
                continue;
            }
            let subject = self.subject(at);
            if ANNOTATIONS.contains(&key.as_str()) {
                self.push(
                    K::SchemaAnnotationChanged,
                    at.keyword(key),
                    raw.0,
                    raw.1,
                    format!("{subject}: {key} changed"),
                );
            } else {
                let why = format!("{subject}: keyword {key} changed; driftlab does not judge it");
                self.unjudged(at.keyword(key), raw.0, raw.1, why);
            }
        }
    }
}

/// An effective numeric bound: a value and whether it is exclusive.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Bound {
    value: f64,
    exclusive: bool,
}

impl Bound {
    /// True when `self` admits fewer values than `other` on this side.
    fn tighter_than(&self, other: &Bound, lower: bool) -> bool {
        if self.value == other.value {
            return self.exclusive && !other.exclusive;
        }
        if lower {
            self.value > other.value
        } else {
            self.value < other.value
        }
    }

    fn show(&self, lower: bool) -> String {
        let op = match (lower, self.exclusive) {
            (true, true) => ">",
            (true, false) => ">=",
            (false, true) => "<",
            (false, false) => "<=",
        };
        format!("{op}{}", self.value)
    }
}

/// The effective bound of one side: `Some(None)` for no bound, `None` when malformed. Handles the
/// numeric (2019+) and boolean (draft-04) forms of `exclusiveMinimum`/`exclusiveMaximum`; for an
/// integer-only schema an exclusive integral bound becomes the next inclusive one.
fn bound(
    m: &Map<String, Value>,
    inclusive: &str,
    exclusive: &str,
    lower: bool,
) -> Option<Option<Bound>> {
    let number = |k: &str| m.get(k).map(Value::as_f64);
    let mut candidates = Vec::new();
    match (number(inclusive), m.get(exclusive)) {
        (Some(None), _) => return None,
        (Some(Some(v)), Some(Value::Bool(strict))) => candidates.push(Bound {
            value: v,
            exclusive: *strict,
        }),
        (Some(Some(v)), _) => candidates.push(Bound {
            value: v,
            exclusive: false,
        }),
        (None, _) => {}
    }
    match m.get(exclusive) {
        Some(Value::Bool(_)) | None => {}
        Some(v) => candidates.push(Bound {
            value: v.as_f64()?,
            exclusive: true,
        }),
    }
    let integer = m.get("type") == Some(&Value::from("integer"));
    let normal = |b: Bound| {
        if integer && b.exclusive && b.value.fract() == 0.0 {
            Bound {
                value: if lower { b.value + 1.0 } else { b.value - 1.0 },
                exclusive: false,
            }
        } else {
            b
        }
    };
    let tightest =
        candidates
            .into_iter()
            .map(normal)
            .reduce(|a, b| if a.tighter_than(&b, lower) { a } else { b });
    // A bound at or beyond ±(2^53−1), the largest integer JSON interoperates with exactly
    // (I-JSON, RFC 7493), limits no real call: zod 4 puts one on every integer.
    Some(tightest.filter(|b| {
        if lower {
            b.value > -MAX_SAFE_INTEGER
        } else {
            b.value < MAX_SAFE_INTEGER
        }
    }))
}

/// 2^53 − 1: bounds at or beyond it (in either direction) count as no bound.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

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

fn as_schema(value: &Value) -> Option<&Map<String, Value>> {
    match value {
        Value::Object(m) => Some(m),
        Value::Bool(true) => Some(empty_map()),
        _ => None,
    }
}

fn empty_map() -> &'static Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Map::new)
}

/// The set of types a `type` keyword allows; `None` means malformed. No keyword: every type.
fn type_set(value: Option<&Value>) -> Option<BTreeSet<String>> {
    const ALL: [&str; 7] = [
        "array", "boolean", "integer", "null", "number", "object", "string",
    ];
    match value {
        None => Some(ALL.iter().map(|s| s.to_string()).collect()),
        Some(Value::String(t)) => Some([t.clone()].into()),
        Some(Value::Array(ts)) => ts.iter().map(|t| t.as_str().map(String::from)).collect(),
        Some(_) => None,
    }
}

/// Every type in `narrow` is accepted by `wide` (an integer is a number).
fn accepts_all(wide: &BTreeSet<String>, narrow: &BTreeSet<String>) -> bool {
    narrow
        .iter()
        .all(|t| wide.contains(t) || (t == "integer" && wide.contains("number")))
}

fn show_types(set: &BTreeSet<String>) -> String {
    if set.len() == 7 {
        return "any".into();
    }
    set.iter().cloned().collect::<Vec<_>>().join("|")
}
