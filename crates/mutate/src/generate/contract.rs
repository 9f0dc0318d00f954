//! The rest of a generated server's contract: the snapshot members beside `tools`
//! (`serverInfo`, `capabilities`, `instructions`, `prompts`, `resources`), for studies whose
//! classes change them. Drawn from their own stream `(seed, "contract", index)`, so a surface's
//! tools are the same bytes with or without them. Every draw, in order, is in the whole-contract
//! study's METHOD.md.

use serde_json::{json, Map, Value};

use driftlab_contract::rng::Stream;

/// Purpose tag of the per-surface contract stream.
pub(crate) const PURPOSE: &str = "contract";

/// A prompt of the vocabulary: name, description, and arguments (name, description).
type PromptWords = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

const PROMPTS: &[PromptWords] = &[
    (
        "summarize",
        "Summarize a document for a reader",
        &[
            ("document", "The document id"),
            ("length", "short, medium or long"),
        ],
    ),
    (
        "draft_reply",
        "Draft a reply to a message",
        &[
            ("message", "The message id"),
            ("tone", "The tone of the reply"),
        ],
    ),
    (
        "review_code",
        "Review a change and list the problems",
        &[
            ("diff", "The unified diff"),
            ("focus", "What to look at first"),
        ],
    ),
    (
        "explain_error",
        "Explain an error message and suggest a fix",
        &[("error", "The error text")],
    ),
    (
        "plan_task",
        "Break a task into steps",
        &[
            ("task", "The task"),
            ("deadline", "When it is due"),
            ("owner", "Who does it"),
        ],
    ),
];

/// Resources: uri, name, mimeType, description.
const RESOURCES: &[(&str, &str, &str, &str)] = &[
    (
        "docs://index",
        "index",
        "text/markdown",
        "Every document, newest first",
    ),
    (
        "docs://style-guide",
        "style-guide",
        "text/markdown",
        "How documents are written",
    ),
    (
        "config://settings",
        "settings",
        "application/json",
        "The server's settings",
    ),
    (
        "file:///workspace/README.md",
        "readme",
        "text/markdown",
        "The workspace README",
    ),
    (
        "db://schema",
        "schema",
        "application/sql",
        "The database schema",
    ),
];

/// Sentences of the server's instructions.
const INSTRUCTIONS: &[&str] = &[
    "Search before you read a document.",
    "Never delete anything without asking the user first.",
    "Prefer the summarize prompt for long documents.",
    "Results are paginated: follow the cursor to the end.",
    "Ask before sending a message on the user's behalf.",
];

/// The members of surface `index`'s contract, in the order a snapshot writes them.
pub fn members(seed: u64, index: u64) -> Map<String, Value> {
    let mut rng = Stream::derive(seed, PURPOSE, index);
    let flag = |rng: &mut Stream, name: &str| {
        let mut capability = Map::new();
        if rng.chance(1, 2) {
            capability.insert(name.into(), Value::Bool(true));
        }
        capability
    };
    let tools = flag(&mut rng, "listChanged");
    let prompts_capability = flag(&mut rng, "listChanged");
    let mut resources_capability = flag(&mut rng, "subscribe");
    resources_capability.extend(flag(&mut rng, "listChanged"));
    let sentences = pick(&mut rng, INSTRUCTIONS.len(), 2);
    let instructions: Vec<&str> = sentences.iter().map(|&i| INSTRUCTIONS[i]).collect();
    let prompts: Vec<Value> = pick(&mut rng, PROMPTS.len(), 3)
        .into_iter()
        .map(|p| prompt(&mut rng, PROMPTS[p]))
        .collect();
    let resources: Vec<Value> = pick(&mut rng, RESOURCES.len(), 3)
        .into_iter()
        .map(|r| {
            let (uri, name, mime_type, description) = RESOURCES[r];
            json!({"uri": uri, "name": name, "mimeType": mime_type, "description": description})
        })
        .collect();
    let mut out = Map::new();
    out.insert(
        "serverInfo".into(),
        json!({"name": "synthetic", "version": "1.0.0"}),
    );
    out.insert(
        "capabilities".into(),
        json!({"tools": tools, "prompts": prompts_capability, "resources": resources_capability}),
    );
    out.insert("instructions".into(), Value::String(instructions.join(" ")));
    out.insert("prompts".into(), Value::Array(prompts));
    out.insert("resources".into(), Value::Array(resources));
    out
}

/// `1 + below(most)` distinct indices below `len`, in the order drawn.
fn pick(rng: &mut Stream, len: usize, most: usize) -> Vec<usize> {
    let count = 1 + rng.index(most.min(len));
    let mut chosen = Vec::with_capacity(count);
    while chosen.len() < count {
        let candidate = rng.index(len);
        if !chosen.contains(&candidate) {
            chosen.push(candidate);
        }
    }
    chosen
}

/// A prompt with each of its arguments required with chance 1/2.
fn prompt(rng: &mut Stream, (name, description, arguments): PromptWords) -> Value {
    let arguments: Vec<Value> = arguments
        .iter()
        .map(|(arg, text)| json!({"name": arg, "description": text, "required": rng.chance(1, 2)}))
        .collect();
    json!({"name": name, "description": description, "arguments": arguments})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_draws_give_the_same_contract_and_each_part_varies() {
        assert_eq!(members(1, 4), members(1, 4));
        let contracts: Vec<_> = (0..200).map(|i| members(3, i)).collect();
        let distinct = |member: &str| {
            let mut seen: Vec<&Value> = contracts.iter().map(|c| &c[member]).collect();
            seen.sort_by_key(|v| v.to_string());
            seen.dedup();
            seen.len()
        };
        for member in ["capabilities", "instructions", "prompts", "resources"] {
            assert!(distinct(member) > 4, "{member} hardly varies");
        }
    }

    #[test]
    fn a_generated_contract_reads_as_a_snapshot_contract() {
        for index in 0..50 {
            let value = super::super::surface_with_contract(5, index, 3);
            let bytes = serde_json::to_vec(&value).unwrap();
            let contract =
                driftlab_contract::payload::contract::read(&bytes, "s", Default::default())
                    .unwrap()
                    .expect("a contract");
            let prompts = contract
                .list(driftlab_contract::surface::contract::ListKind::Prompts)
                .unwrap();
            assert_eq!(prompts.len(), value["prompts"].as_array().unwrap().len());
            assert!(prompts.len() <= 3 && !prompts.is_empty());
        }
    }
}
