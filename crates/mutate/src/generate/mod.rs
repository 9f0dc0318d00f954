//! The synthetic surface generator: seeded `tools/list` result objects that look like the real
//! servers in the shared corpus. Every draw, in order, is written down in METHOD.md.

pub mod contract;
mod plan;
mod vocabulary;

use serde_json::Value;

use driftlab_contract::rng::Stream;
pub use plan::Plan;
use plan::ToolPlan;
use vocabulary::{NameStyle, DESCRIPTIONS, DIALECTS, NAME_STYLES, NOUNS, PARAMETERS, VERBS};

/// Purpose tag of the per-surface stream.
pub(crate) const PURPOSE: &str = "surface";

/// Name attempts before a colliding name gets the tool index appended.
const NAME_ATTEMPTS: usize = 16;

/// Generates surface `index` of a study with `seed`: a `{"tools":[…]}` object with `tools` tools.
pub fn surface(seed: u64, index: u64, tools: usize) -> Value {
    plan(seed, index, tools).to_value()
}

/// Surface `index` with the rest of a server's contract beside its tools (see [`contract`]): the
/// same tools as [`surface`] gives, then `serverInfo`, `capabilities`, `instructions`, `prompts`
/// and `resources`.
pub fn surface_with_contract(seed: u64, index: u64, tools: usize) -> Value {
    let mut value = surface(seed, index, tools);
    if let Value::Object(members) = &mut value {
        members.extend(contract::members(seed, index));
    }
    value
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
    let mut out = String::with_capacity(words.iter().map(|w| w.len()).sum());
    for (i, word) in words.iter().enumerate() {
        if i == 0 {
            out.push_str(word);
        } else {
            push_capitalized(&mut out, word);
        }
    }
    out
}

/// Appends `word` with its first letter in upper case (ASCII letters only change).
fn push_capitalized(out: &mut String, word: &str) {
    let mut chars = word.chars();
    if let Some(first) = chars.next() {
        out.push(first.to_ascii_uppercase());
        out.push_str(chars.as_str());
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
    let title = rng.chance(1, 3).then(|| {
        let mut title = String::with_capacity(verb.len() + 1 + noun.len());
        push_capitalized(&mut title, verb);
        title.push(' ');
        push_capitalized(&mut title, noun);
        title
    });
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

/// A description template with `{Verb}`, `{verb}` and `{noun}` filled in.
fn fill(template: &str, verb: &str, noun: &str) -> String {
    let mut out = String::with_capacity(template.len() + 2 * noun.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        rest = &rest[open..];
        if let Some(after) = rest.strip_prefix("{Verb}") {
            push_capitalized(&mut out, verb);
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

#[cfg(test)]
mod tests {
    use super::*;
    use driftlab_contract::surface::is_valid_tool_name;

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

    /// The first letter in upper case, built the plain way.
    fn capitalize(word: &str) -> String {
        let mut chars = word.chars();
        match chars.next() {
            Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
            None => String::new(),
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

    /// The compact writer (`payload::compact`) writes every generated surface of a few seeds
    /// and sizes as serde_json does.
    #[test]
    fn compact_writes_generated_surfaces_as_serde_json_does() {
        for index in 0..200 {
            let value = surface(7, index, 1 + (index % 8) as usize);
            let mut written = Vec::new();
            driftlab_contract::payload::compact::write(&mut written, &value);
            assert_eq!(written, serde_json::to_vec(&value).unwrap());
        }
    }
}
