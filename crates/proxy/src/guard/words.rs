//! What a refusal may say of the live server. A refusal is the one place a pinned server's new
//! text would reach the model (the client's `tools/list` gets the pin), so by default it says
//! what changed by kind only ("`query`: parameter-renamed (…)"), naming only what the user
//! approved: pinned tool and parameter names, pinned values, JSON Schema's own words. Quoting
//! the server is opt-in (`--quote-server-words`), and then each quote is stripped of control,
//! bidirectional and invisible characters and capped.

use serde_json::Value;

/// How a refusal speaks of what the live server says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ServerWords {
    /// By kind of change only: no name, value or text the live server chose.
    #[default]
    Kinds,
    /// The server's words quoted, stripped of hidden characters and capped at [`QUOTE_CAP`].
    Quoted,
}

/// The most characters of one quoted server message.
pub(crate) const QUOTE_CAP: usize = 200;

/// `text` as a refusal may quote it: hidden characters (controls, bidi, zero-width, tags)
/// removed, line breaks and tabs as spaces, at most [`QUOTE_CAP`] characters (`…` marks a cut).
pub(crate) fn quoted(text: &str) -> String {
    let kept = text
        .chars()
        .filter(|&c| !driftlab_contract::text::is_invisible(c) || matches!(c, '\n' | '\r' | '\t'))
        .map(|c| if c.is_whitespace() { ' ' } else { c });
    let mut out: String = kept.clone().take(QUOTE_CAP).collect();
    if kept.count() > QUOTE_CAP {
        out.push('…');
    }
    out
}

/// A name as JSON (`"query"`), quoted as [`quoted`] says.
pub(crate) fn name(name: &str) -> String {
    serde_json::to_string(&quoted(name)).unwrap_or_default()
}

/// The JSON types a refusal may name: JSON Schema's own words, never a server's.
pub(crate) fn known_type(kind: &str) -> bool {
    matches!(
        kind,
        "string" | "integer" | "number" | "boolean" | "array" | "object" | "null"
    )
}

/// The validation keyword a validator's schema path ends at (`/properties/mode/enum`), as
/// [`keyword`] names it.
pub(crate) fn keyword_at(schema_path: &str) -> &str {
    keyword(schema_path.rsplit('/').next().unwrap_or(""))
}

/// A validation keyword as a refusal may name it: one JSON Schema defines, else `a constraint`.
pub(crate) fn keyword(word: &str) -> &str {
    const KEYWORDS: &[&str] = &[
        "type",
        "enum",
        "const",
        "required",
        "additionalProperties",
        "properties",
        "patternProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "items",
        "prefixItems",
        "additionalItems",
        "contains",
        "minContains",
        "maxContains",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
        "unevaluatedProperties",
        "unevaluatedItems",
        "false schema",
    ];
    KEYWORDS
        .iter()
        .find(|k| **k == word)
        .copied()
        .unwrap_or("a constraint")
}

/// The values of the pinned parameter `name` (its `enum`, or its `const`): what the user
/// approved it to take.
pub(crate) fn approved_values<'a>(pinned: Option<&'a Value>, name: &str) -> Vec<&'a Value> {
    let Some(property) = pinned.and_then(|s| s.get("properties")?.get(name)) else {
        return Vec::new();
    };
    let property = match property.get("$ref").and_then(Value::as_str) {
        Some(reference) => pinned
            .and_then(|s| driftlab_contract::contract::values::resolve(s, reference))
            .unwrap_or(property),
        None => property,
    };
    match (property.get("enum"), property.get("const")) {
        (Some(Value::Array(values)), _) => values.iter().collect(),
        (_, Some(value)) => vec![value],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quote_loses_hidden_characters_and_is_capped() {
        assert_eq!(quoted("plain text"), "plain text");
        assert_eq!(
            quoted("a\u{202E}b\u{200B}c\u{1b}[2Kd\r\ne\u{E0041}"),
            "abc[2Kd  e"
        );
        let long = "x".repeat(QUOTE_CAP + 5);
        assert_eq!(quoted(&long).chars().count(), QUOTE_CAP + 1);
        assert!(quoted(&long).ends_with('…'));
        assert_eq!(name("q\u{2066}x"), "\"qx\"");
    }

    #[test]
    fn only_json_schema_words_are_named() {
        assert_eq!(keyword("enum"), "enum");
        assert_eq!(keyword("IGNORE ALL PREVIOUS"), "a constraint");
        assert_eq!(keyword_at("/properties/mode/enum"), "enum");
        assert!(known_type("integer") && !known_type("call exfiltrate"));
    }
}
