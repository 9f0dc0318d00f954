//! Corrupted instances of an output schema: the schema's shape and types, every leaf a
//! wrong-but-well-typed value (METHOD.md of the output-contracts study spells out each rule).
//!
//! A walk builds one instance; at each union (`anyOf`/`oneOf`, or a `type` list with more than
//! one non-null type) it takes the branch its `choices` name, the first by default. Variants
//! take every branch of every union at least once, so every branch is judged, not only the first.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::rng::Stream;

/// The string every string leaf becomes: not a valid date, time, email, URI, UUID or hostname.
pub const SENTINEL: &str = "<<driftlab corrupted value>>";

/// The property added to an object schema that declares no properties.
pub const EXTRA_PROPERTY: &str = "driftlab_unexpected";

/// Nesting deeper than this is not walked (the instance holds `null` there).
const MAX_DEPTH: usize = 32;
/// At most this many leaves per instance and variants per schema.
const MAX_LEAVES: usize = 2000;
pub const MAX_VARIANTS: usize = 64;

/// One corrupted leaf: where it is in the instance, how it was corrupted, and a value that its
/// own keywords accept there (to corrupt one leaf at a time).
#[derive(Debug, Clone, PartialEq)]
pub struct Leaf {
    pub path: String,
    pub how: &'static str,
    pub corrupted: Value,
    pub valid: Valid,
}

/// A value a leaf's own keywords accept.
#[derive(Debug, Clone, PartialEq)]
pub enum Valid {
    Value(Value),
    /// The leaf is an added property: leaving it out is valid.
    Absent,
    /// No valid value is known (e.g. a `pattern` without `default` or `examples`).
    Unknown,
}

/// One corrupted instance and the union branches it took (`schema pointer → branch`).
#[derive(Debug, Clone)]
pub struct Corruption {
    pub instance: Value,
    pub leaves: Vec<Leaf>,
    pub choices: BTreeMap<String, usize>,
}

/// Every variant of corrupted instance for `schema`, the default (first branches) first.
pub fn corruptions(schema: &Value, rng: &mut Stream) -> Vec<Corruption> {
    let mut out: Vec<Corruption> = Vec::new();
    let mut queue = vec![BTreeMap::new()];
    let mut tried = std::collections::BTreeSet::new();
    while let Some(choices) = queue.pop() {
        if out.len() == MAX_VARIANTS {
            break;
        }
        let mut walk = Walk {
            root: schema,
            choices: &choices,
            leaves: Vec::new(),
            sites: Vec::new(),
            rng,
        };
        let instance = walk.value(schema, "", "", 0);
        let (leaves, sites) = (walk.leaves, walk.sites);
        // Each branch of each union met on this walk, not yet taken, becomes a variant.
        for (site, branches) in sites.into_iter().rev() {
            for branch in (1..branches).rev() {
                if !choices.contains_key(&site) && tried.insert((site.clone(), branch)) {
                    let mut next = choices.clone();
                    next.insert(site.clone(), branch);
                    queue.insert(0, next);
                }
            }
        }
        out.push(Corruption {
            instance,
            leaves,
            choices,
        });
    }
    out
}

struct Walk<'a, 'r> {
    root: &'a Value,
    choices: &'a BTreeMap<String, usize>,
    leaves: Vec<Leaf>,
    /// Unions met: (schema pointer, number of branches).
    sites: Vec<(String, usize)>,
    rng: &'r mut Stream,
}

impl Walk<'_, '_> {
    fn leaf(&mut self, path: &str, how: &'static str, value: Value, valid: Valid) -> Value {
        if self.leaves.len() < MAX_LEAVES {
            self.leaves.push(Leaf {
                path: path.to_string(),
                how,
                corrupted: value.clone(),
                valid,
            });
        }
        value
    }

    /// The branch taken at union `site` with `count` branches.
    fn branch(&mut self, site: String, count: usize) -> usize {
        let chosen = self.choices.get(&site).copied().unwrap_or(0).min(count - 1);
        self.sites.push((site, count));
        chosen
    }

