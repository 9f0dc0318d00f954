//! `guard --translate renames`: a call in the approved form to a tool or a parameter the server
//! renamed reaches the server in its new form, and the agent gets the answer as if nothing
//! moved; without the flag the same call is refused.

use crate::common;

use super::guard::{
    answer, audit_events, call, drifted, guard_fixture_args, guarded, removed_tool, INIT,
    INITIALIZED, LIST,
};

#[test]
fn a_proven_rename_is_translated_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let get_time = call(3, "get_current_time", r#"{"timezone":"UTC"}"#);
    let lines = [INIT, INITIALIZED, LIST, get_time.as_str()];
    let translate = ["--translate", "renames"];

    // A renamed parameter: the fixture, which validates against what it serves, answers the
    // call sent under the new name.
    let renamed = drifted(dir.path(), "parameter-renamed");
    let out = guarded(&[], &renamed, &[], &lines, &audit);
    assert_eq!(
        answer(&out, 3)["result"]["isError"],
        true,
        "refused without the flag"
    );
    let out = guarded(&translate, &renamed, &[], &lines, &audit);
    assert_eq!(
        answer(&out, 3)["result"]["content"][0]["text"],
        "ok",
        "{out:?}"
    );
    let events = audit_events(&audit);
    let translated: Vec<_> = events
        .iter()
        .filter(|e| e["event"] == "translate")
        .collect();
    assert_eq!(translated.len(), 1, "{events:?}");
    assert_eq!(translated[0]["id"], 3);
    assert_eq!(translated[0]["tool"], "get_current_time");
    assert_eq!(translated[0]["to"], "get_current_time");
    assert_eq!(
        translated[0]["parameters"],
        serde_json::json!([["timezone", "renamed_timezone"]])
    );
    assert!(events
        .iter()
        .any(|e| e["event"] == "changed-then-used" && e["decision"] == "admit"));
    // A call the guard must hold until its own listing is in (here one before
    // notifications/initialized; AutoGen's McpWorkbench calls before the guard has listed):
    // it goes on translated when the listing comes.
    let mut args = guard_fixture_args(&translate, &renamed, &[], &audit);
    // The fixture echoes what it received.
    let calls = args.iter().position(|a| a == "accept").unwrap();
    args[calls] = "echo".into();
    let lines = [INIT, get_time.as_str(), super::guard::PING];
    let (out, code, err) = common::live::stepwise(env!("CARGO_BIN_EXE_driftlab"), &args, &lines);
    assert_eq!(code, Some(0), "{err}");
    let out: Vec<serde_json::Value> = out
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_default())
        .collect();
    assert_eq!(
        answer(&out, 3)["result"]["structuredContent"]["received"]["arguments"],
        serde_json::json!({"renamed_timezone": "UTC"}),
        "{out:?}"
    );

    // A renamed tool: called by its pinned name, answered by the server under its new one.
    let tool_renamed = drifted(dir.path(), "tool-renamed");
    let (old, arguments) = removed_tool(&tool_renamed);
    let old_call = call(3, &old, &arguments);
    let lines = [INIT, INITIALIZED, LIST, old_call.as_str()];
    let out = guarded(&[], &tool_renamed, &[], &lines, &audit);
    assert_eq!(
        answer(&out, 3)["result"]["isError"],
        true,
        "refused without the flag"
    );
    let out = guarded(&translate, &tool_renamed, &[], &lines, &audit);
    assert_eq!(
        answer(&out, 3)["result"]["content"][0]["text"],
        "ok",
        "{out:?}"
    );
    let events = audit_events(&audit);
    let translated = events.iter().find(|e| e["event"] == "translate").unwrap();
    assert_eq!(translated["tool"], old.as_str());
    let live: Vec<String> = common::read_json(&tool_renamed)["toolsList"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        live.contains(&translated["to"].as_str().unwrap().to_string())
            && translated["to"] != old.as_str(),
        "{translated}"
    );

    // Drift that is not a proven rename is decided as without the flag.
    let required = drifted(dir.path(), "required-parameter-added");
    let convert = call(
        4,
        "convert_time",
        r#"{"source_timezone":"UTC","time":"12:00","target_timezone":"UTC"}"#,
    );
    let lines = [INIT, INITIALIZED, get_time.as_str(), convert.as_str()];
    let out = guarded(&translate, &required, &[], &lines, &audit);
    let refused = [3, 4]
        .into_iter()
        .filter(|&id| answer(&out, id)["result"]["isError"] == true)
        .count();
    assert_eq!(
        refused, 1,
        "the call the new required parameter touches: {out:?}"
    );
    assert!(audit_events(&audit)
        .iter()
        .all(|e| e["event"] != "translate"));
}
