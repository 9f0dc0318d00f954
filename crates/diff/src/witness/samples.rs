//! Values a schema is meant to accept, for the witness search: a few per node (its enum, bounds,
//! lengths, examples, each union branch), and whole instances that vary one place at a time
//! from the smallest one (required properties only). The generator only proposes; the validator
//! decides, so a sample the schema rejects costs a check, never a wrong verdict.

use std::borrow::Cow;

use serde_json::{json, Map, Value};

use super::leaves::{numbers, strings};
use driftlab_contract::rng::Stream;

/// Nesting deeper than this is filled with `null` (the validator judges the result).
const MAX_DEPTH: usize = 16;
/// At most this many values are proposed per node, and this many instances per schema.
const MAX_SAMPLES: usize = 24;
pub(super) const MAX_CANDIDATES: usize = 400;
/// Generation stops once this many JSON values have been built for one schema (a schema whose
/// `required` lists 100,000 names makes each instance that large).
const MAX_BUILT: usize = 2_000_000;

/// At most this many instances are built around one planted value.
const PLANTED: usize = 4;

/// The name an instance gives a property the schema allows but does not list.
pub(super) const EXTRA_PROPERTY: &str = "driftlab_extra";

pub(super) struct Sampler<'a> {
    root: &'a Value,
    /// Property names to try as unlisted properties of open objects (the other schema's names).
    foreign: &'a [String],
    built: usize,
}

