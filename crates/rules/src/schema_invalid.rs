//! `schema-invalid`: an inputSchema or outputSchema that is not a valid JSON Schema of its
//! dialect, or that a validator cannot compile (a dangling local `$ref`, an unknown `type`).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use std::borrow::Cow;

use serde_json::Value;

use driftlab_contract::payload::compact;
use driftlab_contract::surface::Tool;
use driftlab_check::check::{
    check_each_tool, Comparison, Finding, PerTool, Rule, RuleKind, Severity, ToolRef,
};

pub(crate) struct SchemaInvalid;

/// What is wrong with one schema: the path inside it and the message.
type Problem = Option<(String, String)>;

thread_local! {
    // Studies check the same schemas in many candidates: judge each distinct schema once.
    static JUDGED: RefCell<Judged> = RefCell::new(Judged::default());
}
/// The cache starts over past this many schemas, or past this many bytes of schema text (so a
/// gate reading megabyte schemas keeps no more than a few of them).
const CACHE_LIMIT: usize = 4096;
const CACHE_BYTES: usize = 16 << 20;

/// The problems of the schemas judged so far, by their text.
#[derive(Default)]
struct Judged {
    /// foldhash: every schema's text is hashed, and SipHash cost a tenth of `check` on a
    /// 300,000-tool payload.
    problems: HashMap<Vec<u8>, Problem, foldhash::fast::RandomState>,
    /// The schemas judged valid, by their text with keys sorted ([`compact::write_sorted`]):
    /// validity does not depend on key order or layout, so a schema reordered or reformatted
    /// (a study's benign classes) is not compiled again. Problems are not shared this way:
    /// which one is reported first can depend on the order.
    valid: HashSet<Vec<u8>, foldhash::fast::RandomState>,
    text_bytes: usize,
}

impl Judged {
    /// Makes room for `bytes` more bytes of text: starts over past either limit.
    fn room_for(&mut self, bytes: usize) {
        if self.problems.len() + self.valid.len() >= CACHE_LIMIT
            || self.text_bytes + bytes > CACHE_BYTES
        {
            *self = Judged::default();
        }
        self.text_bytes += bytes;
    }
}

impl Rule for SchemaInvalid {
    fn id(&self) -> &'static str {
        "schema-invalid"
    }
    fn added_in(&self) -> &'static str {
        "2026-11-30"
    }
    fn severity(&self) -> Severity {
        Severity::Breaking
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Payload
    }
    fn summary(&self) -> &'static str {
        "an inputSchema or outputSchema breaks the JSON Schema meta-schema of its dialect ($schema, default 2020-12) or cannot be compiled (e.g. a dangling local $ref): clients that validate trip on it"
    }
    fn source(&self) -> &'static str {
        "MCP 2025-11-25 Tool.inputSchema/outputSchema (JSON Schema, default dialect 2020-12); the JSON Schema meta-schemas"
    }
    fn heavy(&self) -> bool {
        // It parses, meta-validates and may compile each changed schema.
        true
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        check_each_tool(self, comparison, out);
    }
    fn per_tool(&self) -> Option<&dyn PerTool> {
        Some(self)
    }
}

impl PerTool for SchemaInvalid {
    fn check_tool(&self, _: &Comparison<'_>, tool: &Tool<'_>, out: &mut Vec<Finding>) {
        for field in ["inputSchema", "outputSchema"] {
            // Non-object roots are input/output-schema-not-object's business.
            let Some(raw) = tool.raw_field(field).filter(|r| r.starts_with('{')) else {
                continue;
            };
            if let Some((inside, message)) = judge(raw, || tool.get_transient(field)) {
                let at = tool.pointer(field);
                out.push(Finding::at(
                    self,
                    Some(ToolRef::of(tool)),
                    format!("{at}{inside}"),
                    format!("{field} {message}"),
                ));
            }
        }
    }
}

/// The first problem of a schema (its JSON text; `parse` gives its value), judged once per
/// distinct text and thread: a schema already judged is not even parsed.
fn judge<'a>(raw: &str, parse: impl FnOnce() -> Option<Cow<'a, Value>>) -> Problem {
    if let Some(known) = JUDGED.with(|cache| cache.borrow().problems.get(raw.as_bytes()).cloned()) {
        return known;
    }
    let schema = parse();
    let mut sorted = Vec::new();
    if let Some(schema) = &schema {
        compact::write_sorted(&mut sorted, schema);
    }
    let known_valid = !sorted.is_empty() && JUDGED.with(|cache| cache.borrow().valid.contains(&sorted));
    let problem = match known_valid {
        true => None,
        false => schema.and_then(|schema| problem(&schema)),
    };
    // A text over the byte limit on its own is judged but not kept.
    if raw.len() + sorted.len() <= CACHE_BYTES {
        JUDGED.with(|cache| {
            let mut cache = cache.borrow_mut();
            cache.room_for(raw.len() + sorted.len());
            if problem.is_none() && !sorted.is_empty() {
                cache.valid.insert(sorted);
            }
            cache
                .problems
                .insert(raw.as_bytes().to_vec(), problem.clone());
        });
    }
    problem
}

