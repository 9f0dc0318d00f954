//! Compares two JSON Schemas of the same tool, keyword by keyword, judging each change by the
//! direction data flows: an input schema as a request (narrowing what is accepted breaks callers),
//! an output schema as a response (widening what may come back breaks consumers).
//!
//! Walks `properties`, `items`, `prefixItems`, `additionalItems`, `additionalProperties`,
//! `anyOf`/`oneOf`/`allOf` (pairing branches), shared `$defs`/`definitions`, and follows local `$ref`s that differ
//! (cycle-safe). Depth and work are bounded. What cannot be judged soundly is reported as
//! `schema-change-unjudged` with its pointer — never passed silently.
//!
//! This file walks the two schemas (descending, following `$ref`s, comparing definitions); what
//! one node's keywords say is compared in `keywords.rs`, the schemas nested in a node in
//! `nested.rs`, and union and intersection branches in `branches.rs`.

mod branches;
mod items;
mod keywords;
mod masking;
mod nested;
mod others;
mod pattern;
mod type_union;

use std::collections::HashSet;

use serde_json::{Map, Value};

pub use super::tool_diff::Direction;
use super::tool_diff::ToolDiff;
use super::ChangeKind as K;
use driftlab_contract::lookup::Lookup;
use driftlab_contract::pointer;

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
    // 2026-07-28: the HTTP header an argument is mirrored into. Accepts no fewer values; its
    // validity is `x-mcp-header-invalid`'s and `x-mcp-header-newly-invalid`'s to judge.
    "x-mcp-header",
];
/// Keywords with a comparison of their own (the rest are compared by value in `others`).
const HANDLED: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "items",
    "prefixItems",
    "additionalItems",
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

struct Walker<'d, 'a, 'o> {
    diff: &'d mut ToolDiff<'a, 'o>,
    old_root: &'a Value,
    new_root: &'a Value,
    old_base: String,
    new_base: String,
    direction: Direction,
    visited: HashSet<(String, String)>,
    /// Targets of differing `$ref`s whose description and default the referrer compared.
    annotations_compared: HashSet<(String, String)>,
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
        let (mut old, mut new) = self.keyword(keyword);
        if let Some(key) = key {
            old = pointer::push(&old, key);
            new = pointer::push(&new, key);
        }
        At { old, new, path }
    }

    /// Position `i` of a list each side writes under its own keyword (`items` in draft-07's
    /// tuple form, `prefixItems` in 2020-12).
    fn index(&self, (old, new): (&str, &str), i: usize, path: String) -> At {
        At {
            old: pointer::push_index(&pointer::push(&self.old, old), i),
            new: pointer::push_index(&pointer::push(&self.new, new), i),
            path,
        }
    }

    /// A keyword each side writes under its own name.
    fn keywords(&self, (old, new): (&str, &str)) -> (String, String) {
        (pointer::push(&self.old, old), pointer::push(&self.new, new))
    }

    fn keyword(&self, keyword: &str) -> (String, String) {
        self.keywords((keyword, keyword))
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
        annotations_compared: HashSet::new(),
        nodes: 0,
    };
    let at = At {
        old: old_pointer.to_string(),
        new: new_pointer.to_string(),
        path: String::new(),
    };
    walker.dialect(old, new, &at);
    // Definitions are compared where a parameter first references them (reported at that
    // parameter); the pass after the walk compares those reached some other way.
    walker.walk(old, new, &at, 0);
    walker.definitions(old, new, &at);
}

