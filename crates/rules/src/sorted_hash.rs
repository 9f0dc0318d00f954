//! `sorted-hash`: emulates the snapshot strategy of published drift tools that hash each tool's
//! name, description and input schema, sort tools by name, and coerce a missing or `null` schema
//! to `{}`. Modelled behaviour: fires when the sorted list of (name, hash) pairs differs. Blind by
//! construction to tool order, to `outputSchema`, `title` and annotations, and to a schema that
//! was `{}` becoming missing or `null`.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::Value;

use driftlab_check::check::{Comparison, Finding, Rule, RuleKind, Severity};
use driftlab_contract::payload::compact;
use driftlab_contract::surface::{Surface, Tool};

pub(crate) struct SortedHash;

/// (name, hashed text) of the given tools, sorted. The hashed text is what the emulated tools
/// hash, `name NUL description NUL canonical input schema`: two lists of texts are equal exactly
/// when their lists of hashes are (barring a SHA-256 collision), so the texts are compared and
/// no hash is computed. `cache`: look up and keep each named tool's text in the thread's cache
/// (the approved side, compared again and again in a study; a candidate's changed tool is seen
/// once, and written straight).
fn digest<'a>(tools: impl Iterator<Item = Tool<'a>>, cache: bool) -> Vec<(Cow<'a, str>, Vec<u8>)> {
    let mut out: Vec<(Cow<'a, str>, Vec<u8>)> = tools
        .map(|t| {
            let label = t.label_ref();
            let text = hashed_text(&t, &label, cache);
            (label, text)
        })
        .collect();
    out.sort();
    out
}

thread_local! {
    // A study compares each approved tool with many candidates: the hashed text of a named tool
    // depends only on its bytes, so it is written once per distinct tool text and thread.
    static HASHED: RefCell<Hashed> = RefCell::default();
}
/// The cache starts over past this many tools, or past this many bytes of tool and hashed text.
const CACHE_LIMIT: usize = 4096;
const CACHE_BYTES: usize = 16 << 20;

/// The hashed texts written so far, by the tool's text.
#[derive(Default)]
struct Hashed {
    texts: HashMap<String, Vec<u8>, foldhash::fast::RandomState>,
    bytes: usize,
}

/// `name NUL description NUL canonical input schema` of one tool (`label` is its label), through
/// the thread's cache with `cache`.
fn hashed_text(tool: &Tool<'_>, label: &str, cache: bool) -> Vec<u8> {
    // An unnamed tool's label is its index, which its bytes do not say: never cached.
    let cacheable = cache && tool.name_str().is_some();
    if cacheable {
        if let Some(known) = HASHED.with(|c| c.borrow().texts.get(tool.raw()).cloned()) {
            return known;
        }
    }
    let mut text = Vec::new();
    text.extend_from_slice(label.as_bytes());
    text.push(0);
    text.extend_from_slice(crate::hashed_description(tool).as_bytes());
    text.push(0);
    match schema_as_hashed(tool) {
        None => text.extend_from_slice(b"{}"),
        Some(schema) => compact::write_sorted(&mut text, schema),
    }
    let bytes = tool.raw().len() + text.len();
    if cacheable && bytes <= CACHE_BYTES {
        HASHED.with(|c| {
            let mut cache = c.borrow_mut();
            if cache.texts.len() >= CACHE_LIMIT || cache.bytes + bytes > CACHE_BYTES {
                *cache = Hashed::default();
            }
            cache.bytes += bytes;
            cache.texts.insert(tool.raw().to_string(), text.clone());
        });
    }
    text
}

/// Whether two tools have the same entry `(label, hashed text)` without writing either text:
/// the same label, description and input schema as written sorted (a missing or `null` schema
/// as `{}`). The parts cannot run into each other: a JSON text holds no raw NUL byte, so the
/// hashed text after its last NUL is the schema's, and the label is compared on its own.
fn same_entry(a: &Tool<'_>, c: &Tool<'_>) -> bool {
    if a.label_ref() != c.label_ref() || !crate::same_hashed_description(a, c) {
        return false;
    }
    // The same text parses to the same value: nothing to parse.
    if a.raw_field("inputSchema") == c.raw_field("inputSchema") {
        return true;
    }
    let empty = Value::Object(serde_json::Map::new());
    let (a, c) = (schema_as_hashed(a), schema_as_hashed(c));
    compact::same_sorted(a.unwrap_or(&empty), c.unwrap_or(&empty))
}


/// A tool's input schema as hashed: `None` for a missing or `null` one (hashed as `{}`).
fn schema_as_hashed<'a>(tool: &Tool<'a>) -> Option<&'a Value> {
    tool.input_schema().filter(|schema| !schema.is_null())
}

