//! The keywords on one schema node: `type`, `enum`/`const`, numeric and count bounds, text
//! constraints, `default` and `description`, and every other keyword by value.

use std::collections::{BTreeSet, HashSet};

use serde_json::{Map, Value};

use super::{At, Direction, Walker};
use crate::diff::canonical;
use crate::diff::property_renames::list_values;
use crate::diff::ChangeKind as K;
use driftlab_contract::lookup::Lookup;

/// Count bounds (minimum/maximum and their exclusive forms are compared as effective bounds).
const LOWER_BOUNDS: &[&str] = &["minLength", "minItems", "minProperties"];
const UPPER_BOUNDS: &[&str] = &["maxLength", "maxItems", "maxProperties"];

impl<'a> Walker<'_, 'a, '_> {
    pub(super) fn types(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, at: &At) {
        let (old, new) = (o.field("type"), n.field("type"));
        if old == new {
            return;
        }
        let (Some(old_set), Some(new_set)) = (type_set(old), type_set(new)) else {
            let why = format!("{}: type keyword is malformed", self.subject(at));
            self.unjudged(at.keyword("type"), old, new, why);
            return;
        };
        let widened = accepts_all(&new_set, &old_set);
        let narrowed = accepts_all(&old_set, &new_set);
        if widened && narrowed {
            return; // e.g. ["number","integer"] vs "number"
        }
        let subject = self.subject(at);
        let (kind, how) = match (self.direction, widened, narrowed) {
            (Direction::Request, true, _) => (K::TypeWidened, "widened"),
            (Direction::Request, _, true) => (K::TypeNarrowed, "narrowed"),
            (Direction::Request, _, _) => (K::TypeChanged, "changed"),
            (Direction::Response, _, true) => (K::OutputCompatibleChange, "narrowed"),
            (Direction::Response, _, _) => (
                K::OutputPropertyTypeChanged,
                if widened { "widened" } else { "changed" },
            ),
        };
        let message = format!(
            "{subject}: type {how} from {} to {}",
            show_types(&old_set),
            show_types(&new_set)
        );
        self.push(kind, at.keyword("type"), old, new, message);
    }

    pub(super) fn enums(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, at: &At) {
        let values = |m: &Map<String, Value>| -> Option<Vec<Value>> {
            match (m.field("enum"), m.field("const")) {
                (Some(Value::Array(v)), _) => Some(v.clone()),
                (_, Some(c)) => Some(vec![c.clone()]),
                _ => None,
            }
        };
        let (old, new) = (values(o), values(n));
        if old == new {
            return;
        }
        let keyword = if o.field("enum").is_some() || n.field("enum").is_some() {
            "enum"
        } else {
            "const"
        };
        let pointers = at.keyword(keyword);
        let subject = self.subject(at);
        let raw = (o.field(keyword), n.field(keyword));
        match (old, new) {
            (None, Some(_)) => self.tightened(
                at,
                keyword,
                raw,
                format!("{subject}: {keyword} added (only listed values allowed)"),
            ),
            (Some(_), None) => self.loosened(
                at,
                keyword,
                raw,
                format!("{subject}: {keyword} removed (any value allowed)"),
            ),
            (Some(old), Some(new)) => {
                // Hashed, so 100k-value enums are compared in one pass each.
                let keys =
                    |vs: &[Value]| -> HashSet<String> { vs.iter().map(canonical::key).collect() };
                let (old_keys, new_keys) = (keys(&old), keys(&new));
                let removed: Vec<&Value> = old
                    .iter()
                    .filter(|v| !new_keys.contains(&canonical::key(v)))
                    .collect();
                let added: Vec<&Value> = new
                    .iter()
                    .filter(|v| !old_keys.contains(&canonical::key(v)))
                    .collect();
                let list = |vs: &[&Value]| list_values(vs);
                if !removed.is_empty() {
                    let kind = self.judged(K::EnumValueRemoved, K::OutputCompatibleChange);
                    let message =
                        format!("{subject}: value(s) {} no longer allowed", list(&removed));
                    self.push(kind, pointers.clone(), raw.0, raw.1, message);
                }
                if !added.is_empty() {
                    let kind = self.judged(K::EnumValueAdded, K::OutputEnumValueAdded);
                    let message = format!("{subject}: value(s) {} now allowed", list(&added));
                    self.push(kind, pointers, raw.0, raw.1, message);
                }
            }
            (None, None) => {}
        }
    }