/// Whether walking `old` against `new` finds nothing: they are equal and hold no `$ref` (the
/// targets of an equal one may still differ). A caller skips such a pair before building its
/// place (pointers and path) in both schemas.
fn unchanged(old: &Value, new: &Value) -> bool {
    old.field("$ref").is_none() && super::same::same(old, new)
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
        // The same local `$ref` on both sides: its targets may still differ. They are compared
        // once, at the first parameter that reaches them.
        if let (Some(r), true) = (old.field("$ref"), old.field("$ref") == new.field("$ref")) {
            if r.as_str().is_some_and(|r| r.starts_with("#/")) {
                if let (Some(o), Some(n)) = (
                    self.resolve(old, &at.old, true),
                    self.resolve(new, &at.new, false),
                ) {
                    if o.0 != n.0 {
                        self.walk_target(o, n, at, depth);
                    }
                }
            }
        }
        if super::same::same(old, new) {
            return;
        }
        // `allOf: [X]` beside annotations only (the pydantic-v1 wrap of a `$ref`) accepts what X
        // accepts: its description is compared here, then X in its place.
        let (old_inner, new_inner) = (single_all_of(old), single_all_of(new));
        if old_inner.is_some() != new_inner.is_some() {
            if let (Some(o), Some(n)) = (as_schema(old), as_schema(new)) {
                self.default_and_description(o, n, at);
            }
            let strip = |node: &'a Value, inner: Option<&'a Value>, pointer: &str| match inner {
                Some(inner) => (inner, format!("{pointer}/allOf/0")),
                None => (node, pointer.to_string()),
            };
            let (o, op) = strip(old, old_inner, &at.old);
            let (n, np) = strip(new, new_inner, &at.new);
            let inner_at = At {
                old: op,
                new: np,
                path: at.path.clone(),
            };
            // Descriptions were compared above; the inner schemas carry their own.
            self.walk(o, n, &inner_at, depth + 1);
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
        let (old_ref, new_ref) = (old.field("$ref"), new.field("$ref"));
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
            // A description or default beside a `$ref` applies with the target's (and is what
            // a client shows): each side's effective one is compared here, not the target's.
            let effective = |node: &Value, target: &Value| -> Map<String, Value> {
                ["description", "default"]
                    .into_iter()
                    .filter_map(|k| {
                        Some((k.to_string(), node.field(k).or(target.field(k))?.clone()))
                    })
                    .collect()
            };
            self.default_and_description(&effective(old, o), &effective(new, n), at);
            self.annotations_compared.insert((op.clone(), np.clone()));
            self.walk_target((o, op), (n, np), at, depth);
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
        if self.annotations_compared.is_empty()
            || !self
                .annotations_compared
                .contains(&(at.old.clone(), at.new.clone()))
        {
            self.default_and_description(o, n, at);
        }
        self.others(o, n, at);
    }

    /// Compares the targets of `$ref`s met at `at` (with their pointers), once per pair of
    /// targets, reported under `at`'s parameter path.
    fn walk_target(
        &mut self,
        (o, op): (&'a Value, String),
        (n, np): (&'a Value, String),
        at: &At,
        depth: usize,
    ) {
        if !self.visited.insert((op.clone(), np.clone())) {
            return;
        }
        let target = At {
            old: op,
            new: np,
            path: at.path.clone(),
        };
        self.walk(o, n, &target, depth + 1);
    }

    /// The target of a local `$ref` (`#/...`), or the node itself when it has none.
    fn resolve(&self, node: &'a Value, at: &str, old: bool) -> Option<(&'a Value, String)> {
        let Some(reference) = node.field("$ref") else {
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
                .field("$ref")
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
        let (o, n) = (old.field("$schema"), new.field("$schema"));
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

    /// Definitions present on both sides and referenced from the tool's schema on both (directly
    /// or through other definitions), compared once each, in the root's direction. A definition
    /// nothing references constrains no value, so its changes are none.
    fn definitions(&mut self, old: &'a Value, new: &'a Value, at: &At) {
        // On the side that refuses values, a reference in a masked `anyOf` branch refuses none.
        let refusing = self.direction == Direction::Request;
        let (old_used, new_used) = (referenced(old, !refusing), referenced(new, refusing));
        for keyword in ["$defs", "definitions"] {
            let (Some(o), Some(n)) = (
                old.field(keyword).and_then(Value::as_object),
                new.field(keyword).and_then(Value::as_object),
            ) else {
                continue;
            };
            for (name, old_def) in o {
                let fragment = pointer::push(&format!("#/{keyword}"), name);
                let used = |refs: &HashSet<String>| {
                    refs.iter().any(|r| {
                        r.strip_prefix(fragment.as_str())
                            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
                    })
                };
                if !used(&old_used) || !used(&new_used) {
                    continue;
                }
                if let Some(new_def) = n.field(name) {
                    let child = at.child(keyword, Some(name), format!("${name}"));
                    if self.visited.insert((child.old.clone(), child.new.clone())) {
                        self.walk(old_def, new_def, &child, 1);
                    }
                }
            }
        }
    }
}

/// The one member of `allOf: [X]` in a schema whose other keywords only annotate.
fn single_all_of(node: &Value) -> Option<&Value> {
    let map = node.as_object()?;
    let [member] = map.field("allOf")?.as_array()?.as_slice() else {
        return None;
    };
    let annotating = map.keys().all(|k| k == "allOf" || annotates(k));
    annotating.then_some(member)
}

/// A keyword that says something about a schema but does not change the values it accepts.
pub(super) fn annotates(keyword: &str) -> bool {
    ANNOTATIONS.contains(&keyword) || matches!(keyword, "description" | "default")
}

/// Every local `$ref` reachable from the schema's root outside its definitions, following
/// references into definitions transitively (iteratively: schemas can nest deeply); with
/// `unmasked`, not through an `anyOf` branch an open sibling masks.
fn referenced(root: &Value, unmasked: bool) -> HashSet<String> {
    let mut found: HashSet<String> = HashSet::new();
    let mut stack: Vec<&Value> = match root {
        Value::Object(m) => m
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "$defs" | "definitions"))
            .map(|(_, v)| v)
            .collect(),
        _ => Vec::new(),
    };
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(m) => {
                if let Some(reference) = m.field("$ref").and_then(Value::as_str) {
                    if reference.starts_with("#/") && found.insert(reference.to_string()) {
                        if let Some(target) = root.pointer(&reference[1..]) {
                            stack.push(target);
                        }
                    }
                }
                for (keyword, child) in m {
                    match (keyword.as_str(), child) {
                        ("anyOf", Value::Array(branches)) if unmasked => {
                            stack.extend(masking::unmasked_branches(root, branches))
                        }
                        _ => stack.push(child),
                    }
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    found
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
