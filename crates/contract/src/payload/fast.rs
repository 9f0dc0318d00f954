//! The reader's fast path: reads a payload without building a tree of values.
//!
//! One pass validates the whole document with serde_json's own parser (the same code path as
//! parsing into `Value`, so exactly the same documents are accepted), allocating nothing. A
//! second pass borrows the structure: each tool's object text and the place of each of its
//! fields. Fields are parsed later, only when a rule asks (see [`crate::surface`]).
//!
//! Anything unusual is left to the general reader, which gives the same surface or the precise
//! error: nesting deeper than serde_json's default 128 levels, escaped or duplicate keys, and any
//! shape error. So the fast path changes speed, never an answer.

use std::ops::Range;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::pointer;
use crate::surface::{Key, Locations, RawField, RawTool, Surface};

/// The tools in `text` and their locations (places relative to `text`), or `None` when the
/// general reader must decide; and whether the scanner of `{"tools":[…]}` documents read them.
/// On that fastest path a tool with the same bytes as the tool at its place in `beside` shares
/// what that one has parsed (see [`super::scan::read`]).
pub(super) fn read(
    text: &str,
    beside: Option<&Surface>,
) -> Option<(Vec<RawTool>, Locations, bool)> {
    let mut found = Found {
        tools: Vec::new(),
        locations: Locations::new(),
    };
    // The shape of every study candidate has a faster reader still.
    if let Some(tools) = super::scan::read(text, beside) {
        found.push(tools, "/tools");
        return Some((found.tools, found.locations, true));
    }
    validate(text)?;
    walk(text, text, "", 0, &mut found)?;
    Some((found.tools, found.locations, false))
}

struct Found {
    tools: Vec<RawTool>,
    locations: Locations,
}

/// Whether serde_json accepts `text` as one JSON document (within its default depth).
fn validate(text: &str) -> Option<()> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    Validated::deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()
}

/// Visits every token through `deserialize_any`, as `Value` does, keeping nothing.
struct Validated;

impl<'de> Deserialize<'de> for Validated {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Validated, D::Error> {
        deserializer.deserialize_any(Validated)
    }
}

impl<'de> Visitor<'de> for Validated {
    type Value = Validated;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Validated, E> {
        Ok(Validated)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Validated, E> {
        Ok(Validated)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Validated, E> {
        Ok(Validated)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Validated, E> {
        Ok(Validated)
    }
    fn visit_str<E>(self, _: &str) -> Result<Validated, E> {
        Ok(Validated)
    }
    fn visit_unit<E>(self) -> Result<Validated, E> {
        Ok(Validated)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Validated, A::Error> {
        while seq.next_element::<Validated>()?.is_some() {}
        Ok(Validated)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Validated, A::Error> {
        while map.next_entry::<Validated, Validated>()?.is_some() {}
        Ok(Validated)
    }
}

/// An object's entries: keys borrowed (so written without escapes), values as raw text; a tool
/// list under `tools` is read as tools in the same pass.
struct Object<'a> {
    entries: Vec<(&'a str, &'a RawValue)>,
    tools: Option<Vec<RawTool>>,
}

impl<'a> Object<'a> {
    fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.entries
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }

    fn has(&self, key: &str) -> bool {
        self.get(key).is_some() || (key == "tools" && self.tools.is_some())
    }
}

/// Deserializes an [`Object`] of document `doc`; `None` for anything but an object.
fn object<'a>(doc: &'a str, text: &'a str) -> Option<Object<'a>> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let object = ObjectSeed { doc }.deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(object)
}

/// Byte range of `part`, a slice of `doc`.
fn span(doc: &str, part: &str) -> Range<usize> {
    let start = part.as_ptr() as usize - doc.as_ptr() as usize;
    start..start + part.len()
}

/// A repeated key means "the last one wins" in a `Value`: left to the general reader.
fn duplicate<E: de::Error>() -> E {
    E::custom("duplicate key")
}

struct ObjectSeed<'a> {
    doc: &'a str,
}

impl<'de> DeserializeSeed<'de> for ObjectSeed<'de> {
    type Value = Object<'de>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Object<'de>, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ObjectSeed<'de> {
    type Value = Object<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Object<'de>, A::Error> {
        let mut object = Object {
            entries: Vec::new(),
            tools: None,
        };
        while let Some(key) = map.next_key::<&'de str>()? {
            if object.has(key) {
                return Err(duplicate());
            }
            if key == "tools" {
                object.tools = Some(map.next_value_seed(ToolsSeed { doc: self.doc })?);
            } else {
                object.entries.push((key, map.next_value()?));
            }
        }
        Ok(object)
    }
}

