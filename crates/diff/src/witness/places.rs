//! Where a schema place lies: the instance pointer a schema pointer constrains (also for a place
//! inside a definition, through the places that reference it), the document pointer of a
//! validator's keyword location, and the union branch a place sits in.

use serde_json::Value;

use super::samples;
use driftlab_contract::pointer;

/// At most this many places that reference a definition are planted at.
const MAX_REFERENCE_SITES: usize = 4;

/// The instance pointer a schema pointer (relative to the schema's root) constrains: through
/// `properties`, `items`, `prefixItems`, `additionalProperties` and union branches; `None` for
/// a place in `$defs` (reached from wherever it is referenced).
pub(super) fn instance_place(schema_pointer: &str) -> Option<String> {
    let tokens = pointer::tokens(schema_pointer);
    let mut place = String::new();
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "properties" | "prefixItems" if i + 1 < tokens.len() => {
                place = pointer::push(&place, &tokens[i + 1]);
                i += 2;
            }
            "items" => {
                let tuple = tokens
                    .get(i + 1)
                    .is_some_and(|t| t.parse::<usize>().is_ok());
                place = pointer::push(&place, if tuple { &tokens[i + 1] } else { "0" });
                i += if tuple { 2 } else { 1 };
            }
            "additionalProperties" => {
                place = pointer::push(&place, samples::EXTRA_PROPERTY);
                i += 1;
            }
            "anyOf" | "oneOf" | "allOf" => i += 2,
            "$defs" | "definitions" => return None,
            _ => break,
        }
    }
    Some(place)
}

/// The instance places a schema pointer constrains in `root`: its own, or for a place inside a
/// definition (`/$defs/NAME/…`), those of up to [`MAX_REFERENCE_SITES`] places outside the
/// definitions that reference it, the rest of the pointer followed from there.
pub fn instance_places(root: &Value, schema_pointer: &str) -> Vec<String> {
    if let Some(place) = instance_place(schema_pointer) {
        return vec![place];
    }
    let tokens = pointer::tokens(schema_pointer);
    let [keyword, name, rest @ ..] = tokens.as_slice() else {
        return Vec::new();
    };
    if !matches!(keyword.as_str(), "$defs" | "definitions") {
        return Vec::new();
    }
    let definition = format!("#{}", pointer::push(&pointer::push("", keyword), name));
    let rest = rest
        .iter()
        .fold(String::new(), |at, t| pointer::push(&at, t));
    reference_sites(root, &definition)
        .iter()
        .filter_map(|site| instance_place(&format!("{site}{rest}")))
        .take(MAX_REFERENCE_SITES)
        .collect()
}

/// The pointers of the schemas outside `root`'s definitions whose `$ref` is `reference`, in
/// document order.
fn reference_sites(root: &Value, reference: &str) -> Vec<String> {
    let mut sites = Vec::new();
    let Value::Object(members) = root else {
        return sites;
    };
    let mut stack: Vec<(String, &Value)> = members
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "$defs" | "definitions"))
        .map(|(k, v)| (pointer::push("", k), v))
        .rev()
        .collect();
    while let Some((at, value)) = stack.pop() {
        match value {
            Value::Object(map) => {
                if map.get("$ref").and_then(Value::as_str) == Some(reference) {
                    sites.push(at.clone());
                }
                stack.extend(map.iter().rev().map(|(k, v)| (pointer::push(&at, k), v)));
            }
            Value::Array(items) => stack.extend(
                items
                    .iter()
                    .enumerate()
                    .rev()
                    .map(|(i, v)| (pointer::push_index(&at, i), v)),
            ),
            _ => {}
        }
    }
    sites
}

/// The document pointer of a keyword reached by `evaluation_path` (a validator's schema path,
/// which goes through `$ref` by name): each local `$ref` followed to its target. `None` through
/// any other reference.
pub(super) fn document_pointer(schema: &Value, evaluation_path: &str) -> Option<String> {
    let mut node = schema;
    let mut at = String::new();
    for token in pointer::tokens(evaluation_path) {
        if token == "$ref" {
            let target = node.get("$ref")?.as_str()?.strip_prefix('#')?;
            node = schema.pointer(target)?;
            at = target.to_string();
            continue;
        }
        node = match node {
            Value::Object(map) => map.get(&token)?,
            Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
        at = pointer::push(&at, &token);
    }
    Some(at)
}

/// The branch of the innermost `anyOf` or `oneOf` a schema pointer lies in (`…/oneOf/2`).
pub(super) fn union_branch(node: &str) -> Option<&str> {
    let tokens: Vec<&str> = node.split('/').collect();
    let mut branch = None;
    let mut end = 0;
    let mut i = 0;
    while i < tokens.len() {
        end += tokens[i].len() + usize::from(i > 0);
        match tokens[i] {
            // The next token is a name, whatever it spells.
            "properties" | "patternProperties" | "$defs" | "definitions" => {
                if let Some(name) = tokens.get(i + 1) {
                    end += name.len() + 1;
                }
                i += 2;
                continue;
            }
            "anyOf" | "oneOf" => {
                if let Some(index) = tokens.get(i + 1).filter(|t| t.parse::<usize>().is_ok()) {
                    end += index.len() + 1;
                    branch = Some(&node[..end]);
                    i += 2;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    branch
}
