//! `driftlab guard`'s answer bookkeeping: one request per id in flight whatever the methods,
//! answers to ids nobody has in flight dropped, errors and task results told apart from outputs,
//! and the era of the guard's own listing taken from the handshake or the call, not `_meta` on
//! any message. Each test is a session a hostile client or server could run.

use std::path::Path;

use serde_json::Value;

use crate::common;
use crate::guard::{
    answer, audit_events, call, drifted, guard_fixture_args, pin, refusal, removed_tool, INIT,
    INITIALIZED, TIME,
};

const PING: &str = r#"{"jsonrpc":"2.0","id":"end","method":"ping"}"#;

/// `driftlab guard FLAGS --approved PIN -- fixture SERVED --calls accept FIXTURE_FLAGS`, every
/// line written at once (the client does not wait for answers), read until the ping `end` is
/// answered; returns the client's lines and the audit log.
fn unpaced(
    flags: &[&str],
    served: &Path,
    fixture_flags: &[&str],
    lines: &[&str],
) -> (Vec<Value>, Vec<Value>) {
    guarded(flags, served, fixture_flags, lines, Pace::Until("\"end\""))
}

/// How the client writes its lines.
enum Pace<'a> {
    /// All at once, then it reads until the answer with this id.
    Until(&'a str),
    /// Each request after the answer to the one before.
    Paced,
}

/// Like [`unpaced`], at the given pace.
fn guarded(
    flags: &[&str],
    served: &Path,
    fixture_flags: &[&str],
    lines: &[&str],
    pace: Pace,
) -> (Vec<Value>, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let args = guard_fixture_args(flags, served, fixture_flags, &audit);
    let mut all = lines.to_vec();
    all.push(PING);
    let driftlab = env!("CARGO_BIN_EXE_driftlab");
    let (out, code, err) = match pace {
        Pace::Paced => common::live::stepwise(driftlab, &args, &all),
        Pace::Until(id) => common::live::session(driftlab, &args, &all, id),
    };
    assert_eq!(code, Some(0), "{err}");
    let out = out
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
        .collect();
    (out, audit_events(&audit))
}

fn answers(out: &[Value], id: &Value) -> Vec<Value> {
    out.iter().filter(|v| &v["id"] == id).cloned().collect()
}

fn request(id: &str, method: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#)
}

fn violation_text(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

const VALID: &str = r#"{"timezone":"UTC"}"#;

#[test]
fn a_request_reusing_an_id_in_flight_is_refused_whatever_its_method() {
    // The pinned time tools declare an outputSchema and the fixture's answers have no
    // structuredContent: every call answer the guard checks is a violation.
    let call7 = call(7, "get_current_time", VALID);
    let ping7 = request("7", "ping");
    // The two answers to id 7 when `requests` follow the handshake at once: one is the
    // `id-in-flight` refusal of the second request.
    // The session reads until a last call is answered: the guard holds calls until its listing
    // and sends them in order, so that answer comes after every call's (a ping would pass the
    // held calls, and a loaded machine could then lose their answers at hang-up).
    let last = call(0, "get_current_time", VALID).replace("\"id\":0", "\"id\":\"last\"");
    let both_answers = |requests: &[&str]| {
        let mut lines = vec![INIT, INITIALIZED];
        lines.extend_from_slice(requests);
        lines.push(&last);
        let strict = ["--on-output", "error"];
        let (out, events) = guarded(
            &strict,
            &pin(),
            &["--delay-ms", "300"],
            &lines,
            Pace::Until("\"last\""),
        );
        let sevens = answers(&out, &7.into());
        assert_eq!(sevens.len(), 2, "{out:?}");
        assert!(sevens
            .iter()
            .any(|a| a["error"]["data"]["rule"] == "id-in-flight"));
        (sevens, events)
    };
    let checked = |a: &Value| violation_text(a).contains("breaks its pinned outputSchema");

    // A call, then a ping with its id: the ping is refused, the call's answer is still checked.
    let (sevens, events) = both_answers(&[&call7, &ping7]);
    assert!(
        sevens.iter().any(checked),
        "the call's answer passed unchecked: {sevens:?}"
    );
    assert!(events.iter().any(|e| e["event"] == "output-violation"));
    // A ping, then a call with its id: the call is refused, the ping's `{}` passes untouched.
    let (sevens, _) = both_answers(&[&ping7, &call7]);
    assert!(
        sevens.iter().any(|a| a["result"] == serde_json::json!({})),
        "the ping's answer was replaced: {sevens:?}"
    );
    // The same call twice: the refusal of the second leaves the first's answer checked.
    let (sevens, _) = both_answers(&[&call7, &call7]);
    assert!(sevens.iter().any(checked), "{sevens:?}");
}

#[test]
fn a_ping_with_the_id_of_a_listing_in_flight_never_shows_the_live_list() {
    let dir = tempfile::tempdir().unwrap();
    let removed = drifted(dir.path(), "tool-removed");
    let (gone, _) = removed_tool(&removed);
    let list9 = request("9", "tools/list");
    let ping9 = request("9", "ping");
    let (out, _) = unpaced(
        &[],
        &removed,
        &["--delay-ms", "300"],
        &[INIT, INITIALIZED, &list9, &ping9],
    );
    let nines = answers(&out, &9.into());
    assert_eq!(nines.len(), 2, "{out:?}");
    assert!(nines
        .iter()
        .any(|a| a["error"]["data"]["rule"] == "id-in-flight"));
    let listed = nines.iter().find(|a| a.get("result").is_some()).unwrap();
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&gone.as_str()),
        "the client saw the live list: {names:?}"
    );
}

