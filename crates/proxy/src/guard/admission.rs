//! Admission of one `tools/call`: the rules, each with its own id, in the order they run.

use serde_json::Value;

use super::drift::ToolDrift;
use super::fixes;
use super::words::{self, ServerWords};
use driftlab_contract::contract::Contract;

/// The guard's decision on one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// The call goes to the server.
    Admit,
    /// The call is answered by the guard and never reaches the server.
    Refuse {
        /// `tool-not-pinned`, `contract-drift`, `trust-changed`, `tool-not-live`,
        /// `pin-schema-invalid`,
        /// `live-schema-invalid`, `unknown-argument`, `invalid-arguments`,
        /// `invalid-for-live-schema`, `live-list-failed` or `circuit-open`.
        rule: &'static str,
        /// What is wrong, one line each, ending with what to send instead.
        problems: Vec<String>,
    },
}

impl Admission {
    /// A refusal by `rule`.
    pub fn refuse(rule: &'static str, problems: Vec<String>) -> Admission {
        Admission::Refuse { rule, problems }
    }
}

/// The first rule the call breaks, as a refusal; `None` admits it. The drift's changes at a
/// parameter the call uses are said, and every refusal ends with what to send instead
/// ([`fixes`]), read off the schema the call failed; what the live server says is said as
/// `words` allows.
pub fn check(
    pinned: &Contract,
    live: Option<&Contract>,
    arguments: &Value,
    drift: Option<&ToolDrift>,
    words: ServerWords,
) -> Option<Admission> {
    if let Some(why) = &pinned.broken {
        return Some(Admission::refuse("pin-schema-invalid", vec![why.clone()]));
    }
    if let Some(why) = live.and_then(|l| l.broken.as_ref()) {
        let said = match words {
            ServerWords::Kinds => "the server's schema for this tool does not compile".into(),
            ServerWords::Quoted => words::quoted(why),
        };
        return Some(Admission::refuse("live-schema-invalid", vec![said]));
    }
    let Some(args) = arguments.as_object() else {
        return Some(Admission::refuse(
            "invalid-arguments",
            vec!["`arguments` must be an object".into()],
        ));
    };
    let about =
        |name: &str| -> Vec<String> { drift.map(|d| d.about(name, words)).unwrap_or_default() };
    // A tool the server changed in a breaking way is held to its live contract: its refusals
    // say what to send to the live server, so a call that does that is admitted.
    let drifted = live.is_some() && drift.is_some();
    // Unknown names are refused even where the schema allows additional properties: that is how
    // a renamed parameter is silently dropped.
    let mut problems = Vec::new();
    for (name, value) in args {
        if sends_no_value(pinned, live, drift, name, value) {
            continue;
        }
        let in_pin = pinned.params.as_ref().is_none_or(|p| p.contains(name));
        let in_live = live
            .and_then(|l| l.params.as_ref())
            .is_none_or(|p| p.contains(name));
        if !in_live && in_pin {
            problems.push(format!("`{name}` is no longer a parameter on the server"));
            problems.extend(about(name));
        } else if !in_live || (!in_pin && !drifted) {
            problems.push(format!(
                "`{name}` is not a parameter of the pinned contract"
            ));
        }
    }
    let fixes_for = |contract: &Contract, drift: Option<&ToolDrift>| {
        let said = fixes::Said {
            words,
            pinned: pinned.schema.as_ref(),
            params: pinned.params.as_ref(),
        };
        contract
            .schema
            .as_ref()
            .map(|schema| fixes::for_call(schema, &said, args, drift))
            .unwrap_or_default()
    };
    if !problems.is_empty() {
        problems.extend(fixes_for(live.unwrap_or(pinned), drift));
        return Some(Admission::refuse("unknown-argument", problems));
    }
    // The pin's errors quote only the pin and the call (`None`: as the validator says them);
    // the live schema's quote the server, so by kind they name only the keyword and where in
    // the call.
    let errors = |contract: &Contract, words: Option<ServerWords>| -> Vec<String> {
        contract.input.as_ref().map_or_else(Vec::new, |v| {
            v.iter_errors(arguments)
                .take(5)
                .map(|e| {
                    let at = e.instance_path().as_str().to_string();
                    let what = match words {
                        None => e.to_string(),
                        Some(ServerWords::Quoted) => words::quoted(&e.to_string()),
                        Some(ServerWords::Kinds) => {
                            format!(
                                "the server's schema refuses it ({})",
                                words::keyword_at(e.schema_path().as_str())
                            )
                        }
                    };
                    if at.is_empty() {
                        what
                    } else {
                        format!("{what} (at `{}`)", at.trim_start_matches('/'))
                    }
                })
                .collect()
        })
    };
    let mut pinned_errors = if drifted {
        Vec::new()
    } else {
        errors(pinned, None)
    };
    if !pinned_errors.is_empty() {
        pinned_errors.extend(fixes_for(pinned, None));
        return Some(Admission::refuse("invalid-arguments", pinned_errors));
    }
    if let Some(live) = live {
        let mut live_errors = errors(live, Some(words));
        if !live_errors.is_empty() {
            for name in args.keys() {
                live_errors.extend(about(name));
            }
            // Said only here, where a refusal needs them: not on every admitted call.
            let hints: Vec<String> = drift.map(|d| d.said(words)).unwrap_or_default();
            if live_errors.iter().all(|e| !hints.contains(e)) {
                live_errors.extend(hints.iter().cloned());
            }
            live_errors.dedup();
            live_errors.extend(fixes_for(live, drift));
            return Some(Admission::refuse("invalid-for-live-schema", live_errors));
        }
    }
    None
}

