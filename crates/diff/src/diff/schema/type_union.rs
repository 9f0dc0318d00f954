//! A union whose branches only name types (`anyOf: [{"type": "string"}, {"type": "null"}]`)
//! is a type list (`"type": ["string", "null"]`), and a union one of whose branches is the whole
//! schema of the other side (a `$ref` to a `oneOf` wrapped in `anyOf` beside a new branch) is a
//! wrap: both are compared for what they accept, not branch by branch.

use serde_json::{Map, Value};

use super::branches::union_of;
use super::{At, Walker};
use driftlab_contract::lookup::Lookup;

impl<'a> Walker<'_, 'a, '_> {
    /// `anyOf: [{"type": A}, {"type": B}]` on one side and `"type": [A, B]` on the other, with
    /// nothing else but annotations on either: the same values, compared as two type lists (a
    /// `oneOf` only when no value can match two of its branches, i.e. not integer and number).
    pub(super) fn type_union(
        &mut self,
        wrapped: bool,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        keyword: &str,
        at: &At,
    ) -> bool {
        let (union, plain) = if wrapped { (n, o) } else { (o, n) };
        let only = |map: &Map<String, Value>, allowed: &str| {
            map.keys().all(|k| k == allowed || super::annotates(k))
        };
        let Some(branches) = union_of(union, keyword) else {
            return false;
        };
        let mut types: Vec<Value> = Vec::new();
        for branch in branches {
            let Some(map) = branch.as_object().filter(|m| only(m, "type")) else {
                return false;
            };
            let listed = match map.field("type") {
                Some(Value::String(t)) => vec![Value::String(t.clone())],
                Some(Value::Array(list)) if list.iter().all(Value::is_string) => list.clone(),
                _ => return false,
            };
            for t in listed {
                if types.contains(&t) {
                    if keyword == "oneOf" {
                        return false;
                    }
                    continue;
                }
                types.push(t);
            }
        }
        let both = |name: &str| types.iter().any(|t| t == name);
        if !only(union, keyword)
            || !only(plain, "type")
            || plain.field("type").is_none()
            || (keyword == "oneOf" && both("integer") && both("number"))
        {
            return false;
        }
        let mut listed = Map::new();
        listed.insert("type".into(), Value::Array(types));
        if wrapped {
            self.types(o, &listed, at);
        } else {
            self.types(&listed, n, at);
        }
        self.default_and_description(o, n, at);
        true
    }

    /// Whether one of `branches` (on the side at `union_at`) is, once its `$ref` is followed,
    /// the whole of `node`: a union (a `$ref` to a `oneOf`, say) wrapped beside new branches.
    pub(super) fn holds(
        &self,
        branches: &'a [Value],
        node: &Value,
        union_at: &str,
        old_side: bool,
    ) -> bool {
        branches.iter().any(|b| {
            self.resolve(b, union_at, old_side)
                .is_some_and(|(target, _)| target == node)
        })
    }
}
