//! The top-level members of a JSON object document, found by one pass over its bytes without
//! parsing their values: a 50 MB payload's `tools` are stepped over at memory speed, and only
//! the small members beside them are parsed. The document must be valid JSON (the tools reader
//! has accepted it); anything unexpected gives `None`.

use std::ops::Range;

use crate::json_scan::{string_end, value_end};

/// Each top-level member's key (unescaped) and the byte range of its value, in document order;
/// `None` when `json` is not an object.
pub(super) fn top_level(json: &[u8]) -> Option<Vec<(String, Range<usize>)>> {
    let mut at = skip_space(json, 0);
    if json.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_space(json, at + 1);
    let mut out = Vec::new();
    if json.get(at) == Some(&b'}') {
        return Some(out);
    }
    loop {
        let key_end = string_end(json, at)?;
        let key: String = serde_json::from_slice(&json[at..key_end]).ok()?;
        at = skip_space(json, key_end);
        if json.get(at) != Some(&b':') {
            return None;
        }
        let start = skip_space(json, at + 1);
        let end = value_end(json, start)?;
        out.push((key, start..end));
        at = skip_space(json, end);
        match json.get(at) {
            Some(b',') => at = skip_space(json, at + 1),
            Some(b'}') => return Some(out),
            _ => return None,
        }
    }
}

fn skip_space(json: &[u8], mut at: usize) -> usize {
    while json.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::top_level;

    fn keys(text: &str) -> Option<Vec<(String, String)>> {
        top_level(text.as_bytes()).map(|members| {
            members
                .into_iter()
                .map(|(k, r)| (k, text[r].to_string()))
                .collect()
        })
    }

    #[test]
    fn finds_each_member_and_its_value_bytes() {
        let text =
            r#" { "tools" : [ {"a": "}]\"{"} ] , "n\u0061me":-1e2,"x":{"y":[1,{}]} , "t":true}"#;
        assert_eq!(
            keys(text).unwrap(),
            [
                ("tools".to_string(), r#"[ {"a": "}]\"{"} ]"#.to_string()),
                ("name".to_string(), "-1e2".to_string()),
                ("x".to_string(), r#"{"y":[1,{}]}"#.to_string()),
                ("t".to_string(), "true".to_string()),
            ]
        );
        assert_eq!(keys("{}").unwrap(), []);
        assert_eq!(keys("[1]"), None);
        assert_eq!(keys("{\"a\":"), None);
    }

    #[test]
    fn agrees_with_serde_on_real_documents() {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tests/data/corpus");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let parsed: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&text).unwrap();
            let found = keys(&text).unwrap();
            assert_eq!(found.len(), parsed.len());
            for (key, value) in found {
                let value: serde_json::Value = serde_json::from_str(&value).unwrap();
                assert_eq!(parsed[&key], value, "{key}");
            }
        }
    }
}
