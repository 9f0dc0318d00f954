//! Keywords without a comparison of their own: an annotation's change is information, any
//! other keyword's change is reported unjudged, unless both of its values refuse nothing.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::{At, Walker, ANNOTATIONS, HANDLED};
use crate::diff::ChangeKind as K;

impl Walker<'_, '_, '_> {
    pub(super) fn others(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, at: &At) {
        let mut seen: HashSet<&String> = HashSet::new();
        for key in o.keys().chain(n.keys()) {
            if HANDLED.contains(&key.as_str()) || !seen.insert(key) {
                continue;
            }
            let raw = (o.get(key), n.get(key));
            if raw.0 == raw.1 || (vacuous(key, raw.0) && vacuous(key, raw.1)) {
                continue;
            }
            let subject = self.subject(at);
            if ANNOTATIONS.contains(&key.as_str()) {
                self.push(
                    K::SchemaAnnotationChanged,
                    at.keyword(key),
                    raw.0,
                    raw.1,
                    format!("{subject}: {key} changed"),
                );
            } else {
                let why = format!("{subject}: keyword {key} changed; driftlab does not judge it");
                self.unjudged(at.keyword(key), raw.0, raw.1, why);
            }
        }
    }
}

/// A keyword absent or with a value that refuses nothing: `propertyNames` that only says keys
/// are strings (every JSON key is), or is `true` or `{}`.
fn vacuous(keyword: &str, value: Option<&Value>) -> bool {
    match (keyword, value) {
        (_, None) => true,
        ("propertyNames", Some(Value::Bool(true))) => true,
        ("propertyNames", Some(Value::Object(map))) => map
            .iter()
            .all(|(k, v)| ANNOTATIONS.contains(&k.as_str()) || (k == "type" && v == "string")),
        _ => false,
    }
}
