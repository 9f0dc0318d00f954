//! `Surface` and `Tool`: a view over the raw `tools/list` JSON that never coerces.
//!
//! A missing `inputSchema`, a `null` one and `{}` stay three different things; a name that is not
//! a string stays a non-string. Checkers decide what each of these means.
//!
//! A surface keeps each tool as the exact JSON text it was read from, with the place of every
//! top-level field, and parses a field (or the whole tool) only when a rule first asks for it.
//! Rules that look at a few fields never build the rest, and two tools with the same bytes are
//! known equal without parsing either (see [`Tool::raw`]).

pub mod contract;
mod locations;
mod schema_terms;
mod text;
mod tool;
mod validated;

use std::ops::Range;
use std::sync::atomic::{AtomicU64, AtomicU8};
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use crate::text::sha256_hex;

pub use contract::ServerContract;
pub(crate) use locations::Locations;
pub use schema_terms::{json_type, required_names};
pub use tool::{is_valid_tool_name, FieldPlace};

/// The tools a server listed, in the order it listed them.
#[derive(Debug, Clone)]
pub struct Surface {
    /// The JSON text every tool's ranges point into.
    text: String,
    tools: Vec<RawTool>,
    /// JSON pointer of each tool in the document it was read from (e.g. `/result/tools/2`).
    locations: Locations,
    /// Whether `text` was read by the scanner of `{"tools":[…]}` documents, which then vouches
    /// that the text after any tool's object is a valid rest of the document (see
    /// `payload::scan::read_beside`).
    scanned: bool,
    /// The rest of the server's contract (prompts, resources, instructions, capabilities), when
    /// the document recorded it; tools-only payloads and study surfaces have none.
    contract: Option<Arc<ServerContract>>,
}

/// What `Parsed::passes_structural` holds before any check ran (then 1: passes, or 0).
const UNKNOWN: u8 = 2;
/// What `Parsed::plain_name` holds before the name was looked for, and when the tool has no
/// name written as a string without escapes (otherwise: its offset << 32 | its length).
const NAME_UNKNOWN: u64 = u64::MAX;
const NAME_NOT_PLAIN: u64 = u64::MAX - 1;

/// One tool: where its object's bytes are, and what is known about them.
#[derive(Debug, Clone)]
pub(crate) struct RawTool {
    span: Range<usize>,
    /// Shared by every surface holding a tool with the same bytes (see [`Surface::share_parsed`]).
    parsed: Arc<Parsed>,
}

/// A tool's fields (places relative to the tool's first byte) and what has been parsed so far.
#[derive(Debug)]
pub(crate) struct Parsed {
    fields: Vec<RawField>,
    /// The whole object, parsed on first use (given up front when built from values). Boxed:
    /// most tools are never parsed whole, and an empty map would cost more than their fields.
    map: OnceLock<Box<Map<String, Value>>>,
    /// Whether the tool passed `structural`'s check, once a check has run: a fact about its
    /// bytes alone, so every surface sharing this tool's parsing shares the answer.
    /// (A relaxed atomic rather than a `OnceLock`: filling one costs a synchronized write.)
    passes_structural: AtomicU8,
    /// Where the tool's name is in its text, when written plain: every rule labels tools by
    /// name, and finding the field and checking it for escapes each time was a twentieth of a
    /// study's cycles. (A relaxed atomic, as above: the answer depends on the bytes alone.)
    plain_name: AtomicU64,
}

/// A top-level field of a tool: its key and the bytes of its value. Keys are unique.
#[derive(Debug, Clone)]
pub(crate) struct RawField {
    pub(crate) key: Key,
    value: Range<usize>,
    /// Boxed: an unparsed field then costs a pointer, not a whole `Value`.
    parsed: OnceLock<Box<Value>>,
    /// Where the value's `type` member is, when the value is an object the scanner reads.
    type_member: TypeMember,
}

// A large payload's memory is mostly field records, three or four per tool.
const _: () = assert!(std::mem::size_of::<RawField>() <= 80);

/// The place of a field value's `type` member: recorded by the reader, or found on first use.
/// (Recorded is not a filled `OnceLock`: filling one costs a synchronized write per field.)
#[derive(Debug, Clone)]
enum TypeMember {
    Recorded(Option<Inner>),
    Lazy(OnceLock<Option<Inner>>),
}

