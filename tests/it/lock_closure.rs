//! A lock pins all the code a server runs (issue 71): the real memory server (npm) and the real
//! time server (PyPI), each copied with its installed dependencies into a folder of the test's,
//! are locked, then tampered as an attacker would: the hoisted MCP SDK under `node_modules`, an
//! added `.pth`, an added `sitecustomize.py`, a replaced venv interpreter. Each injection would
//! write a marker when run. `check --lock` reports `artifact-changed` naming the part that
//! changed, and starts nothing: the marker is never written. A closure over the bound is
//! recorded and printed as not pinned.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::common::live::{installed, servers_dir};
use crate::common::{stderr, stdout};
use crate::lock::{code, run_in};

fn copy_tree(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(
        status.success(),
        "cp -a {} {}",
        from.display(),
        to.display()
    );
}

/// Writes `.mcp.json` with one server `argv` in `dir`, locks it, and returns a `check --lock`.
fn locked<'a>(dir: &'a Path, argv: &[String]) -> impl Fn() -> std::process::Output + 'a {
    let config = json!({"mcpServers": {"server": {"command": argv[0], "args": argv[1..]}}});
    fs::write(dir.join(".mcp.json"), config.to_string()).unwrap();
    let lock = run_in(dir, &["lock", "--config", ".mcp.json", "--yes"]);
    assert_eq!(code(&lock), 0, "{}", stderr(&lock));
    move || run_in(dir, &["check", "--lock", "mcp.lock", "--yes"])
}

fn artifact(dir: &Path) -> Value {
    let lock: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("mcp.lock")).unwrap()).unwrap();
    lock["servers"][0]["artifact"].clone()
}

/// `check --lock` fails on the artifact alone, naming `part`, without starting the server.
fn refuses_unstarted(check: &dyn Fn() -> std::process::Output, part: &str, marker: &Path) {
    let out = check();
    let (said, err) = (stdout(&out), stderr(&out));
    assert_eq!(code(&out), 1, "{said}{err}");
    assert!(said.contains("artifact-changed"), "{said}");
    assert!(said.contains(&format!("changed: {part}")), "{part}: {said}");
    assert!(
        !said.contains("tool-removed") && !said.contains("launch-changed"),
        "{said}"
    );
    assert!(err.contains("server: not started"), "{err}");
    assert!(
        said.contains("not started:"),
        "the report names it as not started: {said}"
    );
    assert!(
        !marker.exists(),
        "the injected code ran: check --lock started the server"
    );
}

