//! Helpers for tests that run live servers: the scripted fixture server and the pinned real ones.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::repo;

/// The scripted fixture server (`examples/fixture_server.rs`). A full `cargo test` builds it;
/// `cargo test --test NAME` does not, so then build it first with
/// `cargo build --example fixture_server` (a cargo run from inside a test would fight the outer
/// one over the build directory).
pub fn fixture_server() -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_driftlab"));
    let path = exe.parent().unwrap().join("examples/fixture_server");
    let source = repo().join("examples/fixture_server.rs");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    assert!(
        path.exists() && modified(&path) >= modified(&source),
        "{} is missing or older than its source: run `cargo build --example fixture_server` \
         (a full `cargo test` builds it)",
        path.display()
    );
    path
}

/// argv for the fixture serving `payload` (a path under tests/data) with extra flags.
pub fn fixture(payload: &str, flags: &[&str]) -> Vec<String> {
    let mut argv = vec![
        fixture_server().display().to_string(),
        repo()
            .join("tests/data")
            .join(payload)
            .display()
            .to_string(),
    ];
    argv.extend(flags.iter().map(|s| s.to_string()));
    argv
}

/// Where the pinned real servers are installed (`.ci/run` installs them).
pub fn servers_dir() -> PathBuf {
    repo().join("servers")
}

/// Whether `path` (a pinned server) is installed. When it is not, CI fails (it sets
/// DRIFTLAB_REQUIRE_LIVE_SERVERS) and a local run skips with a message saying how to install.
pub fn installed(path: &Path) -> bool {
    if path.exists() {
        return true;
    }
    assert!(
        std::env::var_os("DRIFTLAB_REQUIRE_LIVE_SERVERS").is_none(),
        "{} is missing but DRIFTLAB_REQUIRE_LIVE_SERVERS is set: run `npm ci --prefix servers` \
         and `python3 -m venv servers/.venv && servers/.venv/bin/pip install -r servers/requirements.txt`",
        path.display()
    );
    eprintln!(
        "skipped: {} is not installed (npm ci --prefix servers; python3 -m venv servers/.venv && \
         servers/.venv/bin/pip install -r servers/requirements.txt)",
        path.display()
    );
    false
}

/// Whether a process is gone (or a zombie waiting for a parent that is not us).
pub fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

/// Runs `program args`, writes `lines`, reads stdout until a line with `"id":<until>` (or 10 s),
/// then hangs up; returns every stdout line and the exit status.
pub fn session(
    program: &str,
    args: &[String],
    lines: &[&str],
    until: &str,
) -> (Vec<String>, Option<i32>, String) {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap_or_default()).is_err() {
                return;
            }
        }
    });
    let mut out = Vec::new();
    let needle = format!("\"id\":{until}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        let done = line.contains(&needle);
        out.push(line);
        if done {
            break;
        }
    }
    drop(stdin);
    let status = child.wait().unwrap();
    out.extend(rx.try_iter());
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    (out, status.code(), err)
}

/// Like [`session`], but a client that waits: after each request (a line with an id) it reads
/// until the answer with that id arrives (10 s at most), then sends the next line; then hangs up.
pub fn stepwise(
    program: &str,
    args: &[String],
    lines: &[&str],
) -> (Vec<String>, Option<i32>, String) {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
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
    let mut out = Vec::new();
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let id = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v.get("id").cloned());
        let Some(id) = id else { continue };
        let needle = format!("\"id\":{id}");
        let deadline = Instant::now() + Duration::from_secs(10);
        while let Ok(got) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            let done = got.contains(&needle);
            out.push(got);
            if done {
                break;
            }
        }
    }
    drop(stdin);
    let status = child.wait().unwrap();
    out.extend(rx.try_iter());
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    (out, status.code(), err)
}
