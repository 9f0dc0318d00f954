//! What a retry kept of what the caller meant. A retry that ran correctly by its own arguments
//! may still not be the call its caller made: the repairer may have dropped a value, made one
//! up, replaced one, or called another tool. This judges what reached the tool body against
//! the caller's version-1 call instead; see METHOD.md ("Repairs, judged by meaning").

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::Value;

use super::outcome::same;
use super::spec::Case;

/// What a retry that ran correctly kept of the caller's call, worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kept {
    /// It called a tool other than the one the caller meant (or that tool's new name).
    OtherTool,
    /// A value the caller sent did not reach the body: dropped, or replaced by another.
    Lost,
    /// The body got a value the caller never sent and version 1 did not default to.
    Invented,
    /// Every value arrived, one changed only where version 2 narrowed its type (98.5 → 99).
    Coerced,
    /// The body got exactly what the caller sent, under the names version 2 gave it.
    Exact,
}

impl Kept {
    /// How `calls.csv` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Kept::OtherTool => "other-tool",
            Kept::Lost => "lost",
            Kept::Invented => "invented",
            Kept::Coerced => "coerced",
            Kept::Exact => "exact",
        }
    }

    /// Whether the retry counts as repaired: exact, or coerced where the new type forced it.
    pub fn repaired(self) -> bool {
        matches!(self, Kept::Exact | Kept::Coerced)
    }
}

/// The verdict on a retry's meaning, with what decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Meaning {
    /// The worst of what was found.
    pub kept: Kept,
    /// Everything found, in one line (empty when exact).
    pub detail: String,
}