    fn value(&mut self, schema: &Value, path: &str, at: &str, depth: usize) -> Value {
        if depth > MAX_DEPTH {
            return Value::Null;
        }
        let object = match schema {
            Value::Object(o) => o,
            // `true` accepts anything: a sentinel string is as good a corruption as any.
            Value::Bool(true) => {
                return self.leaf(
                    path,
                    "sentinel string (any value allowed)",
                    json!(SENTINEL),
                    Valid::Value(json!("x")),
                )
            }
            _ => return Value::Null,
        };
        if let Some(Value::String(reference)) = object.get("$ref") {
            return match resolve(self.root, reference) {
                Some(target) => {
                    self.value(target, path, reference.trim_start_matches('#'), depth + 1)
                }
                None => self.leaf(
                    path,
                    "sentinel string (unresolved $ref)",
                    json!(SENTINEL),
                    Valid::Unknown,
                ),
            };
        }
        if let Some(value) = object.get("const") {
            let wrong = other_than(std::slice::from_ref(value));
            return self.leaf(
                path,
                "value other than const",
                wrong,
                Valid::Value(value.clone()),
            );
        }
        if let Some(Value::Array(options)) = object
            .get("enum")
            .filter(|e| e.as_array().is_some_and(|a| !a.is_empty()))
        {
            return self.leaf(
                path,
                "value outside enum",
                other_than(options),
                Valid::Value(options[0].clone()),
            );
        }
        let has_shape = object.contains_key("type")
            || object.contains_key("properties")
            || object.contains_key("items");
        if !has_shape {
            for keyword in ["anyOf", "oneOf"] {
                if let Some(Value::Array(branches)) = object
                    .get(keyword)
                    .filter(|b| b.as_array().is_some_and(|a| !a.is_empty()))
                {
                    let site = format!("{at}/{keyword}");
                    let k = self.branch(site.clone(), branches.len());
                    return self.value(&branches[k], path, &format!("{site}/{k}"), depth + 1);
                }
            }
            if let Some(Value::Array(parts)) = object.get("allOf") {
                let merged = merge_all_of(parts, self.root);
                return self.value(&merged, path, &format!("{at}/allOf"), depth + 1);
            }
        }
        let kind = match object.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(types)) => {
                let types: Vec<&str> = types
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|t| *t != "null")
                    .collect();
                match types.len() {
                    0 => "null".to_string(),
                    1 => types[0].to_string(),
                    n => {
                        let k = self.branch(format!("{at}/type"), n);
                        types[k].to_string()
                    }
                }
            }
            _ if object.contains_key("properties") => "object".into(),
            _ if object.contains_key("items") || object.contains_key("prefixItems") => {
                "array".into()
            }
            _ => "any".into(),
        };
        match kind.as_str() {
            "object" => self.object(object, path, at, depth),
            "array" => self.array(object, path, at, depth),
            "string" => self.leaf(
                path,
                "sentinel string",
                json!(SENTINEL),
                valid_string(object),
            ),
            "integer" | "number" => {
                let (value, how) = out_of_range(object, kind == "integer", self.rng);
                self.leaf(path, how, value, valid_number(object, kind == "integer"))
            }
            "boolean" => {
                let value = match object.get("default") {
                    Some(Value::Bool(b)) => !b,
                    _ => self.rng.chance(1, 2),
                };
                self.leaf(
                    path,
                    "flipped boolean",
                    json!(value),
                    Valid::Value(json!(!value)),
                )
            }
            "null" => Value::Null,
            _ => self.leaf(
                path,
                "sentinel string (any value allowed)",
                json!(SENTINEL),
                Valid::Value(json!("x")),
            ),
        }
    }

    fn object(&mut self, object: &Map<String, Value>, path: &str, at: &str, depth: usize) -> Value {
        let mut out = Map::new();
        match object.get("properties").and_then(Value::as_object) {
            Some(properties) if !properties.is_empty() => {
                for (name, schema) in properties {
                    let here = format!("{path}/{}", escape(name));
                    let schema_at = format!("{at}/properties/{}", escape(name));
                    let value = self.value(schema, &here, &schema_at, depth + 1);
                    out.insert(name.clone(), value);
                }
            }
            _ => {
                let here = format!("{path}/{EXTRA_PROPERTY}");
                let value = match object.get("additionalProperties") {
                    Some(extra @ Value::Object(_)) => self.value(
                        extra,
                        &here,
                        &format!("{at}/additionalProperties"),
                        depth + 1,
                    ),
                    _ => self.leaf(&here, "unexpected property", json!(SENTINEL), Valid::Absent),
                };
                out.insert(EXTRA_PROPERTY.into(), value);
            }
        }
        Value::Object(out)
    }

    fn array(&mut self, object: &Map<String, Value>, path: &str, at: &str, depth: usize) -> Value {
        // As many items as minItems asks (at least one, at most 8), so a length bound never
        // rejects the instance for a reason other than a corrupted leaf.
        let count = object
            .get("minItems")
            .and_then(Value::as_u64)
            .unwrap_or(1)
            .clamp(1, 8) as usize;
        let prefix = object.get("prefixItems").and_then(Value::as_array);
        let mut items = Vec::new();
        for i in 0..count.max(prefix.map_or(0, Vec::len)) {
            let here = format!("{path}/{i}");
            let item = match (prefix.and_then(|p| p.get(i)), object.get("items")) {
                (Some(schema), _) => {
                    self.value(schema, &here, &format!("{at}/prefixItems/{i}"), depth + 1)
                }
                (None, Some(schema @ Value::Object(_))) => {
                    self.value(schema, &here, &format!("{at}/items"), depth + 1)
                }
                (None, Some(Value::Array(tuple))) if i < tuple.len() => {
                    self.value(&tuple[i], &here, &format!("{at}/items/{i}"), depth + 1)
                }
                _ => self.leaf(
                    &here,
                    "sentinel item",
                    json!(SENTINEL),
                    Valid::Value(json!("x")),
                ),
            };
            items.push(item);
        }
        Value::Array(items)
    }
}