/// Whether the argument `name`, gone from the live contract, sends no value: `null`, which the
/// pinned parameter declares as its default, as its live successor does where it was renamed.
/// Leaving it out means the same on both sides, so the drift does not touch it (a model often
/// writes `"start_timestamp": null` for "no filter"). A default of another value is not taken
/// for granted: a server that drops the argument may not mean by it what the pin did.
pub(super) fn sends_no_value(
    pinned: &Contract,
    live: Option<&Contract>,
    drift: Option<&ToolDrift>,
    name: &str,
    value: &Value,
) -> bool {
    let defaults_to_null = |contract: &Contract, name: &str| {
        contract
            .schema
            .as_ref()
            .and_then(|s| s.get("properties")?.get(name)?.get("default"))
            .is_some_and(Value::is_null)
    };
    let Some(live) = live else { return false };
    if !value.is_null() || live.params.as_ref().is_none_or(|p| p.contains(name)) {
        return false;
    }
    if !defaults_to_null(pinned, name) {
        return false;
    }
    let successor = drift.and_then(|d| d.renamed.iter().find(|(old, _)| old == name));
    successor.is_none_or(|(_, new)| defaults_to_null(live, new))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(
        pinned: &Contract,
        live: Option<&Contract>,
        arguments: &Value,
        hints: &[String],
    ) -> Option<Admission> {
        let changes = hints.iter().map(|h| super::super::drift::Change {
            message: h.clone(),
            kind: h.clone(),
            param: None,
        });
        let drift = ToolDrift {
            changes: changes.collect(),
            ..ToolDrift::default()
        };
        super::check(pinned, live, arguments, Some(&drift), ServerWords::Quoted)
    }

    fn contract(schema: Value) -> Contract {
        let surface = driftlab_contract::payload::from_value(
            json!([{"name": "t", "inputSchema": schema}]),
            "t",
        )
        .unwrap();
        Contract::of(&surface.tool(0).unwrap())
    }

    fn rule(a: Option<Admission>) -> &'static str {
        match a {
            None | Some(Admission::Admit) => "admit",
            Some(Admission::Refuse { rule, .. }) => rule,
        }
    }

    #[test]
    fn each_rule() {
        let pinned = contract(
            json!({"type": "object", "properties": {"query": {"type": "string"},
            "status": {"enum": ["open", "archived"]}}, "required": ["query"]}),
        );
        let live = contract(
            json!({"type": "object", "properties": {"search_query": {"type": "string"},
            "status": {"enum": ["open"]}}, "required": ["search_query"]}),
        );
        let hints = vec![
            "parameter \"query\" was likely renamed to \"search_query\"".to_string(),
            "enum value \"archived\" was removed from \"status\"".to_string(),
        ];
        assert_eq!(
            rule(check(&pinned, None, &json!({"query": "x"}), &[])),
            "admit"
        );
        assert_eq!(
            rule(check(
                &pinned,
                None,
                &json!({"query": "x", "extra": 1}),
                &[]
            )),
            "unknown-argument"
        );
        assert_eq!(
            rule(check(&pinned, None, &json!({"query": 1}), &[])),
            "invalid-arguments"
        );
        assert_eq!(
            rule(check(&pinned, None, &json!({}), &[])),
            "invalid-arguments"
        );
        assert_eq!(
            rule(check(&pinned, None, &json!("x"), &[])),
            "invalid-arguments"
        );
        let renamed = check(&pinned, Some(&live), &json!({"query": "x"}), &hints);
        let Some(Admission::Refuse { rule, problems }) = renamed else {
            panic!()
        };
        assert_eq!(rule, "unknown-argument");
        assert_eq!(
            problems,
            [
                "`query` is no longer a parameter on the server",
                hints[0].as_str(),
                // The test's drift knows the rename only as a message: the fix names the new
                // required parameter instead.
                "add the required parameter \"search_query\" (string)"
            ]
        );
        let live_open = contract(
            json!({"type": "object", "properties": {"query": {"type": "string"},
            "status": {"enum": ["open"]}}}),
        );
        let Some(Admission::Refuse { rule, problems }) = check(
            &pinned,
            Some(&live_open),
            &json!({"query": "x", "status": "archived"}),
            &hints[1..],
        ) else {
            panic!()
        };
        assert_eq!(rule, "invalid-for-live-schema");
        assert!(problems.contains(&hints[1]), "{problems:?}");
    }

    #[test]
    fn an_argument_that_sends_no_value_for_a_renamed_parameter_is_admitted() {
        let optional = |default: Value| json!({"anyOf": [{"type": "integer"}, {"type": "null"}], "default": default});
        let schema = |name: &str, default: Value| {
            contract(
                json!({"type": "object", "properties": {"path": {"type": "string"},
                name: optional(default)}}),
            )
        };
        let drift = ToolDrift {
            renamed: vec![("head".into(), "max_lines".into())],
            ..ToolDrift::default()
        };
        let call = |pinned: &Contract, live: &Contract, arguments: Value| {
            rule(super::check(
                pinned,
                Some(live),
                &arguments,
                Some(&drift),
                ServerWords::Kinds,
            ))
        };
        let (pinned, live) = (
            schema("head", Value::Null),
            schema("max_lines", Value::Null),
        );
        assert_eq!(
            call(&pinned, &live, json!({"path": "p", "head": null})),
            "admit"
        );
        // A value is what the rename drops.
        assert_eq!(
            call(&pinned, &live, json!({"path": "p", "head": 3})),
            "unknown-argument"
        );
        // Where the successor defaults to a value, leaving it out changes the call.
        let live_ten = schema("max_lines", json!(10));
        assert_eq!(
            call(&pinned, &live_ten, json!({"path": "p", "head": null})),
            "unknown-argument"
        );
        // A default of another value is not taken for granted, even when the call sends it.
        let (pinned_ten, live_ten) = (schema("head", json!(10)), schema("max_lines", json!(10)));
        assert_eq!(
            call(&pinned_ten, &live_ten, json!({"path": "p", "head": 10})),
            "unknown-argument"
        );
    }

    #[test]
    fn a_schema_that_does_not_compile_refuses_instead_of_validating_nothing() {
        let broken = contract(
            json!({"type": "object", "properties": {"query": {"type": "string",
            "pattern": "(unclosed"}, "limit": {"type": "integer"}}}),
        );
        assert!(broken.broken.as_deref().unwrap().contains("inputSchema"));
        let bad_call = json!({"query": 12345, "limit": "not-an-int"});
        assert_eq!(
            rule(check(&broken, None, &bad_call, &[])),
            "pin-schema-invalid"
        );
        let fine = contract(
            json!({"type": "object", "properties": {"query": {"type": "string"},
            "limit": {"type": "integer"}}}),
        );
        assert!(fine.broken.is_none());
        assert_eq!(
            rule(check(&fine, Some(&broken), &json!({"query": "q"}), &[])),
            "live-schema-invalid"
        );
        let remote = contract(
            json!({"type": "object", "properties": {"q": {"$ref": "https://example.com/s.json"}}}),
        );
        assert!(
            remote.broken.is_some(),
            "a remote $ref is not fetched, so it does not compile"
        );
    }
}
