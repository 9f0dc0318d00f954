//! `driftlab capture` and the live gate against real published MCP servers, pinned in
//! `servers/` (package-lock.json, requirements.txt) and installed by `.ci/run`. A capture of a
//! pinned version must equal that version's capture in the shared corpus (copied to
//! tests/data/corpus): the same bytes, so the same tools in the same order. (The corpus stores
//! `toolsList` parsed and re-serialised, and hashes the whole JSON-RPC response line; these
//! servers send compact JSON, so the compact serialisation of the corpus value is their bytes.)

use crate::common;

use std::path::{Path, PathBuf};

use common::live::{installed, servers_dir};
use common::{read_json, repo, run, stderr, stdout};
use sha2::{Digest, Sha256};

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn node_server(package: &str) -> Option<PathBuf> {
    let entry = servers_dir()
        .join("node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    installed(&entry).then_some(entry)
}

fn time_server() -> Option<PathBuf> {
    let entry = servers_dir().join(".venv/bin/mcp-server-time");
    installed(&entry).then_some(entry)
}

/// Captures with `argv` and compares the result with the corpus capture `corpus`.
fn assert_capture_matches_corpus(corpus: &str, argv: &[String], env: &[(&str, &str)]) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("capture.json");
    let mut command = common::driftlab();
    command
        // The corpus captures were taken with the initialize handshake.
        .args([
            "capture",
            "--protocol",
            "legacy",
            "-o",
            out.to_str().unwrap(),
            "--",
        ])
        .args(argv);
    for (k, v) in env {
        command.env(k, v);
    }
    let output = command.output().unwrap();
    assert!(output.status.success(), "{corpus}: {}", stderr(&output));
    let capture = read_json(&out);
    let reference = read_json(&repo().join("tests/data/corpus").join(corpus));
    let compact = serde_json::to_string(&reference["toolsList"]).unwrap();
    assert_eq!(
        capture["capture"]["toolsListRawSha256"][0]
            .as_str()
            .unwrap(),
        sha256_hex(compact.as_bytes()),
        "{corpus}: the live tools/list bytes differ from the corpus capture"
    );
    assert_eq!(capture["toolsList"], reference["toolsList"], "{corpus}");
    assert_eq!(
        capture["initializeResult"]["serverInfo"], reference["initializeResult"]["serverInfo"],
        "{corpus}"
    );
    // And the gate agrees: the live server passes against the corpus capture, in one step.
    let mut check = common::driftlab();
    check
        .args(["check", "--approved"])
        .arg(repo().join("tests/data/corpus").join(corpus))
        .arg("--")
        .args(argv);
    for (k, v) in env {
        check.env(k, v);
    }
    let gate = check.output().unwrap();
    assert_eq!(
        gate.status.code(),
        Some(0),
        "{corpus}: {}{}",
        stdout(&gate),
        stderr(&gate)
    );
}

fn node(entry: &Path, args: &[&str]) -> Vec<String> {
    let mut argv = vec!["node".to_string(), entry.display().to_string()];
    argv.extend(args.iter().map(|s| s.to_string()));
    argv
}

#[test]
fn server_filesystem_matches_its_corpus_capture() {
    let Some(entry) = node_server("server-filesystem") else {
        return;
    };
    let root = tempfile::tempdir().unwrap();
    assert_capture_matches_corpus(
        "@modelcontextprotocol__server-filesystem@2026.8.31.json",
        &node(&entry, &[root.path().to_str().unwrap()]),
        &[],
    );
}

#[test]
fn server_everything_matches_its_corpus_capture() {
    let Some(entry) = node_server("server-everything") else {
        return;
    };
    assert_capture_matches_corpus(
        "@modelcontextprotocol__server-everything@2026.8.31.json",
        &node(&entry, &[]),
        &[],
    );
}

#[test]
fn server_memory_matches_its_corpus_capture() {
    let Some(entry) = node_server("server-memory") else {
        return;
    };
    // Otherwise it writes its graph into its own package folder.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.jsonl");
    assert_capture_matches_corpus(
        "@modelcontextprotocol__server-memory@2026.8.31.json",
        &node(&entry, &[]),
        &[("MEMORY_FILE_PATH", file.to_str().unwrap())],
    );
}

#[test]
fn mcp_server_time_matches_its_corpus_capture() {
    let Some(entry) = time_server() else { return };
    assert_capture_matches_corpus(
        "mcp-server-time@2026.10.19.json",
        &[entry.display().to_string()],
        &[("TZ", "UTC")],
    );
}

