//! The fastest reading, for the shape a study's candidates always have: one object whose
//! `tools` member is an array of tool objects. One pass over the bytes validates every token
//! and records each tool's place and its fields' places.
//!
//! It accepts only what serde_json parses into a `Value`, and declines (returns `None`) rather
//! than decide anything subtle: other shapes, escaped keys at the top or the tool level, repeated
//! keys there, `\u` escapes of surrogates (serde_json refuses unpaired ones), numbers with an
//! exponent or over 300 integer digits (serde_json refuses those beyond `f64`), nesting deeper
//! than 128 levels, and anything invalid. The callers then read the bytes the slower way, which
//! gives the same surface or the precise error.

mod beside;

use std::ops::Range;

use crate::json_scan::{Scanner, Token};
use crate::surface::{Key, RawField, RawTool, Surface};

pub(super) use beside::read_beside;

/// The tools of a `{"tools":[…]}` document, with places in `text`. A tool whose bytes equal
/// those of the tool at its place in `beside` shares what `beside` has parsed of it (as
/// [`Surface::share_parsed`] would) instead of keeping a field list of its own.
pub(super) fn read(text: &str, beside: Option<&Surface>) -> Option<Vec<RawTool>> {
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        at: 0,
    };
    scanner.whitespace();
    let mut tools = None;
    scanner.members(|scanner, key| {
        // An escaped key might spell `tools` too, and the last one would win.
        if key.escaped {
            return None;
        }
        if scanner.text(&key) != b"tools" {
            return scanner.value(1);
        }
        if tools.is_some() {
            return None;
        }
        tools = Some(scanner.tools(beside)?);
        Some(())
    })?;
    scanner.whitespace();
    (scanner.at == scanner.bytes.len()).then_some(())?;
    tools
}

impl Scanner<'_> {
    /// The `tools` array: tool objects only (see [`read`] for `beside`).
    fn tools(&mut self, beside: Option<&Surface>) -> Option<Vec<RawTool>> {
        let mut tools = Vec::new();
        // A tool that shares `beside`'s leaves its field list for the next tool.
        let mut fields = Vec::with_capacity(8);
        self.elements(|scanner| scanner.tool_element(&mut tools, &mut fields, beside))?;
        Some(tools)
    }

    /// One element of the `tools` array, added to `tools`; `fields` is a spare field list.
    fn tool_element(
        &mut self,
        tools: &mut Vec<RawTool>,
        fields: &mut Vec<RawField>,
        beside: Option<&Surface>,
    ) -> Option<()> {
        let start = self.at;
        self.tool(fields)?;
        let span = start..self.at;
        let bytes = &self.bytes[span.clone()];
        let same = beside.and_then(|surface| surface.parsed_if_same(tools.len(), bytes));
        tools.push(match same {
            Some(parsed) => {
                fields.clear();
                RawTool::shared(span, parsed)
            }
            None => {
                // Moved out at its length: the spare's capacity would cost most of a small tool.
                let mut own = Vec::with_capacity(fields.len());
                own.append(fields);
                RawTool::new(span, own)
            }
        });
        Some(())
    }

    /// A tool object; its fields go to `fields` (empty before).
    fn tool(&mut self, fields: &mut Vec<RawField>) -> Option<()> {
        self.members(|scanner, key| scanner.tool_member(key, fields))
    }

    /// The value of a tool's member `key` (after its colon), added to `fields`: declined when
    /// the key is escaped or repeats one in `fields`.
    fn tool_member(&mut self, key: Token, fields: &mut Vec<RawField>) -> Option<()> {
        if key.escaped || self.repeats(&key.content, fields) {
            return None;
        }
        let value_start = self.at;
        // A schema's `type` is looked up often: find it now, while the bytes are at hand.
        let type_member = if self.peek() == Some(b'{') {
            self.object_and_type_member(3)?
        } else {
            self.value(3)?;
            None
        };
        fields.push(RawField::with_type_member(
            Key::Span(key.content),
            value_start..self.at,
            type_member,
        ));
        Some(())
    }

    /// Whether the key at `key` is also the key of one of `fields`.
    fn repeats(&self, key: &Range<usize>, fields: &[RawField]) -> bool {
        let text = &self.bytes[key.clone()];
        fields
            .iter()
            .any(|f| matches!(&f.key, Key::Span(k) if self.bytes[k.clone()] == *text))
    }
}