impl<'a> Sampler<'a> {
    pub fn new(root: &'a Value, foreign: &'a [String]) -> Sampler<'a> {
        Sampler {
            root,
            foreign,
            built: 0,
        }
    }

    /// Instances of the root: the smallest first, then one place varied at a time.
    pub fn candidates(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        self.variations(self.root, 0, &mut out);
        out
    }

    /// A drawn instance: each optional property present or not, each place a drawn sample.
    pub fn random(&mut self, rng: &mut Stream) -> Value {
        self.draw(self.root, 0, rng)
    }

    /// Instances of the root holding `value` at the instance place `place` (tokens of an
    /// instance pointer), the rest as small as the schema allows: one per way to reach it.
    pub fn plant(&mut self, place: &[String], value: &Value) -> Vec<Value> {
        self.plant_in(self.root, place, value, 0)
    }

    fn plant_in(
        &mut self,
        node: &Value,
        place: &[String],
        value: &Value,
        depth: usize,
    ) -> Vec<Value> {
        let Some((token, rest)) = place.split_first() else {
            return vec![value.clone()];
        };
        if depth > MAX_DEPTH || self.over_budget() {
            return Vec::new();
        }
        let map = effective(self.root, node);
        let mut out = Vec::new();
        if let Some(branches) = self.branches(&map) {
            for branch in &branches {
                out.extend(self.plant_in(branch, place, value, depth + 1));
            }
            out.truncate(PLANTED);
            return out;
        }
        let kinds = types(&map);
        if kinds.contains(&"object") {
            let listed = map
                .get("properties")
                .and_then(|p| p.get(token.as_str()))
                .cloned();
            let child = listed.unwrap_or_else(|| match map.get("additionalProperties") {
                Some(extra @ Value::Object(_)) => extra.clone(),
                _ => Value::Bool(true),
            });
            let (least, _) = self.objects(&map, depth);
            for inner in self.plant_in(&child, rest, value, depth + 1) {
                let mut object = least.clone();
                object.insert(token.clone(), inner);
                out.push(Value::Object(object));
            }
        }
        if let (true, Ok(index)) = (kinds.contains(&"array"), token.parse::<usize>()) {
            let child = map
                .get("prefixItems")
                .and_then(|p| p.get(index))
                .or_else(|| map.get("items").filter(|i| i.is_object() || i.is_boolean()))
                .cloned()
                .unwrap_or(Value::Bool(true));
            let filler = self.samples(&child, depth + 1).into_iter().next();
            let least = map.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let length = (index as u64 + 1).max(least).min(64) as usize;
            if index < length {
                for inner in self.plant_in(&child, rest, value, depth + 1) {
                    let mut items = vec![filler.clone().unwrap_or(Value::Null); length];
                    items[index] = inner;
                    out.push(Value::Array(items));
                }
            }
        }
        out.truncate(PLANTED);
        out
    }

    fn over_budget(&self) -> bool {
        self.built > MAX_BUILT
    }

    /// The branches of a union node, each with the node's other keywords (they apply to all).
    pub(super) fn branches(&self, map: &Map<String, Value>) -> Option<Vec<Value>> {
        let (keyword, branches) = ["anyOf", "oneOf"]
            .into_iter()
            .find_map(|k| Some((k, map.get(k)?.as_array()?)))?;
        let siblings: Map<String, Value> = map
            .iter()
            .filter(|(k, _)| *k != keyword)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Some(
            branches
                .iter()
                .map(|branch| {
                    let mut merged = siblings.clone();
                    for (k, v) in effective(self.root, branch).into_owned() {
                        merged.insert(k, v);
                    }
                    Value::Object(merged)
                })
                .collect(),
        )
    }

    /// A few values the node is meant to accept, its simplest first.
    pub(super) fn samples(&mut self, node: &Value, depth: usize) -> Vec<Value> {
        if depth > MAX_DEPTH || self.over_budget() {
            return vec![Value::Null];
        }
        if node == &Value::Bool(false) {
            return Vec::new();
        }
        let map = effective(self.root, node);
        let mut out = Vec::new();
        if let Some(value) = map.get("const") {
            out.push(value.clone());
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            out.extend(values.iter().take(MAX_SAMPLES).cloned());
        }
        if out.is_empty() {
            if let Some(branches) = self.branches(&map) {
                for branch in &branches {
                    out.extend(self.samples(branch, depth + 1));
                }
            } else {
                for kind in types(&map) {
                    self.typed(kind, &map, depth, &mut out);
                }
            }
        }
        out.truncate(MAX_SAMPLES);
        self.built += out.len();
        out
    }

    fn typed(&mut self, kind: &str, map: &Map<String, Value>, depth: usize, out: &mut Vec<Value>) {
        let given = ["default"].into_iter().filter_map(|k| map.get(k)).chain(
            map.get("examples")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        );
        out.extend(given.filter(|v| has_type(v, kind)).cloned());
        match kind {
            "null" => out.push(Value::Null),
            "boolean" => out.extend([json!(true), json!(false)]),
            "integer" | "number" => numbers(map, kind == "integer", out),
            "string" => strings(map, out),
            "array" => {
                let item = map
                    .get("items")
                    .filter(|i| i.is_object() || i.is_boolean())
                    .map(|items| self.samples(items, depth + 1))
                    .unwrap_or_else(|| vec![json!("x")]);
                let least = map.get("minItems").and_then(Value::as_u64).unwrap_or(0);
                let most = map.get("maxItems").and_then(Value::as_u64);
                let first = item.first().cloned().unwrap_or(Value::Null);
                for count in [least, least.max(1), most.unwrap_or(16)] {
                    let count = count.min(64) as usize;
                    out.push(Value::Array(vec![first.clone(); count]));
                }
                out.extend(item.into_iter().skip(1).map(|v| Value::Array(vec![v])));
            }
            "object" => {
                let (least, full) = self.objects(map, depth);
                out.push(Value::Object(least));
                out.push(Value::Object(full));
            }
            _ => {}
        }
    }

    /// The smallest object (required properties only) and the fullest (every listed one).
    pub(super) fn objects(
        &mut self,
        map: &Map<String, Value>,
        depth: usize,
    ) -> (Map<String, Value>, Map<String, Value>) {
        let properties = map.get("properties").and_then(Value::as_object);
        let required = driftlab_contract::surface::required_names(map);
        let (mut least, mut full) = (Map::new(), Map::new());
        for (key, schema) in properties.into_iter().flatten() {
            let value = self
                .samples(schema, depth + 1)
                .into_iter()
                .next()
                .unwrap_or(Value::Null);
            if required.contains(key.as_str()) {
                least.insert(key.clone(), value.clone());
            }
            full.insert(key.clone(), value);
        }
        for name in required {
            if !least.contains_key(name) {
                least.insert(name.to_string(), json!("x"));
                full.insert(name.to_string(), json!("x"));
            }
        }
        self.built += full.len() + least.len();
        (least, full)
    }

    /// Instances of `node`, each varying one place.
    fn variations(&mut self, node: &Value, depth: usize, out: &mut Vec<Value>) {
        if out.len() >= MAX_CANDIDATES || depth > MAX_DEPTH || self.over_budget() {
            return;
        }
        let samples = self.samples(node, depth);
        out.extend(samples);
        let map = effective(self.root, node);
        if let Some(branches) = self.branches(&map) {
            for branch in &branches {
                self.variations(branch, depth + 1, out);
            }
            return;
        }
        let kinds = types(&map);
        if kinds.contains(&"object") {
            self.object_variations(&map, depth, out);
        }
        if kinds.contains(&"array") {
            if let Some(items) = map.get("items").filter(|i| i.is_object()) {
                let mut inner = Vec::new();
                self.variations(items, depth + 1, &mut inner);
                out.extend(inner.into_iter().map(|v| Value::Array(vec![v])));
            }
        }
        out.truncate(MAX_CANDIDATES);
    }

    fn object_variations(&mut self, map: &Map<String, Value>, depth: usize, out: &mut Vec<Value>) {
        let (least, _) = self.objects(map, depth);
        let with = |key: &str, value: Value| {
            let mut object = least.clone();
            object.insert(key.to_string(), value);
            Value::Object(object)
        };
        let properties = map.get("properties").and_then(Value::as_object);
        for (key, schema) in properties.into_iter().flatten() {
            let mut inner = Vec::new();
            self.variations(schema, depth + 1, &mut inner);
            // Each instance copies the smallest one: with 100,000 required names, 400 copies
            // would be 40 million values, so the copies count against the budget too.
            self.built += inner.len() * (least.len() + 1);
            out.extend(inner.into_iter().map(|v| with(key, v)));
            if out.len() >= MAX_CANDIDATES || self.over_budget() {
                return;
            }
        }
        // Unlisted properties: the other schema's names with values of every type, and a
        // schema-valued additionalProperties' own samples.
        let open = map.get("additionalProperties") != Some(&Value::Bool(false));
        if open {
            let listed = |name: &str| properties.is_some_and(|p| p.contains_key(name));
            for name in self.foreign.iter().filter(|n| !listed(n)) {
                if out.len() >= MAX_CANDIDATES || self.over_budget() {
                    return;
                }
                for value in [json!(null), json!(0), json!("x"), json!(true), json!({})] {
                    out.push(with(name, value));
                }
                self.built += 5 * (least.len() + 1);
            }
        }
        if let Some(extra) = map.get("additionalProperties").filter(|v| v.is_object()) {
            for value in self.samples(extra, depth + 1) {
                out.push(with(EXTRA_PROPERTY, value));
            }
        }
    }

    fn draw(&mut self, node: &Value, depth: usize, rng: &mut Stream) -> Value {
        if depth > MAX_DEPTH || self.over_budget() {
            return Value::Null;
        }
        let map = effective(self.root, node);
        if let Some(branches) = self.branches(&map) {
            let pick = rng.below(branches.len() as u64) as usize;
            return self.draw(&branches[pick], depth + 1, rng);
        }
        let kinds = types(&map);
        let listed = map.contains_key("enum") || map.contains_key("const");
        if kinds.contains(&"object") && !listed {
            let properties = map.get("properties").and_then(Value::as_object);
            let required = driftlab_contract::surface::required_names(&map);
            let mut object = Map::new();
            for (key, schema) in properties.into_iter().flatten() {
                if required.contains(key.as_str()) || rng.below(2) == 0 {
                    object.insert(key.clone(), self.draw(schema, depth + 1, rng));
                }
            }
            for name in required {
                object.entry(name).or_insert_with(|| json!("x"));
            }
            self.built += object.len();
            return Value::Object(object);
        }
        if kinds.contains(&"array") && !listed {
            if let Some(items) = map.get("items").filter(|i| i.is_object()) {
                let count = rng.below(3);
                return (0..count)
                    .map(|_| self.draw(items, depth + 1, rng))
                    .collect();
            }
        }
        let samples = self.samples(node, depth);
        match samples.len() {
            0 => Value::Null,
            n => samples[rng.below(n as u64) as usize].clone(),
        }
    }
}

