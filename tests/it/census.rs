//! `driftlab census`: offline from hand-made captures (bumps, verdicts, reverts, failure rows,
//! byte-identical reruns), and online against a real local npm registry (Verdaccio, started by
//! the test on 127.0.0.1) to which the test publishes releases of a fixture server.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::json;

use crate::common::registry::{free_port, installed_or_skip, wait_until_serving, Running};
use crate::common::*;
use driftlab_study::study::results::staging::copy_tree;

/// Tools of the fixture's releases: a base, a rename of a required parameter, a revert to the
/// base, and a compatible addition (an optional parameter).
pub(crate) fn tools(release: &str) -> serde_json::Value {
    let weather = |param: &str, extra: bool| {
        let mut properties = json!({ param: { "type": "string" }, "units": { "type": "string", "enum": ["c", "f"] } });
        if extra {
            properties["days"] = json!({ "type": "integer" });
        }
        json!({
            "name": "get_weather",
            "description": "Current weather for a city.",
            "inputSchema": { "type": "object", "properties": properties, "required": [param] }
        })
    };
    let list = json!({ "name": "list_cities", "description": "Every city known.", "inputSchema": { "type": "object" } });
    match release {
        "1.0.0" | "1.1.1" => json!([weather("city", false), list]),
        "1.1.0" => json!([weather("location", false), list]),
        _ => json!([weather("city", true), list]),
    }
}

pub(crate) fn rows(path: &Path) -> Vec<Vec<String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect()
}

pub(crate) fn spec(dir: &Path, registry: Option<&str>, packages: &str) -> PathBuf {
    let path = dir.join("census.toml");
    let registry = registry
        .map(|r| format!("npm_registry = \"{r}\"\n"))
        .unwrap_or_default();
    fs::write(
        &path,
        format!("id = \"census-fixture\"\ntitle = \"Census fixture\"\ncapture_timeout_seconds = 20\n{registry}{packages}"),
    )
    .unwrap();
    path
}

/// Every file of `dir` but the captures and run records, with its bytes.
pub(crate) fn derived(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                fs::read(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// The fixture census's headline: a required parameter renamed under a minor bump, and back
/// under a patch.
const HEADLINE: &str = "2 of 3 release pairs whose SemVer version promised compatibility (a minor or patch bump; a patch for 0.x) break at least one caller: 2 remove or rename a tool or a parameter every call carries, 0 narrow values some calls send, 0 change an output, 0 another part of the contract. Apart: 0 of 0 minor or patch pairs of calendar-versioned packages, 0 of 0 pairs whose bump promised nothing (major or pre-release).";

/// `census SPEC --yes --out OUT` against a registry serving the fixture's releases: its headline
/// (the rename and its revert break under a minor and a patch bump), and releases.csv's rows.
pub(crate) fn census_online(spec: &Path, out: &Path) -> Vec<Vec<String>> {
    let (headline, releases) = census_run(spec, out);
    assert_eq!(headline, HEADLINE);
    releases
}

/// `census SPEC --yes --out OUT`, whatever its exit.
fn census_yes(spec: &Path, out: &Path) -> std::process::Output {
    run(&[
        "census",
        spec.to_str().unwrap(),
        "--yes",
        "--out",
        out.to_str().unwrap(),
    ])
}

/// `census SPEC --yes --out OUT`: its headline and releases.csv's rows.
pub(crate) fn census_run(spec: &Path, out: &Path) -> (String, Vec<Vec<String>>) {
    let output = census_yes(spec, out);
    assert!(output.status.success(), "{}", stderr(&output));
    (
        stdout(&output).trim().to_string(),
        rows(&out.join("releases.csv")),
    )
}

/// Whether the census sandbox works here (a census refuses to run without it); a skip says so
/// where it does not, and fails where DRIFTLAB_REQUIRE_LIVE_SERVERS is set.
pub(crate) fn sandbox_works() -> bool {
    let probe = driftlab_study::census::sandbox::Sandbox::probe(Vec::new());
    if let Err(why) = &probe {
        assert!(
            std::env::var_os("DRIFTLAB_REQUIRE_LIVE_SERVERS").is_none(),
            "the census sandbox does not work here but DRIFTLAB_REQUIRE_LIVE_SERVERS is set: {why}"
        );
        skip(&format!(
            "the census sandbox does not work here ({why}): the online census is untested"
        ));
    }
    probe.is_ok()
}

/// Each release row's package, version and status.
pub(crate) fn statuses(releases: &[Vec<String>]) -> Vec<(&str, &str, &str)> {
    releases
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str(), r[2].as_str()))
        .collect()
}

