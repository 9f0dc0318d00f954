//! `driftlab census` on hostile releases (issue 70): wheels of the fixture server, served by a
//! real local PyPI index, that try to plant code for the next release (a `.pth`, a
//! `sitecustomize.py`, an `.npmrc`), read driftlab's environment and the user's home, reach a
//! host unix socket and a loopback listener, fork 10,000 times, write 1 GiB, print 2 GiB and
//! never answer. Each attempt fails, no secret reaches any output file, and the census completes
//! the other releases. Where the sandbox is missing or broken, the census refuses and runs
//! nothing.

use std::fs;
use std::io::ErrorKind;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::census::{capture_of, rows, sandbox_works, statuses, tools};
use super::census_pypi::{pypiserver, start_index, wheel};
use crate::common::*;

const SECRET_ENV: &str = "driftlab-hostile-secret-in-the-environment";
const SECRET_HOME: &str = "driftlab-hostile-secret-in-the-home-folder";

/// Every file under `dir`, as (path, bytes).
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            match path.is_dir() {
                true => stack.push(path),
                false => out.push((path.clone(), fs::read(&path).unwrap())),
            }
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn hostile_releases_reach_nothing_and_the_census_completes_the_others() {
    let Some(bin) = pypiserver() else { return };
    let dir = tempfile::tempdir().unwrap();
    if !sandbox_works() {
        return;
    }
    let work = dir.path();
    // The user's home, with a token; driftlab's scratch folders under a TMPDIR we can search.
    let home = work.join("home");
    fs::create_dir(&home).unwrap();
    fs::write(home.join(".secret-token"), SECRET_HOME).unwrap();
    let tmp = work.join("tmp");
    fs::create_dir(&tmp).unwrap();
    let marker = work.join("PLANTED-CODE-RAN");
    // A host unix socket and a loopback listener nothing may reach.
    let socket_path = work.join("host.sock");
    let unix = UnixListener::bind(&socket_path).unwrap();
    unix.set_nonblocking(true).unwrap();
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let port = tcp.local_addr().unwrap().port();

    let packages = work.join("packages");
    fs::create_dir(&packages).unwrap();
    let scratch_glob = tmp.join("driftlab-census-*").to_string_lossy().into_owned();
    let attack = |release: &str, attack: serde_json::Value| {
        wheel(
            work,
            &packages,
            release,
            json!({ "tools": [], "attack": attack }),
        );
    };
    wheel(work, &packages, "1.0.0", json!({ "tools": tools("1.0.0") }));
    attack(
        "1.1.0",
        json!({
            "plant": {
                "glob": [
                    format!("{scratch_glob}/r*"),
                    format!("{scratch_glob}/r*/venv/lib/python3*/site-packages"),
                    format!("{scratch_glob}/r*/node_modules"),
                    "/release", "/release/venv/lib/python3*/site-packages", "/release/..", "/tmp/..",
                ],
                "ahead": 8,
                "marker": marker,
            },
            "read": { "paths": [home.join(".secret-token"), "/root/.secret-token"] },
            "unix": { "path": socket_path },
            "tcp": { "host": "127.0.0.1", "port": port },
        }),
    );
    attack("1.2.0", json!({ "fork": { "times": 10_000 } }));
    attack("1.3.0", json!({ "fill": { "bytes": 1u64 << 30 } }));
    attack("1.4.0", json!({ "flood": { "bytes": 2u64 << 30 } }));
    wheel(work, &packages, "1.5.0", json!({ "hang": true }));
    // The same contract as 1.0.0: it runs after every attack, in the venv a plant aimed at.
    wheel(work, &packages, "1.6.0", json!({ "tools": tools("1.1.1") }));
    let index = start_index(&bin, &packages);
    let spec = work.join("census.toml");
    fs::write(
        &spec,
        format!(
            "id = \"census-hostile\"\ncapture_timeout_seconds = 20\npypi_index = \"{}\"\n\n\
             [[package]]\nsource = \"pypi:driftlab-census-fixture\"\nscript = \"census-fixture\"\n",
            index.url
        ),
    )
    .unwrap();
    let out = work.join("out");
    let output = driftlab()
        .args(["census", spec.to_str().unwrap(), "--yes", "--out"])
        .arg(&out)
        .env("HOME", &home)
        .env("TMPDIR", &tmp)
        .env("DRIFTLAB_HOSTILE_SECRET", SECRET_ENV)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));

    let releases = rows(&out.join("releases.csv"));
    assert_eq!(
        statuses(&releases),
        [
            ("pypi:driftlab-census-fixture", "1.0.0", "captured"),
            ("pypi:driftlab-census-fixture", "1.1.0", "captured"),
            ("pypi:driftlab-census-fixture", "1.2.0", "captured"),
            ("pypi:driftlab-census-fixture", "1.3.0", "captured"),
            ("pypi:driftlab-census-fixture", "1.4.0", "capture-failed"),
            ("pypi:driftlab-census-fixture", "1.5.0", "capture-failed"),
            ("pypi:driftlab-census-fixture", "1.6.0", "captured"),
        ],
        "{}",
        stderr(&output)
    );
    assert!(releases.iter().all(|r| r[7] == "yes"), "{releases:?}");
    // What each attack got, in its own words (the tool descriptions it listed).
    let said = |release: &str, tool: &str| -> String {
        let capture = capture_of(&out, "pypi/driftlab-census-fixture", release);
        let tools = capture["toolsList"]["tools"].as_array().unwrap().clone();
        let tool = tools.iter().find(|t| t["name"] == tool).unwrap();
        tool["description"].as_str().unwrap().to_string()
    };
    let planted = said("1.1.0", "attack_plant");
    assert!(!marker.exists(), "planted code ran: {planted}");
    assert!(
        !planted.contains(&tmp.to_string_lossy().into_owned()),
        "the server saw the scratch folder: {planted}"
    );
    assert!(
        said("1.1.0", "attack_unix").starts_with("unix: "),
        "{}",
        said("1.1.0", "attack_unix")
    );
    assert_ne!(said("1.1.0", "attack_unix"), "unix: connected");
    assert_ne!(said("1.1.0", "attack_tcp"), "tcp: connected");
    assert_eq!(
        unix.accept().map(|_| ()).unwrap_err().kind(),
        ErrorKind::WouldBlock
    );
    assert_eq!(
        tcp.accept().map(|_| ()).unwrap_err().kind(),
        ErrorKind::WouldBlock
    );
    // Only the sandbox's own processes are in its /proc, none of them driftlab.
    let read = said("1.1.0", "attack_read");
    assert!(read.contains("/proc/1/environ"), "{read}");
    assert!(!read.contains("DRIFTLAB_HOSTILE_SECRET"), "{read}");
    let fork = said("1.2.0", "attack_fork");
    let refused: usize = fork
        .split(", ")
        .nth(1)
        .and_then(|w| w.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{fork}"));
    assert!(refused > 0, "no fork was refused: {fork}");
    let fill = said("1.3.0", "attack_fill");
    assert_eq!(
        fill.matches(" bytes, then ").count(),
        3,
        "a 1 GiB write went through: {fill}"
    );
    assert!(fill.contains("Read-only file system"), "{fill}");
    // No secret in any file the census wrote, the captures included.
    for (path, bytes) in files(&out) {
        for secret in [SECRET_ENV, SECRET_HOME] {
            assert!(
                !contains(&bytes, secret),
                "{} holds {secret}",
                path.display()
            );
        }
    }
    // Nothing left behind: the scratch folder went with the census.
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
}