/// The JSON types a node admits: its `type`, else what its keywords imply, else every type.
pub(super) fn types(map: &Map<String, Value>) -> Vec<&'static str> {
    const ALL: [&str; 7] = [
        "object", "array", "string", "integer", "number", "boolean", "null",
    ];
    let named = |name: &str| ALL.iter().copied().find(|t| *t == name);
    match map.get("type") {
        Some(Value::String(t)) => named(t).into_iter().collect(),
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(Value::as_str)
            .filter_map(named)
            .collect(),
        _ => {
            let has = |keys: &[&str]| keys.iter().any(|k| map.contains_key(*k));
            if has(&[
                "properties",
                "required",
                "additionalProperties",
                "patternProperties",
            ]) {
                vec!["object"]
            } else if has(&["items", "prefixItems", "minItems", "maxItems"]) {
                vec!["array"]
            } else if has(&["minLength", "maxLength", "pattern", "format"]) {
                vec!["string"]
            } else if has(&[
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "multipleOf",
            ]) {
                vec!["number"]
            } else {
                vec![
                    "string", "integer", "number", "boolean", "null", "object", "array",
                ]
            }
        }
    }
}

fn has_type(value: &Value, kind: &str) -> bool {
    match kind {
        "integer" => value.as_f64().is_some_and(|x| x.fract() == 0.0),
        _ => {
            driftlab_contract::surface::json_type(value) == kind
                || (kind == "number" && value.is_number())
        }
    }
}

