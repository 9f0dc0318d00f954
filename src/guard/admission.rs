//! Admission of one `tools/call`: the rules, each with its own id, in the order they run.

use serde_json::Value;

use crate::contract::Contract;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    Admit,
    Refuse {
        /// `tool-not-pinned`, `contract-drift`, `tool-not-live`, `pin-schema-invalid`,
        /// `live-schema-invalid`, `unknown-argument`, `invalid-arguments`,
        /// `invalid-for-live-schema`, `live-list-failed` or `circuit-open`.
        rule: &'static str,
        problems: Vec<String>,
    },
}

impl Admission {
    pub fn refuse(rule: &'static str, problems: Vec<String>) -> Admission {
        Admission::Refuse { rule, problems }
    }
}

/// The first rule the call breaks, as a refusal; `None` admits it. `hints` are the drift
/// findings about the tool, quoted where they name a parameter the call uses.
pub fn check(
    pinned: &Contract,
    live: Option<&Contract>,
    arguments: &Value,
    hints: &[String],
) -> Option<Admission> {
    if let Some(why) = &pinned.broken {
        return Some(Admission::refuse("pin-schema-invalid", vec![why.clone()]));
    }
    if let Some(why) = live.and_then(|l| l.broken.as_ref()) {
        return Some(Admission::refuse("live-schema-invalid", vec![why.clone()]));
    }
    let Some(args) = arguments.as_object() else {
        return Some(Admission::refuse(
            "invalid-arguments",
            vec!["`arguments` must be an object".into()],
        ));
    };
    let about = |name: &str| -> Vec<String> {
        let quoted = format!("\"{name}\"");
        hints
            .iter()
            .filter(|h| h.contains(&quoted))
            .cloned()
            .collect()
    };
    // Unknown names are refused even where the schema allows additional properties: that is how
    // a renamed parameter is silently dropped.
    let mut problems = Vec::new();
    for name in args.keys() {
        if pinned.params.as_ref().is_some_and(|p| !p.contains(name)) {
            problems.push(format!(
                "`{name}` is not a parameter of the pinned contract"
            ));
        } else if live
            .and_then(|l| l.params.as_ref())
            .is_some_and(|p| !p.contains(name))
        {
            problems.push(format!("`{name}` is no longer a parameter on the server"));
            problems.extend(about(name));
        }
    }
    if !problems.is_empty() {
        return Some(Admission::refuse("unknown-argument", problems));
    }
    let errors = |contract: &Contract| -> Vec<String> {
        contract.input.as_ref().map_or_else(Vec::new, |v| {
            v.iter_errors(arguments)
                .take(5)
                .map(|e| {
                    let at = e.instance_path().as_str().to_string();
                    if at.is_empty() {
                        e.to_string()
                    } else {
                        format!("{e} (at `{}`)", at.trim_start_matches('/'))
                    }
                })
                .collect()
        })
    };
    let pinned_errors = errors(pinned);
    if !pinned_errors.is_empty() {
        return Some(Admission::refuse("invalid-arguments", pinned_errors));
    }
    if let Some(live) = live {
        let mut live_errors = errors(live);
        if !live_errors.is_empty() {
            for name in args.keys() {
                live_errors.extend(about(name));
            }
            if live_errors.iter().all(|e| !hints.contains(e)) {
                live_errors.extend(hints.iter().cloned());
            }
            live_errors.dedup();
            return Some(Admission::refuse("invalid-for-live-schema", live_errors));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn contract(schema: Value) -> Contract {
        let surface =
            crate::payload::from_value(json!([{"name": "t", "inputSchema": schema}]), "t").unwrap();
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
                hints[0].as_str()
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