/// A place inside a field's value, relative to the value's first byte. Four-byte offsets keep a
/// field at 80 bytes (a tool of a large payload has three or four); a member further in than
/// 4 GiB is not kept, and its callers read the parsed value instead, as for no member.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Inner {
    start: u32,
    end: u32,
}

impl Inner {
    /// `member`, a place in the same text as `value`, relative to `value`'s start.
    fn within(value: &Range<usize>, member: Range<usize>) -> Option<Inner> {
        Some(Inner {
            start: u32::try_from(member.start - value.start).ok()?,
            end: u32::try_from(member.end - value.start).ok()?,
        })
    }

    /// This place in the text `value` is in.
    fn in_text(self, value: &Range<usize>) -> Range<usize> {
        value.start + self.start as usize..value.start + self.end as usize
    }
}

/// A field's key: its place in the text when written without escapes, otherwise decoded.
#[derive(Debug, Clone)]
pub(crate) enum Key {
    Span(Range<usize>),
    Decoded(Box<str>),
}

/// One listed tool, by position.
#[derive(Debug, Clone, Copy)]
pub struct Tool<'a> {
    /// Its position in the list, from 0.
    pub index: usize,
    /// Where the surface's tools were found (see [`Tool::location`]).
    locations: &'a Locations,
    /// The tool object's own text; field places are relative to it.
    text: &'a str,
    parsed: &'a Parsed,
}

impl PartialEq for Surface {
    fn eq(&self, other: &Surface) -> bool {
        self.locations == other.locations
            && self.len() == other.len()
            && self
                .tools()
                .zip(other.tools())
                .all(|(a, b)| a.raw() == b.raw() || a.fields() == b.fields())
            && self.contract == other.contract
    }
}

impl Surface {
    /// A surface whose tools sit at `/tools/<i>`, as in a `tools/list` result object.
    pub fn new(tools: Vec<Map<String, Value>>) -> Surface {
        let mut locations = Locations::new();
        locations.push_array("/tools", tools.len());
        Surface::with_pointers(tools, locations)
    }

    /// A surface whose tools were found at the given pointers. Each tool's text is its compact
    /// JSON, and its parsed form is the given map (never parsed back from that text).
    pub(crate) fn with_locations(
        tools: Vec<Map<String, Value>>,
        locations: Vec<String>,
    ) -> Surface {
        Surface::with_pointers(tools, locations.into())
    }

    fn with_pointers(tools: Vec<Map<String, Value>>, locations: Locations) -> Surface {
        debug_assert_eq!(tools.len(), locations.len());
        let mut text = String::new();
        let tools = tools
            .into_iter()
            .map(|map| text::write_tool(&mut text, map))
            .collect();
        Surface {
            text,
            tools,
            locations,
            scanned: false,
            contract: None,
        }
    }

    /// A surface over JSON text already validated by the reader: `tools` hold ranges into `text`.
    /// `scanned` when the scanner of `{"tools":[…]}` documents read it.
    pub(crate) fn from_text(
        text: String,
        mut tools: Vec<RawTool>,
        locations: Locations,
        scanned: bool,
    ) -> Surface {
        debug_assert_eq!(tools.len(), locations.len());
        // Kept as long as the surface: the slack a growing list left would be up to half of it.
        tools.shrink_to_fit();
        Surface {
            text,
            tools,
            locations,
            scanned,
            contract: None,
        }
    }

    /// This surface with the rest of the server's contract attached (`None` drops it: a gate with
    /// `--scope tools`).
    pub fn with_contract(mut self, contract: Option<ServerContract>) -> Surface {
        self.contract = contract.map(Arc::new);
        self
    }

    /// The rest of the server's contract, when the document recorded it.
    pub fn contract(&self) -> Option<&ServerContract> {
        self.contract.as_deref()
    }

    /// The tools as read, when the scanner of `{"tools":[…]}` documents read the text.
    pub(crate) fn scanned_tools(&self) -> Option<&[RawTool]> {
        self.scanned.then_some(&self.tools[..])
    }

    /// The JSON text the surface was read from (or written as), to reuse its buffer.
    pub fn into_text(self) -> String {
        self.text
    }

