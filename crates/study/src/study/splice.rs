//! A candidate's bytes built from its base's bytes.
//!
//! Every gate reads the bytes a client would receive: exactly what serializing the mutated
//! surface gives ([`MutationClass::serialize`]). Serializing a whole surface per candidate is
//! most of a study's work, so the base is serialized once, with the place of each tool, and a
//! class that changed one tool (or only the order) gets the base's bytes with that tool's new
//! bytes spliced in (or the tools' bytes in the new order). The classes a study runs most skip
//! the `Value` altogether: they say how to edit the base's bytes ([`MutationClass::edit`]). A
//! test proves the bytes identical to serializing the mutated surface, for every class, over many
//! seeds and the real bases.

use std::cell::OnceCell;
use std::ops::Range;

use serde_json::Value;

use driftlab_contract::payload::compact;
use driftlab_contract::rng::Stream;
use driftlab_contract::surface::Surface;
use driftlab_mutate::generate::Plan;
use driftlab_mutate::mutate::{Edit, MutationClass, Outcome, Reach};

/// A base surface, its compact bytes, and the byte range of each tool in them.
pub struct Base<'a> {
    source: Source<'a>,
    bytes: Vec<u8>,
    /// `None` when the base is not a bare `{"tools":[…]}` object: nothing is spliced then.
    tools: Option<Vec<Range<usize>>>,
}

/// Where a base's value comes from.
enum Source<'a> {
    Given(&'a Value),
    /// Made for this surface (a generated whole contract).
    Owned(Value),
    /// Generated: built from the generator's draws when a class first needs the value.
    Drawn {
        plan: Plan,
        value: OnceCell<Value>,
    },
}

const OPEN: &[u8] = b"{\"tools\":[";
const CLOSE: &[u8] = b"]}";

impl<'a> Base<'a> {
    /// The base's compact bytes, laid out from `value`.
    pub fn new(value: &'a Value) -> Base<'a> {
        let (bytes, tools) = layout(value);
        Base {
            source: Source::Given(value),
            bytes,
            tools,
        }
    }

    /// A base that owns its value.
    pub fn owned(value: Value) -> Base<'a> {
        let (bytes, tools) = layout(&value);
        Base {
            source: Source::Owned(value),
            bytes,
            tools,
        }
    }

    /// A generated base: its bytes written straight from the generator's draws, and its value
    /// built only if a class without an edit needs it.
    pub fn generated(plan: Plan) -> Base<'a> {
        let mut bytes = Vec::with_capacity(4096);
        let tools = plan.write(&mut bytes);
        Base {
            source: Source::Drawn {
                plan,
                value: OnceCell::new(),
            },
            bytes,
            tools: Some(tools),
        }
    }

    /// The base's bytes: what `serde_json::to_vec` gives.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The base as a JSON value.
    pub fn value(&self) -> &Value {
        match &self.source {
            Source::Given(value) => value,
            Source::Owned(value) => value,
            Source::Drawn { plan, value } => value.get_or_init(|| plan.to_value()),
        }
    }
}

/// A value's compact bytes and, for a bare `{"tools":[…]}` object, the byte range of each tool.
fn layout(value: &Value) -> (Vec<u8>, Option<Vec<Range<usize>>>) {
    let list = value
        .as_object()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.get("tools"))
        .and_then(Value::as_array);
    let Some(list) = list else {
        // Serializing a `Value` cannot fail.
        return (serde_json::to_vec(value).unwrap_or_default(), None);
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
    (bytes, Some(tools))
}

/// Where a surface's candidates are made: by a class's edit of the base's bytes where it has
/// one ([`MutationClass::edit`]), otherwise on a copy of the base that the class changes and
/// that is put back afterwards, so a surface's classes need at most one copy between them.
pub struct Workspace<'r> {
    /// Made for the first class without an edit.
    copy: Option<Value>,
    /// The base read from its own bytes, when classes may edit those bytes.
    read: Option<&'r Surface>,
}

