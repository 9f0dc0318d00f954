//! The guard fails closed: crafted client lines that smuggle a forbidden `tools/call` past a
//! reader that reads them differently from the server (duplicate keys, lone surrogates, `1e400`,
//! deep nesting, bad UTF-8, `\r`-joined requests, a BOM, trailing bytes, batches, calls without
//! an id, near spellings of the method) are sent through `driftlab guard` to three servers: the
//! real filesystem server (Node), the real mcp-server-git (Python) and the fixture server in its
//! most forgiving mode. The pin holds only read-only tools; the forbidden call's side effect (a
//! file written, a branch created, a call logged) must never happen, and every line must get
//! one error line back and one audit entry.
//!
//! Each server also gets the same lines directly, without the guard: the plain forbidden call
//! must then have its side effect, which shows the side-effect check can see one.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::live::{fixture_server, guard_args, installed, servers_dir};
use common::repo;
use serde_json::{json, Value};

/// One crafted line: a label and its bytes (without the newline).
struct Crafted {
    label: &'static str,
    line: Vec<u8>,
}

/// The crafted lines, each calling `tool` with the arguments `arguments(n)` (n: the line's
/// index, so each side effect says which line caused it). Ids are 100 + n.
fn crafted(tool: &str, arguments: &dyn Fn(usize) -> String) -> Vec<Crafted> {
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let padding = "x".repeat(1 << 20);
    type Build = Box<dyn Fn(&str, &str) -> Vec<u8>>;
    let cases: Vec<(&'static str, Build)> = vec![
        (
            "plain",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{p}}}"#)
                    .into_bytes()
            }),
        ),
        (
            "duplicate-method-last",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{p},"method":"tools/call"}}"#).into_bytes()
            }),
        ),
        (
            "duplicate-method-first",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{p},"method":"ping"}}"#).into_bytes()
            }),
        ),
        (
            "duplicate-id",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{p},"id":"x{id}"}}"#).into_bytes()
            }),
        ),
        (
            "duplicate-key-escaped",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{p},"meth\u006fd":"tools/call"}}"#).into_bytes()
            }),
        ),
        (
            "lone-surrogate",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{p},"extra":"\ud800"}}"#).into_bytes()
            }),
        ),
        (
            "lone-surrogate-in-meta",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","_meta":{{"k":"\udc00"}},"params":{p}}}"#).into_bytes()
            }),
        ),
        (
            "number-1e400",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{p},"extra":1e400}}"#).into_bytes()
            }),
        ),
        (
            "nan",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{p},"extra":NaN}}"#).into_bytes()
            }),
        ),
        (
            "unsafe-integer",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{p},"extra":9007199254740993}}"#).into_bytes()
            }),
        ),
        ("deep-extra", {
            let deep = deep.clone();
            Box::new(move |id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{p},"extra":{deep}}}"#).into_bytes()
            })
        }),
        ("deep-meta", {
            let deep = deep.clone();
            Box::new(move |id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","_meta":{{"d":{deep}}},"params":{p}}}"#).into_bytes()
            })
        }),
        (
            "invalid-utf8-in-meta",
            Box::new(|id, p| {
                let mut line =
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","_meta":{{"k":""#)
                        .into_bytes();
                line.extend_from_slice(b"\xff\xfe");
                line.extend_from_slice(format!(r#""}},"params":{p}}}"#).as_bytes());
                line
            }),
        ),
        (
            "cr-joined",
            Box::new(|id, p| {
                format!("{{\"jsonrpc\":\"2.0\",\"id\":\"ping-{id}\",\"method\":\"ping\"}}\r{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{p}}}").into_bytes()
            }),
        ),
        (
            "byte-order-mark",
            Box::new(|id, p| {
                let mut line = b"\xEF\xBB\xBF".to_vec();
                line.extend_from_slice(
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{p}}}"#)
                        .as_bytes(),
                );
                line
            }),
        ),
        (
            "trailing-bytes",
            Box::new(|id, p| {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{p}}} trailing"#
                )
                .into_bytes()
            }),
        ),
        (
            "trailing-object",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{p}}}{{"jsonrpc":"2.0","id":"t{id}","method":"ping"}}"#).into_bytes()
            }),
        ),
        (
            "batch",
            Box::new(|id, p| {
                format!(r#"[{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{p}}}]"#)
                    .into_bytes()
            }),
        ),
        (
            "no-id",
            Box::new(|_, p| {
                format!(r#"{{"jsonrpc":"2.0","method":"tools/call","params":{p}}}"#).into_bytes()
            }),
        ),
        (
            "id-null",
            Box::new(|_, p| {
                format!(r#"{{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{p}}}"#)
                    .into_bytes()
            }),
        ),
        (
            "id-fraction",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id}.0,"method":"tools/call","params":{p}}}"#)
                    .into_bytes()
            }),
        ),
        (
            "no-jsonrpc",
            Box::new(|id, p| {
                format!(r#"{{"id":{id},"method":"tools/call","params":{p}}}"#).into_bytes()
            }),
        ),
        (
            "method-case",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"Tools/Call","params":{p}}}"#)
                    .into_bytes()
            }),
        ),
        (
            "method-trailing-space",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call ","params":{p}}}"#)
                    .into_bytes()
            }),
        ),
        (
            "method-nul",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call\u0000","params":{p}}}"#)
                    .into_bytes()
            }),
        ),
        (
            "method-escaped-slash",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools\/call","params":{p}}}"#)
                    .into_bytes()
            }),
        ),
        (
            "response-and-request",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}},"method":"tools/call","params":{p}}}"#).into_bytes()
            }),
        ),
        (
            "reserved-id",
            Box::new(|id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":"driftlab-guard-{id}","method":"tools/call","params":{p}}}"#).into_bytes()
            }),
        ),
        (
            "long-line",
            Box::new(move |id, p| {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","_meta":{{"pad":"{padding}"}},"params":{p}}}"#).into_bytes()
            }),
        ),
    ];
    cases
        .into_iter()
        .enumerate()
        .map(|(n, (label, build))| {
            let params = format!(r#"{{"name":"{tool}","arguments":{}}}"#, arguments(n));
            Crafted {
                label,
                line: build(&(100 + n).to_string(), &params),
            }
        })
        .collect()
}