/// The pinned memory server's entry point, where it is installed (a skip says so where not).
fn memory_server() -> Option<PathBuf> {
    let memory =
        servers_dir().join("node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    installed(&memory).then_some(memory)
}

/// The control: run as the server would be, the injected code does run (then the marker goes).
fn injection_is_live(argv: &[&str], marker: &Path) {
    let _ = Command::new(argv[0])
        .args(&argv[1..])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(
        marker.exists(),
        "the injection under test never runs: {argv:?}"
    );
    fs::remove_file(marker).unwrap();
}

#[test]
fn a_tampered_hoisted_dependency_of_an_npm_server_is_caught_before_it_runs() {
    if memory_server().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&servers_dir().join("node_modules"), dir.path());
    let entry = dir
        .path()
        .join("node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    let argv = vec!["node".to_string(), entry.display().to_string()];
    let check = locked(dir.path(), &argv);
    let pinned = artifact(dir.path());
    assert_eq!(pinned["kind"], "npm-closure", "{pinned}");
    for part in ["package", "dependencies", "interpreter"] {
        assert!(pinned["parts"][part].is_string(), "{part}: {pinned}");
    }
    let same = check();
    assert_eq!(code(&same), 0, "{}{}", stdout(&same), stderr(&same));
    // The SDK the server imports, hoisted beside it: code that runs on import.
    let marker = dir.path().join("INJECTED-CODE-RAN");
    let sdk = dir
        .path()
        .join("node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js");
    let mut text = fs::read_to_string(&sdk).unwrap();
    text.push_str(&format!(
        "\nimport {{ writeFileSync as planted }} from 'fs';\nplanted({:?}, 'ran');\n",
        marker.display().to_string()
    ));
    fs::write(&sdk, text).unwrap();
    refuses_unstarted(&check, "dependencies", &marker);
    injection_is_live(&["node", entry.to_str().unwrap()], &marker);
}

/// A venv of the test's own with the time server's installed distributions, and its console
/// script: the real server, relocated.
fn time_server_venv(dir: &Path) -> (PathBuf, PathBuf) {
    let venv = dir.join("venv");
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success());
    // `lib/python3.X/site-packages`, the one Python version folder a venv has.
    let site_packages = |env: &Path| {
        let lib = fs::read_dir(env.join("lib"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        lib.path().join("site-packages")
    };
    let site = site_packages(&venv);
    let from = site_packages(&servers_dir().join(".venv"));
    fs::remove_dir_all(&site).unwrap();
    copy_tree(&from, &site);
    let script = venv.join("bin/mcp-server-time");
    fs::write(
        &script,
        format!(
            "#!{}\nimport sys\nfrom mcp_server_time import main\nsys.exit(main())\n",
            venv.join("bin/python3").display()
        ),
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    (venv, site)
}

#[test]
fn a_pth_a_sitecustomize_and_a_replaced_interpreter_are_caught_before_they_run() {
    if !installed(&servers_dir().join(".venv/bin/mcp-server-time")) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (venv, site) = time_server_venv(dir.path());
    let argv = vec![
        venv.join("bin/mcp-server-time").display().to_string(),
        "--local-timezone=UTC".into(),
    ];
    let check = locked(dir.path(), &argv);
    let pinned = artifact(dir.path());
    assert_eq!(pinned["kind"], "python-environment", "{pinned}");
    let same = check();
    assert_eq!(code(&same), 0, "{}{}", stdout(&same), stderr(&same));
    let marker = dir.path().join("INJECTED-CODE-RAN");
    let payload = format!(
        "open({:?}, 'w').write('ran')\n",
        marker.display().to_string()
    );
    for (file, text) in [
        ("zz-planted.pth", format!("import os; {payload}")),
        ("sitecustomize.py", payload.clone()),
    ] {
        let path = site.join(file);
        fs::write(&path, text).unwrap();
        refuses_unstarted(&check, "site-packages", &marker);
        injection_is_live(
            &[venv.join("bin/python3").to_str().unwrap(), "-c", "pass"],
            &marker,
        );
        fs::remove_file(&path).unwrap();
        let restored = check();
        assert_eq!(code(&restored), 0, "{file} removed: {}", stdout(&restored));
    }
    // The venv's interpreter replaced by a wrapper that runs the injection, then Python.
    let python = venv.join("bin/python3");
    let real = fs::canonicalize(&python).unwrap();
    fs::remove_file(&python).unwrap();
    fs::write(
        &python,
        format!(
            "#!/bin/sh\necho ran > {}\nexec {} \"$@\"\n",
            marker.display(),
            real.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&python, fs::Permissions::from_mode(0o755)).unwrap();
    refuses_unstarted(&check, "interpreter", &marker);
    injection_is_live(&[python.to_str().unwrap(), "-c", "pass"], &marker);
}

#[test]
fn a_closure_over_the_bound_is_recorded_and_printed_as_not_pinned() {
    let Some(memory) = memory_server() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = json!({"mcpServers": {"server": {"command": "node", "args": [memory.display().to_string()]}}});
    fs::write(dir.path().join(".mcp.json"), config.to_string()).unwrap();
    let bounded = |args: &[&str]| {
        crate::common::driftlab()
            .current_dir(dir.path())
            .args(args)
            .env("DRIFTLAB_CLOSURE_MAX_FILES", "50")
            .output()
            .unwrap()
    };
    let lock = bounded(&["lock", "--config", ".mcp.json", "--yes"]);
    assert_eq!(code(&lock), 0, "{}", stderr(&lock));
    assert!(
        stderr(&lock)
            .contains("warning: server: its code is not pinned: its closure is over 50 files"),
        "{}",
        stderr(&lock)
    );
    let pinned = artifact(dir.path());
    assert_eq!(
        pinned["notPinned"], "not pinned: its closure is over 50 files",
        "{pinned}"
    );
    assert_eq!(pinned["digest"], "", "{pinned}");
    let check = bounded(&["check", "--lock", "mcp.lock", "--yes"]);
    assert_eq!(code(&check), 0, "{}", stdout(&check));
    assert!(
        stderr(&check).contains("its code is not pinned"),
        "{}",
        stderr(&check)
    );
}
