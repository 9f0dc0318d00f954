//! Values of single leaves for the witness search: numbers at and beside a node's bounds,
//! strings at its length bounds, of its format, and of common shapes under a pattern.

use serde_json::{json, Map, Value};

/// Each bound and the values beside it, zero and one, and a fraction for numbers.
pub(super) fn numbers(map: &Map<String, Value>, integer: bool, out: &mut Vec<Value>) {
    let bound = |key: &str| map.get(key).and_then(Value::as_f64);
    let step = if integer { 1.0 } else { 0.5 };
    let mut xs = vec![0.0, 1.0, -1.0, 1e6, -1e6];
    if let Some(m) = bound("minimum") {
        xs.extend([m.ceil(), m]);
    }
    if let Some(m) = bound("maximum") {
        xs.extend([m.floor(), m]);
    }
    if let Some(m) = bound("exclusiveMinimum") {
        xs.extend([m.floor() + step, m + step / 8.0]);
    }
    if let Some(m) = bound("exclusiveMaximum") {
        xs.extend([m.ceil() - step, m - step / 8.0]);
    }
    if let Some(q) = bound("multipleOf").filter(|q| *q > 0.0) {
        let low = bound("minimum").unwrap_or(0.0);
        xs.extend([q, (low / q).ceil() * q]);
    }
    if !integer {
        xs.push(0.5);
    }
    // Values inside the node's own bounds first: an instance is built from each node's first
    // sample, and one out of bounds (0 under `minimum: 1`) would make every instance built
    // around it invalid, however many places are varied.
    let fits = |x: &f64| {
        bound("minimum").is_none_or(|m| *x >= m)
            && bound("maximum").is_none_or(|m| *x <= m)
            && bound("exclusiveMinimum").is_none_or(|m| *x > m)
            && bound("exclusiveMaximum").is_none_or(|m| *x < m)
            && bound("multipleOf")
                .filter(|q| *q > 0.0)
                .is_none_or(|q| (x / q).fract() == 0.0)
    };
    xs.sort_by_key(|x| !fits(x));
    let mut seen = Vec::new();
    for x in xs.into_iter().filter(|x| x.is_finite()) {
        let value = if integer {
            if x.fract() != 0.0 || x.abs() > 9.0e15 {
                continue;
            }
            json!(x as i64)
        } else {
            number(x)
        };
        if !seen.contains(&value) {
            seen.push(value);
        }
    }
    out.extend(seen);
}

/// A number as JSON: an integer when it is whole and exactly representable, else a float.
pub(super) fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        json!(x as i64)
    } else {
        json!(x)
    }
}

/// Strings at the length bounds, a sample of the format, and a few common shapes for patterns.
pub(super) fn strings(map: &Map<String, Value>, out: &mut Vec<Value>) {
    let length = |key: &str| {
        map.get(key)
            .and_then(Value::as_u64)
            .map(|n| n.min(4096) as usize)
    };
    let least = length("minLength").unwrap_or(0);
    // A value of a known format first: it is what an object's smallest instance holds, and a
    // validator that asserts `format` refuses the plain ones.
    let format = map.get("format").and_then(Value::as_str);
    if let Some(sample) = format.and_then(driftlab_contract::contract::values::format_sample) {
        out.push(json!(sample));
    }
    // Likewise the simplest string a `pattern` matches: a required field's plain sample would
    // make every smallest instance one the schema refuses.
    if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
        out.extend(
            super::regex::strings(pattern)
                .into_iter()
                .take(1)
                .map(Value::String),
        );
    }
    out.push(json!("x".repeat(least.max(1))));
    if least == 0 {
        out.push(json!(""));
    }
    match length("maxLength") {
        Some(most) => out.push(json!("x".repeat(most))),
        None => out.push(json!("x".repeat(least.max(256)))),
    }
    if format.is_some_and(|f| driftlab_contract::contract::values::format_sample(f).is_none()) {
        out.push(json!("example.com"));
    }
    if map.contains_key("pattern") {
        for sample in [
            "a",
            "abc",
            "A",
            "0",
            "a1",
            "abcdefghijkl",
            "https://example.com/",
            "2026-01-01",
        ] {
            out.push(json!(sample));
        }
    }
}
