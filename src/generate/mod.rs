//! The synthetic surface generator: seeded `tools/list` result objects that look like the real
//! servers in the shared corpus. Every draw, in order, is written down in METHOD.md.

mod vocabulary;

use std::ops::Range;
use std::sync::LazyLock;

use serde_json::{json, Map, Value};

use crate::payload::compact;
use crate::rng::Stream;
use vocabulary::{Kind, NameStyle, DESCRIPTIONS, DIALECTS, NAME_STYLES, NOUNS, PARAMETERS, VERBS};

/// Purpose tag of the per-surface stream.
pub const PURPOSE: &str = "surface";

/// Name attempts before a colliding name gets the tool index appended.
const NAME_ATTEMPTS: usize = 16;

/// Generates surface `index` of a study with `seed`: a `{"tools":[…]}` object with `tools` tools.
pub fn surface(seed: u64, index: u64, tools: usize) -> Value {
    plan(seed, index, tools).to_value()
}

/// Every draw of surface `index`, in order, before it is built as a value or written as bytes.
pub fn plan(seed: u64, index: u64, tools: usize) -> Plan {
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
    Plan { tools: list }
}

/// A generated surface as drawn: [`Plan::to_value`] builds it, [`Plan::write`] writes the bytes
/// serializing that value gives, without building it (a test holds the two to each other).
#[derive(Debug, Clone)]
pub struct Plan {
    tools: Vec<ToolPlan>,
}

#[derive(Debug, Clone)]
struct ToolPlan {
    name: String,
    title: Option<String>,
    description: String,
    dialect: Option<&'static str>,
    /// Each chosen parameter (an index into `PARAMETERS`) and whether it is required.
    parameters: Vec<(usize, bool)>,
    camel_keys: bool,
    closed: bool,
    /// `readOnlyHint` and, for a tool that changes something, `destructiveHint`.
    annotations: Option<(bool, Option<bool>)>,
    /// The output schema of a tool that only reads (`true`) or changes something.
    output: Option<bool>,
}

impl Plan {
    /// The surface as a value.
    pub fn to_value(&self) -> Value {
        let tools = self.tools.iter().map(ToolPlan::to_value).collect();
        // Built directly: `json!` would copy every tool through `to_value`.
        object([("tools", Value::Array(tools))])
    }

    /// Appends the surface's compact bytes (what `serde_json::to_vec(&self.to_value())` gives)
    /// and returns where each tool's object is in `out`.
    pub fn write(&self, out: &mut Vec<u8>) -> Vec<Range<usize>> {
        out.extend_from_slice(b"{\"tools\":[");
        let mut spans = Vec::with_capacity(self.tools.len());
        for (i, tool) in self.tools.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let start = out.len();
            tool.write(out);
            spans.push(start..out.len());
        }
        out.extend_from_slice(b"]}");
        spans
    }
}

