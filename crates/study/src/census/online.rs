//! The census's online half: which releases a registry has, installing one into a fresh folder
//! of its own (npm with `--ignore-scripts`; a venv per PyPI release, wheels only), and capturing
//! its whole contract. Every step of a release runs in the sandbox ([`sandbox`]) with a cleared
//! environment (installers keep only the way to the registry, the server only what the spec
//! names), and the release's folder is removed after it. Every failure is a [`Failure`] row,
//! never a crash.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::derive::Failure;
use super::entry::{npm_bin, pypi_script};
use super::sandbox::{self, Step};
use super::scratch::{ReleaseFolder, Scratch};
use super::spec::{CensusSpec, Package, PackageSpec};
use super::version::Scheme;
use driftlab_live::live::stdio::{Launch, StdioTransport};
use driftlab_live::live::{self, CaptureOptions, LiveError, ProtocolMode, Target};

/// Where npm installs from unless the spec says otherwise.
pub const NPM_REGISTRY: &str = "https://registry.npmjs.org/";
/// Where pip installs from unless the spec says otherwise.
pub const PYPI_INDEX: &str = "https://pypi.org/simple/";

/// The largest contract a release may list (as `capture`'s default).
const MAX_BYTES: usize = 64 * 1024 * 1024;

/// Runs `command` to its end or `timeout`, its output kept in `log` (stdout then stderr).
/// Returns stdout, or why it failed in one line.
fn run(mut command: Command, timeout: Duration, log: &Path) -> Result<String, String> {
    let out_path = log.with_extension("out");
    let err_path = log.with_extension("err");
    let open = |p: &Path| std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()));
    command.stdout(open(&out_path)?).stderr(open(&err_path)?);
    let program = format!("{:?}", command.get_program());
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < timeout => {
                std::thread::sleep(Duration::from_millis(50))
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "timeout: {program} took over {} s",
                    timeout.as_secs()
                ));
            }
            Err(e) => return Err(format!("{program}: {e}")),
        }
    };
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    if status.success() {
        return Ok(stdout);
    }
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    // The whole reason, every line that says something (up to 4 KiB, the end kept: that is
    // where installers say why); npm's line naming its log file, which only this run had, and
    // pip's warnings are left out.
    let said: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.contains("complete log of this run") && !l.starts_with("WARNING:")
        })
        .collect();
    let said = match said.is_empty() {
        true => "no output on stderr".to_string(),
        false => said.join(" / "),
    };
    Err(format!(
        "{program} exited with {status}: {}",
        tail(&said, MAX_REASON)
    ))
}

fn registry(spec: &CensusSpec) -> &str {
    spec.npm_registry.as_deref().unwrap_or(NPM_REGISTRY)
}

pub(super) fn index(spec: &CensusSpec) -> &str {
    spec.pypi_index.as_deref().unwrap_or(PYPI_INDEX)
}

/// `npm view WHAT FIELD --json` on the host (no package code runs), with npm's own
/// configuration: the registry's answer, as text.
pub(super) fn npm_view(
    spec: &CensusSpec,
    scratch: &Scratch,
    package: &Package,
    what: &str,
    field: &str,
) -> Result<String, String> {
    let log = scratch
        .root()
        .join(format!("{field}-{}", sanitize(&package.key())));
    let mut command = scratch.lister("npm");
    command.args(["view", what, field, "--json", "--registry", registry(spec)]);
    run(
        command,
        Duration::from_secs(spec.install_timeout_seconds),
        &log,
    )
}

/// Every version the registry lists for `package`.
pub(crate) fn available_versions(
    spec: &CensusSpec,
    package: &Package,
    scratch: &Scratch,
) -> Result<Vec<String>, String> {
    let log = scratch
        .root()
        .join(format!("versions-{}", sanitize(&package.key())));
    let timeout = Duration::from_secs(spec.install_timeout_seconds);
    match package.scheme {
        Scheme::Npm => {
            let text = npm_view(spec, scratch, package, &package.name, "versions")?;
            match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(serde_json::Value::Array(list)) => Ok(list
                    .iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()),
                Ok(serde_json::Value::String(one)) => Ok(vec![one]),
                _ => Err(format!("npm view {}: not a list of versions", package.name)),
            }
        }
        Scheme::Pypi => {
            // The interpreter the venvs are made with, so `Requires-Python` is read for it.
            let python = scratch
                .tools
                .python
                .as_deref()
                .map_or("python3".into(), path_word);
            let mut command = scratch.lister(&python);
            command.args([
                "-m",
                "pip",
                "index",
                "versions",
                // Pre-releases too: the spec decides whether to keep them.
                "--pre",
                &package.name,
                "--disable-pip-version-check",
                "--index-url",
                index(spec),
            ]);
            let text = run(command, timeout, &log)?;
            let line = text
                .lines()
                .find_map(|l| l.strip_prefix("Available versions:"))
                .ok_or_else(|| {
                    format!("pip index versions {}: no versions listed", package.name)
                })?;
            Ok(line
                .split(',')
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .collect())
        }
    }
}

