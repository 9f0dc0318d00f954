//! Helpers for tests that run live servers: the scripted fixture server and the pinned real ones.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

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