/// Judges a retry: `sent` is the caller's version-1 arguments, `at_version_1` what the body
/// received for the same call at version 1 (its defaults), `tool` the tool the retry called
/// and `received` what its body received. `case` carries the row's renames.
pub(crate) fn judge_meaning(
    case: &Case,
    sent: &Value,
    at_version_1: Option<&Value>,
    tool: &str,
    received: Option<&Value>,
) -> Meaning {
    let intended = case.renamed_tool.as_deref().unwrap_or(&case.tool);
    if tool != intended {
        return Meaning {
            kept: Kept::OtherTool,
            detail: format!("called {tool}, not {intended}"),
        };
    }
    let mut found: Vec<(Kept, String)> = Vec::new();
    let mut arrived = BTreeSet::new();
    let received = received.unwrap_or(&Value::Null);
    for (name, value) in sent.as_object().into_iter().flatten() {
        // A null is "no value", as an absent argument is: whatever stands for it is judged
        // with the values the caller did not send.
        if value.is_null() {
            continue;
        }
        let target = case.renames.get(name).unwrap_or(name);
        arrived.insert(target.as_str());
        match received.get(target) {
            Some(got) if same(got, value) => {}
            Some(got)
                if case
                    .declared
                    .get(target)
                    .is_some_and(|json_type| forced(json_type, value, got)) =>
            {
                found.push((Kept::Coerced, format!("{name} {value} → {got}")))
            }
            Some(got) => found.push((Kept::Lost, format!("{name} {value} → {got}"))),
            None => found.push((Kept::Lost, format!("dropped {name} {value}"))),
        }
    }
    for (key, value) in received.as_object().into_iter().flatten() {
        if arrived.contains(key.as_str()) || value.is_null() {
            continue;
        }
        // What the body got unasked is a default when version 1's body got the same.
        let old_name = case
            .renames
            .iter()
            .find(|(_, new)| *new == key)
            .map_or(key.as_str(), |(old, _)| old.as_str());
        let default = at_version_1.and_then(|r| r.get(old_name));
        if !default.is_some_and(|d| same(d, value)) {
            found.push((Kept::Invented, format!("invented {key} {value}")));
        }
    }
    Meaning {
        kept: found.iter().map(|(k, _)| *k).min().unwrap_or(Kept::Exact),
        detail: found
            .into_iter()
            .map(|(_, d)| d)
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// Whether `got` is `sent` as a value of the narrower `json_type` must hold it: a number
/// rounded or cut to an integer, or a list's items (or a scalar) written as one string.
fn forced(json_type: &str, sent: &Value, got: &Value) -> bool {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match (json_type, sent, got) {
        ("integer", Value::Number(a), Value::Number(b)) => {
            let (a, b) = (
                a.as_f64().unwrap_or(f64::NAN),
                b.as_f64().unwrap_or(f64::NAN),
            );
            b.fract() == 0.0 && (a - b).abs() < 1.0
        }
        ("string", Value::Array(items), Value::String(joined)) => {
            items.iter().all(|item| joined.contains(&text(item)))
        }
        ("string", scalar, Value::String(written)) => {
            !scalar.is_object() && text(scalar) == *written
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn case(toml_text: &str) -> Case {
        toml::from_str(toml_text).unwrap()
    }

    const RENAMED: &str = r#"id = "c"
class = "parameter-renamed"
drift = "d"
tool = "git_log"
renames = { start_timestamp = "since" }
cause = []
"#;

    #[test]
    fn a_renamed_value_under_its_new_name_with_version_1_defaults_is_exact() {
        let meaning = judge_meaning(
            &case(RENAMED),
            &json!({"repo_path": "x", "start_timestamp": "2024-01-01"}),
            Some(&json!({"repo_path": "x", "start_timestamp": "2024-01-01", "max_count": 10})),
            "git_log",
            Some(&json!({"repo_path": "x", "since": "2024-01-01", "max_count": 10})),
        );
        assert_eq!(meaning.kept, Kept::Exact, "{}", meaning.detail);
        assert!(meaning.detail.is_empty());
    }

    #[test]
    fn a_dropped_filter_is_lost_even_beside_an_invented_value() {
        let meaning = judge_meaning(
            &case(RENAMED),
            &json!({"repo_path": "x", "start_timestamp": "2024-01-01"}),
            Some(&json!({"repo_path": "x", "start_timestamp": "2024-01-01"})),
            "git_log",
            Some(&json!({"repo_path": "x", "max_count": 3})),
        );
        assert_eq!(meaning.kept, Kept::Lost);
        assert_eq!(
            meaning.detail,
            "dropped start_timestamp \"2024-01-01\"; invented max_count 3"
        );
    }

    #[test]
    fn a_value_made_up_for_a_new_required_parameter_is_invented() {
        let required = case(
            "id = \"c\"\nclass = \"k\"\ndrift = \"d\"\ntool = \"send_message\"\n\
             required = [\"channel\"]\ncause = []\n",
        );
        let meaning = judge_meaning(
            &required,
            &json!({"text": "x"}),
            Some(&json!({"text": "x"})),
            "send_message",
            Some(&json!({"text": "x", "channel": ""})),
        );
        assert_eq!(meaning.kept, Kept::Invented);
        assert_eq!(meaning.detail, "invented channel \"\"");
    }

    #[test]
    fn a_number_rounded_where_the_type_narrowed_is_coerced_elsewhere_lost() {
        let narrowed = case(
            "id = \"c\"\nclass = \"k\"\ndrift = \"d\"\ntool = \"set_temperature\"\n\
             declared = { celsius = \"integer\" }\ncause = []\n",
        );
        let sent = json!({"celsius": 98.5, "unit": "kelvin"});
        let rounded = json!({"celsius": 99, "unit": "kelvin"});
        let meaning = judge_meaning(&narrowed, &sent, None, "set_temperature", Some(&rounded));
        assert_eq!(meaning.kept, Kept::Coerced);
        assert!(meaning.kept.repaired());
        let replaced = json!({"celsius": 99, "unit": "celsius"});
        let meaning = judge_meaning(&narrowed, &sent, None, "set_temperature", Some(&replaced));
        assert_eq!(meaning.kept, Kept::Lost);
        assert!(!meaning.kept.repaired());
        assert_eq!(
            meaning.detail,
            "celsius 98.5 → 99; unit \"kelvin\" → \"celsius\""
        );
        // A narrowed type forces a value near the old one, not any value.
        let made_up = json!({"celsius": 21, "unit": "kelvin"});
        let meaning = judge_meaning(&narrowed, &sent, None, "set_temperature", Some(&made_up));
        assert_eq!(meaning.kept, Kept::Lost);
    }

    #[test]
    fn a_list_written_as_one_string_is_coerced_and_a_shortened_one_lost() {
        let narrowed = case(
            "id = \"c\"\nclass = \"k\"\ndrift = \"d\"\ntool = \"tag_item\"\n\
             declared = { labels = \"string\" }\ncause = []\n",
        );
        let sent = json!({"labels": ["a", "b"]});
        let joined = json!({"labels": "a,b"});
        let first = json!({"labels": "a"});
        let meaning = judge_meaning(&narrowed, &sent, None, "tag_item", Some(&joined));
        assert_eq!(meaning.kept, Kept::Coerced);
        let meaning = judge_meaning(&narrowed, &sent, None, "tag_item", Some(&first));
        assert_eq!(meaning.kept, Kept::Lost);
    }

    #[test]
    fn the_renamed_tool_is_the_one_meant_and_any_other_is_not() {
        let renamed = case(
            "id = \"c\"\nclass = \"tool-renamed\"\ndrift = \"d\"\ntool = \"get_alerts\"\n\
             renamed_tool = \"fetch_alerts\"\ncause = []\n",
        );
        let sent = json!({"region": "x"});
        let meaning = judge_meaning(&renamed, &sent, None, "fetch_alerts", Some(&sent));
        assert_eq!(meaning.kept, Kept::Exact);
        let meaning = judge_meaning(&renamed, &sent, None, "get_forecast", Some(&sent));
        assert_eq!(meaning.kept, Kept::OtherTool);
        assert_eq!(meaning.detail, "called get_forecast, not fetch_alerts");
    }

    #[test]
    fn a_null_sent_is_no_value_and_a_null_received_is_no_invention() {
        let meaning = judge_meaning(
            &case(RENAMED),
            &json!({"repo_path": "x", "start_timestamp": null}),
            Some(&json!({"repo_path": "x", "start_timestamp": null})),
            "git_log",
            Some(&json!({"repo_path": "x", "since": null})),
        );
        assert_eq!(meaning.kept, Kept::Exact, "{}", meaning.detail);
    }
}
