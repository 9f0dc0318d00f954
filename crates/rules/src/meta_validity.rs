//! Whether a schema is valid against its meta-schema, with each `properties` member judged once
//! per distinct text: a study's candidates change one parameter of a schema whose others it
//! has seen, and the meta-schema's property lookups were a tenth of a study's instructions.
//!
//! Exact because of how the meta-schemas of drafts 6 to 2020-12 treat `properties`: an object
//! whose every value is validated against the whole meta-schema again (`"$ref": "#"`,
//! `"$recursiveRef": "#"`, `"$dynamicRef": "#meta"`) and nothing else looks at those values. So
//! a schema is valid exactly when each member of its `properties` is, judged by the same
//! meta-schema, and so is the schema with each member replaced by `true` (a schema valid in
//! those drafts, which leaves the object's keys as they were). Draft 4 (no boolean schemas)
//! and unknown dialects are validated whole.

use std::cell::RefCell;
use std::collections::HashSet;

use jsonschema::Validator;
use serde_json::{Map, Value};

use driftlab_contract::payload::compact;

/// The dialects whose meta-schema validates each `properties` member against itself and
/// accepts `true` as a schema (an absent `$schema` is 2020-12).
const SPLIT_DIALECTS: [&str; 4] = [
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-06/schema#",
];

thread_local! {
    // The members (and member-less roots) judged valid so far: dialect, NUL, compact text (a
    // dialect holds no NUL and a JSON text no raw one, so the two parts cannot run together).
    static VALID: RefCell<Known> = RefCell::default();
}
/// A schema with more members is validated whole: writing and remembering each member of a
/// 120,000-property schema cost its `check` 19% more instructions (callgrind), and such schemas
/// do not come back member by member the way a study's candidates do. (On 20,000 distinct
/// three-member schemas the split saves 18%: their members repeat.)
const MAX_SPLIT_MEMBERS: usize = 64;

/// The set starts over past this many members or bytes of member text.
const KNOWN_LIMIT: usize = 16_384;
const KNOWN_BYTES: usize = 16 << 20;

#[derive(Default)]
struct Known {
    members: HashSet<Vec<u8>, foldhash::fast::RandomState>,
    bytes: usize,
}

/// Whether `meta` (the meta-schema `schema`'s root `$schema` chose) finds `schema` valid: the
/// same answer as `meta.is_valid(schema)`.
pub(crate) fn is_valid(meta: &Validator, schema: &Value) -> bool {
    let dialect = match schema.get("$schema") {
        None => Some(SPLIT_DIALECTS[0]),
        Some(named) => SPLIT_DIALECTS
            .iter()
            .copied()
            .find(|d| Some(*d) == named.as_str()),
    };
    match dialect {
        Some(dialect) => split_is_valid(meta, dialect, schema),
        None => meta.is_valid(schema),
    }
}

fn split_is_valid(meta: &Validator, dialect: &'static str, schema: &Value) -> bool {
    let Value::Object(root) = schema else {
        return meta.is_valid(schema);
    };
    let Some(members) = root
        .get("properties")
        .and_then(Value::as_object)
        .filter(|m| (1..=MAX_SPLIT_MEMBERS).contains(&m.len()))
    else {
        return meta.is_valid(schema);
    };
    for member in members.values() {
        if !member_is_valid(meta, dialect, member) {
            return false;
        }
    }
    // The schema with its members replaced: the same for every candidate that changed only a
    // member, so judged once per text as members are.
    let mut text = keyed(dialect);
    write_shallow(&mut text, root);
    if is_known(&text) {
        return true;
    }
    let shallow: Map<String, Value> = root
        .iter()
        .map(|(key, value)| match key == "properties" {
            true => {
                let members = members.keys().map(|k| (k.clone(), Value::Bool(true)));
                (key.clone(), Value::Object(members.collect()))
            }
            false => (key.clone(), value.clone()),
        })
        .collect();
    let valid = meta.is_valid(&Value::Object(shallow));
    if valid {
        remember(text);
    }
    valid
}

/// The start of a key of the set of valid texts: the dialect and a NUL.
fn keyed(dialect: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(dialect.len() + 256);
    key.extend_from_slice(dialect.as_bytes());
    key.push(0);
    key
}

/// The compact text of `root` with each member of its `properties` object written as `true`:
/// exactly the text of the schema [`split_is_valid`] validates, so it shares the members' set.
fn write_shallow(out: &mut Vec<u8>, root: &Map<String, Value>) {
    out.push(b'{');
    for (i, (key, value)) in root.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        compact::write_str(out, key);
        out.push(b':');
        match (key == "properties", value.as_object()) {
            (true, Some(members)) => {
                out.push(b'{');
                for (j, name) in members.keys().enumerate() {
                    if j > 0 {
                        out.push(b',');
                    }
                    compact::write_str(out, name);
                    out.extend_from_slice(b":true");
                }
                out.push(b'}');
            }
            _ => compact::write(out, value),
        }
    }
    out.push(b'}');
}

