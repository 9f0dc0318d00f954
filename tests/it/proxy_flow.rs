//! The proxy loop under load and under peers that misbehave (`wrap` in front of the fixture
//! server): hundreds of requests in flight, a client that stops reading, a line over the limit.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::live::{fixture, session};
use serde_json::Value;

const TIME: &str = "corpus/mcp-server-time@2026.10.19.json";
const FILESYSTEM: &str = "corpus/@modelcontextprotocol__server-filesystem@2026.8.31.json";
const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

fn wrap_argv(flags: &[&str], served: &str, fixture_flags: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = vec!["wrap".into()];
    args.extend(flags.iter().map(|s| s.to_string()));
    args.push("--".into());
    args.extend(fixture(served, fixture_flags));
    args
}

fn echo_call(id: usize, padding: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_current_time","arguments":{{"timezone":"{}"}}}}}}"#,
        "x".repeat(padding)
    )
}

#[test]
fn five_hundred_calls_in_flight_all_come_back_once() {
    // Written at once, without waiting for answers: one loop doing blocking writes to the server
    // while the server's answers queued behind the client's lines used to stall for good.
    let calls: Vec<String> = (0..500).map(|id| echo_call(1000 + id, 2048)).collect();
    let mut lines: Vec<&str> = vec![INIT];
    lines.extend(calls.iter().map(String::as_str));
    let (out, code, err) = session(
        env!("CARGO_BIN_EXE_driftlab"),
        &wrap_argv(&[], TIME, &["--calls", "echo"]),
        &lines,
        "1499",
    );
    assert_eq!(code, Some(0), "{err}");
    let mut ids: Vec<u64> = out
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok()?["id"].as_u64())
        .filter(|id| *id >= 1000)
        .collect();
    ids.sort_unstable();
    let expected: Vec<u64> = (1000..1500).collect();
    assert_eq!(ids, expected, "every call answered exactly once");
}

#[test]
fn a_server_line_over_the_limit_is_named_told_to_the_client_and_fails_the_run() {
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let (out, code, err) = session(
        env!("CARGO_BIN_EXE_driftlab"),
        &wrap_argv(&["--max-bytes", "2000"], FILESYSTEM, &[]),
        &[INIT, list],
        "null",
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("the server sent a line over the 2000-byte limit"),
        "{err}"
    );
    let told = out
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["id"].is_null() && v.get("error").is_some())
        .unwrap_or_else(|| panic!("the client was not told: {out:?}"));
    assert!(told["error"]["message"]
        .as_str()
        .unwrap()
        .contains("2000-byte limit"));
}

/// The peak resident memory of a process, in KiB (Linux).
fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Peak memory of `wrap --max-bytes 1000000` when a client sends `calls` calls of 900 KB whose
/// answers echo them, reads the first answer and then never reads again.
fn flood_peak_kib(calls: usize) -> u64 {
    flood_peak_kib_with(1_000_000, 900_000, calls)
}

/// [`flood_peak_kib`] with `--max-bytes max_bytes` and calls of `padding` bytes. mimalloc is told
/// to hand freed memory back at once, so the peak is nearer what the proxy holds.
fn flood_peak_kib_with(max_bytes: usize, padding: usize, calls: usize) -> u64 {
    let max_bytes = max_bytes.to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_driftlab"))
        .args(wrap_argv(
            &["--max-bytes", &max_bytes],
            TIME,
            &["--calls", "echo"],
        ))
        .env("MIMALLOC_PURGE_DELAY", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "{INIT}").unwrap();
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let (done, measured) = std::sync::mpsc::channel::<()>();
    let writer = std::thread::spawn(move || {
        for id in 0..calls {
            if writeln!(stdin, "{}", echo_call(10 + id, padding)).is_err() {
                return;
            }
        }
        // The client stays (its stdin open) until the peak is read.
        let _ = measured.recv();
    });
    // Give the flood time to fill every buffer it can (it stalls against the bounds).
    std::thread::sleep(Duration::from_secs(3));
    let peak = peak_kib(pid).expect("/proc/PID/status is readable");
    drop(done);
    let _ = child.kill();
    let _ = child.wait();
    drop(stdout);
    let _ = writer.join();
    peak
}

#[test]
fn a_client_that_stops_reading_slows_the_server_down_instead_of_growing_the_proxy() {
    // 80 calls are about 140 MB both ways; with a 1 MB bound per direction the proxy holds the
    // same few MB as for 10 calls (a bound in messages held all of them).
    let small = flood_peak_kib(10);
    let large = flood_peak_kib(80);
    eprintln!("peak with 10 calls {small} KiB, with 80 calls {large} KiB");
    assert!(
        large < small + 32 * 1024,
        "the proxy grew with the flood: {small} KiB for 10 calls, {large} KiB for 80"
    );
}

#[test]
fn each_direction_holds_no_more_than_max_bytes_of_lines() {
    // Lines of 15 MB under a 16 MiB bound, to a client that stops reading. Each direction holds
    // at most one bound of line bytes (read, queued and being handled), and the strict reading of
    // the one message being handled takes about its size again: the proxy holds about 3.6 bounds
    // (59-61 MB here). It held 6.4-6.9 (107-116 MB): a reader kept a whole line beside the
    // budget while it waited for room, and the loop copied every line it passed on.
    let bound: u64 = 16 << 20;
    let baseline = flood_peak_kib_with(bound as usize, 10, 8);
    let flooded = flood_peak_kib_with(bound as usize, 15_000_000, 8);
    let held = flooded.saturating_sub(baseline) * 1024;
    eprintln!("baseline {baseline} KiB, flooded {flooded} KiB: {held} bytes held");
    assert!(
        held * 2 <= 9 * bound,
        "the proxy held {held} bytes with --max-bytes {bound} (4.5 bounds allowed)"
    );
}