/// A tool name with a NUL inside, which a server might cut at the NUL.
fn nul_name(tool: &str, arguments: &str) -> Crafted {
    Crafted {
        label: "nul-in-tool-name",
        line: format!(r#"{{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{{"name":"{tool}\u0000","arguments":{arguments}}}}}"#).into_bytes(),
    }
}

const INIT: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"driftlab-test","version":"0"}}}"#;
const INITIALIZED: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const LAST: &[u8] = br#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#;

/// Runs `argv`, performs the handshake, writes every crafted line, then a ping, reads until its
/// answer, waits a moment for the server to finish what it started, and hangs up. Returns what
/// the client received after the handshake.
fn session(argv: &[String], lines: &[Crafted]) -> Vec<Value> {
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap_or_default()).is_err() {
                return;
            }
        }
    });
    let read_until = |id: &Value| -> Vec<Value> {
        let mut out = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(20);
        while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            let value: Value = serde_json::from_str(&line)
                .unwrap_or_else(|_| panic!("the client got a line that is not JSON: {line}"));
            let done = value.get("id") == Some(id) && value.get("method").is_none();
            out.push(value);
            if done {
                return out;
            }
        }
        panic!("no answer to {id} within 20 s; got {out:?}");
    };
    let mut send = |line: &[u8]| {
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    };
    send(INIT);
    read_until(&json!(1));
    send(INITIALIZED);
    for crafted in lines {
        send(&crafted.line);
    }
    send(LAST);
    let out = read_until(&json!("last"));
    // A server runs requests concurrently: give a forwarded call time to land.
    std::thread::sleep(Duration::from_millis(500));
    drop(stdin);
    let _ = child.wait();
    out
}

