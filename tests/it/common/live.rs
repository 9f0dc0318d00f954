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

/// Starts the fixture serving `payload` over Streamable HTTP on a free loopback port, and
/// returns it with its port.
pub fn http_fixture(payload: &str, flags: &[&str]) -> (std::process::Child, u16) {
    use std::io::BufRead;
    let argv = fixture(payload, &[&["--http", "127.0.0.1:0"], flags].concat());
    let mut child = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .parse()
        .unwrap();
    (child, port)
}

/// The start of a guard's argv, `guard --approved PIN --audit AUDIT` (flags, `--` and the server
/// follow).
pub fn guard_args(pin: &Path, audit: &Path) -> Vec<String> {
    vec![
        "guard".into(),
        "--approved".into(),
        pin.display().to_string(),
        "--audit".into(),
        audit.display().to_string(),
    ]
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
    super::skip(&format!(
        "{} is not installed (npm ci --prefix servers; python3 -m venv servers/.venv && \
         servers/.venv/bin/pip install -r servers/requirements.txt)",
        path.display()
    ));
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

/// Whether process `pid` is gone (or a zombie) within 5 s.
pub fn gone_soon(pid: u32) -> bool {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !process_gone(pid) && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    process_gone(pid)
}

/// A client of a stdio server (or of driftlab in front of one): it writes lines and collects
/// what comes back.
struct Client {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: mpsc::Receiver<String>,
    out: Vec<String>,
}

impl Client {
    fn start(program: &str, args: &[String]) -> Client {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let (tx, lines) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.unwrap_or_default()).is_err() {
                    return;
                }
            }
        });
        Client {
            child,
            stdin,
            lines,
            out: Vec::new(),
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Collects lines until one answers `id` (10 s at most).
    fn read_until(&mut self, id: &str) {
        let needle = format!("\"id\":{id}");
        let deadline = Instant::now() + Duration::from_secs(10);
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            let done = line.contains(&needle);
            self.out.push(line);
            if done {
                return;
            }
        }
    }

    /// Hangs up and returns every line, the exit code and stderr.
    fn finish(mut self) -> (Vec<String>, Option<i32>, String) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        self.out.extend(self.lines.try_iter());
        let mut err = String::new();
        std::io::Read::read_to_string(&mut self.child.stderr.take().unwrap(), &mut err).unwrap();
        (self.out, status.code(), err)
    }
}

/// Runs `program args`, writes `lines`, reads stdout until a line with `"id":<until>` (or 10 s),
/// then hangs up; returns every stdout line, the exit code and stderr.
pub fn session(
    program: &str,
    args: &[String],
    lines: &[&str],
    until: &str,
) -> (Vec<String>, Option<i32>, String) {
    let mut client = Client::start(program, args);
    for line in lines {
        client.send(line);
    }
    client.read_until(until);
    client.finish()
}

/// Like [`session`], but a client that waits: after each request (a line with an id) it reads
/// until the answer with that id arrives (10 s at most), then sends the next line; then hangs up.
pub fn stepwise(
    program: &str,
    args: &[String],
    lines: &[&str],
) -> (Vec<String>, Option<i32>, String) {
    let mut client = Client::start(program, args);
    for line in lines {
        client.send(line);
        let id = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v.get("id").cloned());
        if let Some(id) = id {
            client.read_until(&id.to_string());
        }
    }
    client.finish()
}
