//! How two patterns order (`pattern_language::order`) checked against ECMA-262 itself: Node's
//! `RegExp` (with the `u` flag, as Ajv builds patterns; without it where `u` refuses the
//! pattern), on every pair of a pool of patterns: the real ones of the corpus and the committed
//! census, and constructs where ECMA-262 and Rust differ. "Within" must hold for every string of
//! the first (built from its syntax tree, `witness::regex::strings`) that Node says it matches;
//! an "outside" string must be matched by the first and refused by the second.

use std::collections::BTreeSet;
use std::path::Path;

use driftlab_contract::pattern_language::{order, Order};
use driftlab_diff::witness::regex::strings;
use serde_json::Value;

use crate::common;

/// Constructs the two dialects read differently, and shapes real schemas use.
const TRICKY: &[&str] = &[
    r"^\d+$",
    "^[0-9]+$",
    r"^\w+$",
    r"^\s*$",
    r"^\S+$",
    "^.$",
    "^[^]$",
    "a[]",
    "^[a&&b]$",
    "^x{,3}$",
    r"^[\-a]$",
    "^a{2,}$",
    "^(?:a|ab)c$",
    "^a+?$",
    "^[^@]+@[^@]+$",
    r"^[^\s@]+@[^\s@]+\.[^\s@]+$",
    r"^\u0041+$",
    r"^\x41\t$",
    "^[A-Z]{2,3}-[0-9]+$",
    "^[a-z]+$",
    "^[a-y]+$",
    "abc",
    "b",
];

fn pool() -> Vec<String> {
    let mut found = BTreeSet::new();
    let roots = [
        common::repo().join("../shared/corpus"),
        common::repo().join("results/mcp-census-2026-12-05/captures"),
    ];
    for root in &roots {
        collect(root, &mut found);
    }
    found.extend(TRICKY.iter().map(|p| p.to_string()));
    found.into_iter().collect()
}

fn collect(dir: &Path, found: &mut BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, found);
        } else if path.extension().is_some_and(|e| e == "json") {
            if let Ok(value) = serde_json::from_slice::<Value>(&std::fs::read(&path).unwrap()) {
                patterns(&value, found);
            }
        }
    }
}

fn patterns(value: &Value, found: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v) {
                    ("pattern", Value::String(p)) => {
                        found.insert(p.clone());
                    }
                    _ => patterns(v, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| patterns(v, found)),
        _ => {}
    }
}

/// What Node says of each (pattern, string): whether the pattern matches somewhere in it (`None`:
/// not a pattern). `None` for the whole list where Node is not installed (a skip).
fn node_matches(queries: &[(String, String)]) -> Option<Vec<Option<bool>>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let script = r#"
const queries = JSON.parse(require("fs").readFileSync(0, "utf8"));
const compiled = new Map();
const regex = (p) => {
  if (!compiled.has(p)) {
    let r = null;
    try { r = new RegExp(p, "u"); } catch (e) { try { r = new RegExp(p); } catch (e) {} }
    compiled.set(p, r);
  }
  return compiled.get(p);
};
console.log(JSON.stringify(queries.map(([p, s]) => { const r = regex(p); return r ? r.test(s) : null; })));
"#;
    let Ok(mut child) = Command::new("node")
        .args(["-e", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    else {
        assert!(
            std::env::var_os("DRIFTLAB_REQUIRE_LIVE_SERVERS").is_none(),
            "node is missing but DRIFTLAB_REQUIRE_LIVE_SERVERS is set"
        );
        common::skip("node is not installed: no ECMA-262 engine to check pattern orders against");
        return None;
    };
    let input = serde_json::to_vec(queries).unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn every_order_holds_under_ecma_262() {
    let pool = pool();
    assert!(pool.len() >= 40, "{} patterns", pool.len());
    // First which of each pattern's own strings ECMA-262 says it matches.
    let own: Vec<(String, String)> = pool
        .iter()
        .flat_map(|a| strings(a).into_iter().map(move |s| (a.clone(), s)))
        .collect();
    let Some(said) = node_matches(&own) else {
        return;
    };
    let samples = |a: &str| -> Vec<&str> {
        own.iter()
            .zip(&said)
            .filter(|((p, _), m)| p == a && **m == Some(true))
            .map(|((_, s), _)| s.as_str())
            .collect()
    };
    // Then every claim, as (pattern, string, what the claim says Node must answer).
    let mut claims: Vec<(String, String, bool, String)> = Vec::new();
    let (mut within, mut outside) = (0, 0);
    for a in &pool {
        let strings_of_a = samples(a);
        for b in &pool {
            match order(a, b) {
                Ok(Order::Within) => {
                    within += 1;
                    for s in &strings_of_a {
                        let why = format!("{a:?} is within {b:?}, so {b:?} matches {s:?}");
                        claims.push((b.clone(), s.to_string(), true, why));
                    }
                }
                Ok(Order::Outside(s)) => {
                    outside += 1;
                    claims.push((a.clone(), s.clone(), true, format!("{a:?} matches {s:?}")));
                    claims.push((b.clone(), s.clone(), false, format!("{b:?} refuses {s:?}")));
                }
                Err(_) => {}
            }
        }
    }
    let queries: Vec<(String, String)> = claims
        .iter()
        .map(|(p, s, _, _)| (p.clone(), s.clone()))
        .collect();
    let answers = node_matches(&queries).unwrap();
    let wrong: Vec<&str> = claims
        .iter()
        .zip(&answers)
        .filter(|((_, _, expected, _), got)| **got != Some(*expected))
        .map(|((_, _, _, why), _)| why.as_str())
        .collect();
    assert!(
        wrong.is_empty(),
        "{} claims Node refutes: {wrong:#?}",
        wrong.len()
    );
    // Enough of each that the check means something.
    assert!(
        within >= 60 && outside >= 600 && claims.len() >= 2000,
        "{within} {outside} {}",
        claims.len()
    );
}
