//! Helpers shared by the CLI tests: run the real binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn driftlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_driftlab"))
}

pub fn run(args: &[&str]) -> Output {
    driftlab().args(args).output().expect("binary runs")
}

pub fn run_in(dir: &Path, args: &[&str], threads: Option<usize>) -> Output {
    let mut command = driftlab();
    command.current_dir(dir).args(args);
    if let Some(n) = threads {
        command.env("RAYON_NUM_THREADS", n.to_string());
    }
    command.output().expect("binary runs")
}

/// A one-tool `tools/list` payload whose parameter `parameter` is a chain of 5,000 local `$ref`s
/// (issue 49: a 5,000-deep recursion aborted every command once).
pub fn ref_chain_payload(name: &str, parameter: &str) -> serde_json::Value {
    let links = 5000;
    let mut defs = serde_json::Map::new();
    for i in 0..links {
        let next = format!("#/$defs/d{}", i + 1);
        defs.insert(format!("d{i}"), serde_json::json!({ "$ref": next }));
    }
    defs.insert(format!("d{links}"), serde_json::json!({"type": "string"}));
    serde_json::json!({"tools": [{"name": name, "inputSchema": {"type": "object",
        "properties": {parameter: {"$ref": "#/$defs/d0"}}, "$defs": defs}}]})
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).expect("file exists")).expect("valid JSON")
}

pub mod live;
pub mod registry;

/// Says in the test summary that the running test checked nothing, and why. Written straight to
/// stderr: libtest captures `eprintln!` (and shows it only for a failure), so a skip would pass
/// as `ok` unseen. CI sets DRIFTLAB_REQUIRE_LIVE_SERVERS, and the callers fail there instead.
pub fn skip(why: &str) {
    use std::io::Write;
    let test = std::thread::current().name().unwrap_or("?").to_string();
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {why}");
}

/// The rules of a JSON report's findings, in order.
pub fn finding_rules(report: &serde_json::Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

/// `driftlab diff --format json` of two payloads (written to files): exit code and report.
pub fn diff_json(
    old: &serde_json::Value,
    new: &serde_json::Value,
) -> (Option<i32>, serde_json::Value) {
    compare_json(false, old, new)
}

/// `driftlab check --format json --approved OLD NEW` of two payloads: exit code and report.
pub fn check_json(
    old: &serde_json::Value,
    new: &serde_json::Value,
) -> (Option<i32>, serde_json::Value) {
    compare_json(true, old, new)
}

fn compare_json(
    check: bool,
    old: &serde_json::Value,
    new: &serde_json::Value,
) -> (Option<i32>, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    std::fs::write(&a, old.to_string()).unwrap();
    std::fs::write(&b, new.to_string()).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let output = if check {
        run(&["check", "--format", "json", "--approved", a, b])
    } else {
        run(&["diff", "--format", "json", a, b])
    };
    let report = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not a JSON report ({e}): {}", stderr(&output)));
    (output.status.code(), report)
}

/// A study rerun into a temporary folder by [`assert_regenerates`].
pub struct Regenerated {
    /// The files compared, sorted.
    pub names: Vec<String>,
    /// The fresh results folder (removed with `_dir`).
    pub fresh: PathBuf,
    _dir: tempfile::TempDir,
}

/// Runs `args --out <temp>/<study>` from the repository root and checks that every file it wrote
/// (but `run.json`, the run's volatile record, and hidden files such as the lock) equals
/// results/<study>'s copy, `manifest.json` included; `names` lists the others.
/// Where two versions of a file part: the first differing line of each (with its number) and
/// the two lines after it, or the sizes when the file is not text.
pub fn first_differences(committed: &[u8], fresh: &[u8]) -> String {
    let (Ok(a), Ok(b)) = (std::str::from_utf8(committed), std::str::from_utf8(fresh)) else {
        return format!(
            "binary: {} bytes committed, {} regenerated",
            committed.len(),
            fresh.len()
        );
    };
    let at = driftlab_contract::text::first_differing_line(a, b).unwrap_or(a.lines().count());
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let show = |lines: &[&str]| -> String {
        lines
            .iter()
            .skip(at)
            .take(3)
            .map(|line| format!("    {line}\n"))
            .collect()
    };
    format!(
        "first difference at line {}:\n  committed:\n{}  regenerated:\n{}",
        at + 1,
        show(&a),
        show(&b)
    )
}

/// Whether a committed file and its regenerated copy agree: byte for byte, but for a manifest's
/// `code` (the commit that wrote it: this build's, not the committed run's).
pub fn same_file(name: &str, committed: &[u8], fresh: &[u8]) -> bool {
    if name.ends_with("manifest.json") {
        driftlab_record::provenance::same_but_code(committed, fresh)
    } else {
        committed == fresh
    }
}

/// A fresh manifest names the code of the binary under test: its version and a digest of its
/// sources (which the binary registers at link time; a program that did not would write
/// "unregistered").
pub fn assert_names_this_build(manifest: &[u8]) {
    let manifest: serde_json::Value = serde_json::from_slice(manifest).unwrap();
    let code = &manifest["code"];
    assert_eq!(code["version"], env!("CARGO_PKG_VERSION"), "{manifest}");
    let digest = code["source_sha256"].as_str().unwrap_or_default();
    assert!(
        digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit()),
        "{manifest}"
    );
}

pub fn assert_regenerates(study: &str, args: &[&str]) -> Regenerated {
    let committed = repo().join("results").join(study);
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join(study);
    let mut all = args.to_vec();
    all.extend(["--out", fresh.to_str().unwrap()]);
    let output = run_in(&repo(), &all, None);
    assert!(output.status.success(), "{}", stderr(&output));
    let mut names: Vec<String> = std::fs::read_dir(&fresh)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        // run.json records the code, time and host of this run: volatile, and git-ignored.
        .filter(|n| n != "manifest.json" && n != "run.json" && !n.starts_with('.'))
        .collect();
    names.sort();
    for name in names.iter().map(String::as_str).chain(["manifest.json"]) {
        let a = std::fs::read(committed.join(name)).unwrap_or_default();
        let b = std::fs::read(fresh.join(name)).unwrap();
        if name == "manifest.json" {
            assert_names_this_build(&b);
        }
        let same = same_file(name, &a, &b);
        assert!(
            same,
            "{name} of {study} differs from the committed copy: rerun scripts/regenerate\n{}",
            first_differences(&a, &b)
        );
    }
    Regenerated {
        names,
        fresh,
        _dir: dir,
    }
}