/// `census SPEC --offline --out OUT` rewrites the derived files byte for byte, and `verify`
/// passes on the folder (captures pinned too).
pub(crate) fn rederives_offline(spec: &Path, out: &Path) {
    let before = derived(out);
    let offline = run(&[
        "census",
        spec.to_str().unwrap(),
        "--offline",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(offline.status.success(), "{}", stderr(&offline));
    assert!(
        derived(out) == before,
        "--offline changed the derived files"
    );
    let verify = run(&["verify", out.to_str().unwrap()]);
    assert!(verify.status.success(), "{}", stdout(&verify));
}

#[test]
fn offline_a_census_pairs_releases_by_version_and_rederives_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let folder = out.join("captures/npm/fixture");
    fs::create_dir_all(&folder).unwrap();
    // Written out of order, and with a release that failed to install between two captures.
    for release in ["1.2.0", "1.0.0", "1.1.1", "1.1.0"] {
        fs::write(
            folder.join(format!("{release}.json")),
            json!({ "tools": tools(release) }).to_string(),
        )
        .unwrap();
    }
    fs::write(
        folder.join("1.1.5.failed.json"),
        json!({ "stage": "install", "reason": "npm install exited with 1: ETARGET" }).to_string(),
    )
    .unwrap();
    let spec = spec(dir.path(), None, "[[package]]\nsource = \"npm:fixture\"\n");
    let args = [
        "census",
        spec.to_str().unwrap(),
        "--offline",
        "--out",
        out.to_str().unwrap(),
    ];
    let output = run(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).trim(), HEADLINE);
    let pairs = rows(&out.join("pairs.csv"));
    let brief: Vec<[&str; 5]> = pairs
        .iter()
        .map(|r| [r[1].as_str(), &r[2], &r[3], &r[4], &r[12]])
        .collect();
    assert_eq!(
        brief,
        [
            ["1.0.0", "1.1.0", "minor", "breaking", ""],
            ["1.1.0", "1.1.1", "patch", "breaking", "1.0.0"],
            ["1.1.1", "1.2.0", "minor", "compatible", ""],
        ]
    );
    // The failed release sits between 1.1.1 and 1.2.0 and is counted there.
    assert_eq!(
        pairs[2][5], "1",
        "releases without a contract between the pair"
    );
    let releases = rows(&out.join("releases.csv"));
    let failed = releases.iter().find(|r| r[1] == "1.1.5").unwrap();
    assert_eq!(failed[2], "install-failed");
    assert_eq!(failed[11], "missing-dependency", "{failed:?}");
    assert!(failed[12].contains("ETARGET"), "{failed:?}");
    let findings = fs::read_to_string(out.join("findings.csv")).unwrap();
    // The break is proven: a call 1.1.0 rejects, built from what 1.0.0 accepted.
    assert!(
        findings.contains("required-parameter-added,get_weather,/tools/0/inputSchema/properties/location,\"required parameter \"\"location\"\" was added\",\"{\"\"city\"\":\"\"x\"\"}\""),
        "{findings}"
    );
    assert!(findings.contains("optional-parameter-added"), "{findings}");
    let summary = read_json(&out.join("summary.json"));
    assert_eq!(summary["by_bump"]["minor"]["breaking"], 1);
    assert_eq!(summary["by_bump"]["patch"]["breaking"], 1);
    assert_eq!(summary["pairs_reverting"], 1);
    assert_eq!(
        summary["breaking_findings"],
        summary["breaking_findings_proven"]
    );
    let report = fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains(&format!("**Result.** {HEADLINE}")),
        "{report}"
    );
    assert!(out.join("census-timeline-7in.svg").is_file());

    // Rerun: the same bytes; verify pins the captures too.
    let before = derived(&out);
    let output = run(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(derived(&out) == before, "a rerun changed the derived files");
    let verify = run(&["verify", out.to_str().unwrap()]);
    assert!(verify.status.success(), "{}", stdout(&verify));
    fs::write(
        folder.join("1.2.0.json"),
        json!({ "tools": tools("1.0.0") }).to_string(),
    )
    .unwrap();
    let verify = run(&["verify", out.to_str().unwrap()]);
    assert_eq!(verify.status.code(), Some(1));
    assert!(
        stdout(&verify).contains("captures/npm/fixture/1.2.0.json"),
        "{}",
        stdout(&verify)
    );
}

