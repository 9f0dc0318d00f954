//! Witnesses built from the keyword that tightened, before any sampling: at a changed node,
//! values the accepting side's node allows that sit just past the rejecting side's keyword (an
//! unlisted key for a closed object, length max+1 for `maxLength`, bound±1 or ±ε for numbers,
//! a string the old `pattern` matches and the new one refuses, a value matching two `oneOf` branches).
//! They are only proposals: the validator keeps those the one side accepts and the other refuses.

use serde_json::{json, Map, Value};

use super::leaves::number;
use super::regex;
use super::samples::{effective, types, Sampler, EXTRA_PROPERTY};
use driftlab_contract::pattern_language::{order, Order};

/// Lengths and counts past this are not built (a `maxLength` of 10^9 is proven otherwise or not).
const MAX_BUILT_LENGTH: u64 = 1 << 20;
/// At most this many of a node's own samples are varied.
const BASES: usize = 4;
/// At most this many `oneOf` branches are paired.
const MAX_BRANCHES: usize = 8;

/// Values for the node at `from` (in the accepting schema) that `to` (the same place in the
/// rejecting schema) may refuse; each still needs both validators' word.
pub(super) fn values(
    accepting: &mut Sampler<'_>,
    rejecting: &mut Sampler<'_>,
    (from, to): (&Value, &Value),
    (from_root, to_root): (&Value, &Value),
) -> Vec<Value> {
    let (f, t) = (effective(from_root, from), effective(to_root, to));
    let bases = accepting.samples(from, 0);
    // First the shortest string the accepting side's pattern matches and the other's refuses:
    // the most telling witness where patterns differ.
    let mut out: Vec<Value> = pattern_difference(&f, &t).into_iter().collect();
    out.extend(bases.iter().cloned());
    strings(&f, &t, &bases, &mut out);
    numbers(&f, &t, &mut out);
    arrays(accepting, &f, &t, &bases, &mut out);
    objects(accepting, &f, &t, &bases, &mut out);
    overlapping_branches(rejecting, &t, &bases, &mut out);
    out
}

fn bound(map: &Map<String, Value>, key: &str) -> Option<u64> {
    map.get(key).and_then(Value::as_u64)
}

fn pattern_difference(f: &Map<String, Value>, t: &Map<String, Value>) -> Option<Value> {
    let (a, b) = (f.get("pattern")?.as_str()?, t.get("pattern")?.as_str()?);
    match order(a, b) {
        Ok(Order::Outside(text)) => Some(Value::String(text)),
        _ => None,
    }
}

/// `maxLength`/`minLength` just crossed, and the old pattern's strings for a new pattern.
fn strings(f: &Map<String, Value>, t: &Map<String, Value>, bases: &[Value], out: &mut Vec<Value>) {
    let mut texts: Vec<String> = bases
        .iter()
        .filter_map(Value::as_str)
        .filter(|s| !s.is_empty())
        .take(BASES)
        .map(str::to_string)
        .collect();
    if let Some(pattern) = f.get("pattern").and_then(Value::as_str) {
        texts.extend(regex::strings(pattern));
    }
    if texts.is_empty() && types(f).contains(&"string") {
        texts.push("x".into());
    }
    let stretched = |s: &str, length: u64| -> String {
        let mut chars: Vec<char> = s.chars().collect();
        let last = chars.last().copied().unwrap_or('x');
        chars.resize(length as usize, last);
        chars.into_iter().collect()
    };
    if let Some(most) = bound(t, "maxLength").filter(|n| *n < MAX_BUILT_LENGTH) {
        if bound(f, "maxLength").is_none_or(|old| old > most) {
            out.extend(texts.iter().map(|s| json!(stretched(s, most + 1))));
        }
    }
    if let Some(least) = bound(t, "minLength").filter(|n| *n > 0 && *n < MAX_BUILT_LENGTH) {
        if bound(f, "minLength").unwrap_or(0) < least {
            out.extend(texts.iter().map(|s| json!(stretched(s, least - 1))));
        }
    }
    if t.contains_key("pattern") || t.contains_key("format") {
        out.extend(texts.into_iter().map(Value::String));
    }
}

/// Each numeric bound of `t`, the values beside it (±1 and ±ε) and a value off its `multipleOf`.
fn numbers(f: &Map<String, Value>, t: &Map<String, Value>, out: &mut Vec<Value>) {
    let kinds = types(f);
    if !kinds.contains(&"number") && !kinds.contains(&"integer") {
        return;
    }
    let mut xs = Vec::new();
    for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        if let Some(m) = t.get(key).and_then(Value::as_f64) {
            let epsilon = m.abs().max(1.0) * 1e-9;
            xs.extend([m, m - 1.0, m + 1.0, m - epsilon, m + epsilon]);
            xs.extend([m.floor(), m.ceil(), m.floor() - 1.0, m.ceil() + 1.0]);
        }
    }
    if let Some(q) = t
        .get("multipleOf")
        .and_then(Value::as_f64)
        .filter(|q| *q > 0.0)
    {
        xs.extend([1.0, q / 2.0, q * 1.5, q + 1.0]);
    }
    out.extend(xs.into_iter().filter(|x| x.is_finite()).map(number));
}

