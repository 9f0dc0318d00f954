//! One listed tool: its text, and its fields found, parsed or probed on first use.

use std::ops::Range;
use std::sync::atomic::Ordering;

use serde_json::{Map, Value};

use super::{text, Inner, Key, RawField, Tool, TypeMember};
use crate::pointer;

/// Where a field sits in its tool's text (see [`Tool::field_place`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPlace {
    /// The key's text, between its quotes.
    pub key: Range<usize>,
    /// The value's text.
    pub value: Range<usize>,
    /// Its position among the tool's fields, and how many fields the tool has.
    pub position: usize,
    /// How many fields the tool has.
    pub fields: usize,
}

impl<'a> Tool<'a> {
    /// The tool object's JSON text, exactly as read. Equal texts mean equal tools (the converse
    /// does not hold: formatting may differ).
    #[inline]
    pub fn raw(&self) -> &'a str {
        self.text
    }

    /// The JSON text of field `key`'s value; `None` when the field is absent.
    #[inline]
    pub fn raw_field(&self, key: &str) -> Option<&'a str> {
        self.find(key).map(|f| &self.text[f.value.clone()])
    }

    /// The raw text of the `type` member of field `key`'s value, when that value is an object
    /// without escaped keys (found once per tool text, and shared like parsed fields). `None`
    /// means "look at the parsed value": no such member, or not an object read this way.
    #[inline]
    pub fn raw_type_of(&self, key: &str) -> Option<&'a str> {
        let field = self.find(key)?;
        let value = field.value.clone();
        let member = match &field.type_member {
            TypeMember::Recorded(member) => member,
            TypeMember::Lazy(member) => member.get_or_init(|| {
                let inner = crate::json_scan::object_member(&self.text[value.clone()], "type")?;
                Inner::within(&(0..value.len()), inner)
            }),
        };
        member.map(|inner| &self.text[inner.in_text(&value)])
    }

    /// Field `key`'s value, parsed on first use; `None` when the field is absent.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        if let Some(map) = self.parsed.map.get() {
            return map.get(key);
        }
        let field = self.find(key)?;
        Some(
            field
                .parsed
                .get_or_init(|| Box::new(text::parse(&self.text[field.value.clone()]))),
        )
    }

    /// Field `key`'s value for a rule that reads it once: the kept value when already parsed,
    /// otherwise parsed afresh and not kept, so a whole large payload is never held as values.
    pub fn get_transient(&self, key: &str) -> Option<std::borrow::Cow<'a, Value>> {
        if let Some(map) = self.parsed.map.get() {
            return map.get(key).map(std::borrow::Cow::Borrowed);
        }
        let field = self.find(key)?;
        Some(match field.parsed.get() {
            Some(value) => std::borrow::Cow::Borrowed(&**value),
            None => std::borrow::Cow::Owned(text::parse(&self.text[field.value.clone()])),
        })
    }

    /// The fields' keys, in order, without parsing any value.
    pub fn keys(&self) -> impl Iterator<Item = &'a str> + 'a {
        let tool = *self;
        self.parsed.fields.iter().map(move |f| tool.key(f))
    }

    /// Every field, in order, parsed on first use.
    pub fn fields(&self) -> &'a Map<String, Value> {
        self.parsed.map.get_or_init(|| {
            self.parsed
                .fields
                .iter()
                .map(|f| {
                    (
                        self.key(f).to_string(),
                        text::parse(&self.text[f.value.clone()]),
                    )
                })
                .collect::<Map<String, Value>>()
                .into()
        })
    }

    #[inline]
    fn key(&self, field: &'a RawField) -> &'a str {
        match &field.key {
            Key::Span(span) => &self.text[span.clone()],
            Key::Decoded(key) => key,
        }
    }

    #[inline]
    fn find(&self, key: &str) -> Option<&'a RawField> {
        // Compared as bytes: a `str` slice would check both ends for character boundaries.
        let text = self.text.as_bytes();
        self.parsed.fields.iter().find(|f| match &f.key {
            Key::Span(span) => text
                .get(span.clone())
                .is_some_and(|k| crate::lookup::same_key(k, key.as_bytes())),
            Key::Decoded(decoded) => **decoded == *key,
        })
    }

    /// Where field `key` is in the tool's text; `None` when it is absent or its key was written
    /// with escapes (so has no place of its own).
    pub fn field_place(&self, key: &str) -> Option<FieldPlace> {
        let fields = &self.parsed.fields;
        let position = fields.iter().position(|f| self.key(f) == key)?;
        let Key::Span(key) = &fields[position].key else {
            return None;
        };
        Some(FieldPlace {
            key: key.clone(),
            value: fields[position].value.clone(),
            position,
            fields: fields.len(),
        })
    }

    /// The raw `name` value; `None` when the field is absent.
    pub fn name(&self) -> Option<&'a Value> {
        self.get("name")
    }

    /// The name if it is a string.
    #[inline]
    pub fn name_str(&self) -> Option<&'a str> {
        self.plain_name()
            .or_else(|| self.name().and_then(Value::as_str))
    }

    /// [`Tool::raw_string`] of `name`, found once per tool text.
    #[inline]
    fn plain_name(&self) -> Option<&'a str> {
        let packed = &self.parsed.plain_name;
        match packed.load(Ordering::Relaxed) {
            super::NAME_UNKNOWN => {
                let name = self.raw_string("name");
                let place =
                    name.map(|n| (n.as_ptr() as usize - self.text.as_ptr() as usize, n.len()));
                let known = match place {
                    None => super::NAME_NOT_PLAIN,
                    Some((at, len)) => match (u32::try_from(at), u32::try_from(len)) {
                        (Ok(at), Ok(len)) if at < u32::MAX => {
                            (u64::from(at) << 32) | u64::from(len)
                        }
                        // Too far in to pack: looked for again next time.
                        _ => return name,
                    },
                };
                packed.store(known, Ordering::Relaxed);
                name
            }
            super::NAME_NOT_PLAIN => None,
            known => {
                let (at, len) = ((known >> 32) as usize, (known & 0xffff_ffff) as usize);
                self.text.get(at..at + len)
            }
        }
    }

    /// Field `key`'s string, when it is written without escapes: then its text between the
    /// quotes is the string, with no parsing. `None` otherwise (absent, not a string, escaped).
    #[inline]
    pub fn raw_string(&self, key: &str) -> Option<&'a str> {
        let raw = self.raw_field(key)?.strip_prefix('"')?.strip_suffix('"')?;
        (!raw.contains('\\')).then_some(raw)
    }

    /// A printable label: the name, or `#<index>` when the name is missing or not a string.
    pub fn label(&self) -> String {
        self.label_ref().into_owned()
    }

    /// [`Tool::label`], borrowed from the tool's text when it is the name (no allocation).
    #[inline]
    pub fn label_ref(&self) -> std::borrow::Cow<'a, str> {
        match self.name_str() {
            Some(name) => std::borrow::Cow::Borrowed(name),
            None => std::borrow::Cow::Owned(format!("#{}", self.index)),
        }
    }

    /// The raw `inputSchema`; `None` when absent, `Some(Value::Null)` when `null`.
    pub fn input_schema(&self) -> Option<&'a Value> {
        self.get("inputSchema")
    }

    /// The raw `outputSchema`; `None` when absent, `Some(Value::Null)` when `null`.
    pub fn output_schema(&self) -> Option<&'a Value> {
        self.get("outputSchema")
    }

    /// Whether a tool with these bytes already passed `structural`'s check (`None`: not known).
    pub fn passes_structural(&self) -> Option<bool> {
        match self.parsed.passes_structural.load(Ordering::Relaxed) {
            super::UNKNOWN => None,
            known => Some(known == 1),
        }
    }

    /// Records what `structural`'s check found for a tool with these bytes.
    pub fn remember_passes_structural(&self, passes: bool) {
        // Two threads may judge the same bytes at once; both find the same.
        let passes = u8::from(passes);
        self.parsed
            .passes_structural
            .store(passes, Ordering::Relaxed);
    }

    /// JSON pointer of the tool in the document it was read from (e.g. `/result/tools/2`).
    pub fn location(&self) -> std::borrow::Cow<'a, str> {
        self.locations.get(self.index)
    }

    /// Pointer to a field of this tool.
    pub fn pointer(&self, field: &str) -> String {
        pointer::push(&self.location(), field)
    }
}

/// The MCP 2025-11-25 tool-name rule: 1 to 128 characters from `A-Z a-z 0-9 _ - .`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}