#[test]
fn a_bad_spec_or_a_missing_capture_folder_is_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    for (packages, expected) in [
        (
            "[[package]]\nsource = \"cargo:serde\"\n",
            "a package is `npm:NAME` or `pypi:NAME`",
        ),
        (
            "[[package]]\nsource = \"npm:../../etc\"\n",
            "not a package name",
        ),
        (
            "[[package]]\nsource = \"pypi:x\"\nscript = \"x\"\nmodule = \"x\"\n",
            "give `script` or `module`, not both",
        ),
        (
            "released_since = \"12 months ago\"\n[[package]]\nsource = \"npm:x\"\n",
            "released_since \"12 months ago\": a date, YYYY-MM-DD",
        ),
        (
            "[[package]]\nsource = \"npm:x\"\nversions = [\"1.0.0\"]\nlast = 2\n",
            "not both",
        ),
        ("", "no [[package]]"),
        (
            "rule_set = \"1999-01-01\"\n[[package]]\nsource = \"npm:x\"\n",
            "not a rule set of this build",
        ),
    ] {
        let spec = spec(dir.path(), None, packages);
        let output = run(&[
            "census",
            spec.to_str().unwrap(),
            "--offline",
            "--out",
            dir.path().join("o").to_str().unwrap(),
        ]);
        assert_eq!(output.status.code(), Some(2), "{packages}");
        let message = stderr(&output);
        assert!(message.contains(expected), "{packages}: {message}");
        assert_eq!(message.trim_end().lines().count(), 1, "{message}");
    }
    let spec = spec(dir.path(), None, "[[package]]\nsource = \"npm:x\"\n");
    let output = run(&[
        "census",
        spec.to_str().unwrap(),
        "--offline",
        "--out",
        dir.path().join("none").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no captures/"),
        "{}",
        stderr(&output)
    );
    // Online without --yes and without a terminal: nothing runs.
    let output = run(&[
        "census",
        spec.to_str().unwrap(),
        "--out",
        dir.path().join("o2").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("nothing was run"),
        "{}",
        stderr(&output)
    );
    // The spec's Python and uv are found before anything runs: one that is not there is named.
    let out = dir.path().join("o3");
    for (tool, expected) in [
        (
            "python = \"no-such-python-for-driftlab\"",
            "no-such-python-for-driftlab, which PyPI releases need",
        ),
        (
            "uv = \"/nonexistent/uv\"",
            "uv \"/nonexistent/uv\", which the spec names",
        ),
    ] {
        let spec = self::spec(
            dir.path(),
            None,
            &format!("{tool}\n[[package]]\nsource = \"pypi:x\"\n"),
        );
        let output = census_yes(&spec, &out);
        assert_eq!(output.status.code(), Some(2), "{tool}");
        let message = stderr(&output);
        assert!(message.contains(expected), "{tool}: {message}");
        assert_eq!(message.trim_end().lines().count(), 1, "{message}");
        assert!(!out.exists(), "{tool}: nothing was written");
    }
}

/// A Verdaccio on a free 127.0.0.1 port, killed when dropped.
pub(crate) struct Registry {
    _process: Running,
    pub(crate) url: String,
    token: String,
}

fn verdaccio() -> Option<PathBuf> {
    let path = repo().join("tools/registries/node_modules/.bin/verdaccio");
    installed_or_skip(path, "Verdaccio")
}

fn start_registry(bin: &Path, dir: &Path) -> Registry {
    let port = free_port();
    fs::write(
        dir.join("config.yaml"),
        "storage: ./storage\nauth:\n  htpasswd:\n    file: ./htpasswd\n    max_users: 10\nuplinks: {}\n\
         packages:\n  '**':\n    access: $all\n    publish: $authenticated\nlog: { type: stdout, format: json, level: warn }\n",
    )
    .unwrap();
    let mut child = Command::new(bin)
        .args([
            "--config",
            "config.yaml",
            "--listen",
            &format!("127.0.0.1:{port}"),
        ])
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/");
    wait_until_serving(&format!("{url}-/ping"), "Verdaccio");
    let agent = ureq::Agent::new_with_defaults();
    // Its log goes nowhere we read; keep the pipe drained.
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || BufReader::new(stdout).lines().for_each(drop));
    let mut answer = agent
        .put(&format!("{url}-/user/org.couchdb.user:census"))
        .header("content-type", "application/json")
        .send(json!({ "name": "census", "password": "census-fixture-password" }).to_string())
        .unwrap();
    let body: serde_json::Value =
        serde_json::from_str(&answer.body_mut().read_to_string().unwrap()).unwrap();
    let token = body["token"].as_str().unwrap().to_string();
    Registry {
        _process: Running(child),
        url,
        token,
    }
}