    /// How many tools are listed.
    #[inline]
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether no tool is listed.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools, in listed order.
    #[inline]
    pub fn tools(&self) -> impl ExactSizeIterator<Item = Tool<'_>> {
        (0..self.tools.len()).map(|index| self.tool_unchecked(index))
    }

    /// The tool at `index`, if there is one.
    #[inline]
    pub fn tool(&self, index: usize) -> Option<Tool<'_>> {
        (index < self.tools.len()).then(|| self.tool_unchecked(index))
    }

    #[inline]
    fn tool_unchecked(&self, index: usize) -> Tool<'_> {
        let tool = &self.tools[index];
        Tool {
            index,
            locations: &self.locations,
            text: &self.text[tool.span.clone()],
            parsed: &tool.parsed,
        }
    }

    /// Lets each tool share what is parsed of a tool with the same bytes in `other`, so a
    /// candidate whose tools are mostly the approved surface's parses only the changed ones
    /// (and a field the approved surface already parsed is not parsed again).
    pub fn share_parsed(&mut self, other: &Surface) {
        let partners = self.same_text_partners(other);
        for (tool, partner) in self.tools.iter_mut().zip(partners) {
            if let Some(partner) = partner {
                tool.parsed = Arc::clone(&other.tools[partner].parsed);
            }
        }
    }

    /// For each tool, the index of a tool of `other` with the same bytes, if any, paired one to
    /// one: the same index first (where most partners sit), then by text.
    pub fn same_text_partners(&self, other: &Surface) -> Vec<Option<usize>> {
        let same_at = |i: usize| {
            i < other.len()
                && (Arc::ptr_eq(&self.tools[i].parsed, &other.tools[i].parsed)
                    || self.tool_text(i) == other.tool_text(i))
        };
        let mut partners: Vec<Option<usize>> =
            (0..self.len()).map(|i| same_at(i).then_some(i)).collect();
        let mut taken = vec![false; other.len()];
        partners.iter().flatten().for_each(|&j| taken[j] = true);
        let unpaired = (0..self.len()).filter(|&i| partners[i].is_none());
        // Few tools: compare in place; many: look the texts up.
        if other.len() <= 16 {
            for i in unpaired.collect::<Vec<_>>() {
                let found = (0..other.len())
                    .find(|&j| !taken[j] && other.tool_text(j) == self.tool_text(i));
                if let Some(j) = found {
                    taken[j] = true;
                    partners[i] = Some(j);
                }
            }
            return partners;
        }
        let mut waiting: std::collections::HashMap<&str, Vec<usize>> = Default::default();
        for j in (0..other.len()).rev().filter(|&j| !taken[j]) {
            waiting.entry(other.tool_text(j)).or_default().push(j);
        }
        for i in unpaired.collect::<Vec<_>>() {
            partners[i] = waiting.get_mut(self.tool_text(i)).and_then(Vec::pop);
        }
        partners
    }

    /// Whether tool `index` shares what is parsed with tool `other_index` of `other`: if so, the
    /// two have the same bytes (for rules, a comparison that costs nothing; for tests, what the
    /// sharing readers did).
    pub fn shares_parsed(&self, index: usize, other: &Surface, other_index: usize) -> bool {
        let (Some(tool), Some(partner)) = (self.tools.get(index), other.tools.get(other_index))
        else {
            return false;
        };
        Arc::ptr_eq(&tool.parsed, &partner.parsed)
    }

    /// What is parsed of tool `index`, when its bytes are `bytes`: for a reader that finds a
    /// tool with the same bytes at the same place (see [`Surface::share_parsed`]).
    pub(crate) fn parsed_if_same(&self, index: usize, bytes: &[u8]) -> Option<&Arc<Parsed>> {
        let tool = self.tools.get(index)?;
        (self.text.as_bytes()[tool.span.clone()] == *bytes).then_some(&tool.parsed)
    }

    /// The JSON text the surface was read from (or written as).
    #[inline]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Where tool `index`'s object is in [`Surface::text`].
    pub fn tool_span(&self, index: usize) -> Option<Range<usize>> {
        self.tools.get(index).map(|tool| tool.span.clone())
    }

    fn tool_text(&self, index: usize) -> &str {
        &self.text[self.tools[index].span.clone()]
    }

    /// The surface as `driftlab snapshot` records it: [`Surface::to_value`] with the rest of
    /// the server's contract, when recorded, beside the tools.
    pub fn to_snapshot_value(&self) -> Value {
        let mut value = self.to_value();
        if let (Some(contract), Some(members)) = (self.contract(), value.as_object_mut()) {
            members.extend(contract.snapshot_members());
        }
        value
    }

    /// The `tools/list` result object `{"tools":[…]}`, fields in their original order.
    pub fn to_value(&self) -> Value {
        let tools = self
            .tools()
            .map(|t| Value::Object(t.fields().clone()))
            .collect();
        let mut result = Map::new();
        result.insert("tools".into(), Value::Array(tools));
        Value::Object(result)
    }

    /// Canonical bytes: the compact result object, fields and tools in their original order
    /// (order is part of the contract, so it is not normalized away).
    pub(crate) fn canonical_bytes(&self) -> Vec<u8> {
        // Serializing a `Value` cannot fail.
        serde_json::to_vec(&self.to_value()).unwrap_or_default()
    }

    /// SHA-256 of the canonical bytes, lowercase hex.
    pub fn fingerprint(&self) -> String {
        sha256_hex(&self.canonical_bytes())
    }
}