#[test]
fn answers_to_ids_nobody_has_in_flight_are_dropped_and_audited() {
    // The server answers id 99 (never asked) and id 3 (a call the guard refused) before each
    // call it runs.
    let refused = call(3, "delete_everything", "{}");
    let valid = call(4, "get_current_time", VALID);
    for unasked in ["99", "3"] {
        let (out, events) = unpaced(
            &[],
            &pin(),
            &["--answer-unasked", unasked],
            &[INIT, INITIALIZED, &refused, &valid],
        );
        assert!(
            !out.iter().any(|v| violation_text(v) == "forged"),
            "a forged answer to {unasked} reached the client: {out:?}"
        );
        let (rule, _) = refusal(&out, 3);
        assert_eq!(rule, "tool-not-pinned");
        assert_eq!(answers(&out, &3.into()).len(), 1, "{out:?}");
        assert_eq!(answer(&out, 4)["result"]["content"][0]["text"], "ok");
        assert!(
            events.iter().any(|e| e["event"] == "unasked-answer-dropped"
                && e["id"] == unasked.parse::<u32>().unwrap()),
            "{events:?}"
        );
    }
}

#[test]
fn an_error_answer_passes_as_the_servers_own_not_as_an_output_violation() {
    let valid = call(3, "get_current_time", VALID);
    let (out, events) = unpaced(
        &["--on-output", "error"],
        &pin(),
        &["--error-on", "tools/call"],
        &[INIT, INITIALIZED, &valid],
    );
    assert_eq!(
        answer(&out, 3)["error"]["message"],
        "fixture error as asked",
        "{out:?}"
    );
    assert!(!events.iter().any(|e| e["event"] == "output-violation"));
    let listings = events
        .iter()
        .filter(|e| e["event"] == "live-listed")
        .count();
    assert_eq!(listings, 1, "an error answer made the guard list again");
}

#[test]
fn a_task_is_created_unchecked_and_its_result_is_checked_against_its_tool() {
    let task_call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_current_time","arguments":{"timezone":"UTC"},"task":{"ttl":60000}}}"#;
    let (out, events) = unpaced(
        &["--on-output", "error", "--on-drift", "warn"],
        &pin(),
        &["--tasks"],
        &[INIT, INITIALIZED, task_call],
    );
    let created = answer(&out, 3);
    assert_eq!(created["result"]["task"]["taskId"], "task-1", "{out:?}");
    assert!(events.iter().any(|e| e["event"] == "task-created"));
    assert!(!events.iter().any(|e| e["event"] == "output-violation"));

    // The client asks for the result once it knows the task.
    let fetch = r#"{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"task-1"}}"#;
    let (out, events) = guarded(
        &["--on-output", "error"],
        &pin(),
        &["--tasks"],
        &[INIT, INITIALIZED, task_call, fetch],
        Pace::Paced,
    );
    let fetched = answer(&out, 4);
    assert!(
        violation_text(&fetched).contains("`get_current_time` breaks its pinned outputSchema"),
        "the task's result passed unchecked: {fetched}"
    );
    assert!(events
        .iter()
        .any(|e| e["event"] == "output-violation" && e["tool"] == "get_current_time"));
}