impl Registry {
    /// `npm deprecate SPEC MESSAGE` as the publishing user.
    pub(crate) fn deprecate(&self, release: &str, message: &str, work: &Path) {
        self.npm(work, work, &["deprecate", release, message]);
    }

    /// Runs `npm ARGS` in `dir` as the publishing user (its token in `work/npmrc`, its cache in
    /// `work/npm-cache`), and expects it to succeed.
    fn npm(&self, work: &Path, dir: &Path, args: &[&str]) {
        let host = self.url.trim_start_matches("http:");
        let npmrc = work.join("npmrc");
        fs::write(&npmrc, format!("{host}:_authToken={}\n", self.token)).unwrap();
        let output = Command::new("npm")
            .args(args)
            .args(["--registry", &self.url, "--userconfig"])
            .arg(&npmrc)
            .current_dir(dir)
            .env("npm_config_cache", work.join("npm-cache"))
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "npm {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// A Verdaccio started for one test in a folder of its own, where the census sandbox works
/// (`None`, a skip or a failure as [`verdaccio`] and [`sandbox_works`] say, where not).
pub(crate) fn local_registry() -> Option<(tempfile::TempDir, Registry)> {
    let bin = verdaccio()?;
    if !sandbox_works() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let registry = start_registry(&bin, dir.path());
    Some((dir, registry))
}

/// Publishes one release of the fixture server: its tools, or a server that exits at start.
fn publish(registry: &Registry, work: &Path, release: &str, contract: serde_json::Value) {
    publish_fixture(registry, work, release, contract, json!({}));
}

/// Publishes one release of the fixture server with these `dependencies`.
pub(crate) fn publish_fixture(
    registry: &Registry,
    work: &Path,
    release: &str,
    contract: serde_json::Value,
    dependencies: serde_json::Value,
) {
    let mut contract = contract;
    contract["version"] = json!(release);
    let server = fs::read_to_string(repo().join("tests/fixtures/census/server.js")).unwrap();
    let package = json!({ "name": "driftlab-census-fixture", "version": release,
        "bin": { "census-fixture": "server.js" }, "dependencies": dependencies });
    publish_package(
        registry,
        work,
        &package,
        &[("server.js", server), ("tools.json", contract.to_string())],
    );
}

/// A release's whole capture from a census folder: its own file with its contract's listings
/// (`captures/contracts/<digest>.json`) in place of the digest, read here without driftlab.
pub(crate) fn capture_of(out: &Path, package: &str, release: &str) -> serde_json::Value {
    let mut capture = read_json(&out.join(format!("captures/{package}/{release}.json")));
    let digest = capture["contract"].as_str().unwrap().to_string();
    let contract = read_json(&out.join(format!("captures/contracts/{digest}.json")));
    let object = capture.as_object_mut().unwrap();
    object.remove("contract");
    for (key, value) in contract.as_object().unwrap() {
        object.insert(key.clone(), value.clone());
    }
    capture
}

/// Publishes a package of these files (`package.json` from `package`) to `registry`.
pub(crate) fn publish_package(
    registry: &Registry,
    work: &Path,
    package: &serde_json::Value,
    files: &[(&str, String)],
) {
    let (name, release) = (
        package["name"].as_str().unwrap(),
        package["version"].as_str().unwrap(),
    );
    let dir = work.join(format!("pkg-{name}-{release}"));
    fs::create_dir_all(&dir).unwrap();
    for (file, text) in files {
        fs::write(dir.join(file), text).unwrap();
    }
    fs::write(dir.join("package.json"), package.to_string()).unwrap();
    registry.npm(work, &dir, &["publish"]);
}

#[test]
fn online_against_a_local_npm_registry_finds_the_break_the_revert_and_each_failure() {
    let Some((dir, registry)) = local_registry() else {
        return;
    };
    for release in ["1.0.0", "1.1.0", "1.1.1", "1.2.0"] {
        publish(
            &registry,
            dir.path(),
            release,
            json!({ "tools": tools(release) }),
        );
    }
    publish(&registry, dir.path(), "1.3.0", json!({ "exit": 3 }));
    let spec = spec(
        dir.path(),
        Some(&registry.url),
        "[[package]]\nsource = \"npm:driftlab-census-fixture\"\n\n\
         [[package]]\nsource = \"npm:driftlab-no-such-package\"\n",
    );
    let out = dir.path().join("out");
    let releases = census_online(&spec, &out);
    assert_eq!(
        statuses(&releases),
        [
            ("npm:driftlab-census-fixture", "1.0.0", "captured"),
            ("npm:driftlab-census-fixture", "1.1.0", "captured"),
            ("npm:driftlab-census-fixture", "1.1.1", "captured"),
            ("npm:driftlab-census-fixture", "1.2.0", "captured"),
            ("npm:driftlab-census-fixture", "1.3.0", "capture-failed"),
            ("npm:driftlab-no-such-package", "", "unlisted"),
        ]
    );
    assert_eq!(releases[0][3], "2", "tools of 1.0.0");
    assert_eq!(releases[0][6], "2025-06-18", "its protocol version");
    let pairs = rows(&out.join("pairs.csv"));
    assert_eq!(pairs[1][12], "1.0.0", "1.1.1 reverts to 1.0.0");
    assert_eq!(pairs[2][4], "compatible");
    // Stored once per distinct contract: the revert names 1.0.0's, and 4 captures keep 3.
    let named = |release: &str| {
        let own = read_json(&out.join(format!(
            "captures/npm/driftlab-census-fixture/{release}.json"
        )));
        own["contract"].as_str().unwrap().to_string()
    };
    assert_eq!(named("1.1.1"), named("1.0.0"));
    assert_ne!(named("1.1.0"), named("1.0.0"));
    assert_eq!(
        fs::read_dir(out.join("captures/contracts"))
            .unwrap()
            .count(),
        3
    );
    let whole = capture_of(&out, "npm/driftlab-census-fixture", "1.1.1");
    assert_eq!(whole["toolsList"]["tools"].as_array().unwrap().len(), 2);

    // Offline from the captures: the same bytes. Online again: nothing captured twice.
    let captures =
        |out: &Path| fs::read(out.join("captures/npm/driftlab-census-fixture/1.0.0.json")).unwrap();
    let (before, captured) = (derived(&out), captures(&out));
    rederives_offline(&spec, &out);
    census_online(&spec, &out);
    assert!(
        captures(&out) == captured,
        "a recorded release was captured again"
    );
    assert!(derived(&out) == before);
}

#[test]
fn the_committed_census_rederives_byte_for_byte_from_its_captures() {
    for (study, spec) in [
        (
            "mcp-census-2026-12-05",
            "research/2026-12-05-mcp-census/census.toml",
        ),
        (
            "mcp-field-census-2026-12-06",
            "research/2026-12-06-mcp-field-census/census.toml",
        ),
    ] {
        rederives(study, spec);
    }
}

fn rederives(study: &str, spec: &str) {
    let committed = repo().join("results").join(study);
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join(study);
    fs::create_dir(&fresh).unwrap();
    copy_tree(&committed.join("captures"), &fresh.join("captures")).unwrap();
    let output = run_in(
        &repo(),
        &[
            "census",
            spec,
            "--offline",
            "--out",
            fresh.to_str().unwrap(),
        ],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let files = derived(&fresh);
    assert!(
        files.len() >= 12,
        "{:?}",
        files.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    for (name, bytes) in files {
        assert!(
            same_file(
                &name,
                &fs::read(committed.join(&name)).unwrap_or_default(),
                &bytes
            ),
            "{name} of {study} differs from the committed copy: rerun the census with --offline"
        );
    }
    // The census page quotes the committed headline.
    let summary = read_json(&committed.join("summary.json"));
    let page = fs::read_to_string(repo().join("docs/census.md")).unwrap();
    assert!(
        page.contains(summary["headline"].as_str().unwrap()),
        "docs/census.md lacks the headline of {study}"
    );
}

/// Every file under `dir`, as (relative path, bytes), sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.push((name, fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn three_shards_of_the_committed_census_merge_to_its_bytes() {
    let committed = repo().join("results").join("mcp-census-2026-12-05");
    let dir = tempfile::tempdir().unwrap();
    let spec = "research/2026-12-05-mcp-census/census.toml";
    let mut shards = Vec::new();
    for k in 1..=3 {
        // Each shard's folder holds every capture; a shard derives and pins only its own.
        let shard = dir.path().join(format!("shard-{k}"));
        fs::create_dir(&shard).unwrap();
        copy_tree(&committed.join("captures"), &shard.join("captures")).unwrap();
        let shard_arg = format!("{k}/3");
        let mut args = vec![
            "census",
            spec,
            "--offline",
            "--out",
            shard.to_str().unwrap(),
        ];
        // Shard 2 finds its index as a Kubernetes Indexed Job would give it.
        let mut command = driftlab();
        if k == 2 {
            args.extend(["--shard", "auto"]);
            command
                .env("JOB_COMPLETION_INDEX", "1")
                .env("DRIFTLAB_SHARD_COUNT", "3");
        } else {
            args.extend(["--shard", &shard_arg]);
        }
        let output = command.current_dir(repo()).args(&args).output().unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(
            stderr(&output).contains(&format!("shard {k}/3: packages 20 of 60")),
            "{}",
            stderr(&output)
        );
        shards.push(shard);
    }
    // `auto` with no batch system around: one line naming where it looked, nothing written.
    let mut command = driftlab();
    for name in [
        "DRIFTLAB_SHARD_INDEX",
        "JOB_COMPLETION_INDEX",
        "SLURM_ARRAY_TASK_ID",
    ] {
        command.env_remove(name);
    }
    let lost = dir.path().join("lost");
    let output = command
        .current_dir(repo())
        .args(["census", spec, "--offline", "--shard", "auto", "--out"])
        .arg(&lost)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("JOB_COMPLETION_INDEX"),
        "{}",
        stderr(&output)
    );
    assert!(!lost.exists());
    let merged = dir.path().join("merged");
    let merge = |shards: &[&PathBuf]| {
        let mut args = vec!["merge".to_string()];
        args.extend(shards.iter().map(|s| s.to_string_lossy().into_owned()));
        args.extend(["-o".into(), merged.to_string_lossy().into_owned()]);
        run(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };

    // Two of three shards, or a shard whose capture was edited, are refused.
    let output = merge(&[&shards[0], &shards[2]]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("exactly once"),
        "{}",
        stderr(&output)
    );
    let pinned: serde_json::Value = read_json(&shards[1].join("manifest.json"));
    let capture = pinned["files"]
        .as_object()
        .unwrap()
        .keys()
        .find(|name| name.starts_with("captures/"))
        .unwrap()
        .clone();
    let original = fs::read(shards[1].join(&capture)).unwrap();
    fs::write(shards[1].join(&capture), b"{}").unwrap();
    let output = merge(&[&shards[2], &shards[0], &shards[1]]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("does not match its manifest"),
        "{}",
        stderr(&output)
    );
    fs::write(shards[1].join(&capture), original).unwrap();

    // In any order: the unsharded census's bytes, captures and all.
    let output = merge(&[&shards[2], &shards[0], &shards[1]]);
    assert!(output.status.success(), "{}", stderr(&output));
    let (merged_files, committed_files) = (tree(&merged), tree(&committed));
    assert_eq!(merged_files.len(), committed_files.len());
    for ((name, bytes), (committed_name, committed_bytes)) in
        merged_files.iter().zip(&committed_files)
    {
        assert_eq!(name, committed_name);
        assert!(
            same_file(name, committed_bytes, bytes),
            "{name} differs from the unsharded census"
        );
    }
}
