//! One strict reading of a JSON-RPC message line, shared by the proxy loop and every hook on it
//! (the admission guard refuses what fails it; `wrap` passes such lines on untouched).
//!
//! A line passes only when every common parser reads it as the same value ([`strict`]) and it
//! is one well-formed MCP message:
//!
//! - one JSON object (a batch array is refused: MCP removed batching in 2025-06-18);
//! - `"jsonrpc": "2.0"`;
//! - an `id`, where present, is a string or an integer (never `null`, never `1.0` or `1e0`,
//!   which parsers match by value but a proxy would match by spelling);
//! - `method`, where present, is printable ASCII and is not a near spelling of a spec method
//!   (`Tools/Call`, `tools/call `); a request method of the spec without an id (a call sent as
//!   a notification) is refused;
//! - without a `method`, it is a response: an id and exactly one of `result` and `error`.

pub mod methods;
pub mod strict;

use serde_json::Value;

pub use strict::{Profile, StrictError};

/// How client messages are read: tool arguments are compared by value with a server in any
/// language, so integers must be exact in a double too.
pub const CLIENT: Profile = Profile {
    max_depth: 64,
    safe_integers: true,
};

/// How a server's answers are read where the guard acts on them: tool schemas and results nest
/// deeper than calls, and a server's 64-bit integers are its own business.
pub const SERVER: Profile = Profile {
    max_depth: 256,
    safe_integers: false,
};

/// Every rule a line can be refused by: the strict JSON reading's, then the envelope's (the
/// guard adds `reserved-id`). The table of refusals in docs/guard.md names each.
pub const RULES: &[&str] = &[
    "byte-order-mark",
    "carriage-return",
    "invalid-utf8",
    "syntax",
    "trailing-bytes",
    "duplicate-key",
    "lone-surrogate",
    "number-out-of-range",
    "unsafe-integer",
    "too-deep",
    "batch",
    "not-an-object",
    "jsonrpc-version",
    "id-null",
    "id-type",
    "method-type",
    "method-spelling",
    "request-without-id",
    "not-a-message",
];

/// JSON-RPC's code for text that is not (strictly) JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's code for JSON that is not a valid request.
pub const INVALID_REQUEST: i64 = -32600;

/// A message that passed the strict reading.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    /// The value every parser reads from the line.
    pub value: Value,
    /// The id in canonical JSON (`7`, `"a"`): ids match by value, whatever their spelling.
    pub id: Option<String>,
    /// The method, for a request or a notification.
    pub method: Option<String>,
}

impl Envelope {
    /// A response (a result or an error): it has no method.
    pub fn is_response(&self) -> bool {
        self.method.is_none()
    }
}

/// Why a line was refused: the [`StrictError`] rule or an envelope rule, with the JSON-RPC code
/// to answer it with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The JSON-RPC error code to answer with.
    pub code: i64,
    /// The rule's stable kebab-case id.
    pub rule: &'static str,
    /// A one-line explanation.
    pub reason: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.reason, self.rule)
    }
}

fn invalid(rule: &'static str, reason: impl Into<String>) -> Refusal {
    Refusal {
        code: INVALID_REQUEST,
        rule,
        reason: reason.into(),
    }
}

/// Reads one line (without its newline) as a JSON-RPC message under `profile`.
pub fn read(line: &[u8], profile: Profile) -> Result<Envelope, Refusal> {
    let value = strict::parse(line, profile).map_err(|e| Refusal {
        code: PARSE_ERROR,
        rule: e.rule,
        reason: e.to_string(),
    })?;
    let Value::Object(object) = &value else {
        return Err(match value {
            Value::Array(_) => invalid(
                "batch",
                "a JSON-RPC batch (MCP has no batches since 2025-06-18)",
            ),
            _ => invalid("not-an-object", "a message that is not a JSON object"),
        });
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(invalid(
            "jsonrpc-version",
            "a message without \"jsonrpc\": \"2.0\"",
        ));
    }
    let id = match object.get("id") {
        None => None,
        Some(Value::Null) => return Err(invalid("id-null", "an id of null")),
        Some(id @ Value::String(_)) => Some(id.to_string()),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        Some(other) => {
            return Err(invalid(
                "id-type",
                format!("an id that is neither a string nor an integer: {other}"),
            ))
        }
    };
    let method = match object.get("method") {
        None => None,
        Some(Value::String(method)) => Some(method.clone()),
        Some(_) => return Err(invalid("method-type", "a method that is not a string")),
    };
    match &method {
        Some(method) => {
            if let Some(spelled) = methods::near_spelling(method) {
                return Err(invalid(
                    "method-spelling",
                    format!("the method {method:?}, which the spec spells {spelled:?}"),
                ));
            }
            if method.is_empty() || !method.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(invalid(
                    "method-spelling",
                    format!("the method {method:?}: a method is printable ASCII without spaces"),
                ));
            }
            if id.is_none() && methods::REQUESTS.contains(&method.as_str()) {
                return Err(invalid(
                    "request-without-id",
                    format!("{method} without an id (a request sent as a notification)"),
                ));
            }
        }
        None => {
            let answers = usize::from(object.contains_key("result"))
                + usize::from(object.contains_key("error"));
            if id.is_none() || answers != 1 {
                return Err(invalid(
                    "not-a-message",
                    "neither a request (no method) nor a response (an id and one of result, error)",
                ));
            }
        }
    }
    Ok(Envelope { value, id, method })
}

