//! The values of single schema leaves: the wrong-but-well-typed value a leaf is corrupted to,
//! and a value its own keywords accept. Shared by the corrupted instances of `scan`, the
//! `corrupt` fault of `driftlab wrap`, the guard study's calls and the diff's witnesses.

use serde_json::{json, Map, Value};

use crate::rng::Stream;

/// The string every string leaf becomes: not a valid date, time, email, URI, UUID or hostname.
pub const SENTINEL: &str = "<<driftlab corrupted value>>";

/// A value a leaf's own keywords accept.
#[derive(Debug, Clone, PartialEq)]
pub enum Valid {
    /// This value.
    Value(Value),
    /// The leaf is an added property: leaving it out is valid.
    Absent,
    /// No valid value is known (e.g. a `pattern` without `default` or `examples`).
    Unknown,
}

/// A local `$ref` (`#/…`) resolved in `root`; remote references are not followed.
pub fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

/// A string the leaf's keywords accept: its `default` or first example, a sample of its
/// `format`, or `x` repeated to its `minLength`; unknown under a `pattern` without those.
pub fn valid_string(object: &Map<String, Value>) -> Valid {
    let given = object
        .get("default")
        .or_else(|| object.get("examples").and_then(|e| e.get(0)))
        .filter(|v| v.is_string());
    if let Some(v) = given {
        return Valid::Value(v.clone());
    }
    if let Some(format) = object.get("format").and_then(Value::as_str) {
        return format_sample(format).map_or(Valid::Unknown, |s| Valid::Value(json!(s)));
    }
    if object.contains_key("pattern") {
        return Valid::Unknown;
    }
    let min = object
        .get("minLength")
        .and_then(Value::as_u64)
        .unwrap_or(1)
        .clamp(1, 64) as usize;
    Valid::Value(json!("x".repeat(min)))
}

/// A string of a known `format` (the formats JSON Schema 2020-12 names that tools use).
pub fn format_sample(format: &str) -> Option<&'static str> {
    Some(match format {
        "date-time" => "2026-01-01T00:00:00Z",
        "date" => "2026-01-01",
        "time" => "00:00:00Z",
        "email" => "someone@example.com",
        "uri" | "iri" | "url" => "https://example.com/",
        "uri-reference" | "iri-reference" => "/path",
        "uuid" => "00000000-0000-4000-8000-000000000000",
        "hostname" | "idn-hostname" => "example.com",
        "ipv4" => "127.0.0.1",
        "ipv6" => "::1",
        _ => return None,
    })
}

/// A number the leaf's keywords accept: its `default`, else its lower or upper bound, else 0
/// (a `multipleOf` the bound misses is caught when the uncorrupted instance is validated).
pub fn valid_number(object: &Map<String, Value>, integer: bool) -> Valid {
    if let Some(v) = object.get("default").filter(|v| v.is_number()) {
        return Valid::Value(v.clone());
    }
    let bound = |key: &str| object.get(key).and_then(Value::as_f64);
    let step = if integer { 1.0 } else { 0.5 };
    let x = if let Some(min) = bound("minimum") {
        min.ceil()
    } else if let Some(min) = bound("exclusiveMinimum") {
        min.floor() + step
    } else if let Some(max) = bound("maximum") {
        max.floor()
    } else if let Some(max) = bound("exclusiveMaximum") {
        max.ceil() - step
    } else {
        0.0
    };
    Valid::Value(if integer { json!(x as i64) } else { json!(x) })
}

/// A number outside the schema's bounds, or an arbitrary one when it has none.
pub fn out_of_range(
    object: &Map<String, Value>,
    integer: bool,
    rng: &mut Stream,
) -> (Value, &'static str) {
    let bound = |key: &str| object.get(key).and_then(Value::as_f64);
    let number = |x: f64| {
        if integer {
            json!(x as i64)
        } else {
            json!(x)
        }
    };
    if let Some(max) = bound("maximum").or(bound("exclusiveMaximum")) {
        return (number(max.floor() + 1.0), "above maximum");
    }
    if let Some(min) = bound("minimum").or(bound("exclusiveMinimum")) {
        return (number(min.ceil() - 1.0), "below minimum");
    }
    let magnitude = 900_000_000 + rng.below(100_000_000) as i64;
    if integer {
        (json!(-magnitude), "arbitrary integer (no bounds)")
    } else {
        (
            json!(-(magnitude as f64) - 0.5),
            "arbitrary number (no bounds)",
        )
    }
}

/// A value of the same JSON type as `options[0]` that none of `options` equals.
pub fn other_than(options: &[Value]) -> Value {
    match options.first() {
        Some(Value::Bool(_)) => {
            let candidate = json!(!options.contains(&json!(true)));
            if options.contains(&candidate) {
                json!(SENTINEL)
            } else {
                candidate
            }
        }
        Some(Value::Number(_)) => {
            let max = options
                .iter()
                .filter_map(Value::as_f64)
                .fold(f64::MIN, f64::max);
            let next = max.floor() + 1.0;
            if options.iter().all(Value::is_i64) {
                json!(next as i64)
            } else {
                json!(next)
            }
        }
        _ => {
            let mut candidate = SENTINEL.to_string();
            while options.contains(&Value::String(candidate.clone())) {
                candidate.push('!');
            }
            Value::String(candidate)
        }
    }
}

/// Corrupts a value in place, keeping every type: strings become the sentinel, numbers a drawn
/// large negative number (integers stay integers), booleans flip; arrays and objects keep their
/// shape. The same corruption `scan` applies to schema leaves, for answers that have no schema
/// (the `corrupt` fault of `driftlab wrap`). Returns how many leaves changed.
pub fn corrupt_value(value: &mut Value, rng: &mut Stream) -> usize {
    match value {
        Value::String(s) => {
            *s = SENTINEL.to_string();
            1
        }
        Value::Number(n) => {
            let magnitude = 900_000_000 + rng.below(100_000_000) as i64;
            *value = if n.is_f64() {
                json!(-(magnitude as f64) - 0.5)
            } else {
                json!(-magnitude)
            };
            1
        }
        Value::Bool(b) => {
            *b = !*b;
            1
        }
        Value::Array(items) => items.iter_mut().map(|item| corrupt_value(item, rng)).sum(),
        Value::Object(map) => map.values_mut().map(|item| corrupt_value(item, rng)).sum(),
        Value::Null => 0,
    }
}