fn guard_argv(pin: &Path, audit: &Path, server: &[String]) -> Vec<String> {
    let mut argv = vec![env!("CARGO_BIN_EXE_driftlab").to_string()];
    argv.extend(guard_args(pin, audit));
    argv.push("--".into());
    argv.extend_from_slice(server);
    argv
}

/// A pin of the read-only tools of a capture or payload.
fn read_only_pin(source: &Value, dir: &Path) -> PathBuf {
    let tools = source
        .pointer("/toolsList/tools")
        .or_else(|| source.get("tools"))
        .and_then(Value::as_array)
        .unwrap();
    let read_only: Vec<&Value> = tools
        .iter()
        .filter(|t| t.pointer("/annotations/readOnlyHint") == Some(&json!(true)))
        .collect();
    assert!(read_only.len() >= 3, "the pin has read-only tools");
    let path = dir.join("pin.json");
    std::fs::write(&path, json!({ "tools": read_only }).to_string()).unwrap();
    path
}

/// Checks the guarded session: no side effect, one error line and one audit refusal per line.
fn assert_refused_every_line(
    server: &str,
    lines: &[Crafted],
    out: &[Value],
    audit: &Path,
    effects: &[usize],
) {
    let labels: Vec<&str> = effects.iter().map(|&n| lines[n].label).collect();
    assert!(
        labels.is_empty(),
        "{server}: the forbidden call ran through the guard for {labels:?}"
    );
    let answers: Vec<&Value> = out
        .iter()
        .filter(|v| v.get("method").is_none() && v.get("id") != Some(&json!("last")))
        .collect();
    let refused = |v: &&&Value| {
        v.get("error").is_some() || v.pointer("/result/isError") == Some(&json!(true))
    };
    assert_eq!(
        answers.iter().filter(refused).count(),
        lines.len(),
        "{server}: one error line per crafted line; got {answers:#?}"
    );
    assert_eq!(
        answers.len(),
        lines.len(),
        "{server}: nothing else answered"
    );
    let refusals = std::fs::read_to_string(audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["event"] == "refuse-message" || e["event"] == "refuse")
        .count();
    assert_eq!(
        refusals,
        lines.len(),
        "{server}: one audit refusal per crafted line"
    );
}

/// Runs the lines directly and through the guard; `effects` lists the lines whose side effect
/// happened (by index) since the last call.
fn attack(
    server: &str,
    argv: &[String],
    pin: &Path,
    lines: &[Crafted],
    effects: &mut dyn FnMut() -> Vec<usize>,
) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let out = session(&guard_argv(pin, &audit, argv), lines);
    let through_guard = effects();
    assert_refused_every_line(server, lines, &out, &audit, &through_guard);
    session(argv, lines);
    let direct = effects();
    assert!(
        direct.contains(&0),
        "{server}: without the guard the plain forbidden call must have its side effect (else this test cannot see one)"
    );
    let labels: Vec<&str> = direct.iter().map(|&n| lines[n].label).collect();
    eprintln!(
        "{server}: without the guard {} of {} crafted lines ran the forbidden call: {labels:?}",
        direct.len(),
        lines.len()
    );
    direct.len()
}