/// A string the leaf's keywords accept: its `default` or first example, a sample of its
/// `format`, or `x` repeated to its `minLength`; unknown under a `pattern` without those.
fn valid_string(object: &Map<String, Value>) -> Valid {
    let given = object
        .get("default")
        .or_else(|| object.get("examples").and_then(|e| e.get(0)))
        .filter(|v| v.is_string());
    if let Some(v) = given {
        return Valid::Value(v.clone());
    }
    if let Some(format) = object.get("format").and_then(Value::as_str) {
        let sample = match format {
            "date-time" => "2026-01-01T00:00:00Z",
            "date" => "2026-01-01",
            "time" => "00:00:00Z",
            "email" => "someone@example.com",
            "uri" | "iri" | "url" => "https://example.com/",
            "uri-reference" | "iri-reference" => "/path",
            "uuid" => "00000000-0000-4000-8000-000000000000",
            "hostname" | "idn-hostname" => "example.com",
            "ipv4" => "127.0.0.1",
            "ipv6" => "::1",
            _ => return Valid::Unknown,
        };
        return Valid::Value(json!(sample));
    }
    if object.contains_key("pattern") {
        return Valid::Unknown;
    }
    let min = object
        .get("minLength")
        .and_then(Value::as_u64)
        .unwrap_or(1)
        .clamp(1, 64) as usize;
    Valid::Value(json!("x".repeat(min)))
}

/// A number the leaf's keywords accept: its `default`, else its lower or upper bound, else 0
/// (a `multipleOf` the bound misses is caught when the uncorrupted instance is validated).
fn valid_number(object: &Map<String, Value>, integer: bool) -> Valid {
    if let Some(v) = object.get("default").filter(|v| v.is_number()) {
        return Valid::Value(v.clone());
    }
    let bound = |key: &str| object.get(key).and_then(Value::as_f64);
    let step = if integer { 1.0 } else { 0.5 };
    let x = if let Some(min) = bound("minimum") {
        min.ceil()
    } else if let Some(min) = bound("exclusiveMinimum") {
        min.floor() + step
    } else if let Some(max) = bound("maximum") {
        max.floor()
    } else if let Some(max) = bound("exclusiveMaximum") {
        max.ceil() - step
    } else {
        0.0
    };
    Valid::Value(if integer { json!(x as i64) } else { json!(x) })
}

