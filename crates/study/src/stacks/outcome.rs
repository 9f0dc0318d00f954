//! What happened to one version-1 call at version 2, and the study's verdict on it: ran
//! correctly, silently wrong, rejected loudly, crashed, or refused by the guard. Judged from
//! what the tool body received and what the caller got back, never from the stack's own word.

use serde::Serialize;
use serde_json::Value;

use super::spec::Case;

/// The evidence of one call, from a Python harness or an MCP session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evidence {
    /// How many times the tool body was entered (a stack may retry).
    pub entered: u64,
    /// The arguments the body received, the first time.
    pub received: Option<Value>,
    /// What the caller got back on success.
    pub returned: Option<Value>,
    /// The error the caller got (raised, or handed back as the tool's result).
    pub error: Option<String>,
    /// The error's kind: an exception type or the shape of the error result.
    pub error_type: Option<String>,
    /// The guard's rule when it refused the call.
    pub refused_by: Option<String>,
    /// A guard warning attached to a successful answer.
    pub warned: bool,
    /// The call never got an answer: a timeout, or the process died.
    pub failure: Option<String>,
}

/// What became of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// The body ran with what the client meant, and the answer reads as the client expects.
    Correct,
    /// Accepted but wrong: an argument dropped or coerced, or an answer the client misreads.
    Silent,
    /// Rejected before the body ran, with an error the caller sees.
    Loud,
    /// The body ran and failed, or no answer came.
    Crash,
    /// The guard refused the call; the server never saw it.
    Refused,
}

impl Outcome {
    /// How `calls.csv` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Correct => "correct",
            Outcome::Silent => "silent",
            Outcome::Loud => "loud",
            Outcome::Crash => "crash",
            Outcome::Refused => "refused",
        }
    }
}

/// How the guard's `--on-output error` answer begins.
const GUARD_OUTPUT_ERROR: &str = "driftlab guard: the answer of";

/// The verdict on one call, with what decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Judged {
    /// What became of the call.
    pub outcome: Outcome,
    /// What decided it, in one line.
    pub detail: String,
    /// For an error: whether its text names the drift's cause (the case's `cause` words).
    pub names_cause: bool,
}

/// Judges a call: `arguments` is what the version-1 client sent.
pub fn judge(case: &Case, arguments: &Value, evidence: &Evidence) -> Judged {
    let verdict = |outcome, detail: String| Judged {
        outcome,
        detail,
        names_cause: false,
    };
    let names_cause = evidence
        .error
        .as_ref()
        .is_some_and(|error| case.cause.iter().any(|word| error.contains(word.as_str())));
    if let Some(rule) = &evidence.refused_by {
        return Judged {
            outcome: Outcome::Refused,
            detail: format!("guard: {rule}"),
            names_cause,
        };
    }
    if let Some(failure) = &evidence.failure {
        return verdict(Outcome::Crash, failure.clone());
    }
    let kind = evidence.error_type.as_deref().unwrap_or("error");
    if let Some(error) = &evidence.error {
        // The guard's `--on-output error`: the body ran, and its drifted answer reached the
        // caller as an error that names the violation, not as data to misread.
        if error.starts_with(GUARD_OUTPUT_ERROR) {
            return Judged {
                outcome: Outcome::Loud,
                detail: format!(
                    "the body ran; the guard replaced its answer: {}",
                    first_line(error)
                ),
                names_cause,
            };
        }
        if evidence.entered > 0 {
            return verdict(
                Outcome::Crash,
                format!("the body ran and failed: {kind}: {}", first_line(error)),
            );
        }
        return Judged {
            outcome: Outcome::Loud,
            detail: kind.to_string(),
            names_cause,
        };
    }
    if evidence.entered == 0 {
        return verdict(Outcome::Silent, "answered without running the tool".into());
    }
    let received = evidence.received.as_ref().unwrap_or(&Value::Null);
    let mut wrong = Vec::new();
    if let Value::Object(sent) = arguments {
        for (name, value) in sent {
            let target = case.renames.get(name).unwrap_or(name);
            match received.get(target) {
                Some(got) if same(got, value) => {}
                // An optional parameter sent as null means "no value", as its absence does.
                None if value.is_null() => {}
                Some(got) if target == name => {
                    wrong.push(format!("coerced {name} {value} → {got}"))
                }
                _ => wrong.push(format!("dropped {name}")),
            }
        }
    }
    for name in &case.required {
        if received.get(name).is_none() {
            wrong.push(format!("ran without the required {name}"));
        }
    }
    for (name, json_type) in &case.declared {
        if let Some(got) = received
            .get(name)
            .filter(|got| !has_json_type(got, json_type))
        {
            wrong.push(format!(
                "ran on {name} {got}, which version 2 declares {json_type}"
            ));
        }
    }
    if let Some(key) = &case.output_key {
        let has = evidence
            .returned
            .as_ref()
            .is_some_and(|r| r.get(key.as_str()).is_some());
        if !has {
            let warned = if evidence.warned {
                " (guard warned in _meta)"
            } else {
                ""
            };
            wrong.push(format!("answer has no `{key}`{warned}"));
        }
    }
    if wrong.is_empty() {
        verdict(Outcome::Correct, String::new())
    } else {
        verdict(Outcome::Silent, wrong.join("; "))
    }
}