/// An array of tool objects.
struct ToolsSeed<'a> {
    doc: &'a str,
}

impl<'de> DeserializeSeed<'de> for ToolsSeed<'de> {
    type Value = Vec<RawTool>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<RawTool>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ToolsSeed<'de> {
    type Value = Vec<RawTool>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of tools")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<RawTool>, A::Error> {
        let mut tools = Vec::new();
        while let Some(tool) = seq.next_element_seed(ToolSeed { doc: self.doc })? {
            tools.push(tool);
        }
        Ok(tools)
    }
}

/// One tool object: its fields' places, and the object's own place, found from its first key
/// and its last value (only whitespace and a brace lie between them and the object's ends).
struct ToolSeed<'a> {
    doc: &'a str,
}

impl<'de> DeserializeSeed<'de> for ToolSeed<'de> {
    type Value = RawTool;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<RawTool, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ToolSeed<'de> {
    type Value = RawTool;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a tool object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawTool, A::Error> {
        let doc = self.doc;
        let mut fields: Vec<RawField> = Vec::with_capacity(8);
        let mut keys: Vec<&'de str> = Vec::with_capacity(8);
        let mut last_value = "";
        while let Some(key) = map.next_key::<&'de str>()? {
            if keys.contains(&key) {
                return Err(duplicate());
            }
            let value: &'de RawValue = map.next_value()?;
            last_value = value.get();
            keys.push(key);
            fields.push(RawField::new(
                Key::Span(span(doc, key)),
                span(doc, last_value),
            ));
        }
        // An empty object has no key to find it by: left to the general reader.
        let (Some(first), false) = (keys.first(), last_value.is_empty()) else {
            return Err(de::Error::custom("empty tool object"));
        };
        let before = &doc[..span(doc, first).start - 1];
        let start = before.trim_end().len() - 1;
        let after = span(doc, last_value).end;
        let end = after + (doc[after..].len() - doc[after..].trim_start().len()) + 1;
        debug_assert!(doc[start..end].starts_with('{') && doc[start..end].ends_with('}'));
        fields.shrink_to_fit();
        Ok(RawTool::new(start..end, fields))
    }
}

fn items(text: &str) -> Option<Vec<&RawValue>> {
    serde_json::from_str(text).ok()
}

/// Mirrors the general reader's walk down the accepted wrappers; `None` for anything else.
fn walk(doc: &str, value: &str, at: &str, wrappers: u8, found: &mut Found) -> Option<()> {
    if wrappers > 4 {
        return None;
    }
    match value.trim_start().as_bytes().first()? {
        b'{' => {
            let object = object(doc, value)?;
            if let Some(tools) = object.tools {
                let at = pointer::push(at, "tools");
                found.push(tools, &at);
                return Some(());
            }
            if object.has("error") && object.has("jsonrpc") {
                return None;
            }
            for wrapper in ["result", "toolsList"] {
                if let Some(inner) = object.get(wrapper) {
                    let at = pointer::push(at, wrapper);
                    return walk(doc, inner.get(), &at, wrappers + 1, found);
                }
            }
            None
        }
        b'[' => {
            // Every item must be an object either way: a page, or a tool.
            let list = items(value)?;
            let objects: Vec<Object<'_>> = list
                .iter()
                .map(|item| object(doc, item.get()))
                .collect::<Option<_>>()?;
            let is_pages = !objects.is_empty()
                && objects
                    .iter()
                    .all(|page| ["tools", "result", "toolsList"].iter().any(|k| page.has(k)));
            if is_pages {
                for (i, page) in list.iter().enumerate() {
                    walk(
                        doc,
                        page.get(),
                        &pointer::push_index(at, i),
                        wrappers + 1,
                        found,
                    )?;
                }
                return Some(());
            }
            let tools = list
                .iter()
                .map(|item| {
                    let mut deserializer = serde_json::Deserializer::from_str(item.get());
                    ToolSeed { doc }.deserialize(&mut deserializer).ok()
                })
                .collect::<Option<_>>()?;
            found.push(tools, at);
            Some(())
        }
        _ => None,
    }
}

impl Found {
    fn push(&mut self, tools: Vec<RawTool>, at: &str) {
        self.locations.push_array(at, tools.len());
        if self.tools.is_empty() {
            self.tools = tools;
        } else {
            self.tools.extend(tools);
        }
    }
}