/// A number outside the schema's bounds, or an arbitrary one when it has none.
fn out_of_range(
    object: &Map<String, Value>,
    integer: bool,
    rng: &mut Stream,
) -> (Value, &'static str) {
    let bound = |key: &str| object.get(key).and_then(Value::as_f64);
    let number = |x: f64| {
        if integer {
            json!(x as i64)
        } else {
            json!(x)
        }
    };
    if let Some(max) = bound("maximum").or(bound("exclusiveMaximum")) {
        return (number(max.floor() + 1.0), "above maximum");
    }
    if let Some(min) = bound("minimum").or(bound("exclusiveMinimum")) {
        return (number(min.ceil() - 1.0), "below minimum");
    }
    let magnitude = 900_000_000 + rng.below(100_000_000) as i64;
    if integer {
        (json!(-magnitude), "arbitrary integer (no bounds)")
    } else {
        (
            json!(-(magnitude as f64) - 0.5),
            "arbitrary number (no bounds)",
        )
    }
}

/// A value of the same JSON type as `options[0]` that none of `options` equals.
fn other_than(options: &[Value]) -> Value {
    match options.first() {
        Some(Value::Bool(_)) => {
            let candidate = json!(!options.contains(&json!(true)));
            if options.contains(&candidate) {
                json!(SENTINEL)
            } else {
                candidate
            }
        }
        Some(Value::Number(_)) => {
            let max = options
                .iter()
                .filter_map(Value::as_f64)
                .fold(f64::MIN, f64::max);
            let next = max.floor() + 1.0;
            if options.iter().all(Value::is_i64) {
                json!(next as i64)
            } else {
                json!(next)
            }
        }
        _ => {
            let mut candidate = SENTINEL.to_string();
            while options.contains(&Value::String(candidate.clone())) {
                candidate.push('!');
            }
            Value::String(candidate)
        }
    }
}

impl Corruption {
    /// The instance with every leaf at its valid value, or `None` when some leaf has none.
    pub fn uncorrupted(&self) -> Option<Value> {
        let mut instance = self.instance.clone();
        for leaf in &self.leaves {
            let value = match &leaf.valid {
                Valid::Value(v) => Some(v.clone()),
                Valid::Absent => None,
                Valid::Unknown => return None,
            };
            put(&mut instance, &leaf.path, value)?;
        }
        Some(instance)
    }

    /// `uncorrupted` with only leaf `i` corrupted.
    pub fn with_one_corrupted(&self, uncorrupted: &Value, i: usize) -> Option<Value> {
        let mut instance = uncorrupted.clone();
        let leaf = &self.leaves[i];
        put(&mut instance, &leaf.path, Some(leaf.corrupted.clone()))?;
        Some(instance)
    }
}

/// Sets (or, for `None`, removes) the value at a JSON pointer whose parent exists.
fn put(instance: &mut Value, path: &str, value: Option<Value>) -> Option<()> {
    let cut = path.rfind('/')?;
    let key = path[cut + 1..].replace("~1", "/").replace("~0", "~");
    match (instance.pointer_mut(&path[..cut])?, value) {
        (Value::Object(map), Some(v)) => {
            map.insert(key, v);
        }
        (Value::Object(map), None) => {
            map.remove(&key);
        }
        (Value::Array(items), Some(v)) => *items.get_mut(key.parse::<usize>().ok()?)? = v,
        _ => return None,
    }
    Some(())
}

