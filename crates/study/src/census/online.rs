//! The census's online half: which releases a registry has, installing one into a folder of
//! its own (npm with `--ignore-scripts`; a venv per PyPI release, wheels only: neither runs the
//! package's code), and capturing its whole contract with nothing of the user's environment but
//! `PATH` (and what the spec names), with `HOME` and `TMPDIR` in a scratch folder. Every failure
//! is a [`Failure`] row, never a crash.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::derive::Failure;
use super::sandbox::{self, Sandbox};
use super::spec::{CensusSpec, Package, PackageSpec};
use super::version::Scheme;
use crate::live::stdio::{Launch, StdioTransport};
use crate::live::{self, CaptureOptions, LiveError, ProtocolMode, Target};

/// Where npm installs from unless the spec says otherwise.
pub const NPM_REGISTRY: &str = "https://registry.npmjs.org/";
/// Where pip installs from unless the spec says otherwise.
pub const PYPI_INDEX: &str = "https://pypi.org/simple/";

/// The largest contract a release may list (as `capture`'s default).
const MAX_BYTES: usize = 64 * 1024 * 1024;

/// A scratch folder for one census run: installs, `HOME`, `TMPDIR`; and the sandbox servers run
/// in, if any.
pub struct Scratch {
    /// The scratch folder.
    pub root: PathBuf,
    /// The sandbox servers run in, when there is one.
    pub sandbox: Option<Sandbox>,
}

impl Scratch {
    fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    fn tmp(&self) -> PathBuf {
        self.root.join("tmp")
    }

    /// `text` with this machine's paths replaced by names: the scratch folder, `PATH`.
    pub(crate) fn scrub(&self, text: &str) -> String {
        let mut text = text.to_string();
        if let Ok(path) = std::env::var("PATH") {
            if !path.is_empty() {
                text = text.replace(&path, "$PATH");
            }
        }
        scrub_path(&text, &self.root.to_string_lossy(), "$SCRATCH")
    }

    /// An installer's command (npm, pip: they run no package's code, see [`capture_release`]):
    /// the user's environment, so a proxy or a CA the registry needs still applies, with
    /// `TMPDIR` and the caches in the scratch folder.
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .env("TMPDIR", self.tmp())
            .env("npm_config_cache", self.root.join("npm-cache"))
            .env("PIP_CACHE_DIR", self.root.join("pip-cache"))
            .stdin(Stdio::null());
        command
    }
}

/// `text` with every occurrence of `path` named `name`, a shortened one too (`/tmp/dri…`, as
/// an error's excerpt of a server's stderr cuts it).
fn scrub_path(text: &str, path: &str, name: &str) -> String {
    // Long enough that a cut-off prefix is this path, not any word.
    const LEAST: usize = 8;
    if path.len() < LEAST || !path.is_char_boundary(LEAST) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&path[..LEAST]) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let mut same = tail
            .bytes()
            .zip(path.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        while !tail.is_char_boundary(same) {
            same -= 1;
        }
        let cut = tail[same..].starts_with('…');
        if same == path.len() || cut {
            out.push_str(name);
            rest = &tail[same..];
        } else {
            out.push_str(&tail[..LEAST]);
            rest = &tail[LEAST..];
        }
    }
    out.push_str(rest);
    out
}

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
    // The first two lines that say something; npm's last line names its log file, which only
    // this run had.
    let said: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.contains("complete log of this run") && !l.starts_with("WARNING:")
        })
        .take(2)
        .collect();
    let said = match said.is_empty() {
        true => "no output on stderr".to_string(),
        false => said.join(" / "),
    };
    Err(format!(
        "{program} exited with {status}: {}",
        crate::text::shorten(&said, 300)
    ))
}

fn registry(spec: &CensusSpec) -> &str {
    spec.npm_registry.as_deref().unwrap_or(NPM_REGISTRY)
}

fn index(spec: &CensusSpec) -> &str {
    spec.pypi_index.as_deref().unwrap_or(PYPI_INDEX)
}