/// The node behind local `$ref`s, with `allOf` members merged in (shallowly).
pub(super) fn effective<'n>(root: &'n Value, node: &'n Value) -> Cow<'n, Map<String, Value>> {
    let node = resolve(root, node);
    let Some(map) = node.as_object() else {
        return Cow::Owned(Map::new());
    };
    if !map.contains_key("allOf") {
        return Cow::Borrowed(map);
    }
    let mut merged = map.clone();
    let Some(Value::Array(members)) = merged.remove("allOf") else {
        return Cow::Owned(merged);
    };
    for member in &members {
        let Some(part) = resolve(root, member).as_object() else {
            continue;
        };
        for (key, value) in part {
            match (key.as_str(), merged.get_mut(key)) {
                ("properties", Some(Value::Object(have))) => {
                    if let Value::Object(more) = value {
                        for (k, v) in more {
                            have.entry(k.clone()).or_insert_with(|| v.clone());
                        }
                    }
                }
                ("required", Some(Value::Array(have))) => {
                    if let Value::Array(more) = value {
                        have.extend(more.iter().cloned());
                    }
                }
                (_, None) => {
                    merged.insert(key.clone(), value.clone());
                }
                _ => {}
            }
        }
    }
    Cow::Owned(merged)
}

/// The node behind a chain of local `$ref`s (at most 16), or the node itself.
fn resolve<'n>(root: &'n Value, mut node: &'n Value) -> &'n Value {
    for _ in 0..16 {
        let target = node
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| driftlab_contract::contract::values::resolve(root, r));
        match target {
            Some(target) => node = target,
            None => return node,
        }
    }
    node
}
