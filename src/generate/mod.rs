//! The synthetic surface generator: seeded `tools/list` result objects that look like the real
//! servers in the shared corpus. Every draw, in order, is written down in METHOD.md.

mod vocabulary;

use std::sync::LazyLock;

use serde_json::{json, Map, Value};

use crate::rng::Stream;
use vocabulary::{Kind, NameStyle, DESCRIPTIONS, DIALECTS, NAME_STYLES, NOUNS, PARAMETERS, VERBS};

/// Purpose tag of the per-surface stream.
pub const PURPOSE: &str = "surface";

/// Name attempts before a colliding name gets the tool index appended.
const NAME_ATTEMPTS: usize = 16;

/// Generates surface `index` of a study with `seed`: a `{"tools":[…]}` object with `tools` tools.
pub fn surface(seed: u64, index: u64, tools: usize) -> Value {
    let mut rng = Stream::derive(seed, PURPOSE, index);
    let style = *rng.choose(NAME_STYLES);
    let dialect = *rng.choose(DIALECTS);
    let mut names: Vec<String> = Vec::with_capacity(tools);
    let mut list = Vec::with_capacity(tools);
    for position in 0..tools {
        let (verb, read_only, noun, name) = draw_name(&mut rng, style, position, &names);
        names.push(name.clone());
        list.push(tool(&mut rng, style, dialect, verb, read_only, noun, name));
    }
    // Built directly: `json!` would copy every tool through `to_value`.
    object([("tools", Value::Array(list))])
}

/// An object with these members, in this order.
fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut map = Map::with_capacity(N);
    for (key, value) in members {
        map.insert(key.to_string(), value);
    }
    Value::Object(map)
}

fn text(s: &str) -> Value {
    Value::String(s.to_string())
}

fn draw_name(
    rng: &mut Stream,
    style: NameStyle,
    position: usize,
    taken: &[String],
) -> (&'static str, bool, &'static str, String) {
    let mut last = None;
    for _ in 0..NAME_ATTEMPTS {
        let &(verb, read_only) = rng.choose(VERBS);
        let noun = *rng.choose(NOUNS);
        let name = spell(style, &[verb, noun]);
        if !taken.contains(&name) {
            return (verb, read_only, noun, name);
        }
        last = Some((verb, read_only, noun));
    }
    // Only reachable when a surface has more tools than the vocabulary has pairs.
    let (verb, read_only, noun) = last.unwrap_or(("get", true, "item"));
    let suffix = position.to_string();
    (verb, read_only, noun, spell(style, &[verb, noun, &suffix]))
}

/// Spells words (verb first) in a naming style; dotted names put the noun first (`user.get`).
fn spell(style: NameStyle, words: &[&str]) -> String {
    match style {
        NameStyle::Snake => words.join("_"),
        NameStyle::Kebab => words.join("-"),
        NameStyle::Camel => camel(words),
        NameStyle::Dotted => {
            let mut reordered: Vec<&str> = words.to_vec();
            reordered.swap(0, 1);
            reordered.join(".")
        }
    }
}

fn camel(words: &[&str]) -> String {
    let mut out = String::new();
    for (i, word) in words.iter().enumerate() {
        if i == 0 {
            out.push_str(word);
        } else {
            out.push_str(&capitalize(word));
        }
    }
    out
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

fn tool(
    rng: &mut Stream,
    style: NameStyle,
    dialect: Option<&str>,
    verb: &str,
    read_only: bool,
    noun: &str,
    name: String,
) -> Value {
    let template = *rng.choose(DESCRIPTIONS);
    let description = fill(template, verb, noun);
    let count = 1 + rng.index(4);
    let mut chosen: Vec<usize> = Vec::with_capacity(count);
    while chosen.len() < count {
        let candidate = rng.index(PARAMETERS.len());
        if !chosen.contains(&candidate) {
            chosen.push(candidate);
        }
    }
    let mut properties = Map::with_capacity(count);
    let mut required = Vec::new();
    for &p in &chosen {
        let (key, schema) = &PARAMETER_SCHEMAS[p];
        let key = match style {
            NameStyle::Camel => key.clone(),
            _ => PARAMETERS[p].0.to_string(),
        };
        if rng.chance(1, 2) {
            required.push(Value::String(key.clone()));
        }
        properties.insert(key, schema.clone());
    }
    let mut input = Map::with_capacity(5);
    if let Some(d) = dialect {
        input.insert("$schema".into(), d.into());
    }
    input.insert("type".into(), "object".into());
    input.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        input.insert("required".into(), Value::Array(required));
    }
    if rng.chance(1, 2) {
        input.insert("additionalProperties".into(), false.into());
    }

    let mut fields = Map::with_capacity(6);
    fields.insert("name".into(), name.into());
    if rng.chance(1, 3) {
        fields.insert(
            "title".into(),
            format!("{} {}", capitalize(verb), capitalize(noun)).into(),
        );
    }
    fields.insert("description".into(), description.into());
    fields.insert("inputSchema".into(), Value::Object(input));
    if rng.chance(1, 2) {
        let mut hints = Map::new();
        hints.insert("readOnlyHint".into(), read_only.into());
        if !read_only {
            hints.insert("destructiveHint".into(), (verb == "delete").into());
        }
        fields.insert("annotations".into(), Value::Object(hints));
    }
    if rng.chance(1, 4) {
        fields.insert(
            "outputSchema".into(),
            OUTPUT_SCHEMAS[usize::from(read_only)].clone(),
        );
    }
    Value::Object(fields)
}

