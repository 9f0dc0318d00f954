//! How many local `$ref`s a validator must follow one inside another: the compiler recurses
//! once per link, so a 5,000-link chain (160 KB of JSON) overflows any stack. Measured here
//! without recursion of our own, in time linear in the schema, before anything compiles it.

use std::collections::HashMap;

use serde_json::Value;

/// More `$ref` links than this, one inside another, and a schema is not compiled.
pub const MAX_REF_DEPTH: usize = 128;

/// The longest chain of local `$ref`s in `root` (a `$ref` inside the target of another counts
/// as the next link; a cycle counts once, as compilers stop there), stopping once it passes
/// `limit`.
pub fn ref_depth(root: &Value, limit: usize) -> usize {
    // Depth-first over nodes, each node's result kept by address. A frame is a node and the
    // deepest chain found below it so far; `Enter` frames expand, `Leave` frames combine.
    enum Step<'v> {
        Enter(&'v Value),
        Leave(&'v Value),
    }
    let key = |v: &Value| v as *const Value as usize;
    let mut done: HashMap<usize, usize> = HashMap::new();
    let mut open: HashMap<usize, ()> = HashMap::new();
    let mut stack = vec![Step::Enter(root)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Enter(node) => {
                if done.contains_key(&key(node)) || open.contains_key(&key(node)) {
                    continue;
                }
                open.insert(key(node), ());
                stack.push(Step::Leave(node));
                for child in children(root, node) {
                    stack.push(Step::Enter(child));
                }
            }
            Step::Leave(node) => {
                open.remove(&key(node));
                let mut deepest = 0;
                for child in children(root, node) {
                    let below = done.get(&key(child)).copied().unwrap_or(0);
                    let link = usize::from(is_ref_target(root, node, child));
                    deepest = deepest.max(below + link);
                }
                if deepest > limit {
                    return deepest;
                }
                done.insert(key(node), deepest);
            }
        }
    }
    done.get(&key(root)).copied().unwrap_or(0)
}

/// A node's nested values and, for a local `$ref`, its target.
fn children<'v>(root: &'v Value, node: &'v Value) -> impl Iterator<Item = &'v Value> {
    let nested: Box<dyn Iterator<Item = &'v Value>> = match node {
        Value::Object(map) => Box::new(map.values()),
        Value::Array(items) => Box::new(items.iter()),
        _ => Box::new(std::iter::empty()),
    };
    nested.chain(target(root, node))
}

fn target<'v>(root: &'v Value, node: &'v Value) -> Option<&'v Value> {
    let reference = node.get("$ref")?.as_str()?;
    super::values::resolve(root, reference)
}

/// `child` is reached from `node` through its `$ref` (a link of the chain).
fn is_ref_target(root: &Value, node: &Value, child: &Value) -> bool {
    target(root, node).is_some_and(|t| std::ptr::eq(t, child))
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