#[test]
fn the_live_gate_catches_a_real_release_difference() {
    // The approved snapshot is the older release; the live server is the newer one.
    let Some(entry) = time_server() else { return };
    let output = common::driftlab()
        .args(["check", "--format", "json", "--approved"])
        .arg(repo().join("tests/data/corpus/mcp-server-time@2025.7.1.json"))
        .arg("--")
        .arg(&entry)
        .env("TZ", "UTC")
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"output-schema-added"), "{rules:?}");
}

#[test]
fn server_everything_over_streamable_http() {
    let Some(entry) = node_server("server-everything") else {
        return;
    };
    // A free port: bind, read it, release it for the server.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = std::process::Command::new("node")
        .arg(&entry)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err()
        && std::time::Instant::now() < until
    {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("capture.json");
    let output = run(&["capture", "-o", out.to_str().unwrap(), "--url", &url]);
    let _ = server.kill();
    let _ = server.wait();
    assert!(output.status.success(), "{}", stderr(&output));
    let capture = read_json(&out);
    let reference = read_json(
        &repo().join("tests/data/corpus/@modelcontextprotocol__server-everything@2026.8.31.json"),
    );
    let names = |v: &serde_json::Value| -> Vec<String> {
        v["toolsList"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&capture), names(&reference));
    assert!(capture["initializeResult"]["serverInfo"]["name"].is_string());
}

#[test]
fn the_live_half_of_the_output_contracts_study_regenerates() {
    // Every pinned server must be installed (the script scans all four).
    let (Some(_), Some(_)) = (node_server("server-everything"), time_server()) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("bash")
        .arg(repo().join("scripts/scan-pinned-servers.sh"))
        .arg(out.path())
        .env("DRIFTLAB", env!("CARGO_BIN_EXE_driftlab"))
        .status()
        .unwrap();
    assert!(status.success());
    let committed = repo().join("results/2026-11-30-output-contracts/live");
    for server in [
        "server-everything",
        "server-filesystem",
        "server-memory",
        "mcp-server-time",
    ] {
        let name = format!("{server}.json");
        let fresh = std::fs::read_to_string(out.path().join(&name)).unwrap();
        assert_eq!(
            fresh,
            std::fs::read_to_string(committed.join(&name)).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn the_live_drift_study_regenerates_byte_for_byte() {
    // Every pinned server must be installed.
    let (Some(_), Some(_)) = (node_server("server-everything"), time_server()) else {
        return;
    };
    let study = "mcp-live-drift-2026-11-30";
    let names = common::assert_regenerates(
        study,
        &[
            "study",
            "--quiet",
            "research/2026-11-30-live-drift/study.toml",
        ],
    )
    .names;
    assert!(names.contains(&"rows.csv".to_string()) && names.contains(&"report.md".to_string()));
    let committed = repo().join("results").join(study);
    // What the study measures about the live layer itself: the control passes through untouched,
    // so no gate flags it.
    let summary = read_json(&committed.join("summary.json"));
    for control in summary["controls"].as_array().unwrap() {
        assert_eq!(control["false_positives"], 0, "{control}");
    }
}

#[test]
fn the_guard_study_regenerates_byte_for_byte() {
    let Some(_) = node_server("server-memory") else {
        return;
    };
    let study = "2026-11-30-silent-failures";
    let names = common::assert_regenerates(
        study,
        &[
            "guard-study",
            "--yes",
            "research/2026-11-30-silent-failures/study.toml",
        ],
    )
    .names;
    assert_eq!(
        names,
        [
            "calls.csv",
            "report.md",
            "silent-failures-3.5in.png",
            "silent-failures-3.5in.svg",
            "silent-failures-7in.png",
            "silent-failures-7in.svg",
            "silent-failures.png",
            "silent-failures.svg",
            "summary.csv",
            "summary.json"
        ]
    );
    let committed = repo().join("results").join(study);
    // What the study measures: the guard lets no silent failure through, in either mode, and
    // refuses nothing under drift that is not breaking.
    let summary = read_json(&committed.join("summary.json"));
    let totals = &summary["totals"]["paths"];
    for path in totals.as_array().unwrap().iter().skip(1) {
        assert_eq!(path[1]["accepted_wrong"], 0, "{path}");
    }
    for row in summary["rows"].as_array().unwrap() {
        if row["server"] == "all" && row["label"] != "breaking" {
            for path in row["paths"].as_array().unwrap() {
                assert_eq!(path[1]["refused_by_guard"], 0, "{row}");
            }
        }
    }
}