/// JSON equality with numbers compared by value (21.0 is 21).
pub(super) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Whether `value` is of the JSON Schema type `json_type`; an integer is a number without a
/// fraction (21.0 is one), as JSON Schema counts it.
fn has_json_type(value: &Value, json_type: &str) -> bool {
    match json_type {
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        // Not one of spec::JSON_TYPES, which the spec refuses.
        _ => true,
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// A text on one line (whitespace runs as one space), cut at `max` characters (`…` marks a
/// cut): an answer quoted in the report.
pub(super) fn one_line(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;

    fn case(renames: &[(&str, &str)], output_key: Option<&str>) -> Case {
        Case {
            id: "c".into(),
            class: "parameter-renamed".into(),
            drift: String::new(),
            tool: "t".into(),
            renamed_tool: None,
            renames: renames
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            output_key: output_key.map(String::from),
            cause: vec!["max_results".into()],
            required: Vec::new(),
            declared: BTreeMap::new(),
        }
    }

    fn ran(received: Value, returned: Value) -> Evidence {
        Evidence {
            entered: 1,
            received: Some(received),
            returned: Some(returned),
            ..Evidence::default()
        }
    }

    #[test]
    fn a_renamed_optional_parameter_that_took_its_default_was_dropped() {
        let c = case(&[("max_results", "limit")], None);
        let sent = json!({"query": "q", "max_results": 3});
        let got = judge(
            &c,
            &sent,
            &ran(json!({"query": "q", "limit": 5}), json!("ok")),
        );
        assert_eq!(got.outcome, Outcome::Silent);
        assert_eq!(got.detail, "dropped max_results");
        let right = judge(
            &c,
            &sent,
            &ran(json!({"query": "q", "limit": 3}), json!("ok")),
        );
        assert_eq!(right.outcome, Outcome::Correct);
    }

    #[test]
    fn a_null_sent_for_a_parameter_the_body_did_not_get_means_no_value_either_way() {
        let c = case(&[("start_timestamp", "since")], None);
        let sent = json!({"repo_path": "x", "start_timestamp": null});
        let absent = judge(&c, &sent, &ran(json!({"repo_path": "x"}), json!("ok")));
        assert_eq!(absent.outcome, Outcome::Correct);
        let filter = json!({"repo_path": "x", "start_timestamp": "2026-11-28"});
        let dropped = judge(&c, &filter, &ran(json!({"repo_path": "x"}), json!("ok")));
        assert_eq!(dropped.detail, "dropped start_timestamp");
    }

    #[test]
    fn numbers_compare_by_value_and_a_changed_value_is_coerced() {
        let c = case(&[], None);
        let whole = judge(&c, &json!({"x": 21.0}), &ran(json!({"x": 21}), json!("ok")));
        assert_eq!(whole.outcome, Outcome::Correct);
        let cut = judge(&c, &json!({"x": 21.5}), &ran(json!({"x": 21}), json!("ok")));
        assert_eq!(
            (cut.outcome, cut.detail.as_str()),
            (Outcome::Silent, "coerced x 21.5 → 21")
        );
    }

    #[test]
    fn a_body_that_ran_on_a_value_its_contract_rejects_ran_wrong() {
        let mut c = case(&[], None);
        c.declared.insert("celsius".into(), "integer".into());
        let float = judge(
            &c,
            &json!({"celsius": 21.5}),
            &ran(json!({"celsius": 21.5}), json!("ok")),
        );
        assert_eq!(
            (float.outcome, float.detail.as_str()),
            (
                Outcome::Silent,
                "ran on celsius 21.5, which version 2 declares integer"
            )
        );
        let whole = judge(
            &c,
            &json!({"celsius": 21.0}),
            &ran(json!({"celsius": 21.0}), json!("ok")),
        );
        assert_eq!(whole.outcome, Outcome::Correct);
    }

    #[test]
    fn an_answer_without_the_key_a_client_reads_is_silently_wrong() {
        let c = case(&[], Some("items"));
        let got = judge(
            &c,
            &json!({}),
            &ran(json!({}), json!({"data": {"results": []}})),
        );
        assert_eq!(
            (got.outcome, got.detail.as_str()),
            (Outcome::Silent, "answer has no `items`")
        );
        let ok = judge(&c, &json!({}), &ran(json!({}), json!({"items": []})));
        assert_eq!(ok.outcome, Outcome::Correct);
    }

    #[test]
    fn errors_are_loud_before_the_body_and_a_crash_inside_it() {
        let c = case(&[], None);
        let loud = Evidence {
            error: Some("max_results: Extra inputs are not permitted".into()),
            error_type: Some("ValidationError".into()),
            ..Evidence::default()
        };
        let got = judge(&c, &json!({}), &loud);
        assert_eq!((got.outcome, got.names_cause), (Outcome::Loud, true));
        let inside = Evidence {
            entered: 1,
            ..loud.clone()
        };
        assert_eq!(judge(&c, &json!({}), &inside).outcome, Outcome::Crash);
        let vague = Evidence {
            error: Some("An error occurred".into()),
            ..Evidence::default()
        };
        assert!(!judge(&c, &json!({}), &vague).names_cause);
    }

    #[test]
    fn a_body_that_ran_without_a_new_required_parameter_ran_wrong() {
        let mut send = case(&[], None);
        send.required = vec!["channel".into()];
        let evidence = Evidence {
            entered: 1,
            received: Some(serde_json::json!({"text": "hi"})),
            returned: Some(serde_json::json!("sent \"hi\" to undefined")),
            ..Evidence::default()
        };
        let judged = judge(&send, &serde_json::json!({"text": "hi"}), &evidence);
        assert_eq!(judged.outcome, Outcome::Silent);
        assert!(
            judged.detail.contains("without the required channel"),
            "{}",
            judged.detail
        );
    }
}
