//! Reads a real `tools/list` payload from bytes, whatever produced them (a file, stdin, a live
//! capture, a generated candidate).
//!
//! Accepted shapes: a result object `{"tools":[…]}`, a JSON-RPC response `{"jsonrpc":"2.0",
//! "result":{…}}`, a bare array of tools, an array of result pages (or of responses), and a capture
//! file with a `toolsList` field (the format of the shared corpus). Tool order is kept.

pub mod compact;
pub mod contract;
mod error;
mod fast;
pub mod input;
mod members;
pub(crate) mod scan;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::pointer;
use crate::surface::Surface;

pub use error::PayloadError;

/// Payloads larger than this are refused unless the caller raises the limit.
pub const DEFAULT_MAX_BYTES: usize = crate::fs::MAX_JSON_FILE;

/// Documents nested deeper than this many arrays and objects are refused (exit 2). Real
/// servers stay far below it (the deepest capture in the corpus has 25 levels); a legitimate
/// deep schema (200 nested object schemas, about 400 levels) is read. Parsing runs on a stack
/// that grows on the heap, so even this depth never overflows.
pub const MAX_DEPTH: usize = 2000;

/// Limits applied while reading.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The largest payload read, in bytes.
    pub max_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// Parses bytes into a surface. `source_name` is used in error messages only.
pub fn read(bytes: &[u8], source_name: &str, limits: Limits) -> Result<Surface, PayloadError> {
    let json = checked(bytes, source_name, limits)?;
    // Most payloads take the fast path; whatever it leaves (odd shapes, errors) the general
    // reader decides, with the same result.
    match fast_path(json) {
        Some((text, tools, locations, scanned)) => Ok(Surface::from_text(
            text.to_string(),
            tools,
            locations,
            scanned,
        )),
        None => read_general(bytes, source_name, limits),
    }
}

/// [`read`], keeping `bytes` as the surface's text instead of a copy: half the memory for a
/// large payload read from a file, and no copy of a candidate whose buffer the study runner
/// takes back afterwards ([`Surface::into_text`]).
pub fn read_owned(
    bytes: Vec<u8>,
    source_name: &str,
    limits: Limits,
) -> Result<Surface, PayloadError> {
    read_owned_beside(bytes, source_name, limits, None)
}

/// [`read_owned`] of a candidate, with each tool that has the bytes of an approved tool sharing
/// what that one has parsed (the one at its place first, as [`Surface::share_parsed`] pairs
/// them). When the scanner read `approved`, only the bytes where the two differ are scanned
/// (see `scan::read_beside`); otherwise a tool whose bytes equal the approved tool's at its place
/// shares its parsed fields as the scanner passes it, without building a field list to drop.
pub fn read_candidate(
    bytes: Vec<u8>,
    source_name: &str,
    limits: Limits,
    approved: &Surface,
) -> Result<Surface, PayloadError> {
    let bytes = match beside(bytes, limits, approved) {
        Ok(surface) => return Ok(surface),
        Err(bytes) => bytes,
    };
    let mut surface = read_owned_beside(bytes, source_name, limits, Some(approved))?;
    surface.share_parsed(approved);
    Ok(surface)
}

/// [`read_candidate`] by `scan::read_beside`, or the bytes back when it leaves them.
fn beside(bytes: Vec<u8>, limits: Limits, approved: &Surface) -> Result<Surface, Vec<u8>> {
    if bytes.len() > limits.max_bytes {
        return Err(bytes);
    }
    let Some(tools) = scan::read_beside(&bytes, approved) else {
        return Err(bytes);
    };
    debug_assert!(std::str::from_utf8(&bytes).is_ok());
    // SAFETY: `read_beside` returns tools only for UTF-8 bytes: it checks each tool and member
    // it scans; the rest is the approved text's (a `String`) cut at ASCII bytes, or bytes the
    // scanner accepts only as ASCII. Checking them all again cost 3% of a study.
    let text = unsafe { String::from_utf8_unchecked(bytes) };
    let mut locations = crate::surface::Locations::new();
    locations.push_array("/tools", tools.len());
    Ok(Surface::from_text(text, tools, locations, true))
}

fn read_owned_beside(
    bytes: Vec<u8>,
    source_name: &str,
    limits: Limits,
    beside: Option<&Surface>,
) -> Result<Surface, PayloadError> {
    let json = checked(&bytes, source_name, limits)?;
    if json.len() < bytes.len() {
        // A byte-order mark led: places are relative to the JSON after it, so read a copy.
        return read(&bytes, source_name, limits);
    }
    // Checked once as UTF-8 here, then scanned as text.
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(not_utf8) => return read_general(not_utf8.as_bytes(), source_name, limits),
    };
    match fast::read(&text, beside) {
        Some((tools, locations, scanned)) => {
            Ok(Surface::from_text(text, tools, locations, scanned))
        }
        None => read_general(text.as_bytes(), source_name, limits),
    }
}