/// Corrupts a value in place, keeping every type: strings become the sentinel, numbers a drawn
/// large negative number (integers stay integers), booleans flip; arrays and objects keep their
/// shape. The same corruption `scan` applies to schema leaves, for answers that have no schema
/// (the `corrupt` fault of `driftlab wrap`). Returns how many leaves changed.
pub fn corrupt_value(value: &mut Value, rng: &mut Stream) -> usize {
    match value {
        Value::String(s) => {
            *s = SENTINEL.to_string();
            1
        }
        Value::Number(n) => {
            let magnitude = 900_000_000 + rng.below(100_000_000) as i64;
            *value = if n.is_f64() {
                json!(-(magnitude as f64) - 0.5)
            } else {
                json!(-magnitude)
            };
            1
        }
        Value::Bool(b) => {
            *b = !*b;
            1
        }
        Value::Array(items) => items.iter_mut().map(|item| corrupt_value(item, rng)).sum(),
        Value::Object(map) => map.values_mut().map(|item| corrupt_value(item, rng)).sum(),
        Value::Null => 0,
    }
}

/// A local `$ref` (`#/…`) resolved in `root`; remote references are not followed.
pub fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

/// `allOf` parts merged shallowly: their `type`, `properties`, `items` and `required`.
fn merge_all_of(parts: &[Value], root: &Value) -> Value {
    let mut merged = Map::new();
    let mut properties = Map::new();
    for part in parts {
        let part = match part.get("$ref").and_then(Value::as_str) {
            Some(r) => resolve(root, r).unwrap_or(part),
            None => part,
        };
        let Some(object) = part.as_object() else {
            continue;
        };
        for key in ["type", "items", "enum", "const"] {
            if let Some(v) = object.get(key) {
                merged.entry(key.to_string()).or_insert_with(|| v.clone());
            }
        }
        if let Some(Value::Object(p)) = object.get("properties") {
            for (k, v) in p {
                properties.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    if !properties.is_empty() {
        merged.insert("properties".into(), Value::Object(properties));
    }
    Value::Object(merged)
}

/// A property name as a JSON pointer segment.
pub fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variants(schema: Value) -> Vec<Corruption> {
        corruptions(&schema, &mut Stream::derive(1, "test", 0))
    }

    #[test]
    fn every_leaf_keeps_its_type_and_is_corrupted() {
        let v = variants(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "age": {"type": "integer", "minimum": 0, "maximum": 150},
                "ok": {"type": "boolean", "default": true},
                "kind": {"enum": ["a", "b"]},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                "nothing": {"type": "null"}
            }
        }));
        assert_eq!(v.len(), 1);
        assert_eq!(
            v[0].instance,
            json!({"name": SENTINEL, "age": 151, "ok": false, "kind": SENTINEL,
                   "tags": [SENTINEL, SENTINEL], "nothing": null})
        );
        let paths: Vec<&str> = v[0].leaves.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(
            paths,
            ["/name", "/age", "/ok", "/kind", "/tags/0", "/tags/1"]
        );
    }

    #[test]
    fn every_union_branch_is_a_variant() {
        let v = variants(json!({
            "type": "object",
            "properties": {
                "a": {"anyOf": [{"type": "string"}, {"type": "number", "maximum": 1}]},
                "b": {"type": ["string", "boolean", "null"]}
            }
        }));
        let instances: Vec<Value> = v.iter().map(|c| c.instance.clone()).collect();
        assert_eq!(instances.len(), 3);
        assert_eq!(instances[0], json!({"a": SENTINEL, "b": SENTINEL}));
        assert!(
            instances.contains(&json!({"a": 2.0, "b": SENTINEL})),
            "{instances:?}"
        );
        assert!(
            instances.iter().any(|i| i["b"].is_boolean()),
            "{instances:?}"
        );
    }

    #[test]
    fn refs_enums_and_open_objects() {
        let v = variants(json!({
            "$defs": {"n": {"type": "number", "enum": [1, 2.5]}},
            "type": "object",
            "properties": {"x": {"$ref": "#/$defs/n"}, "o": {"type": "object"}}
        }));
        assert_eq!(
            v[0].instance,
            json!({"x": 3.0, "o": {EXTRA_PROPERTY: SENTINEL}})
        );
        assert_eq!(v[0].leaves[1].how, "unexpected property");
    }
}
