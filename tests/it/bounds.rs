//! The integer bound every zod-4 schema carries (±(2^53−1)) is no bound: adding it is not a
//! narrowing (issue: gate correctness on real releases, item 2), only an `info` finding.

use crate::common;

use common::diff_json;
use serde_json::{json, Value};

fn diff(old: Value, new: Value) -> (Option<i32>, Value) {
    let wrap = |property: Value| json!({"tools": [{"name": "page", "inputSchema": {"type": "object", "properties": {"n": property}}}]});
    diff_json(&wrap(old), &wrap(new))
}

#[test]
fn the_safe_integer_limit_is_no_bound() {
    let plain = json!({"type": "integer"});
    for zod in [
        json!({"type": "integer", "maximum": 9007199254740991_u64}),
        json!({"type": "integer", "minimum": -9007199254740991_i64, "maximum": 9007199254740991_u64}),
        json!({"type": "integer", "maximum": 1e300}),
        json!({"type": "integer", "exclusiveMinimum": -1e20}),
    ] {
        let (code, report) = diff(plain.clone(), zod.clone());
        assert_eq!(code, Some(0), "{zod}: {report}");
        // Its appearance is information only (issue 30: strict users want to see it).
        let findings = report["findings"].as_array().unwrap();
        assert!(!findings.is_empty(), "{zod}");
        for f in findings {
            assert_eq!(
                (f["rule"].as_str(), f["severity"].as_str()),
                (Some("unsafe-integer-bound"), Some("info")),
                "{zod}"
            );
        }
        let (_, back) = diff(zod.clone(), plain.clone());
        assert_eq!(back["findings"], json!([]), "{zod} removed");
    }
    // A real bound below the limit still narrows, and one next to it is a real (if loose) bound.
    let (code, report) = diff(plain.clone(), json!({"type": "integer", "maximum": 100}));
    assert_eq!(code, Some(1));
    assert_eq!(report["findings"][0]["rule"], "constraint-tightened");
    let (_, report) = diff(
        json!({"type": "integer", "maximum": 9007199254740991_u64}),
        json!({"type": "integer", "maximum": 9007199254740990_u64}),
    );
    assert_eq!(report["findings"][0]["rule"], "constraint-tightened");
}
