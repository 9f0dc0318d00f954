//! `driftlab census` on PyPI packages, against a real local index (pypiserver, pinned in
//! `tools/registries/requirements.txt`, started by the test on 127.0.0.1 with no fallback to
//! pypi.org) serving wheels of a Python fixture server that the test builds with the standard
//! library (`tests/fixtures/census/make_wheel.py`): a break, a revert, a compatible release, a
//! release that hangs, one that will not install (an sdist only: a census installs wheels only)
//! and a package the index does not know.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::json;

use super::census::{census_online, rederives_offline, rows, sandbox_works, statuses, tools};
use crate::common::registry::{free_port, installed_or_skip, wait_until_serving, Running};
use crate::common::*;

/// A pypiserver on a free 127.0.0.1 port, killed when dropped.
pub(crate) struct Index {
    _process: Running,
    pub(crate) url: String,
}

pub(crate) fn pypiserver() -> Option<PathBuf> {
    let path = repo().join("tools/registries/.venv/bin/pypi-server");
    installed_or_skip(path, "pypiserver")
}

pub(crate) fn start_index(bin: &Path, packages: &Path) -> Index {
    let port = free_port();
    let child = Command::new(bin)
        .args(["run", "-i", "127.0.0.1", "-p", &port.to_string()])
        // Never send a caller to pypi.org for a package it does not hold.
        .arg("--disable-fallback")
        .arg(packages)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/simple/");
    wait_until_serving(&url, "pypiserver");
    Index {
        _process: Running(child),
        url,
    }
}

/// Builds one wheel of the fixture server into `packages`.
pub(crate) fn wheel(work: &Path, packages: &Path, release: &str, contract: serde_json::Value) {
    let mut contract = contract;
    contract["version"] = json!(release);
    let tools = work.join(format!("tools-{release}.json"));
    fs::write(&tools, contract.to_string()).unwrap();
    let output = Command::new("python3")
        .arg(repo().join("tests/fixtures/census/make_wheel.py"))
        .arg(packages)
        .arg(release)
        .arg(&tools)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "make_wheel {release}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn online_against_a_local_pypi_index_finds_the_break_the_revert_and_each_failure() {
    let Some(bin) = pypiserver() else { return };
    let dir = tempfile::tempdir().unwrap();
    if !sandbox_works() {
        return;
    }
    let packages = dir.path().join("packages");
    fs::create_dir(&packages).unwrap();
    for release in ["1.0.0", "1.1.0", "1.1.1", "1.2.0"] {
        wheel(
            dir.path(),
            &packages,
            release,
            json!({ "tools": tools(release) }),
        );
    }
    wheel(dir.path(), &packages, "1.3.0", json!({ "hang": true }));
    // Wants the network at start: TEST-NET-1 (RFC 5737), which no route leads to, so even an
    // unsandboxed run reaches nothing.
    wheel(
        dir.path(),
        &packages,
        "1.5.0",
        json!({ "tools": tools("1.2.0"), "connect": ["192.0.2.1", 443] }),
    );
    // A release published as an sdist only: installing it would mean building it (running its
    // code), which a census refuses.
    fs::write(
        packages.join("driftlab-census-fixture-1.4.0.tar.gz"),
        b"not built",
    )
    .unwrap();
    let index = start_index(&bin, &packages);
    let spec = dir.path().join("census.toml");
    fs::write(
        &spec,
        format!(
            "id = \"census-pypi-fixture\"\ncapture_timeout_seconds = 3\npypi_index = \"{}\"\n\n\
             [[package]]\nsource = \"pypi:driftlab-census-fixture\"\n\n\
             [[package]]\nsource = \"pypi:driftlab-no-such-package\"\nscript = \"nothing\"\n",
            index.url
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let releases = census_online(&spec, &out);
    assert_eq!(
        statuses(&releases),
        [
            ("pypi:driftlab-census-fixture", "1.0.0", "captured"),
            ("pypi:driftlab-census-fixture", "1.1.0", "captured"),
            ("pypi:driftlab-census-fixture", "1.1.1", "captured"),
            ("pypi:driftlab-census-fixture", "1.2.0", "captured"),
            ("pypi:driftlab-census-fixture", "1.3.0", "capture-failed"),
            ("pypi:driftlab-census-fixture", "1.4.0", "install-failed"),
            ("pypi:driftlab-census-fixture", "1.5.0", "capture-failed"),
            ("pypi:driftlab-no-such-package", "", "unlisted"),
        ]
    );
    let reason = |version: &str| {
        releases
            .iter()
            .find(|r| r[1] == version)
            .map(|r| r[12].clone())
            .unwrap()
    };
    // Each failure in its bucket, and the package the index lacks is not a release.
    let buckets: Vec<(&str, &str)> = releases
        .iter()
        .filter(|r| r[2] != "captured")
        .map(|r| (r[1].as_str(), r[11].as_str()))
        .collect();
    assert_eq!(
        buckets,
        [
            ("1.3.0", "timeout"),
            ("1.4.0", "missing-dependency"),
            ("1.5.0", "exited-at-start"),
            ("", "not-on-registry"),
        ]
    );
    let summary = read_json(&out.join("summary.json"));
    assert_eq!(summary["releases"], 7);
    assert_eq!(summary["packages_not_on_registry"], 1);
    assert!(
        reason("1.3.0").contains("capture_timeout_seconds"),
        "{}",
        reason("1.3.0")
    );
    assert!(
        reason("1.4.0").contains("wheels only"),
        "{}",
        reason("1.4.0")
    );
    assert!(
        !reason("1.4.0").contains(dir.path().to_str().unwrap()),
        "a reason names no path of this machine: {}",
        reason("1.4.0")
    );
    // Every step ran in the sandbox (the install that failed too), every server without
    // network, and a release that wanted it says so.
    {
        let sandboxed: Vec<&str> = releases.iter().map(|r| r[7].as_str()).collect();
        assert_eq!(
            sandboxed,
            ["yes", "yes", "yes", "yes", "yes", "yes", "yes", ""]
        );
        assert!(
            reason("1.5.0").contains("needs the network"),
            "{}",
            reason("1.5.0")
        );
        let capture: serde_json::Value =
            read_json(&out.join("captures/pypi/driftlab-census-fixture/1.0.0.json"));
        assert_eq!(capture["server"]["command"][0], "bwrap");
        let report = fs::read_to_string(out.join("report.md")).unwrap();
        assert!(
            report.contains("6 of the 6 server runs were sandboxed without network"),
            "{report}"
        );
    }
    let pairs = rows(&out.join("pairs.csv"));
    assert_eq!(
        pairs
            .iter()
            .map(|p| (p[3].as_str(), p[4].as_str()))
            .collect::<Vec<_>>(),
        [
            ("minor", "breaking"),
            ("patch", "breaking"),
            ("minor", "compatible")
        ]
    );
    assert_eq!(pairs[1][12], "1.0.0", "1.1.1 reverts to 1.0.0");

    // Offline from the captures: the same bytes; verify pins the captures.
    rederives_offline(&spec, &out);
}