    /// The change kind for this schema's direction: `request` for an inputSchema, `response` for
    /// an outputSchema.
    pub(super) fn judged(&self, request: K, response: K) -> K {
        match self.direction {
            Direction::Request => request,
            Direction::Response => response,
        }
    }

    pub(super) fn tightened(
        &mut self,
        at: &At,
        keyword: &str,
        raw: (Option<&Value>, Option<&Value>),
        message: String,
    ) {
        let kind = self.judged(K::ConstraintTightened, K::OutputCompatibleChange);
        self.push(kind, at.keyword(keyword), raw.0, raw.1, message);
    }

    pub(super) fn loosened(
        &mut self,
        at: &At,
        keyword: &str,
        raw: (Option<&Value>, Option<&Value>),
        message: String,
    ) {
        let kind = self.judged(K::ConstraintLoosened, K::OutputConstraintLoosened);
        self.push(kind, at.keyword(keyword), raw.0, raw.1, message);
    }

    /// minimum/exclusiveMinimum and maximum/exclusiveMaximum are compared as one effective bound
    /// each (so `exclusiveMinimum: 0` and `minimum: 1` are the same bound for an integer).
    fn numeric_bounds(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, at: &At) {
        let subject = self.subject(at);
        for (inclusive, exclusive, lower) in [
            ("minimum", "exclusiveMinimum", true),
            ("maximum", "exclusiveMaximum", false),
        ] {
            let raw_old = (o.field(inclusive), o.field(exclusive));
            let raw_new = (n.field(inclusive), n.field(exclusive));
            if raw_old == raw_new {
                continue;
            }
            let keyword = if n.field(exclusive).is_some()
                || (n.field(inclusive).is_none() && o.field(exclusive).is_some())
            {
                exclusive
            } else {
                inclusive
            };
            let raw = (o.field(keyword), n.field(keyword));
            let (Some(old), Some(new)) = (
                bound(o, inclusive, exclusive, lower),
                bound(n, inclusive, exclusive, lower),
            ) else {
                let why = format!("{subject}: {inclusive}/{exclusive} changed to a non-number");
                self.unjudged(at.keyword(keyword), raw.0, raw.1, why);
                continue;
            };
            // Such a bound counts as none (see `bound`), but strict users want to see it appear.
            for key in [inclusive, exclusive] {
                let beyond = n
                    .field(key)
                    .and_then(Value::as_f64)
                    .is_some_and(|x| x.abs() >= MAX_SAFE_INTEGER);
                if beyond && o.field(key) != n.field(key) {
                    let message = format!(
                        "{subject}: {key} {} is at or beyond ±(2^53−1): it limits no real call and counts as no bound, but a client that checks integers strictly may reject the schema or the value",
                        n[key]
                    );
                    self.push(
                        K::UnsafeIntegerBound,
                        at.keyword(key),
                        o.field(key),
                        n.field(key),
                        message,
                    );
                }
            }
            let show = |b: Option<Bound>| b.map_or("none".to_string(), |b| b.show(lower));
            let message = format!(
                "{subject}: {} bound {} -> {}",
                if lower { "lower" } else { "upper" },
                show(old),
                show(new)
            );
            match (old, new) {
                (a, b) if a == b => {}
                (None, Some(_)) => self.tightened(at, keyword, raw, message),
                (Some(_), None) => self.loosened(at, keyword, raw, message),
                (Some(a), Some(b)) => {
                    if a.tighter_than(&b, lower) {
                        self.loosened(at, keyword, raw, message);
                    } else {
                        self.tightened(at, keyword, raw, message);
                    }
                }
                (None, None) => {}
            }
        }
    }

    /// An input's new `minLength` that its approved `pattern` already implied.
    fn narrowing_implied(&self, o: &Map<String, Value>, min_length: Option<&Value>) -> bool {
        matches!(self.direction, Direction::Request)
            && super::pattern::implied_by_pattern(o, min_length)
    }

