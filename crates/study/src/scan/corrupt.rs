//! Corrupted instances of an output schema: the schema's shape and types, every leaf a
//! wrong-but-well-typed value (METHOD.md of the output-contracts study spells out each rule).
//!
//! A walk builds one instance; at each union (`anyOf`/`oneOf`, or a `type` list with more than
//! one non-null type) it takes the branch its `choices` name, the first by default. Variants
//! take every branch of every union at least once, so every branch is judged, not only the first.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

pub use driftlab_contract::contract::values::{corrupt_value, resolve, Valid, SENTINEL};
use driftlab_contract::contract::values::{other_than, out_of_range, valid_number, valid_string};
use driftlab_contract::rng::Stream;

/// The property added to an object schema that declares no properties.
pub const EXTRA_PROPERTY: &str = "driftlab_unexpected";

/// Nesting deeper than this is not walked (the instance holds `null` there).
const MAX_DEPTH: usize = 32;
/// At most this many leaves per instance and variants per schema.
const MAX_LEAVES: usize = 2000;
/// At most this many schema nodes are walked per instance (past it: `null`). Depth alone does
/// not bound the work: three `$ref: "#"` properties make 3^16 nodes within 32 levels.
const MAX_NODES: usize = 20_000;
/// At most this many variants per schema.
pub(crate) const MAX_VARIANTS: usize = 64;

/// One corrupted leaf: where it is in the instance, how it was corrupted, and a value that its
/// own keywords accept there (to corrupt one leaf at a time).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Leaf {
    /// Its place in the instance, as a JSON Pointer.
    pub path: String,
    /// How it was corrupted.
    pub how: &'static str,
    /// The corrupted value.
    pub corrupted: Value,
    /// A value its own keywords accept there.
    pub valid: Valid,
}

/// One corrupted instance and the union branches it took (`schema pointer → branch`).
#[derive(Debug, Clone)]
pub(crate) struct Corruption {
    /// The corrupted instance.
    pub instance: Value,
    /// Its corrupted leaves.
    pub leaves: Vec<Leaf>,
    /// The union branch taken at each union's schema pointer.
    pub choices: BTreeMap<String, usize>,
}

/// Every variant of corrupted instance for `schema`, the default (first branches) first.
pub(crate) fn corruptions(schema: &Value, rng: &mut Stream) -> Vec<Corruption> {
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
            nodes: 0,
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
    /// Schema nodes walked so far (bounded by `MAX_NODES`).
    nodes: usize,
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
        self.nodes += 1;
        if depth > MAX_DEPTH || self.nodes > MAX_NODES {
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
    pub(crate) fn with_one_corrupted(&self, uncorrupted: &Value, i: usize) -> Option<Value> {
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