/// Each parameter's camel-case key and schema, built once: cloning a built schema is cheaper
/// than building it again (no key is hashed twice).
static PARAMETER_SCHEMAS: LazyLock<Vec<(String, Value)>> = LazyLock::new(|| {
    PARAMETERS
        .iter()
        .map(|&(snake, kind, text)| {
            let key = camel(&snake.split('_').collect::<Vec<_>>());
            (key, parameter(kind, text))
        })
        .collect()
});

/// The output schema of a tool that changes something (0) and of one that only reads (1).
static OUTPUT_SCHEMAS: LazyLock<[Value; 2]> =
    LazyLock::new(|| [output_schema(false), output_schema(true)]);

/// A description template with `{Verb}`, `{verb}` and `{noun}` filled in.
fn fill(template: &str, verb: &str, noun: &str) -> String {
    let mut out = String::with_capacity(template.len() + 2 * noun.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        rest = &rest[open..];
        if let Some(after) = rest.strip_prefix("{Verb}") {
            out.push_str(&capitalize(verb));
            rest = after;
        } else if let Some(after) = rest.strip_prefix("{verb}") {
            out.push_str(verb);
            rest = after;
        } else if let Some(after) = rest.strip_prefix("{noun}") {
            out.push_str(noun);
            rest = after;
        } else {
            out.push('{');
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    out
}

fn parameter(kind: Kind, description: &str) -> Value {
    let string = || text("string");
    let description = ("description", text(description));
    match kind {
        Kind::Text => object([("type", string()), description]),
        Kind::Enum(values) => object([
            ("type", string()),
            (
                "enum",
                Value::Array(values.iter().map(|v| text(v)).collect()),
            ),
            description,
        ]),
        Kind::Pattern(p) => object([("type", string()), ("pattern", text(p)), description]),
        Kind::Format(f) => object([("type", string()), ("format", text(f)), description]),
        Kind::Integer { min, max } => object([
            ("type", text("integer")),
            ("minimum", min.into()),
            ("maximum", max.into()),
            description,
        ]),
        Kind::Number { min, max } => object([
            ("type", text("number")),
            ("minimum", min.into()),
            ("maximum", max.into()),
            description,
        ]),
        Kind::Boolean => object([
            ("type", text("boolean")),
            ("default", false.into()),
            description,
        ]),
        Kind::StringList => object([
            ("type", text("array")),
            ("items", object([("type", string())])),
            description,
        ]),
    }
}

fn output_schema(read_only: bool) -> Value {
    if read_only {
        json!({
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": {"type": "object"}},
                "total": {"type": "integer"}
            },
            "required": ["items"]
        })
    } else {
        json!({
            "type": "object",
            "properties": {"id": {"type": "string"}, "ok": {"type": "boolean"}},
            "required": ["ok"]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::rules::structural::is_valid_tool_name;

    #[test]
    fn same_seed_and_index_give_the_same_surface() {
        assert_eq!(surface(1, 5, 3), surface(1, 5, 3));
        assert_ne!(surface(1, 5, 3), surface(1, 6, 3));
        assert_ne!(surface(1, 5, 3), surface(2, 5, 3));
    }

    #[test]
    fn fill_equals_replacing_each_placeholder() {
        for template in DESCRIPTIONS.iter().chain(&["{", "{x} {Verb}{noun}{", ""]) {
            for &(verb, _) in VERBS {
                for noun in NOUNS {
                    let replaced = template
                        .replace("{Verb}", &capitalize(verb))
                        .replace("{verb}", verb)
                        .replace("{noun}", noun);
                    assert_eq!(fill(template, verb, noun), replaced);
                }
            }
        }
    }

    #[test]
    fn names_are_unique_and_valid_even_past_the_vocabulary() {
        for tools in [1, 3, 20, 400] {
            let s = surface(9, 0, tools);
            let names: Vec<&str> = s["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap())
                .collect();
            assert_eq!(names.len(), tools);
            let mut unique = names.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), tools, "duplicate names with {tools} tools");
            assert!(names.iter().all(|n| is_valid_tool_name(n)));
        }
    }

    #[test]
    fn schemas_have_one_to_four_properties_and_consistent_required() {
        for i in 0..200 {
            for t in surface(3, i, 3)["tools"].as_array().unwrap() {
                let schema = &t["inputSchema"];
                assert_eq!(schema["type"], "object");
                let props = schema["properties"].as_object().unwrap();
                assert!((1..=4).contains(&props.len()));
                for r in schema["required"].as_array().into_iter().flatten() {
                    assert!(props.contains_key(r.as_str().unwrap()));
                }
            }
        }
    }

    #[test]
    fn all_name_styles_and_optional_fields_occur() {
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..200 {
            for t in surface(4, i, 3)["tools"].as_array().unwrap() {
                let name = t["name"].as_str().unwrap();
                seen.insert(if name.contains('_') {
                    "snake"
                } else if name.contains('-') {
                    "kebab"
                } else if name.contains('.') {
                    "dotted"
                } else {
                    "camel"
                });
                for field in ["title", "annotations", "outputSchema"] {
                    if t.get(field).is_some() {
                        seen.insert(field);
                    }
                }
                if t["inputSchema"].get("additionalProperties").is_some() {
                    seen.insert("additionalProperties");
                }
            }
        }
        assert_eq!(seen.len(), 8, "{seen:?}");
    }
}