    pub(super) fn bounds(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, at: &At) {
        self.numeric_bounds(o, n, at);
        let subject = self.subject(at);
        for (keywords, lower) in [(LOWER_BOUNDS, true), (UPPER_BOUNDS, false)] {
            for &keyword in keywords {
                let raw = (o.field(keyword), n.field(keyword));
                if raw.0 == raw.1 || (keyword == "minLength" && self.narrowing_implied(o, raw.1)) {
                    continue;
                }
                let number = |v: Option<&Value>| v.map(|v| v.as_f64());
                match (number(raw.0), number(raw.1)) {
                    (None, Some(Some(_))) => {
                        self.tightened(at, keyword, raw, format!("{subject}: {keyword} added"))
                    }
                    (Some(Some(_)), None) => {
                        self.loosened(at, keyword, raw, format!("{subject}: {keyword} removed"))
                    }
                    (Some(Some(a)), Some(Some(b))) => {
                        let tighter = if lower { b > a } else { b < a };
                        let message = format!("{subject}: {keyword} {a} -> {b}");
                        if tighter {
                            self.tightened(at, keyword, raw, message);
                        } else {
                            self.loosened(at, keyword, raw, message);
                        }
                    }
                    _ => {
                        let why = format!("{subject}: {keyword} changed to a non-number");
                        self.unjudged(at.keyword(keyword), raw.0, raw.1, why);
                    }
                }
            }
        }
    }

    /// pattern, format, multipleOf, uniqueItems: adding one tightens, removing loosens, changing
    /// one cannot be judged (two regular expressions or formats do not order).
    pub(super) fn text_constraints(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        at: &At,
    ) {
        let subject = self.subject(at);
        for keyword in ["pattern", "format", "multipleOf"] {
            let raw = (o.field(keyword), n.field(keyword));
            match raw {
                (a, b) if a == b => {}
                (None, Some(_)) => {
                    self.tightened(at, keyword, raw, format!("{subject}: {keyword} added"))
                }
                (Some(_), None) => {
                    self.loosened(at, keyword, raw, format!("{subject}: {keyword} removed"))
                }
                (Some(Value::String(a)), Some(Value::String(b)))
                    if keyword == "pattern" && super::pattern::repeats_within(a, b) =>
                {
                    let message = format!("{subject}: pattern repetition bounds widened");
                    self.loosened(at, keyword, raw, message);
                }
                (Some(Value::String(a)), Some(Value::String(b)))
                    if keyword == "pattern" && super::pattern::repeats_within(b, a) =>
                {
                    let message = format!("{subject}: pattern repetition bounds narrowed");
                    self.tightened(at, keyword, raw, message);
                }
                (Some(Value::String(a)), Some(Value::String(b))) if keyword == "pattern" => {
                    self.pattern_changed((a, b), at, raw)
                }
                _ => {
                    let why = format!("{subject}: {keyword} changed; the two cannot be ordered");
                    self.unjudged(at.keyword(keyword), raw.0, raw.1, why);
                }
            }
        }
        let unique = |m: &Map<String, Value>| {
            m.field("uniqueItems")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        let raw = (o.field("uniqueItems"), n.field("uniqueItems"));
        match (unique(o), unique(n)) {
            (false, true) => self.tightened(
                at,
                "uniqueItems",
                raw,
                format!("{subject}: items must now be unique"),
            ),
            (true, false) => self.loosened(
                at,
                "uniqueItems",
                raw,
                format!("{subject}: items no longer need to be unique"),
            ),
            _ => {}
        }
    }

    pub(super) fn default_and_description(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        at: &At,
    ) {
        let subject = self.subject(at);
        let raw = (o.field("default"), n.field("default"));
        if raw.0 != raw.1 {
            let kind = self.judged(K::DefaultChanged, K::SchemaAnnotationChanged);
            self.push(
                kind,
                at.keyword("default"),
                raw.0,
                raw.1,
                format!("{subject}: default changed"),
            );
        }
        let raw = (o.field("description"), n.field("description"));
        if raw.0 != raw.1 {
            let kind = self.judged(K::ParameterDescriptionChanged, K::SchemaAnnotationChanged);
            self.push(
                kind,
                at.keyword("description"),
                raw.0,
                raw.1,
                format!("{subject}: description changed"),
            );
        }
    }
}

/// An effective numeric bound: a value and whether it is exclusive.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Bound {
    value: f64,
    exclusive: bool,
}