/// Whether the sorted lists of (name, hashed text) of the two surfaces differ.
fn lists_differ(approved: &Surface, candidate: &Surface) -> bool {
    // A named tool with the same bytes on both sides has the same entry on both, and equal
    // entries cancel out of the two sorted lists: only the other tools are compared.
    let (keep_approved, keep_candidate) = unmatched_tools(approved, candidate);
    let count = |keep: &[bool]| keep.iter().filter(|k| **k).count();
    match (count(&keep_approved), count(&keep_candidate)) {
        (a, c) if a != c => true,
        // A few entries on each side (a study's candidate changes one tool, or renames, reorders
        // or reformats a few) are matched as written: entries are equal or not, so pairing each
        // approved entry with any equal unpaired one decides whether the two lists hold the same.
        (n, _) if n <= MATCH_UP_TO => {
            let candidates: Vec<Tool<'_>> =
                candidate.tools().filter(|t| keep_candidate[t.index]).collect();
            let mut paired = vec![false; candidates.len()];
            let all_paired = approved.tools().filter(|t| keep_approved[t.index]).all(|a| {
                let partner = (0..candidates.len())
                    .find(|&i| !paired[i] && same_entry(&a, &candidates[i]));
                partner.map(|i| paired[i] = true).is_some()
            });
            !all_paired
        }
        _ => digests_differ(approved, candidate, &keep_approved, &keep_candidate),
    }
}

/// Up to this many unmatched tools a side, entries are matched in place (quadratic, but each
/// comparison usually ends at the label); more are written out and sorted.
const MATCH_UP_TO: usize = 8;

/// Whether the sorted lists differ, written out: each kept tool's hashed text.
fn digests_differ(
    approved: &Surface,
    candidate: &Surface,
    keep_approved: &[bool],
    keep_candidate: &[bool],
) -> bool {
    let approved_side = digest(approved.tools().filter(|t| keep_approved[t.index]), true);
    let candidate_side = digest(candidate.tools().filter(|t| keep_candidate[t.index]), false);
    approved_side != candidate_side
}

/// Which tools of each side have no partner with the same bytes and a string name on the other
/// (partners are matched one to one). An unnamed tool's entry depends on its index: never matched.
fn unmatched_tools(approved: &Surface, candidate: &Surface) -> (Vec<bool>, Vec<bool>) {
    let mut keep_approved = vec![true; approved.len()];
    let mut keep_candidate = vec![true; candidate.len()];
    // Partners have the same bytes, so both are named or neither is.
    let partners = candidate.same_text_partners(approved);
    for (tool, partner) in candidate.tools().zip(partners) {
        if let (Some(partner), Some(_)) = (partner, tool.name_str()) {
            keep_approved[partner] = false;
            keep_candidate[tool.index] = false;
        }
    }
    (keep_approved, keep_candidate)
}