impl<'r> Workspace<'r> {
    /// `read` is the base as read from [`Base::bytes`] (the runner has it: it is the approved
    /// surface); without it, or when its text is not those bytes, every class changes the copy.
    pub fn new(base: &Base<'_>, read: Option<&'r Surface>) -> Workspace<'r> {
        let read = read.filter(|read| base.tools.is_some() && read.text().as_bytes() == base.bytes);
        Workspace { copy: None, read }
    }

    /// The copy classes change, once made: equal to the base between calls.
    pub fn copy(&self) -> Option<&Value> {
        self.copy.as_ref()
    }

    /// Applies `class` with the stream `stream` makes and writes the candidate's bytes into
    /// `out` (cleared first); afterwards the copy, if any, equals the base again.
    pub fn candidate(
        &mut self,
        base: &Base<'_>,
        class: &dyn MutationClass,
        stream: impl FnOnce() -> Stream,
        out: &mut Vec<u8>,
    ) -> Outcome {
        out.clear();
        // Derived once: an edit draws from a clone, so `apply` below starts from the same fresh
        // stream whatever a declining edit drew.
        let mut fresh = stream();
        if let Some(read) = self.read {
            if let Some((applied, edit)) = class.edit(read, &mut fresh.clone()) {
                if write_edit(base, &edit, out) {
                    return Ok(applied);
                }
                out.clear();
            }
        }
        let copy = self.copy.get_or_insert_with(|| base.value().clone());
        let outcome = class.apply(copy, &mut fresh);
        let Ok(applied) = &outcome else {
            // A class may have changed something before finding it does not apply.
            restore(copy, base.value());
            return outcome;
        };
        let reach = base
            .tools
            .as_ref()
            .map_or(Reach::Surface, |_| class.reach(applied));
        match (reach, &base.tools, tools_mut(copy)) {
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
                if tools.len() == spans.len() && is_order_of(&order, spans) =>
            {
                write_order(base, spans, &order, out);
                // Put every tool back where it came from.
                let mut moved = std::mem::take(tools);
                let mut back = vec![Value::Null; moved.len()];
                for (i, &from) in order.iter().enumerate() {
                    back[from] = std::mem::take(&mut moved[i]);
                }
                *tools = back;
            }
            _ => {
                out.extend_from_slice(&class.serialize(copy));
                restore(copy, base.value());
            }
        }
        outcome
    }
}

/// Writes the bytes `edit` makes of the base's; `false` (and `out` unspecified) when it does
/// not fit them.
fn write_edit(base: &Base<'_>, edit: &Edit, out: &mut Vec<u8>) -> bool {
    match edit {
        Edit::Splice { range, with } => {
            let fits = range.start <= range.end && range.end <= base.bytes.len();
            if fits {
                out.extend_from_slice(&base.bytes[..range.start]);
                out.extend_from_slice(with);
                out.extend_from_slice(&base.bytes[range.end..]);
            }
            fits
        }
        Edit::Order(order) => match &base.tools {
            Some(spans) if is_order_of(order, spans) => {
                write_order(base, spans, order, out);
                true
            }
            _ => false,
        },
    }
}

/// Whether `order` is an order of the tools at `spans`: each index once.
fn is_order_of(order: &[usize], spans: &[Range<usize>]) -> bool {
    order.len() == spans.len() && is_permutation(order)
}

/// Writes the base's tools in `order`: position `i` gets tool `order[i]`.
fn write_order(base: &Base<'_>, spans: &[Range<usize>], order: &[usize], out: &mut Vec<u8>) {
    out.extend_from_slice(OPEN);
    for (i, &from) in order.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(&base.bytes[spans[from].clone()]);
    }
    out.extend_from_slice(CLOSE);
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
        (Value::Array(items), Value::Array(originals)) => {
            // Items added or removed (a tool, a `required` name): the common places restored,
            // the rest cut off or copied, so a tool list keeps its tools' allocations.
            items.truncate(originals.len());
            for (item, original) in items.iter_mut().zip(originals) {
                restore(item, original);
            }
            let kept = items.len();
            items.extend(originals[kept..].iter().cloned());
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

fn base_tools<'b>(base: &'b Base<'_>) -> &'b [Value] {
    base.value()
        .get("tools")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::restore;
    use serde_json::{json, Value};

    #[test]
    fn restoring_gives_the_original_members_in_their_order() {
        let original = json!({"tools": [
            {"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}, "y": {}}, "required": ["x"]}},
            {"name": "b", "description": "B"},
            {"name": "c", "inputSchema": {"type": "object"}}
        ]});
        let changed = [
            // A member added, removed, moved; an item added, removed; a type changed.
            json!({"tools": [
                {"name": "a", "inputSchema": {"type": "object", "properties": {"y": {}, "z": 1, "x": {"type": "string"}}, "required": ["x", "z"]}},
                {"name": "b"},
                {"name": "c", "inputSchema": {"type": "object"}}
            ]}),
            json!({"tools": [{"name": "b", "description": "B"}, {"name": "c"}]}),
            json!({"tools": [
                {"name": "a"}, {"name": "b", "description": "B"}, {"name": "c"}, {"name": "d"}
            ]}),
            json!({"tools": {"name": "a"}}),
            json!({"inputSchema": [], "tools": [], "extra": null}),
            Value::Null,
        ];
        for mut value in changed {
            restore(&mut value, &original);
            assert_eq!(value, original);
            // `==` ignores the order of an object's members; the text does not.
            assert_eq!(value.to_string(), original.to_string());
        }
    }
}