impl Bound {
    /// True when `self` admits fewer values than `other` on this side.
    fn tighter_than(&self, other: &Bound, lower: bool) -> bool {
        if self.value == other.value {
            return self.exclusive && !other.exclusive;
        }
        if lower {
            self.value > other.value
        } else {
            self.value < other.value
        }
    }

    fn show(&self, lower: bool) -> String {
        let op = match (lower, self.exclusive) {
            (true, true) => ">",
            (true, false) => ">=",
            (false, true) => "<",
            (false, false) => "<=",
        };
        format!("{op}{}", self.value)
    }
}

/// The effective bound of one side: `Some(None)` for no bound, `None` when malformed. Handles the
/// numeric (2019+) and boolean (draft-04) forms of `exclusiveMinimum`/`exclusiveMaximum`; for an
/// integer-only schema an exclusive integral bound becomes the next inclusive one.
fn bound(
    m: &Map<String, Value>,
    inclusive: &str,
    exclusive: &str,
    lower: bool,
) -> Option<Option<Bound>> {
    let number = |k: &str| m.field(k).map(Value::as_f64);
    let mut candidates = Vec::new();
    match (number(inclusive), m.field(exclusive)) {
        (Some(None), _) => return None,
        (Some(Some(v)), Some(Value::Bool(strict))) => candidates.push(Bound {
            value: v,
            exclusive: *strict,
        }),
        (Some(Some(v)), _) => candidates.push(Bound {
            value: v,
            exclusive: false,
        }),
        (None, _) => {}
    }
    match m.field(exclusive) {
        Some(Value::Bool(_)) | None => {}
        Some(v) => candidates.push(Bound {
            value: v.as_f64()?,
            exclusive: true,
        }),
    }
    let integer = m.field("type") == Some(&Value::from("integer"));
    let normal = |b: Bound| {
        if integer && b.exclusive && b.value.fract() == 0.0 {
            Bound {
                value: if lower { b.value + 1.0 } else { b.value - 1.0 },
                exclusive: false,
            }
        } else {
            b
        }
    };
    let tightest =
        candidates
            .into_iter()
            .map(normal)
            .reduce(|a, b| if a.tighter_than(&b, lower) { a } else { b });
    // A bound at or beyond ±(2^53−1), the largest integer JSON interoperates with exactly
    // (I-JSON, RFC 7493), limits no real call: zod 4 puts one on every integer.
    Some(tightest.filter(|b| {
        if lower {
            b.value > -MAX_SAFE_INTEGER
        } else {
            b.value < MAX_SAFE_INTEGER
        }
    }))
}

/// 2^53 − 1: bounds at or beyond it (in either direction) count as no bound.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// The set of types a `type` keyword allows; `None` means malformed. No keyword: every type.
pub(super) fn type_set(value: Option<&Value>) -> Option<BTreeSet<String>> {
    const ALL: [&str; 7] = [
        "array", "boolean", "integer", "null", "number", "object", "string",
    ];
    match value {
        None => Some(ALL.iter().map(|s| s.to_string()).collect()),
        Some(Value::String(t)) => Some([t.clone()].into()),
        Some(Value::Array(ts)) => ts.iter().map(|t| t.as_str().map(String::from)).collect(),
        Some(_) => None,
    }
}

/// Every type in `narrow` is accepted by `wide` (an integer is a number).
fn accepts_all(wide: &BTreeSet<String>, narrow: &BTreeSet<String>) -> bool {
    narrow
        .iter()
        .all(|t| wide.contains(t) || (t == "integer" && wide.contains("number")))
}

fn show_types(set: &BTreeSet<String>) -> String {
    if set.len() == 7 {
        return "any".into();
    }
    set.iter().cloned().collect::<Vec<_>>().join("|")
}