/// [`read`] without its fast path: parses the whole document into values first. Public so that
/// tests can hold the fast path to it.
pub fn read_general(
    bytes: &[u8],
    source_name: &str,
    limits: Limits,
) -> Result<Surface, PayloadError> {
    let value = parse_json(bytes, source_name, limits)?;
    from_value(value, source_name)
}

/// The JSON text, its tools and their locations, when the fast path reads `json`, and whether
/// the scanner read them.
type Found<'a> = (
    &'a str,
    Vec<crate::surface::RawTool>,
    crate::surface::Locations,
    bool,
);

fn fast_path(json: &[u8]) -> Option<Found<'_>> {
    let text = std::str::from_utf8(json).ok()?;
    let (tools, locations, scanned) = fast::read(text, None)?;
    Some((text, tools, locations, scanned))
}

/// Whether [`read`] reads these bytes on its fast path (tests use it to show that the fast
/// path is taken where it should be).
#[doc(hidden)]
pub fn takes_fast_path(bytes: &[u8], limits: Limits) -> bool {
    checked(bytes, "", limits).is_ok_and(|json| fast_path(json).is_some())
}

/// The JSON part of a payload: within the size limit, without a byte-order mark, not empty.
fn checked<'a>(
    bytes: &'a [u8],
    source_name: &str,
    limits: Limits,
) -> Result<&'a [u8], PayloadError> {
    if bytes.len() > limits.max_bytes {
        return Err(PayloadError::TooLarge {
            source_name: source_name.to_string(),
            size: bytes.len(),
            limit: limits.max_bytes,
        });
    }
    // A UTF-8 byte-order mark (some Windows editors write one) is not part of the JSON.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(PayloadError::Empty {
            source_name: source_name.to_string(),
        });
    }
    Ok(bytes)
}

/// Parses bytes into a JSON value, with the size, encoding and depth checks of [`read`].
pub fn parse_json(bytes: &[u8], source_name: &str, limits: Limits) -> Result<Value, PayloadError> {
    let bytes = checked(bytes, source_name, limits)?;
    let source_name = source_name.to_string();
    if let Some((line, column)) = too_deep(bytes, MAX_DEPTH) {
        return Err(PayloadError::TooDeep {
            source_name,
            line,
            column,
        });
    }
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    deserializer.disable_recursion_limit();
    let parsed = Value::deserialize(serde_stacker::Deserializer::new(&mut deserializer))
        .and_then(|value| deserializer.end().map(|()| value));
    parsed.map_err(|e| {
        // serde_json checks UTF-8 inside strings only as it goes; on failure, name the first bad
        // byte anywhere (checking up front would cost every valid payload a second pass).
        if let Err(utf8) = std::str::from_utf8(bytes) {
            return PayloadError::NotUtf8 {
                source_name: source_name.clone(),
                offset: utf8.valid_up_to(),
            };
        }
        let (line, column) = (e.line(), e.column());
        let message = e.to_string();
        if message.starts_with("recursion limit exceeded") {
            PayloadError::TooDeep {
                source_name,
                line,
                column,
            }
        } else {
            // serde_json appends " at line L column C"; we print the place as a prefix instead.
            let message = match message.rfind(" at line ") {
                Some(cut) => message[..cut].to_string(),
                None => message,
            };
            PayloadError::Syntax {
                source_name,
                line,
                column,
                message,
            }
        }
    })
}

/// The line and column (1-based, in bytes) of the first `[` or `{` that opens level `max + 1`,
/// outside strings; `None` when the document stays within `max` levels. One pass, no recursion.
fn too_deep(bytes: &[u8], max: usize) -> Option<(usize, usize)> {
    let (mut depth, mut line, mut line_start) = (0usize, 1usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some((line, i - line_start + 1));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            _ => {}
        }
    }
    None
}

/// Finds the tools in an already parsed document.
pub fn from_value(value: Value, source_name: &str) -> Result<Surface, PayloadError> {
    let mut tools = Vec::new();
    let mut locations = Vec::new();
    collect(value, "", source_name, &mut tools, &mut locations, 0)?;
    Ok(Surface::with_locations(tools, locations))
}

fn shape_error(source_name: &str, at: &str, message: String) -> PayloadError {
    PayloadError::Shape {
        source_name: source_name.to_string(),
        pointer: if at.is_empty() { "/".into() } else { at.into() },
        message,
    }
}