/// Whether `key` (see [`keyed`]) was judged valid and kept.
fn is_known(key: &[u8]) -> bool {
    VALID.with(|known| known.borrow().members.contains(key))
}

/// Keeps `key` as valid, starting the set over past its limits.
fn remember(key: Vec<u8>) {
    if key.len() > KNOWN_BYTES {
        return;
    }
    VALID.with(|known| {
        let mut known = known.borrow_mut();
        if known.members.len() >= KNOWN_LIMIT || known.bytes + key.len() > KNOWN_BYTES {
            *known = Known::default();
        }
        known.bytes += key.len();
        known.members.insert(key);
    });
}

/// A member of `properties`, judged by the root's meta-schema (whatever `$schema` it names
/// itself: the meta-schema validates it as part of the root), once per text.
fn member_is_valid(meta: &Validator, dialect: &'static str, member: &Value) -> bool {
    if !member.is_object() {
        return meta.is_valid(member);
    }
    let mut text = keyed(dialect);
    compact::write(&mut text, member);
    if is_known(&text) {
        return true;
    }
    let valid = split_is_valid(meta, dialect, member);
    if valid {
        remember(text);
    }
    valid
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn agree(schema: &Value) {
        let meta = jsonschema::meta::validator_for(schema).unwrap();
        // Twice: judged, then from what was learnt.
        for _ in 0..2 {
            assert_eq!(
                is_valid(meta.as_ref(), schema),
                meta.as_ref().is_valid(schema),
                "{schema}"
            );
        }
    }

    #[test]
    fn the_split_answers_as_the_whole_validation_does() {
        let cases = [
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            json!({"properties": {"a": 5}}),
            json!({"properties": {"a": {"type": 7}}}),
            json!({"properties": {"a": {"minLength": -1}}}),
            json!({"properties": {"a": true, "b": false}}),
            json!({"properties": {"a": {"properties": {"b": {"type": "nope"}}}}}),
            json!({"properties": {"a": {"type": "string"}}, "required": "a"}),
            json!({"properties": {"a": {"type": "string"}}, "minProperties": 1.5}),
            json!({"properties": []}),
            json!({"properties": {}}),
            // Past the member limit: validated whole.
            Value::Object(
                [(
                    "properties".to_string(),
                    Value::Object(
                        (0..=MAX_SPLIT_MEMBERS)
                            .map(|i| {
                                (
                                    format!("p{i}"),
                                    json!({"type": if i == 7 { "x" } else { "string" }}),
                                )
                            })
                            .collect(),
                    ),
                )]
                .into_iter()
                .collect(),
            ),
            // A member's own `$schema` does not change the root's meta-schema.
            json!({"properties": {"a": {"$schema": "http://json-schema.org/draft-04/schema#",
                "exclusiveMinimum": true}}}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#",
                "properties": {"a": {"exclusiveMinimum": true}}}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#",
                "properties": {"a": {"exclusiveMinimum": 3}}}),
            json!({"$schema": "http://json-schema.org/draft-04/schema#",
                "properties": {"a": {"exclusiveMinimum": true, "minimum": 1}}}),
            json!({"$schema": "http://json-schema.org/draft-04/schema#",
                "properties": {"a": true}}),
            json!({"$schema": "https://json-schema.org/draft/2019-09/schema",
                "properties": {"a": {"items": [{"type": "string"}]}}}),
        ];
        for schema in &cases {
            agree(schema);
        }
        // The same member valid in one dialect and not in another is learnt per dialect.
        let member = json!({"exclusiveMinimum": true});
        agree(
            &json!({"$schema": "http://json-schema.org/draft-04/schema#",
            "properties": {"a": member.clone(), "b": {"minimum": 0}}}),
        );
        agree(&json!({"properties": {"a": member}}));
    }

    #[test]
    fn the_split_answers_as_the_whole_validation_does_on_real_schemas() {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let mut seen = 0;
        for folder in [
            "research/2026-11-30-mcp-drift-taxonomy/bases",
            "tests/data/corpus",
        ] {
            for entry in std::fs::read_dir(dir.join(folder)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_none_or(|e| e != "json") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let value: Value = serde_json::from_str(&text).unwrap();
                let mut stack = vec![&value];
                while let Some(v) = stack.pop() {
                    match v {
                        Value::Object(map) => {
                            for key in ["inputSchema", "outputSchema"] {
                                if let Some(schema) = map.get(key).filter(|s| s.is_object()) {
                                    agree(schema);
                                    seen += 1;
                                }
                            }
                            stack.extend(map.values());
                        }
                        Value::Array(items) => stack.extend(items),
                        _ => {}
                    }
                }
            }
        }
        assert!(seen > 100, "{seen} schemas");
    }
}