/// A census run where the sandbox cannot work, with `PATH` holding only `programs` (and the
/// interpreter a census would need): its output, and whether it left any capture.
fn census_without_the_sandbox(programs: &[(&str, Option<&str>)]) -> (std::process::Output, bool) {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    fs::create_dir(&bin).unwrap();
    let python = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .unwrap();
    let python = String::from_utf8(python.stdout).unwrap();
    std::os::unix::fs::symlink(python.trim(), bin.join("python3")).unwrap();
    for (name, script) in programs {
        match script {
            Some(text) => {
                use std::os::unix::fs::PermissionsExt;
                fs::write(bin.join(name), text).unwrap();
                fs::set_permissions(bin.join(name), fs::Permissions::from_mode(0o755)).unwrap();
            }
            None => {
                let real = ["/usr/bin", "/bin", "/usr/local/bin"]
                    .iter()
                    .map(|d| Path::new(d).join(name))
                    .find(|p| p.exists());
                if let Some(real) = real {
                    std::os::unix::fs::symlink(real, bin.join(name)).unwrap();
                }
            }
        }
    }
    let spec = dir.path().join("census.toml");
    // An index nothing listens on: a census that refuses never asks it.
    fs::write(
        &spec,
        "id = \"census-refused\"\npypi_index = \"http://127.0.0.1:9/simple/\"\n\n\
         [[package]]\nsource = \"pypi:driftlab-census-fixture\"\nscript = \"census-fixture\"\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let output = driftlab()
        .args(["census", spec.to_str().unwrap(), "--yes", "--out"])
        .arg(&out)
        .env("PATH", &bin)
        .output()
        .unwrap();
    (output, out.join("captures").exists())
}

#[test]
fn without_bwrap_or_with_a_failing_one_the_census_refuses_and_runs_nothing() {
    let broken = "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n";
    for (case, programs) in [
        ("absent", vec![("prlimit", None), ("setpriv", None)]),
        (
            "failing",
            vec![
                ("prlimit", None),
                ("setpriv", None),
                ("bwrap", Some(broken)),
            ],
        ),
    ] {
        let (output, captured) = census_without_the_sandbox(&programs);
        assert_eq!(output.status.code(), Some(2), "{case}: {}", stderr(&output));
        let said = stderr(&output);
        assert!(
            said.contains("the census sandbox does not work here"),
            "{case}: {said}"
        );
        assert!(
            said.contains("apt-get install bubblewrap"),
            "{case}: {said}"
        );
        assert!(said.contains("--no-sandbox"), "{case}: {said}");
        // Refused before consent was asked: nothing was listed to run, nothing captured.
        assert!(!said.contains("about to install"), "{case}: {said}");
        assert!(!captured, "{case}: a capture was written");
        if case == "failing" {
            assert!(said.contains("uid map: Permission denied"), "{said}");
        }
    }
}