/// Walks the accepted wrappers down to tool objects. `wrappers` bounds how many wrappers may
/// nest (capture → response → result), so odd inputs cannot recurse without end.
fn collect(
    value: Value,
    at: &str,
    source_name: &str,
    tools: &mut Vec<Map<String, Value>>,
    locations: &mut Vec<String>,
    wrappers: u8,
) -> Result<(), PayloadError> {
    if wrappers > 4 {
        return Err(shape_error(
            source_name,
            at,
            "too many nested wrappers".into(),
        ));
    }
    match value {
        Value::Object(mut object) => {
            if let Some(list) = object.remove("tools") {
                let at = pointer::push(at, "tools");
                let Value::Array(items) = list else {
                    return Err(shape_error(
                        source_name,
                        &at,
                        format!("`tools` must be an array, found {}", describe(&list)),
                    ));
                };
                return push_tools(items, &at, source_name, tools, locations);
            }
            if let Some(error) = object
                .get("error")
                .filter(|_| object.contains_key("jsonrpc"))
            {
                return Err(shape_error(
                    source_name,
                    &pointer::push(at, "error"),
                    format!(
                        "the server answered with a JSON-RPC error: {}",
                        short(error)
                    ),
                ));
            }
            for wrapper in ["result", "toolsList"] {
                if let Some(inner) = object.remove(wrapper) {
                    let at = pointer::push(at, wrapper);
                    return collect(inner, &at, source_name, tools, locations, wrappers + 1);
                }
            }
            Err(shape_error(
                source_name,
                at,
                "expected a tools/list result {\"tools\":[…]}, a JSON-RPC response, an array of \
                 tools or pages, or a capture with `toolsList`; found an object without any of \
                 `tools`, `result` or `toolsList`"
                    .into(),
            ))
        }
        Value::Array(items) => {
            let is_pages = !items.is_empty()
                && items.iter().all(|item| {
                    item.get("tools").is_some()
                        || item.get("result").is_some()
                        || item.get("toolsList").is_some()
                });
            if is_pages {
                for (i, page) in items.into_iter().enumerate() {
                    let at = pointer::push_index(at, i);
                    collect(page, &at, source_name, tools, locations, wrappers + 1)?;
                }
                Ok(())
            } else {
                push_tools(items, at, source_name, tools, locations)
            }
        }
        other => Err(shape_error(
            source_name,
            at,
            format!(
                "expected a tools/list result object or an array, found {}",
                describe(&other)
            ),
        )),
    }
}

fn push_tools(
    items: Vec<Value>,
    at: &str,
    source_name: &str,
    tools: &mut Vec<Map<String, Value>>,
    locations: &mut Vec<String>,
) -> Result<(), PayloadError> {
    for (i, item) in items.into_iter().enumerate() {
        let here = pointer::push_index(at, i);
        match item {
            Value::Object(tool) => {
                tools.push(tool);
                locations.push(here);
            }
            other => {
                return Err(shape_error(
                    source_name,
                    &here,
                    format!("a tool must be an object, found {}", describe(&other)),
                ))
            }
        }
    }
    Ok(())
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// A value shortened to one printable line. Only the first bytes are written: a change to a
/// 100,000-name `required` list is reported once per name, and each report must not cost the
/// whole list.
pub fn short(value: &Value) -> String {
    /// Keeps at most `LIMIT` bytes, then fails the serializer so it stops.
    struct Prefix(Vec<u8>);
    const LIMIT: usize = 81 * 4;
    impl std::io::Write for Prefix {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let room = LIMIT - self.0.len();
            self.0.extend_from_slice(&buf[..buf.len().min(room)]);
            match buf.len() > room {
                true => Err(std::io::Error::other("long enough")),
                false => Ok(buf.len()),
            }
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut prefix = Prefix(Vec::new());
    let _ = serde_json::to_writer(&mut prefix, value);
    // A cut inside a multi-byte character loses at most that character, past the 80th.
    let text = String::from_utf8_lossy(&prefix.0);
    if text.chars().count() <= 80 {
        text.into_owned()
    } else {
        let cut: String = text.chars().take(77).collect();
        format!("{cut}...")
    }
}

#[cfg(test)]
#[test]
fn short_values_read_only_their_start() {
    let long = Value::from((0..100_000).map(|i| format!("name{i}")).collect::<Vec<_>>());
    let text = long.to_string();
    assert_eq!(short(&long), format!("{}...", &text[..77]));
    let exact = Value::from("é".repeat(78));
    assert_eq!(short(&exact), exact.to_string());
    let over = Value::from("é".repeat(79));
    assert_eq!(short(&over), format!("\"{}...", "é".repeat(76)));
}

#[cfg(test)]
mod tests;