impl Rule for SortedHash {
    fn id(&self) -> &'static str {
        "sorted-hash"
    }
    fn added_in(&self) -> &'static str {
        "2026-11-30"
    }
    fn severity(&self) -> Severity {
        Severity::Breaking
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Study
    }
    fn summary(&self) -> &'static str {
        "emulation: per-tool hash of name, description and input schema (missing/null coerced to {}), tools sorted by name"
    }
    fn source(&self) -> &'static str {
        "behaviour of published hash-snapshot drift tools, written from their description (see the taxonomy study's METHOD.md)"
    }
    fn heavy(&self) -> bool {
        // It parses each changed tool and writes its sorted text.
        true
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        if lists_differ(comparison.approved, comparison.candidate) {
            out.push(Finding::at(
                self,
                None,
                "/tools".into(),
                "sorted per-tool hashes differ from the snapshot".into(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The canonical form as first written, with `format!` (the hashes depend on its bytes).
    fn canonical_by_format(value: &Value) -> String {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let items: Vec<String> = keys
                    .into_iter()
                    .map(|k| {
                        let key = Value::String(k.clone());
                        format!("{key}:{}", canonical_by_format(&map[k]))
                    })
                    .collect();
                format!("{{{}}}", items.join(","))
            }
            Value::Array(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(canonical_by_format)
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            other => other.to_string(),
        }
    }

    #[test]
    fn a_cached_text_is_the_written_one_and_an_unnamed_tool_is_labelled_by_its_place() {
        let named = json!({"name": "a", "description": "d", "inputSchema": {"b": 1, "a": 2}});
        let unnamed = json!({"description": "d", "inputSchema": null});
        let first = Surface::new(vec![
            named.as_object().unwrap().clone(),
            unnamed.as_object().unwrap().clone(),
        ]);
        let second = Surface::new(vec![
            unnamed.as_object().unwrap().clone(),
            named.as_object().unwrap().clone(),
        ]);
        let text = |s: &Surface, i: usize, cache: bool| {
            let tool = s.tool(i).unwrap();
            hashed_text(&tool, &tool.label(), cache)
        };
        let cached = |s: &Surface, i: usize| {
            let raw = s.tool(i).unwrap().raw().to_string();
            HASHED.with(|c| c.borrow().texts.contains_key(&raw))
        };
        // A candidate's tool (`cache` false) is written, not kept.
        assert_eq!(text(&first, 0, false), b"a\0d\0{\"a\":2,\"b\":1}");
        assert!(!cached(&first, 0));
        let written = text(&first, 0, true);
        assert_eq!(written, b"a\0d\0{\"a\":2,\"b\":1}");
        assert!(cached(&first, 0));
        // The same bytes at another place, now from the cache.
        assert_eq!(text(&second, 1, true), written);
        // Equal bytes, other places: the label (the index) differs, and is never cached.
        assert_eq!(text(&first, 1, true), b"#1\0d\0{}");
        assert_eq!(text(&second, 0, true), b"#0\0d\0{}");
        assert!(!cached(&first, 1));
    }

    #[test]
    fn canonical_bytes_equal_the_format_definition_on_real_and_tricky_schemas() {
        let mut values = vec![json!({
            "z": [1, -2.5, 1e300, true, null, "é\"\\\n\u{1}/"],
            "é": {"b": {}, "a": []},
            "A": "x", "\"q": 0, "": {"": ""}
        })];
        for dir in [
            "research/2026-11-30-mcp-drift-taxonomy/bases",
            "tests/data/corpus",
        ] {
            let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(dir);
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "json") {
                    let text = std::fs::read_to_string(path).unwrap();
                    values.push(serde_json::from_str(&text).unwrap());
                }
            }
        }
        assert!(values.len() > 20, "{} values", values.len());
        for value in &values {
            let mut out = Vec::new();
            compact::write_sorted(&mut out, value);
            assert_eq!(String::from_utf8(out).unwrap(), canonical_by_format(value));
        }
    }

    /// The comparison without writing texts answers as writing them does: every real and
    /// generated base against itself changed by every class, and pairs made to sit on the
    /// edges (key order, `{}` against missing and `null`, `0.0` against `-0.0`, a tool out of
    /// place, a NUL in a name).
    #[test]
    fn comparing_entries_answers_as_comparing_the_written_lists() {
        use driftlab_contract::payload;
        let mut pairs = crate::mutated_pairs::mutated_pairs(7, 40);
        let tool = |name: &str, schema: Option<Value>| {
            let mut tool = json!({"name": name, "description": "d"});
            if let Some(schema) = schema {
                tool["inputSchema"] = schema;
            }
            tool
        };
        let one = |tools: Vec<Value>| json!({ "tools": tools });
        let edges = [
            (Some(json!({"type": "object", "a": 1})), Some(json!({"a": 1, "type": "object"}))),
            (Some(json!({})), None),
            (Some(json!({})), Some(Value::Null)),
            (None, Some(Value::Null)),
            (Some(json!({"x": 0.0})), Some(json!({"x": -0.0}))),
            (Some(json!({"x": 1})), Some(json!({"x": 1.0}))),
            (Some(json!([])), Some(json!({}))),
        ];
        for (a, c) in edges {
            pairs.push((one(vec![tool("t", a.clone())]), one(vec![tool("t", c.clone())])));
            let (x, y) = (tool("x", None), tool("y", Some(json!({"q": 1}))));
            pairs.push((
                one(vec![x.clone(), tool("t", a), y.clone()]),
                one(vec![y, tool("t", c), x]),
            ));
        }
        pairs.push((one(vec![tool("a\u{0}b", None)]), one(vec![tool("a", None)])));
        // Repeated entries written apart: matched one to one.
        let (ab, ba) = (json!({"a": 1, "b": 2}), json!({"b": 2, "a": 1}));
        let twice = one(vec![tool("t", Some(ab.clone())), tool("t", Some(ab))]);
        pairs.push((twice.clone(), one(vec![tool("t", Some(ba.clone())), tool("u", None)])));
        pairs.push((twice, one(vec![tool("t", Some(ba.clone())), tool("t", Some(ba))])));
        let (mut differ, mut same) = (0, 0);
        for (a, c) in &pairs {
            let read = |value: &Value| payload::from_value(value.clone(), "p").unwrap();
            let (a, c) = (read(a), read(c));
            let (keep_a, keep_c) = unmatched_tools(&a, &c);
            let written = digests_differ(&a, &c, &keep_a, &keep_c);
            assert_eq!(lists_differ(&a, &c), written, "{:?} against {:?}", a.text(), c.text());
            match written {
                true => differ += 1,
                false => same += 1,
            }
        }
        assert!(differ > 500 && same > 100, "{differ} differ, {same} same");
    }
}
