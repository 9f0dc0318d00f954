//! A candidate's bytes built from its base's bytes.
//!
//! Every gate reads the bytes a client would receive: exactly what serializing the mutated
//! surface gives ([`MutationClass::serialize`]). Serializing a whole surface per candidate is
//! most of a study's work, so the base is serialized once, with the place of each tool, and a
//! class that changed one tool (or only the order) gets the base's bytes with that tool's new
//! bytes spliced in (or the tools' bytes in the new order). A test proves the bytes identical to
//! serializing the mutated surface, for every class, over many seeds and the real bases.

use std::ops::Range;

use serde_json::Value;

use crate::mutate::{MutationClass, Outcome, Reach};
use crate::payload::compact;
use crate::rng::Stream;

/// A base surface, its compact bytes, and the byte range of each tool in them.
pub struct Base<'a> {
    value: &'a Value,
    bytes: Vec<u8>,
    /// `None` when the base is not a bare `{"tools":[…]}` object: nothing is spliced then.
    tools: Option<Vec<Range<usize>>>,
}

const OPEN: &[u8] = b"{\"tools\":[";
const CLOSE: &[u8] = b"]}";

impl<'a> Base<'a> {
    pub fn new(value: &'a Value) -> Base<'a> {
        let list = value
            .as_object()
            .filter(|o| o.len() == 1)
            .and_then(|o| o.get("tools"))
            .and_then(Value::as_array);
        let Some(list) = list else {
            return Base {
                value,
                // Serializing a `Value` cannot fail.
                bytes: serde_json::to_vec(value).unwrap_or_default(),
                tools: None,
            };
        };
        // Room for a typical generated surface (about 1.5 KB) without regrowing.
        let mut bytes = Vec::with_capacity(4096);
        bytes.extend_from_slice(OPEN);
        let mut tools = Vec::with_capacity(list.len());
        for (i, tool) in list.iter().enumerate() {
            if i > 0 {
                bytes.push(b',');
            }
            let start = bytes.len();
            compact::write(&mut bytes, tool);
            tools.push(start..bytes.len());
        }
        bytes.extend_from_slice(CLOSE);
        Base {
            value,
            bytes,
            tools: Some(tools),
        }
    }

    /// The base's bytes: what `serde_json::to_vec` gives.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn value(&self) -> &'a Value {
        self.value
    }
}

/// A reusable copy of a base that classes change and that is put back after each class, so a
/// surface's classes need one copy of the base between them instead of one each.
pub struct Workspace {
    copy: Value,
}

impl Workspace {
    pub fn new(base: &Base<'_>) -> Workspace {
        Workspace {
            copy: base.value.clone(),
        }
    }

    /// The copy classes change: equal to the base between calls.
    pub fn copy(&self) -> &Value {
        &self.copy
    }

    /// Applies `class` and writes the candidate's bytes into `out` (cleared first); afterwards
    /// the copy equals the base again.
    pub fn candidate(
        &mut self,
        base: &Base<'_>,
        class: &dyn MutationClass,
        rng: &mut Stream,
        out: &mut Vec<u8>,
    ) -> Outcome {
        out.clear();
        let outcome = class.apply(&mut self.copy, rng);
        let Ok(applied) = &outcome else {
            // A class may have changed something before finding it does not apply.
            restore(&mut self.copy, base.value);
            return outcome;
        };
        let reach = base
            .tools
            .as_ref()
            .map_or(Reach::Surface, |_| class.reach(applied));
        match (reach, &base.tools, tools_mut(&mut self.copy)) {
            (Reach::Tool(index), Some(spans), Some(tools))
                if tools.len() == spans.len() && index < spans.len() =>
            {
                let span = &spans[index];
                out.extend_from_slice(&base.bytes[..span.start]);
                compact::write(out, &tools[index]);
                out.extend_from_slice(&base.bytes[span.end..]);
                restore(&mut tools[index], &base_tools(base)[index]);
            }
            (Reach::Order(order), Some(spans), Some(tools))
                if tools.len() == spans.len()
                    && order.len() == spans.len()
                    && is_permutation(&order) =>
            {
                out.extend_from_slice(OPEN);
                for (i, &from) in order.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(&base.bytes[spans[from].clone()]);
                }
                out.extend_from_slice(CLOSE);
                // Put every tool back where it came from.
                let mut moved = std::mem::take(tools);
                let mut back = vec![Value::Null; moved.len()];
                for (i, &from) in order.iter().enumerate() {
                    back[from] = std::mem::take(&mut moved[i]);
                }
                *tools = back;
            }
            _ => {
                out.extend_from_slice(&class.serialize(&self.copy));
                restore(&mut self.copy, base.value);
            }
        }
        outcome
    }
}

/// Makes `value` equal to `original` (the same members in the same order), copying only what
/// differs: a class changes a small part of a tool, and the rest keeps its allocations.
fn restore(value: &mut Value, original: &Value) {
    match (value, original) {
        (Value::Object(members), Value::Object(originals))
            if members.len() == originals.len() && members.keys().eq(originals.keys()) =>
        {
            for ((_, member), (_, original)) in members.iter_mut().zip(originals) {
                restore(member, original);
            }
        }
        (Value::Array(items), Value::Array(originals)) if items.len() == originals.len() => {
            for (item, original) in items.iter_mut().zip(originals) {
                restore(item, original);
            }
        }
        (Value::String(text), Value::String(original)) => {
            if text != original {
                text.clone_from(original);
            }
        }
        (value @ (Value::Null | Value::Bool(_) | Value::Number(_)), original)
            if value == original => {}
        (value, original) => *value = original.clone(),
    }
}

/// Whether `order` holds each of `0..order.len()` exactly once.
fn is_permutation(order: &[usize]) -> bool {
    let mut seen = vec![false; order.len()];
    order
        .iter()
        .all(|&i| i < seen.len() && !std::mem::replace(&mut seen[i], true))
}

fn tools_mut(surface: &mut Value) -> Option<&mut Vec<Value>> {
    surface.get_mut("tools")?.as_array_mut()
}

fn base_tools<'v>(base: &Base<'v>) -> &'v [Value] {
    base.value
        .get("tools")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}