fn problem(schema: &Value) -> Problem {
    // An unknown `$schema` (a custom dialect) cannot be judged here: no finding.
    let meta = jsonschema::meta::validator_for(schema).ok()?;
    // Compiling checks the schema against the same meta-schema first, so a schema that breaks
    // it never compiles: the meta-schema's first error is the problem either way.
    // Most schemas are valid: judged member by member first (each member once per text), and
    // validated whole for the first error only when that answer is no.
    if !crate::meta_validity::is_valid(meta.as_ref(), schema) {
        if let Err(e) = meta.as_ref().validate(schema) {
            return Some(breaks_meta_schema(&e));
        }
    }
    // A valid schema fails to compile only through a keyword that the meta-schema cannot
    // judge; without one, compiling (most of this rule's cost in a study) would find nothing.
    if !may_fail_to_compile(schema) {
        return None;
    }
    let compiled = driftlab_contract::contract::validator(schema).err()?;
    Some(uncompilable(&compiled))
}

fn breaks_meta_schema(e: &jsonschema::ValidationError<'_>) -> (String, String) {
    let inside = e.instance_path().as_str().to_string();
    let shown = if inside.is_empty() {
        "/"
    } else {
        inside.as_str()
    };
    let message = format!("breaks the JSON Schema meta-schema at {shown}: {e}");
    (inside, message)
}

fn uncompilable(e: &driftlab_contract::contract::SchemaError) -> (String, String) {
    let message = format!("cannot be compiled by a JSON Schema validator: {e}");
    (String::new(), message)
}

