//! A PyPI release is installed with its dependencies as they were when it was uploaded (uv
//! `--exclude-newer`), against an index the test starts that says when each file was uploaded
//! (`tests/fixtures/census/dated_index.py`, PEP 691 JSON with PEP 700 upload times; pypiserver
//! gives none): a dependency whose later release breaks at import breaks only the fixture release
//! uploaded after it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::json;

use super::census::{census_run, sandbox_works, statuses, tools};
use super::census_pypi::wheel;
use crate::common::registry::{free_port, installed_or_skip, wait_until_serving, Running};
use crate::common::*;

/// The pinned uv (`scripts/install-registries.sh`).
fn uv() -> Option<PathBuf> {
    installed_or_skip(repo().join("tools/registries/.venv/bin/uv"), "uv")
}

/// The dated index on a free 127.0.0.1 port, serving `packages` (with its `times.json`).
fn start_dated_index(packages: &Path) -> (Running, String) {
    let port = free_port();
    let child = Command::new("python3")
        .arg(repo().join("tests/fixtures/census/dated_index.py"))
        .arg(packages)
        .arg(port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let running = Running(child);
    let url = format!("http://127.0.0.1:{port}/simple/");
    wait_until_serving(&url, "the dated index");
    (running, url)
}

fn dependency(packages: &Path, release: &str) {
    let output = Command::new("python3")
        .arg(repo().join("tests/fixtures/census/make_wheel.py"))
        .args(["--dependency", packages.to_str().unwrap(), release])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_pypi_release_gets_its_dependencies_as_they_were_when_it_was_uploaded() {
    let Some(uv) = uv() else { return };
    if !sandbox_works() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let packages = dir.path().join("packages");
    fs::create_dir(&packages).unwrap();
    let contract = |release: &str| {
        json!({ "tools": tools(release), "requires": "driftlab_census_dep",
            "requires_dist": "driftlab-census-dep>=1" })
    };
    dependency(&packages, "1.0.0");
    dependency(&packages, "1.1.0");
    wheel(dir.path(), &packages, "1.0.0", contract("1.0.0"));
    wheel(dir.path(), &packages, "1.0.1", contract("1.0.0"));
    // The dependency's 1.1.0 (broken) came between the fixture's two releases.
    let times = json!({
        "driftlab_census_dep-1.0.0-py3-none-any.whl": "2025-01-01T00:00:00Z",
        "driftlab_census_fixture-1.0.0-py3-none-any.whl": "2025-02-01T00:00:00Z",
        "driftlab_census_dep-1.1.0-py3-none-any.whl": "2025-03-01T00:00:00Z",
        "driftlab_census_fixture-1.0.1-py3-none-any.whl": "2025-04-01T00:00:00Z",
    });
    fs::write(packages.join("times.json"), times.to_string()).unwrap();
    let (_index, url) = start_dated_index(&packages);
    let spec = dir.path().join("census.toml");
    fs::write(
        &spec,
        format!(
            "id = \"census-dated\"\ncapture_timeout_seconds = 20\npypi_index = \"{url}\"\n\
             uv = \"{}\"\n\n[[package]]\nsource = \"pypi:driftlab-census-fixture\"\n",
            uv.display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let (_, releases) = census_run(&spec, &out);
    // Today the dependency's 1.1.0 would break both; as uploaded, only 1.0.1 has it.
    assert_eq!(
        statuses(&releases),
        [
            ("pypi:driftlab-census-fixture", "1.0.0", "captured"),
            ("pypi:driftlab-census-fixture", "1.0.1", "capture-failed"),
        ],
        "{releases:?}"
    );
    assert!(
        releases[1][12].contains("driftlab-census-dep 1.1.0 is broken"),
        "{:?}",
        releases[1]
    );
    // Each row names the time it was installed as of: its upload time.
    assert_eq!(releases[0][8], "2025-02-01T00:00:00Z", "{:?}", releases[0]);
    assert_eq!(releases[1][8], "2025-04-01T00:00:00Z", "{:?}", releases[1]);
    let summary: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["releases_installed_as_published"], 2);
}