/// Folder-safe text.
fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Installs release `version` and captures its contract: the capture file's bytes, or why not.
/// What is recorded names no path of this machine: the scratch folder is `$SCRATCH`, an
/// install folder `.`, and `PATH` is `$PATH`.
/// Installs and captures one release; `as_of` (its publish time) installs its dependencies as
/// they were then (npm `--before`).
pub(crate) fn capture_release(
    spec: &CensusSpec,
    package_spec: &PackageSpec,
    package: &Package,
    (version, as_of): (&str, Option<&str>),
    scratch: &Scratch,
) -> Result<Vec<u8>, Failure> {
    capture_release_in(spec, package_spec, package, (version, as_of), scratch).map_err(|f| {
        Failure {
            reason: scratch.scrub(&f.reason),
            ..f
        }
    })
}

/// A release that did not install, and why.
fn install_failure(reason: String, scratch: &Scratch) -> Failure {
    Failure {
        stage: "install".into(),
        reason,
        sandboxed: scratch.sandbox.is_some(),
    }
}

fn capture_release_in(
    spec: &CensusSpec,
    package_spec: &PackageSpec,
    package: &Package,
    version: (&str, Option<&str>),
    scratch: &Scratch,
) -> Result<Vec<u8>, Failure> {
    let install = |reason: String| install_failure(reason, scratch);
    let folder = scratch
        .release_folder()
        .map_err(|e| install(format!("{}: {e}", scratch.root().display())))?;
    let captured = install_and_capture(spec, package_spec, package, version, scratch, &folder);
    // The release's folder goes with it: nothing it wrote is left for the next one.
    let _ = std::fs::remove_dir_all(&folder.host);
    captured
}

fn install_and_capture(
    spec: &CensusSpec,
    package_spec: &PackageSpec,
    package: &Package,
    (version, as_of): (&str, Option<&str>),
    scratch: &Scratch,
    folder: &ReleaseFolder,
) -> Result<Vec<u8>, Failure> {
    let install = |reason: String| install_failure(reason, scratch);
    let timeout = Duration::from_secs(spec.install_timeout_seconds);
    let env = scratch.installer_env(folder);
    let step = |program: Vec<String>| -> Result<String, String> {
        let argv = scratch.argv(Step::Install, folder, &env, &program);
        let mut command = Command::new(&argv[0]);
        command.args(&argv[1..]).stdin(Stdio::null());
        if scratch.sandbox.is_none() {
            command.current_dir(&folder.host);
        }
        run(command, timeout, &folder.log)
    };
    let program = match package.scheme {
        Scheme::Npm => {
            let (node, npm) = match (&scratch.tools.node, &scratch.tools.npm) {
                (Some(node), Some(npm)) => (path_word(node), path_word(npm)),
                _ => return Err(install("node and npm were not found on PATH".into())),
            };
            let mut words = vec![node.clone(), npm];
            words.extend(
                [
                    "install",
                    "--ignore-scripts",
                    "--no-audit",
                    "--no-fund",
                    "--no-save",
                    "--prefix",
                ]
                .map(String::from),
            );
            words.push(folder.seen(""));
            words.push(format!("{}@{version}", package.name));
            words.extend(["--registry".to_string(), registry(spec).to_string()]);
            if let Some(as_of) = as_of {
                // One word: the value can never be read as a flag of its own.
                words.push(format!("--before={as_of}"));
            }
            step(words).map_err(install)?;
            let bin =
                npm_bin(&folder.host, package, package_spec.bin.as_deref()).map_err(install)?;
            vec![node, folder.seen(&bin)]
        }
        Scheme::Pypi => {
            let Some(python) = &scratch.tools.python else {
                return Err(install("python3 was not found on PATH".into()));
            };
            let venv = folder.seen("venv");
            step(vec![
                path_word(python),
                "-m".into(),
                "venv".into(),
                venv.clone(),
            ])
            .map_err(install)?;
            let python = format!("{venv}/bin/python");
            step(pypi_install(spec, scratch, &python, (package, version), as_of)).map_err(
                |reason| {
                    // The version is listed, so the installer found no wheel it may take.
                    let hint = match reason.contains("No matching distribution found")
                        || reason.contains("no wheels with a matching")
                    {
                        true => " (no wheel for this platform: a census installs wheels only, since building an sdist runs its code)",
                        false => "",
                    };
                    install(format!("{reason}{hint}"))
                },
            )?;
            match (&package_spec.script, &package_spec.module) {
                (Some(script), _) => vec![format!("{venv}/bin/{script}")],
                (None, Some(module)) => vec![python, "-m".into(), module.clone()],
                (None, None) => {
                    let script =
                        pypi_script(&folder.host.join("venv"), package).map_err(install)?;
                    vec![format!("{venv}/bin/{script}")]
                }
            }
        }
    };
    capture(spec, package_spec, program, scratch, folder)
}

/// The cutoff for a release's own files under uv: later than any upload (it is pinned anyway).
const ITS_OWN_FILES: &str = "2999-12-31T00:00:00Z";