/// Every version the registry lists for `package`.
pub(crate) fn available_versions(
    spec: &CensusSpec,
    package: &Package,
    scratch: &Scratch,
) -> Result<Vec<String>, String> {
    let log = scratch
        .root
        .join(format!("versions-{}", sanitize(&package.key())));
    let timeout = Duration::from_secs(spec.install_timeout_seconds);
    match package.scheme {
        Scheme::Npm => {
            let mut command = scratch.command("npm");
            command.args([
                "view",
                &package.name,
                "versions",
                "--json",
                "--registry",
                registry(spec),
            ]);
            let text = run(command, timeout, &log)?;
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
            let mut command = scratch.command("python3");
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
pub(crate) fn capture_release(
    spec: &CensusSpec,
    package_spec: &PackageSpec,
    package: &Package,
    version: &str,
    scratch: &Scratch,
) -> Result<Vec<u8>, Failure> {
    capture_release_in(spec, package_spec, package, version, scratch).map_err(|f| Failure {
        reason: scratch.scrub(&f.reason),
        ..f
    })
}

fn capture_release_in(
    spec: &CensusSpec,
    package_spec: &PackageSpec,
    package: &Package,
    version: &str,
    scratch: &Scratch,
) -> Result<Vec<u8>, Failure> {
    let install = |reason: String| Failure {
        stage: "install".into(),
        reason,
        sandboxed: false,
    };
    let folder = scratch
        .root
        .join("installs")
        .join(sanitize(&package.key()))
        .join(sanitize(version));
    std::fs::create_dir_all(&folder).map_err(|e| install(format!("{}: {e}", folder.display())))?;
    for dir in [scratch.home(), scratch.tmp()] {
        std::fs::create_dir_all(&dir).map_err(|e| install(format!("{}: {e}", dir.display())))?;
    }
    let timeout = Duration::from_secs(spec.install_timeout_seconds);
    let log = folder.join("install");
    let program = match package.scheme {
        Scheme::Npm => {
            let mut command = scratch.command("npm");
            command.args([
                "install",
                "--ignore-scripts",
                "--no-audit",
                "--no-fund",
                "--no-save",
                "--prefix",
            ]);
            command
                .arg(&folder)
                .arg(format!("{}@{version}", package.name))
                .args(["--registry", registry(spec)]);
            run(command, timeout, &log).map_err(install)?;
            npm_bin(&folder, package, package_spec.bin.as_deref()).map_err(install)?
        }
        Scheme::Pypi => {
            let venv = folder.join("venv");
            let mut command = scratch.command("python3");
            command.args(["-m", "venv"]).arg(&venv);
            run(command, timeout, &log).map_err(install)?;
            let python = venv.join("bin/python");
            let mut command = scratch.command(&python.to_string_lossy());
            // Wheels only: building an sdist runs its code with the user's environment.
            command.args([
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--no-input",
                "--only-binary=:all:",
                "--index-url",
                index(spec),
            ]);
            command.arg(format!("{}=={version}", package.name));
            run(command, timeout, &log).map_err(|reason| {
                // The version is listed, so pip found no wheel it may take.
                let hint = match reason.contains("No matching distribution found") {
                    true => " (no wheel for this platform: a census installs wheels only, since building an sdist runs its code)",
                    false => "",
                };
                install(format!("{reason}{hint}"))
            })?;
            match (&package_spec.script, &package_spec.module) {
                (Some(script), _) => {
                    vec![venv.join("bin").join(script).to_string_lossy().into_owned()]
                }
                (None, Some(module)) => vec![
                    python.to_string_lossy().into_owned(),
                    "-m".into(),
                    module.clone(),
                ],
                (None, None) => return Err(install("no `script` or `module` to start".into())),
            }
        }
    };
    capture(spec, package_spec, program, scratch, &folder)
}

/// The bin of an installed npm package, as `node PATH` (a bin is a script, run with node).
fn npm_bin(folder: &Path, package: &Package, wanted: Option<&str>) -> Result<Vec<String>, String> {
    let dir = folder.join("node_modules").join(&package.name);
    let manifest: serde_json::Value =
        crate::fs::read_json(&dir.join("package.json")).map_err(|e| e.to_string())?;
    let short = package.name.rsplit('/').next().unwrap_or(&package.name);
    let path = match manifest.get("bin") {
        Some(serde_json::Value::String(path)) => path.clone(),
        Some(serde_json::Value::Object(bins)) => {
            let pick = match wanted {
                Some(name) => bins.get(name),
                None if bins.len() == 1 => bins.values().next(),
                None => bins.get(short),
            };
            pick.and_then(|v| v.as_str())
                .map(String::from)
                .ok_or_else(|| {
                    format!(
                        "bins {:?}: say which with `bin`",
                        bins.keys().collect::<Vec<_>>()
                    )
                })?
        }
        _ => return Err(format!("{} has no bin to run", package.name)),
    };
    Ok(vec![
        "node".into(),
        dir.join(path).to_string_lossy().into_owned(),
    ])
}

/// Starts `program` under `env -i` (nothing of driftlab's environment but `PATH`, `HOME`,
/// `TMPDIR` and the spec's `env`) and captures its whole contract.
fn capture(
    spec: &CensusSpec,
    package_spec: &PackageSpec,
    program: Vec<String>,
    scratch: &Scratch,
    folder: &Path,
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
    let sandbox: Vec<String> = scratch
        .sandbox
        .as_ref()
        .map(|s| s.prefix().to_vec())
        .unwrap_or_default();
    let mut argv: Vec<String> = sandbox.clone();
    argv.extend(["env".to_string(), "-i".to_string()]);
    argv.push(format!(
        "PATH={}",
        std::env::var("PATH").unwrap_or_default()
    ));
    argv.push(format!("HOME={}", scratch.home().display()));
    argv.push(format!("TMPDIR={}", scratch.tmp().display()));
    argv.extend(package_spec.env.iter().map(|(k, v)| format!("{k}={v}")));
    argv.extend(program);
    argv.extend(package_spec.args.iter().cloned());
    let options = CaptureOptions {
        protocol_version: live::DEFAULT_PROTOCOL_VERSION.into(),
        client_capabilities: serde_json::json!({}),
        timeout: Duration::from_secs(spec.capture_timeout_seconds),
        max_pages: live::DEFAULT_MAX_PAGES,
        max_bytes: MAX_BYTES,
        whole_contract: true,
        protocol: ProtocolMode::Auto,
    };
    // Every release runs in the same folder: a server that names its working folder in a
    // description (figma-developer-mcp does) would otherwise differ release to release.
    let cwd = scratch.root.join("cwd");
    std::fs::create_dir_all(&cwd).map_err(|e| failed(format!("{}: {e}", cwd.display())))?;
    let launch = Launch {
        dir: Some(cwd),
        env: Vec::new(),
    };
    let transport = StdioTransport::spawn_in(&argv, MAX_BYTES, None, &launch)
        .map_err(|e| failed(crate::text::with_causes(&e)))?;
    // A timeout's own hint names `capture`'s flag; a census sets the spec's timeout instead.
    let capture = live::capture(transport, &options).map_err(|e| match e {
        LiveError::Timeout { phase, seconds } => failed(format!(
            "no answer to {phase} within {seconds} s (raise capture_timeout_seconds)"
        )),
        e => failed(crate::text::with_causes(&e)),
    })?;
    // Recorded as it runs, minus the environment's values and this machine's folders.
    let install = format!("{}/", folder.display());
    let mut recorded: Vec<String> = sandbox.iter().map(|w| scratch.scrub(w)).collect();
    recorded.extend(
        argv.iter()
            .skip(sandbox.len() + 2)
            .map(|word| match word.split_once('=') {
                Some((name, _)) if !word.starts_with('/') && !name.contains('/') => {
                    format!("{name}=…")
                }
                _ => scratch.scrub(&word.replace(&install, "")),
            }),
    );
    // The capture's own record of when: the census derives nothing from it.
    let at = crate::text::rfc3339(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    );
    Ok(live::capture_file::render(
        &capture,
        &Target::Command(recorded),
        &at,
        None,
    ))
}

#[cfg(test)]
mod tests {
    use super::scrub_path;

    #[test]
    fn a_scratch_path_is_named_whole_or_cut() {
        let root = "/tmp/driftlab-census-x";
        assert_eq!(
            scrub_path(
                "at /tmp/driftlab-census-x/installs/a and /tmp/driftlab-cens…",
                root,
                "$S"
            ),
            "at $S/installs/a and $S…"
        );
        // Another folder that merely starts alike is left as it is.
        assert_eq!(
            scrub_path("/tmp/driftlab-other", root, "$S"),
            "/tmp/driftlab-other"
        );
        assert_eq!(scrub_path("/tmp/dr", root, "$S"), "/tmp/dr");
    }
}