#[test]
fn the_guard_refuses_every_crafted_line_before_the_lenient_fixture() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.jsonl");
    let payload =
        repo().join("tests/data/corpus/@modelcontextprotocol__server-filesystem@2026.8.31.json");
    let argv = vec![
        fixture_server().display().to_string(),
        payload.display().to_string(),
        "--lenient".into(),
        "--calls".into(),
        "accept".into(),
        "--call-log".into(),
        log.display().to_string(),
    ];
    let source: Value = serde_json::from_slice(&std::fs::read(&payload).unwrap()).unwrap();
    let pin = read_only_pin(&source, dir.path());
    let arguments = |n: usize| format!(r#"{{"path":"/tmp/pwned-{n}","content":"x"}}"#);
    let mut lines = crafted("write_file", &arguments);
    lines.push(nul_name("write_file", &arguments(lines.len())));
    let mut effects = || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        let mut ran: Vec<usize> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|c| {
                c["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("write_file"))
            })
            .filter_map(|c| {
                c.pointer("/arguments/path")?
                    .as_str()?
                    .strip_prefix("/tmp/pwned-")?
                    .parse()
                    .ok()
            })
            .collect();
        ran.sort_unstable();
        ran.dedup();
        ran
    };
    let direct = attack("fixture --lenient", &argv, &pin, &lines, &mut effects);
    // The forgiving reader runs most of them: the suite is an attack, not a formality.
    assert!(
        direct >= 15,
        "the lenient fixture ran only {direct} of the crafted lines"
    );
}

#[test]
fn the_guard_refuses_every_crafted_line_before_the_real_filesystem_server() {
    let entry =
        servers_dir().join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    if !installed(&entry) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let root = root.canonicalize().unwrap();
    let argv = vec![
        "node".to_string(),
        entry.display().to_string(),
        root.display().to_string(),
    ];
    let source: Value = serde_json::from_slice(
        &std::fs::read(
            repo()
                .join("tests/data/corpus/@modelcontextprotocol__server-filesystem@2026.8.31.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let pin = read_only_pin(&source, dir.path());
    let target = |n: usize| root.join(format!("pwned-{n}.txt"));
    let arguments = |n: usize| {
        format!(
            r#"{{"path":{},"content":"written"}}"#,
            json!(target(n).display().to_string())
        )
    };
    let mut lines = crafted("write_file", &arguments);
    lines.push(nul_name("write_file", &arguments(lines.len())));
    let count = lines.len();
    let mut effects = || {
        (0..count)
            .filter(|&n| std::fs::remove_file(target(n)).is_ok())
            .collect()
    };
    attack("server-filesystem", &argv, &pin, &lines, &mut effects);
}

#[test]
fn the_guard_refuses_every_crafted_line_before_the_real_git_server() {
    let entry = servers_dir().join(".venv/bin/mcp-server-git");
    if !installed(&entry) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo_dir = dir.path().join("repo");
    std::fs::create_dir(&repo_dir).unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
            .args(args)
            .current_dir(&repo_dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    git(&["init", "-q"]);
    git(&["commit", "-q", "--allow-empty", "-m", "init"]);
    let argv = vec![
        entry.display().to_string(),
        "--repository".into(),
        repo_dir.display().to_string(),
    ];
    // The pin: the server's own read-only tools, captured now.
    let capture = dir.path().join("capture.json");
    let output = common::driftlab()
        .args(["capture", "-o", capture.to_str().unwrap(), "--"])
        .args(&argv)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", common::stderr(&output));
    let source: Value = serde_json::from_slice(&std::fs::read(&capture).unwrap()).unwrap();
    let pin = read_only_pin(&source, dir.path());
    let arguments = |n: usize| {
        format!(
            r#"{{"repo_path":{},"branch_name":"pwned-{n}"}}"#,
            json!(repo_dir.display().to_string())
        )
    };
    let mut lines = crafted("git_create_branch", &arguments);
    lines.push(nul_name("git_create_branch", &arguments(lines.len())));
    let mut effects = || {
        let branches = git(&["branch", "--list", "pwned-*", "--format=%(refname:short)"]);
        let mut made: Vec<usize> = branches
            .lines()
            .filter_map(|b| b.strip_prefix("pwned-")?.parse().ok())
            .collect();
        for n in &made {
            git(&["branch", "-q", "-D", &format!("pwned-{n}")]);
        }
        made.sort_unstable();
        made
    };
    attack("mcp-server-git", &argv, &pin, &lines, &mut effects);
}