/// The installer's words for a PyPI release, wheels only (building an sdist runs its code):
/// uv where the census has it, with the release's dependencies as they were at `as_of` (its
/// upload time); else pip, as they are today.
fn pypi_install(
    spec: &CensusSpec,
    scratch: &Scratch,
    python: &str,
    (package, version): (&Package, &str),
    as_of: Option<&str>,
) -> Vec<String> {
    let mut words: Vec<String> = match &scratch.tools.uv {
        Some(uv) => {
            let mut words = vec![path_word(uv)];
            words.extend(
                [
                    "pip",
                    "install",
                    "--python",
                    python,
                    // No cache and no config of the user's: nothing outside the release folder.
                    "--no-cache",
                    "--no-config",
                    "--only-binary",
                    ":all:",
                ]
                .map(String::from),
            );
            if let Some(as_of) = as_of {
                // One word each: a value can never be read as a flag of its own. The release
                // itself is pinned by version, and every file of it counts (uv takes only files
                // uploaded strictly before the cutoff, and a wheel may follow the sdist).
                words.push(format!("--exclude-newer={as_of}"));
                words.push(format!(
                    "--exclude-newer-package={}={ITS_OWN_FILES}",
                    package.name
                ));
            }
            words
        }
        None => [
            python,
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "--only-binary=:all:",
        ]
        .map(String::from)
        .to_vec(),
    };
    words.extend(["--index-url".to_string(), index(spec).to_string()]);
    words.push(format!("{}=={version}", package.name));
    words
}

fn path_word(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Starts `program` as the release's server step (nothing of driftlab's environment but
/// `PATH`, `HOME`, `TMPDIR` and the spec's `env`) and captures its whole contract.
fn capture(
    spec: &CensusSpec,
    package_spec: &PackageSpec,
    program: Vec<String>,
    scratch: &Scratch,
    folder: &ReleaseFolder,
) -> Result<Vec<u8>, Failure> {
    let sandboxed = scratch.sandbox.is_some();
    let failed = |reason: String| {
        let hint = sandbox::network_hint(&reason).filter(|_| sandboxed);
        Failure {
            stage: "capture".into(),
            reason: format!("{reason}{}", hint.unwrap_or_default()),
            sandboxed,
        }
    };
    let env: Vec<(String, String)> = package_spec
        .env
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut words = program;
    words.extend(package_spec.args.iter().cloned());
    let argv = scratch.argv(Step::Server, folder, &env, &words);
    let options = CaptureOptions {
        protocol_version: live::DEFAULT_PROTOCOL_VERSION.into(),
        client_capabilities: serde_json::json!({}),
        timeout: Duration::from_secs(spec.capture_timeout_seconds),
        max_pages: live::DEFAULT_MAX_PAGES,
        max_bytes: MAX_BYTES,
        whole_contract: true,
        protocol: ProtocolMode::Auto,
    };
    // Unsandboxed, a server starts in its own HOME; sandboxed, bwrap sets the folder.
    let launch = Launch {
        dir: Some(match sandboxed {
            true => scratch.root().to_path_buf(),
            false => folder.host.join("home"),
        }),
        env: Vec::new(),
    };
    let transport = StdioTransport::spawn_in(&argv, MAX_BYTES, None, &launch)
        .map_err(|e| failed(driftlab_contract::text::with_causes(&e)))?;
    // A timeout's own hint names `capture`'s flag; a census sets the spec's timeout instead.
    let capture = live::capture(transport, &options).map_err(|e| match e {
        LiveError::Timeout { phase, seconds } => failed(format!(
            "no answer to {phase} within {seconds} s (raise capture_timeout_seconds)"
        )),
        e => failed(driftlab_contract::text::with_causes(&e)),
    })?;
    // Recorded as it ran, minus the environment's values and this machine's folders: a
    // sandboxed run as its policy's name (docs/census.md), the release's folder as `.`.
    let mut recorded: Vec<String> = match sandboxed {
        true => vec![sandbox::PROGRAM.into(), sandbox::POLICY.into(), "--".into()],
        false => ["PATH", "HOME", "TMPDIR"]
            .map(|k| format!("{k}=…"))
            .to_vec(),
    };
    recorded.extend(env.iter().map(|(k, _)| format!("{k}=…")));
    let release = format!("{}/", folder.seen.display());
    let node = scratch.tools.node.as_deref().map(path_word);
    recorded.extend(words.iter().map(|word| match Some(word) == node.as_ref() {
        true => "node".to_string(),
        false => scratch.scrub(&word.replace(&release, "")),
    }));
    // The capture's own record of when: the census derives nothing from it.
    let at = driftlab_contract::text::now_rfc3339();
    Ok(live::capture_file::render(
        &capture,
        &Target::Command(recorded),
        &at,
        None,
    ))
}

/// A failure's reason is kept whole up to this many bytes.
const MAX_REASON: usize = 4096;

/// The last `max` bytes of `text` (on a character boundary), marked with `…` where cut.
fn tail(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &text[start..])
}