impl ToolPlan {
    fn key(&self, parameter: usize) -> &'static str {
        if self.camel_keys {
            &PARAMETER_SCHEMAS[parameter].0
        } else {
            PARAMETERS[parameter].0
        }
    }

    fn to_value(&self) -> Value {
        let mut properties = Map::with_capacity(self.parameters.len());
        let mut required = Vec::new();
        for &(p, is_required) in &self.parameters {
            let key = self.key(p);
            if is_required {
                required.push(text(key));
            }
            properties.insert(key.to_string(), PARAMETER_SCHEMAS[p].1.clone());
        }
        let mut input = Map::with_capacity(5);
        if let Some(d) = self.dialect {
            input.insert("$schema".into(), d.into());
        }
        input.insert("type".into(), "object".into());
        input.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            input.insert("required".into(), Value::Array(required));
        }
        if self.closed {
            input.insert("additionalProperties".into(), false.into());
        }
        let mut fields = Map::with_capacity(6);
        fields.insert("name".into(), text(&self.name));
        if let Some(title) = &self.title {
            fields.insert("title".into(), text(title));
        }
        fields.insert("description".into(), text(&self.description));
        fields.insert("inputSchema".into(), Value::Object(input));
        if let Some((read_only, destructive)) = self.annotations {
            let mut hints = Map::new();
            hints.insert("readOnlyHint".into(), read_only.into());
            if let Some(destructive) = destructive {
                hints.insert("destructiveHint".into(), destructive.into());
            }
            fields.insert("annotations".into(), Value::Object(hints));
        }
        if let Some(read_only) = self.output {
            fields.insert(
                "outputSchema".into(),
                OUTPUT_SCHEMAS[usize::from(read_only)].clone(),
            );
        }
        Value::Object(fields)
    }

    /// The tool's compact bytes, member by member as [`ToolPlan::to_value`] orders them.
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"name\":");
        compact::write_str(out, &self.name);
        if let Some(title) = &self.title {
            out.extend_from_slice(b",\"title\":");
            compact::write_str(out, title);
        }
        out.extend_from_slice(b",\"description\":");
        compact::write_str(out, &self.description);
        out.extend_from_slice(b",\"inputSchema\":{");
        if let Some(dialect) = self.dialect {
            out.extend_from_slice(b"\"$schema\":");
            compact::write_str(out, dialect);
            out.push(b',');
        }
        out.extend_from_slice(b"\"type\":\"object\",\"properties\":{");
        for (i, &(p, _)) in self.parameters.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            compact::write_str(out, self.key(p));
            out.push(b':');
            out.extend_from_slice(&PARAMETER_BYTES[p]);
        }
        out.push(b'}');
        let mut required = self.parameters.iter().filter(|(_, r)| *r).peekable();
        if required.peek().is_some() {
            out.extend_from_slice(b",\"required\":[");
            for (i, &(p, _)) in required.enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                compact::write_str(out, self.key(p));
            }
            out.push(b']');
        }
        if self.closed {
            out.extend_from_slice(b",\"additionalProperties\":false");
        }
        out.push(b'}');
        if let Some((read_only, destructive)) = self.annotations {
            out.extend_from_slice(b",\"annotations\":{\"readOnlyHint\":");
            out.extend_from_slice(if read_only { b"true" } else { b"false" });
            if let Some(destructive) = destructive {
                out.extend_from_slice(b",\"destructiveHint\":");
                out.extend_from_slice(if destructive { b"true" } else { b"false" });
            }
            out.push(b'}');
        }
        if let Some(read_only) = self.output {
            out.extend_from_slice(b",\"outputSchema\":");
            out.extend_from_slice(&OUTPUT_BYTES[usize::from(read_only)]);
        }
        out.push(b'}');
    }
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
    dialect: Option<&'static str>,
    verb: &str,
    read_only: bool,
    noun: &str,
    name: String,
) -> ToolPlan {
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
    let parameters = chosen.into_iter().map(|p| (p, rng.chance(1, 2))).collect();
    let closed = rng.chance(1, 2);
    let title = rng
        .chance(1, 3)
        .then(|| format!("{} {}", capitalize(verb), capitalize(noun)));
    let annotations = rng
        .chance(1, 2)
        .then(|| (read_only, (!read_only).then(|| verb == "delete")));
    let output = rng.chance(1, 4).then_some(read_only);
    ToolPlan {
        name,
        title,
        description,
        dialect,
        parameters,
        camel_keys: matches!(style, NameStyle::Camel),
        closed,
        annotations,
        output,
    }
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

/// The compact bytes of each parameter's schema and of the two output schemas, for
/// [`Plan::write`].
static PARAMETER_BYTES: LazyLock<Vec<Vec<u8>>> =
    LazyLock::new(|| PARAMETER_SCHEMAS.iter().map(|(_, s)| bytes(s)).collect());
static OUTPUT_BYTES: LazyLock<[Vec<u8>; 2]> =
    LazyLock::new(|| OUTPUT_SCHEMAS.each_ref().map(bytes));

fn bytes(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    compact::write(&mut out, value);
    out
}

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
    fn written_plans_are_the_bytes_their_values_serialize_to() {
        let mut out = Vec::new();
        for seed in [1, 20260822] {
            for index in 0..300 {
                for tools in [1, 3, 7] {
                    let plan = plan(seed, index, tools);
                    out.clear();
                    let spans = plan.write(&mut out);
                    let value = plan.to_value();
                    assert_eq!(out, serde_json::to_vec(&value).unwrap(), "{seed} {index}");
                    let listed = value["tools"].as_array().unwrap();
                    assert_eq!(spans.len(), listed.len());
                    for (span, tool) in spans.iter().zip(listed) {
                        assert_eq!(out[span.clone()], serde_json::to_vec(tool).unwrap());
                    }
                }
            }
        }
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