impl RawTool {
    /// A tool at `span` of its surface's text, with its fields' places in that text.
    pub(crate) fn new(span: Range<usize>, fields: Vec<RawField>) -> RawTool {
        RawTool::with_map(span, fields, OnceLock::new())
    }

    /// Where the tool's object is in its surface's text.
    pub(crate) fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// The tool's fields, in order, with places relative to its first byte.
    pub(crate) fn fields(&self) -> &[RawField] {
        &self.parsed.fields
    }

    /// This tool, sharing what is parsed, with its object starting at `start` of another text
    /// holding the same bytes there.
    pub(crate) fn moved_to(&self, start: usize) -> RawTool {
        RawTool {
            span: start..start + self.span.len(),
            parsed: Arc::clone(&self.parsed),
        }
    }

    /// A tool at `span` whose bytes equal those of a tool already read: it shares `parsed`.
    pub(crate) fn shared(span: Range<usize>, parsed: &Arc<Parsed>) -> RawTool {
        RawTool {
            span,
            parsed: Arc::clone(parsed),
        }
    }

    pub(super) fn with_map(
        span: Range<usize>,
        mut fields: Vec<RawField>,
        map: OnceLock<Box<Map<String, Value>>>,
    ) -> RawTool {
        let shift =
            |range: &mut Range<usize>| *range = range.start - span.start..range.end - span.start;
        for field in &mut fields {
            shift(&mut field.value);
            if let Key::Span(key) = &mut field.key {
                shift(key);
            }
        }
        RawTool {
            span,
            parsed: Arc::new(Parsed {
                fields,
                map,
                passes_structural: AtomicU8::new(UNKNOWN),
                plain_name: AtomicU64::new(NAME_UNKNOWN),
            }),
        }
    }
}

impl RawField {
    pub(crate) fn new(key: Key, value: Range<usize>) -> RawField {
        RawField {
            key,
            value,
            parsed: OnceLock::new(),
            type_member: TypeMember::Lazy(OnceLock::new()),
        }
    }

    /// Where the value ends: relative to its tool's first byte for a field of a [`RawTool`].
    pub(crate) fn value_end(&self) -> usize {
        self.value.end
    }

    /// This field (of a [`RawTool`]) for a text holding the same member bytes elsewhere: each
    /// place `p` becomes `p - from + to`. Nothing parsed is carried over: the new field belongs
    /// to a tool with other bytes.
    pub(crate) fn moved(&self, from: usize, to: usize) -> RawField {
        let moved = |range: &Range<usize>| range.start - from + to..range.end - from + to;
        RawField {
            key: match &self.key {
                Key::Span(key) => Key::Span(moved(key)),
                Key::Decoded(key) => Key::Decoded(key.clone()),
            },
            value: moved(&self.value),
            parsed: OnceLock::new(),
            type_member: match &self.type_member {
                TypeMember::Recorded(member) => TypeMember::Recorded(*member),
                TypeMember::Lazy(_) => TypeMember::Lazy(OnceLock::new()),
            },
        }
    }

    /// A field whose value's `type` member the reader already found (or found absent): what
    /// [`Tool::raw_type_of`] would find by scanning the value again.
    pub(crate) fn with_type_member(
        key: Key,
        value: Range<usize>,
        type_member: Option<Range<usize>>,
    ) -> RawField {
        let type_member = type_member.and_then(|member| Inner::within(&value, member));
        RawField {
            type_member: TypeMember::Recorded(type_member),
            ..RawField::new(key, value)
        }
    }
}

#[cfg(test)]
mod tests;