/// The JSON-RPC error line that answers a refused message (`id` in canonical JSON, or `null`
/// when the line had no id that can be trusted).
pub fn refusal_line(id: Option<&str>, refusal: &Refusal, by: &str) -> Vec<u8> {
    let error = serde_json::json!({
        "code": refusal.code,
        "message": format!("{by} refused this message: {}", refusal.reason),
        "data": {"rule": refusal.rule, "reason": refusal.reason},
    });
    format!(
        r#"{{"jsonrpc":"2.0","id":{},"error":{error}}}"#,
        id.unwrap_or("null")
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(line: &str) -> &'static str {
        read(line.as_bytes(), CLIENT).map_or_else(|r| r.rule, |_| "ok")
    }

    #[test]
    fn well_formed_messages_pass_with_their_canonical_id() {
        let call = read(
            br#"{"jsonrpc":"2.0","id":"a\u0062","method":"tools/call","params":{"name":"t"}}"#,
            CLIENT,
        )
        .unwrap();
        assert_eq!(call.id.as_deref(), Some(r#""ab""#));
        assert_eq!(call.method.as_deref(), Some("tools/call"));
        let answer = read(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#, CLIENT).unwrap();
        assert!(answer.is_response());
        assert_eq!(answer.id.as_deref(), Some("7"));
        assert_eq!(
            rule(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            "ok"
        );
        assert_eq!(rule(r#"{"jsonrpc":"2.0","method":"custom/event"}"#), "ok");
    }

    #[test]
    fn every_envelope_rule_refuses() {
        let call = r#""method":"tools/call","params":{"name":"write_file"}"#;
        let cases = [
            (format!(r#"[{{"jsonrpc":"2.0","id":1,{call}}}]"#), "batch"),
            ("7".to_string(), "not-an-object"),
            (format!(r#"{{"id":1,{call}}}"#), "jsonrpc-version"),
            (
                format!(r#"{{"jsonrpc":"2.0","id":null,{call}}}"#),
                "id-null",
            ),
            (format!(r#"{{"jsonrpc":"2.0","id":1.0,{call}}}"#), "id-type"),
            (format!(r#"{{"jsonrpc":"2.0","id":1e0,{call}}}"#), "id-type"),
            (format!(r#"{{"jsonrpc":"2.0","id":[1],{call}}}"#), "id-type"),
            (
                format!(r#"{{"jsonrpc":"2.0",{call}}}"#),
                "request-without-id",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"Tools/Call"}"#.into(),
                "method-spelling",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call "}"#.into(),
                "method-spelling",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call\u0000"}"#.into(),
                "method-spelling",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"x y"}"#.into(),
                "method-spelling",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":7}"#.into(),
                "method-type",
            ),
            (r#"{"jsonrpc":"2.0","id":1}"#.into(), "not-a-message"),
            (
                r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#.into(),
                "not-a-message",
            ),
            (
                format!(r#"{{"jsonrpc":"2.0","id":1,{call},"method":"ping"}}"#),
                "duplicate-key",
            ),
        ];
        let mut seen = std::collections::BTreeSet::new();
        for (line, expected) in cases {
            assert_eq!(rule(&line), expected, "{line}");
            seen.insert(expected);
        }
        // Every envelope rule is listed in RULES and exercised above.
        let envelope: Vec<&str> =
            RULES[RULES.iter().position(|r| *r == "batch").unwrap()..].to_vec();
        for listed in &envelope {
            assert!(seen.contains(listed), "{listed} has no case");
        }
        assert!(seen.iter().all(|r| RULES.contains(r)));
    }

    #[test]
    fn a_refusal_is_one_json_rpc_error_line() {
        let refusal = read(br#"{"jsonrpc":"2.0","id":1,"id":2}"#, CLIENT).unwrap_err();
        let line = refusal_line(None, &refusal, "driftlab guard");
        let value: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(value["id"], Value::Null);
        assert_eq!(value["error"]["code"], PARSE_ERROR);
        assert_eq!(value["error"]["data"]["rule"], "duplicate-key");
        assert!(!line.contains(&b'\n'));
    }
}