/// One item more than `maxItems`, one fewer than `minItems`, and a repeated item.
fn arrays(
    accepting: &mut Sampler<'_>,
    f: &Map<String, Value>,
    t: &Map<String, Value>,
    bases: &[Value],
    out: &mut Vec<Value>,
) {
    if !types(f).contains(&"array") {
        return;
    }
    let mut items: Vec<Value> = bases
        .iter()
        .filter_map(Value::as_array)
        .filter_map(|a| a.first().cloned())
        .collect();
    if let Some(schema) = f.get("items").filter(|i| i.is_object()) {
        items.extend(accepting.samples(schema, 1));
    }
    items.truncate(BASES);
    if items.is_empty() {
        items.push(json!("x"));
    }
    let counts = [
        bound(t, "maxItems").map(|n| n + 1),
        bound(t, "minItems").filter(|n| *n > 0).map(|n| n - 1),
        t.get("uniqueItems").map(|_| 2),
    ];
    for count in counts.into_iter().flatten().filter(|n| *n < 4096) {
        for item in &items {
            out.push(Value::Array(vec![item.clone(); count as usize]));
        }
    }
    // Items past the listed positions constrained where any was allowed: the positions filled
    // as the accepting side allows, then one more item of each JSON type.
    let (f_positions, f_rest) = item_schemas(f);
    let (t_positions, t_rest) = item_schemas(t);
    let open = |rest: Option<&Value>| rest.is_none_or(|i| i == &json!(true) || i == &json!({}));
    if open(f_rest) && !open(t_rest) && t_positions.len() < 64 {
        let filled: Vec<Value> = (0..t_positions.len())
            .map(|i| {
                let schema = f_positions.get(i).unwrap_or(&Value::Bool(true));
                let first = accepting.samples(schema, 1).into_iter().next();
                first.unwrap_or(json!("x"))
            })
            .collect();
        let kinds = [
            json!(null),
            json!(true),
            json!(0),
            json!("x"),
            json!([]),
            json!({}),
        ];
        for item in kinds {
            let mut array = filled.clone();
            array.push(item);
            out.push(Value::Array(array));
        }
    }
}

/// A node's listed item positions (`prefixItems`, or draft-07's `items: [...]`) and the schema of
/// the items past them (`items`, or `additionalItems` after a tuple).
fn item_schemas(node: &Map<String, Value>) -> (&[Value], Option<&Value>) {
    match node.get("items") {
        Some(Value::Array(tuple)) => (tuple, node.get("additionalItems")),
        items => {
            let prefix = node.get("prefixItems").and_then(Value::as_array);
            (prefix.map_or(&[], Vec::as_slice), items)
        }
    }
}

/// The accepting side's objects with a key the rejecting side does not list (or one key past
/// its `maxProperties`), valued as the accepting side allows.
fn objects(
    accepting: &mut Sampler<'_>,
    f: &Map<String, Value>,
    t: &Map<String, Value>,
    bases: &[Value],
    out: &mut Vec<Value>,
) {
    if !types(f).contains(&"object") {
        return;
    }
    let closes = [
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
        "maxProperties",
    ]
    .iter()
    .any(|k| t.contains_key(*k));
    if !closes {
        return;
    }
    let mut objects: Vec<Map<String, Value>> = bases
        .iter()
        .filter_map(Value::as_object)
        .take(2)
        .cloned()
        .collect();
    if objects.is_empty() {
        let (least, _) = accepting.objects(f, 1);
        objects.push(least);
    }
    let mut extras = match f.get("additionalProperties") {
        Some(schema @ Value::Object(_)) => accepting.samples(schema, 1),
        _ => Vec::new(),
    };
    extras.truncate(BASES);
    extras.extend([json!(0), json!("x"), Value::Null]);
    let most = bound(t, "maxProperties").filter(|n| *n < 4096);
    for object in objects {
        for extra in &extras {
            let mut wider = object.clone();
            wider.insert(EXTRA_PROPERTY.to_string(), extra.clone());
            if let Some(most) = most {
                for i in 0..(most + 1).saturating_sub(wider.len() as u64) {
                    wider.insert(format!("{EXTRA_PROPERTY}_{i}"), extra.clone());
                }
            }
            out.push(Value::Object(wider));
        }
    }
}

/// Values matching two of the rejecting side's `oneOf` branches at once (which `oneOf`
/// refuses): two branches' objects merged, over the accepting side's own smallest object.
fn overlapping_branches(
    rejecting: &mut Sampler<'_>,
    t: &Map<String, Value>,
    bases: &[Value],
    out: &mut Vec<Value>,
) {
    let Some(branches) = t.get("oneOf").and_then(Value::as_array) else {
        return;
    };
    let base = bases.iter().find_map(Value::as_object).cloned();
    let samples: Vec<Vec<Value>> = branches
        .iter()
        .take(MAX_BRANCHES)
        .map(|b| {
            let mut s = rejecting.samples(b, 1);
            s.truncate(2);
            s
        })
        .collect();
    for (i, left) in samples.iter().enumerate() {
        out.extend(left.iter().cloned());
        for right in &samples[i + 1..] {
            for (a, b) in left.iter().zip(right) {
                let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
                    continue;
                };
                let mut merged = base.clone().unwrap_or_default();
                merged.extend(a.clone());
                merged.extend(b.clone());
                out.push(Value::Object(merged));
            }
        }
    }
}