#[test]
fn the_era_of_the_guards_listing_is_the_handshakes_not_a_later_messages_meta() {
    // The server lists the pinned tools to 2026-07-28 requests and a drifted list (a tool
    // removed) to the 2025-11-25 session the handshake opened, where the calls run.
    let dir = tempfile::tempdir().unwrap();
    let removed = drifted(dir.path(), "tool-removed");
    let (gone, arguments) = removed_tool(&removed);
    let era_payload = common::repo().join("tests/data").join(TIME);
    let initialized_2026 = r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let drifted_call = call(3, &gone, &arguments);
    let (out, _) = unpaced(
        &[],
        &removed,
        &["--era-payload", &era_payload.display().to_string()],
        &[INIT, initialized_2026, &drifted_call],
    );
    let (rule, problems) = refusal(&out, 3);
    assert_eq!(rule, "tool-not-live", "{problems:?}");
}

#[test]
fn without_a_handshake_a_call_is_decided_on_a_listing_in_its_own_era() {
    // No initialize: each request names its era. A call in 2026-07-28 is decided on the 2026
    // list (the tool is there); one in 2025-11-25 on that era's list (the tool is gone).
    let dir = tempfile::tempdir().unwrap();
    let removed = drifted(dir.path(), "tool-removed");
    let (gone, arguments) = removed_tool(&removed);
    let era_payload = common::repo().join("tests/data").join(TIME);
    let in_era = |id: u32, version: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{gone}","arguments":{arguments},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{version}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        )
    };
    let (modern, legacy) = (in_era(3, "2026-07-28"), in_era(4, "2025-11-25"));
    let era_flags = ["--era-payload", &era_payload.display().to_string()];
    // Paced (each call decided as it comes) and unpaced (the second waits with the first for
    // the first listing, then for a listing of its own era).
    for pace in [Pace::Paced, Pace::Until("4")] {
        let (out, events) = guarded(&[], &removed, &era_flags, &[&modern, &legacy], pace);
        assert_eq!(
            answer(&out, 3)["result"]["content"][0]["text"],
            "ok",
            "{out:?}"
        );
        let (rule, problems) = refusal(&out, 4);
        assert_eq!(rule, "tool-not-live");
        assert!(problems[1].starts_with("tool-removed"), "{problems:?}");
        // The 2026 list has both tools, the 2025 one not the removed tool.
        let listed: Vec<&Value> = events
            .iter()
            .filter(|e| e["event"] == "live-listed")
            .map(|e| &e["tools"])
            .collect();
        assert!(
            listed.contains(&&2.into()) && listed.contains(&&1.into()),
            "{events:?}"
        );
    }
}

/// An empty `nextCursor` ends the guard's listing in a handshake session and is followed in a
/// 2026-07-28 one: there the second page's tool is live and its call is admitted.
#[test]
fn an_empty_cursor_is_followed_in_the_2026_era_only() {
    let paged = ["--discover", "--page-size", "1", "--empty-first-cursor"];
    let served = pin();
    let second = r#""name":"convert_time","arguments":{"source_timezone":"UTC","time":"12:00","target_timezone":"UTC"}"#;
    let modern = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{{second},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    let (out, events) = guarded(&[], &served, &paged, &[&modern], Pace::Paced);
    assert_eq!(
        answer(&out, 3)["result"]["content"][0]["text"],
        "ok",
        "{out:?}"
    );
    assert!(events
        .iter()
        .any(|e| e["event"] == "live-listed" && e["tools"] == 2));
    let legacy =
        format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{{second}}}}}"#);
    let (out, events) = guarded(
        &[],
        &served,
        &paged,
        &[INIT, INITIALIZED, &legacy],
        Pace::Paced,
    );
    // The listing ended after the first page: the second page's tool reads as removed.
    let (rule, problems) = refusal(&out, 3);
    assert_eq!(rule, "tool-not-live", "{out:?}");
    assert!(problems[1].starts_with("tool-removed"), "{problems:?}");
    assert!(events
        .iter()
        .any(|e| e["event"] == "live-listed" && e["tools"] == 1));
}
