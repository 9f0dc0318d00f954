//! How many local `$ref`s a validator must follow one inside another: the compiler recurses
//! once per link, so a 5,000-link chain (160 KB of JSON) overflows any stack. Measured here
//! without recursion of our own, in time linear in the schema, before anything compiles it.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

/// More `$ref` links than this, one inside another, and a schema is not compiled.
pub const MAX_REF_DEPTH: usize = 128;

/// The longest chain of local `$ref`s in `root` (a `$ref` inside the target of another counts
/// as the next link; a cycle counts once, as compilers stop there), stopping once it passes
/// `limit`.
pub fn ref_depth(root: &Value, limit: usize) -> usize {
    // Depth-first over nodes, each node's result kept by address: `Enter` expands a node (its
    // nested values and its `$ref`'s target), `Leave` combines what was found below it. A node
    // still open when met again closes a cycle and counts as no further link.
    enum Step<'v> {
        Enter(&'v Value),
        Leave(&'v Value, Option<&'v Value>),
    }
    let key = |v: &Value| v as *const Value as usize;
    let mut done: HashMap<usize, usize> = HashMap::new();
    let mut open: HashSet<usize> = HashSet::new();
    let mut stack = vec![Step::Enter(root)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Enter(node) => {
                if done.contains_key(&key(node)) || !open.insert(key(node)) {
                    continue;
                }
                let target = target(root, node);
                stack.push(Step::Leave(node, target));
                stack.extend(nested(node).chain(target).map(Step::Enter));
            }
            Step::Leave(node, target) => {
                open.remove(&key(node));
                let below = |v: &Value| done.get(&key(v)).copied().unwrap_or(0);
                let deepest = nested(node)
                    .map(below)
                    .chain(target.map(|t| below(t) + 1))
                    .max()
                    .unwrap_or(0);
                if deepest > limit {
                    return deepest;
                }
                done.insert(key(node), deepest);
            }
        }
    }
    done.get(&key(root)).copied().unwrap_or(0)
}

/// A node's nested values.
fn nested(node: &Value) -> Box<dyn Iterator<Item = &Value> + '_> {
    match node {
        Value::Object(map) => Box::new(map.values()),
        Value::Array(items) => Box::new(items.iter()),
        _ => Box::new(std::iter::empty()),
    }
}

/// The target of a node's local `$ref`.
fn target<'v>(root: &'v Value, node: &'v Value) -> Option<&'v Value> {
    let reference = node.get("$ref")?.as_str()?;
    super::values::resolve(root, reference)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chain(links: usize) -> Value {
        let mut defs = serde_json::Map::new();
        for i in 0..links {
            defs.insert(
                format!("d{i}"),
                json!({"$ref": format!("#/$defs/d{}", i + 1)}),
            );
        }
        defs.insert(format!("d{links}"), json!({"type": "string"}));
        json!({"properties": {"q": {"$ref": "#/$defs/d0"}}, "$defs": defs})
    }

    #[test]
    fn a_chain_counts_each_link_once_and_stops_past_the_limit() {
        assert_eq!(ref_depth(&chain(3), 100), 4);
        assert_eq!(ref_depth(&chain(5000), 10), 11);
        assert_eq!(ref_depth(&json!({"type": "string"}), 10), 0);
    }

    #[test]
    fn recursion_counts_once_and_nesting_through_properties_counts_links() {
        let tree = json!({"$defs": {"n": {"properties": {"kids": {"items": {"$ref": "#/$defs/n"}}}}},
                          "$ref": "#/$defs/n"});
        assert_eq!(ref_depth(&tree, 100), 2);
        let root = json!({"properties": {"a": {"$ref": "#"}, "b": {"$ref": "#"}}});
        assert_eq!(ref_depth(&root, 100), 1);
        let nested = json!({"$defs": {
            "a": {"properties": {"x": {"$ref": "#/$defs/b"}}},
            "b": {"properties": {"x": {"$ref": "#/$defs/c"}}},
            "c": {"type": "string"}},
            "properties": {"p": {"$ref": "#/$defs/a"}}});
        assert_eq!(ref_depth(&nested, 100), 3);
    }
}