/// The keywords with which a schema valid against its meta-schema can still fail to compile
/// (jsonschema 0.37, as `contract::validator` builds it): references and the identifiers they
/// resolve against (`$ref` chains, unresolvable or unparsable URIs), regular expressions, and
/// the keywords whose subschemas are compiled by rules of their own. Every other keyword
/// compiles whenever its value fits the meta-schema (a non-negative integer, a schema, a
/// unique string array); `format` compiles because unknown formats are ignored. A `pattern`
/// is tried on its own instead ([`pattern_compiles`]): its regex compiles or not whatever
/// schema holds it.
const MAY_FAIL_TO_COMPILE: [&str; 13] = [
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$schema",
    "$vocabulary",
    "patternProperties",
    "contentSchema",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// The dialects whose integer keywords take an integer-valued number (`1.0`) both in the
/// meta-schema and in the compiler: draft 4 does not, so its schemas are always compiled.
const INTEGER_VALUED_DIALECTS: [&str; 4] = [
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-06/schema#",
];

/// Whether a schema valid against its meta-schema may still fail to compile: it is of another
/// dialect than [`INTEGER_VALUED_DIALECTS`] (or none, which is 2020-12), or a key anywhere in it
/// (a property's name too: a cheap, conservative test) is one of [`MAY_FAIL_TO_COMPILE`], or
/// is `pattern` with anything but a string whose regex compiles.
fn may_fail_to_compile(schema: &Value) -> bool {
    let known_dialect = schema.get("$schema").is_none_or(|dialect| {
        dialect
            .as_str()
            .is_some_and(|d| INTEGER_VALUED_DIALECTS.contains(&d))
    });
    if !known_dialect {
        return true;
    }
    let mut stack = vec![(schema, true)];
    while let Some((value, root)) = stack.pop() {
        match value {
            Value::Object(map) => {
                for (key, value) in map {
                    // The root's `$schema` is judged above; a deeper one counts.
                    if root && key == "$schema" {
                        continue;
                    }
                    if key == "pattern" {
                        match value.as_str() {
                            Some(regex) if pattern_compiles(regex) => continue,
                            _ => return true,
                        }
                    }
                    if MAY_FAIL_TO_COMPILE.contains(&key.as_str()) {
                        return true;
                    }
                    stack.push((value, false));
                }
            }
            Value::Array(items) => stack.extend(items.iter().map(|item| (item, false))),
            _ => {}
        }
    }
    false
}

thread_local! {
    /// Whether each regex tried so far compiles: a study's surfaces share a few patterns.
    static PATTERNS: RefCell<HashMap<String, bool, foldhash::fast::RandomState>> =
        RefCell::default();
}

/// Whether `regex` compiles as a `pattern`, asked of the compiler on a schema of that keyword
/// alone (the same options as every schema, so the same regex engine and limits).
fn pattern_compiles(regex: &str) -> bool {
    if let Some(known) = PATTERNS.with(|cache| cache.borrow().get(regex).copied()) {
        return known;
    }
    let compiles = driftlab_contract::contract::validator(&serde_json::json!({ "pattern": regex })).is_ok();
    PATTERNS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() >= CACHE_LIMIT {
            cache.clear();
        }
        cache.insert(regex.to_string(), compiles);
    });
    compiles
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn judged(schema: Value) -> Problem {
        judge(&schema.to_string(), || Some(Cow::Owned(schema)))
    }

    /// A schema text of `len` bytes whose content depends on `tag`.
    fn schema_text(tag: char, len: usize) -> String {
        format!(
            "{{\"description\":\"{}\"}}",
            tag.to_string().repeat(len - 18)
        )
    }

    #[test]
    fn the_cache_answers_without_parsing_and_keeps_its_text_under_the_byte_limit() {
        let cached_bytes = || JUDGED.with(|cache| cache.borrow().text_bytes);
        let small = schema_text('s', 100);
        assert_eq!(judge(&small, || None), None);
        let problem = Some(("/x".to_string(), "made up".to_string()));
        JUDGED.with(|cache| {
            cache
                .borrow_mut()
                .problems
                .insert(small.clone().into(), problem.clone())
        });
        // Known text: the cached answer, and `parse` is never called.
        assert_eq!(
            judge(&small, || unreachable!("parsed a judged schema")),
            problem
        );
        // Big texts start the cache over rather than pass the limit.
        for tag in ['a', 'b', 'c'] {
            judge(&schema_text(tag, CACHE_BYTES / 3 + 1), || None);
            assert!(
                cached_bytes() <= CACHE_BYTES,
                "{} cached bytes",
                cached_bytes()
            );
        }
        // A text over the limit on its own is judged but not kept.
        let before = cached_bytes();
        judge(&schema_text('z', CACHE_BYTES + 1), || None);
        assert_eq!(cached_bytes(), before);
    }

    #[test]
    fn validity_is_shared_by_key_order_and_layout_and_problems_are_not() {
        let sorted = |schema: &Value| {
            let mut out = Vec::new();
            compact::write_sorted(&mut out, schema);
            out
        };
        // Known valid by its sorted text: a reordered, reformatted text is answered from the
        // cache (the entry is made up, so a compile would have found the problem).
        let made_up = json!({"required": "q", "type": "object"});
        JUDGED.with(|cache| cache.borrow_mut().valid.insert(sorted(&made_up)));
        let reordered = "{ \"type\": \"object\",\n  \"required\": \"q\" }";
        let parsed: Value = serde_json::from_str(reordered).unwrap();
        assert_eq!(judge(reordered, || Some(Cow::Owned(parsed))), None);
        // A problem found in one order is not lent to another: each is judged.
        let bad = json!({"type": "object", "minProperties": -1});
        assert!(judged(bad.clone()).is_some());
        let text = "{\"minProperties\":-1,\"type\":\"object\"}";
        assert!(judge(text, || Some(Cow::Owned(bad.clone()))).is_some());
        // A valid schema judged once is known valid in any order.
        let good = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        assert_eq!(judged(good.clone()), None);
        assert!(JUDGED.with(|cache| cache.borrow().valid.contains(&sorted(&good))));
    }

    /// The rule's answer with every schema compiled, as it judged before the shortcut.
    fn compiled_problem(schema: &Value) -> Problem {
        let meta = jsonschema::meta::validator_for(schema).ok()?;
        let compiled = driftlab_contract::contract::validator(schema).err()?;
        match meta.as_ref().validate(schema) {
            Err(e) => Some(breaks_meta_schema(&e)),
            Ok(()) => Some(uncompilable(&compiled)),
        }
    }

    /// Every `inputSchema` and `outputSchema` object inside `value`.
    fn schemas_in<'v>(value: &'v Value, out: &mut Vec<&'v Value>) {
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    if (key == "inputSchema" || key == "outputSchema") && inner.is_object() {
                        out.push(inner);
                    }
                    schemas_in(inner, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|item| schemas_in(item, out)),
            _ => {}
        }
    }

    /// The shortcut answers as compiling does on the population it saves work on: every
    /// schema of generated and real surfaces (the taxonomy's bases), each as every mutation
    /// class changes it, and schemas made to sit on the edge of the keyword list.
    #[test]
    fn skipping_the_compile_answers_as_compiling_does() {
        use driftlab_mutate::{generate, mutate};
        let bases_dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../research/2026-11-30-mcp-drift-taxonomy/bases"
        );
        let mut bases: Vec<Value> = std::fs::read_dir(bases_dir)
            .unwrap()
            .map(|entry| {
                let text = std::fs::read(entry.unwrap().path()).unwrap();
                serde_json::from_slice(&text).unwrap()
            })
            .collect();
        for index in 0..60 {
            bases.push(generate::surface(5, index, 4));
            bases.push(generate::surface_with_contract(5, index, 4));
        }
        let mut surfaces = Vec::new();
        for (index, base) in bases.iter().enumerate() {
            surfaces.push(base.clone());
            for class in mutate::REGISTRY {
                let mut value = base.clone();
                let mut stream = mutate::stream(5, *class, index as u64);
                if class.apply(&mut value, &mut stream).is_ok() {
                    surfaces.push(value);
                }
            }
        }
        let edges = [
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1.0}}}),
            json!({"properties": {"s": {"type": "string", "minLength": 2.0}}}),
            json!({"properties": {"s": {"type": "string", "minLength": 2.5}}}),
            json!({"properties": {"s": {"maxItems": -1}}}),
            json!({"enum": []}),
            json!({"required": ["a", "a"]}),
            json!({"type": ["string", "string"]}),
            json!({"properties": {"s": {"pattern": "(unclosed"}}}),
            json!({"properties": {"s": {"pattern": "^ok$"}}}),
            json!({"properties": {"pattern": {"type": "string"}}}),
            json!({"properties": {"s": {"pattern": "a{2,1}"}, "t": {"pattern": "^\\p{L}+$"}}}),
            json!({"properties": {"s": {"pattern": "(?<=a)b"}, "t": {"pattern": "((a{100}){100}){100}"}}}),
            json!({"patternProperties": {"[": {}}}),
            json!({"$ref": "#/$defs/missing"}),
            json!({"$id": "not a uri with spaces"}),
            json!({"$anchor": "ok", "type": "object"}),
            json!({"format": "no-such-format"}),
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "minLength": 1.0}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "minLength": 1.0}),
            json!({"properties": {"x": {"$schema": "http://json-schema.org/draft-04/schema#"}}}),
            json!({"dependentRequired": {"a": ["b"]}, "dependentSchemas": {"a": {"minProperties": 1}}}),
            json!({"contains": {"type": "string"}, "minContains": 0, "maxContains": 2.0}),
            json!({"if": {"type": "string"}, "then": {"minLength": 1}, "else": false}),
            json!({"prefixItems": [true, {"type": "null"}], "items": false}),
        ];
        let mut schemas: Vec<&Value> = edges.iter().collect();
        surfaces.iter().for_each(|s| schemas_in(s, &mut schemas));
        let (mut skipped, mut compiled, mut problems) = (0, 0, 0);
        for schema in schemas {
            assert_eq!(problem(schema), compiled_problem(schema), "{schema}");
            let meta_valid = jsonschema::meta::validator_for(schema)
                .is_ok_and(|meta| meta.as_ref().is_valid(schema));
            match may_fail_to_compile(schema) {
                false if meta_valid => skipped += 1,
                _ => compiled += 1,
            }
            problems += usize::from(compiled_problem(schema).is_some());
        }
        assert!(skipped > 1000, "{skipped} schemas skipped the compile");
        assert!(compiled > 100, "{compiled} schemas compiled");
        assert!(problems > 5, "{problems} schemas with a problem");
    }

    #[test]
    fn meta_schema_violations_and_uncompilable_schemas_are_problems() {
        assert_eq!(
            judged(json!({"type": "object", "properties": {"q": {"type": "string"}}})),
            None
        );
        let (inside, message) = judged(json!({"type": "object", "required": "q"})).unwrap();
        assert_eq!(inside, "/required");
        assert!(message.contains("meta-schema"), "{message}");
        assert_eq!(judged(json!({"type": "strin"})).unwrap().0, "/type");
        let (_, message) =
            judged(json!({"properties": {"q": {"$ref": "#/$defs/missing"}}})).unwrap();
        assert!(message.contains("cannot be compiled"), "{message}");
        // A draft-07 schema is judged by draft 7's meta-schema; a custom dialect is not judged.
        assert_eq!(
            judged(
                json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "definitions": {}})
            ),
            None
        );
        assert_eq!(
            judged(json!({"$schema": "https://example.com/my-dialect", "type": 5})),
            None
        );
    }
}
