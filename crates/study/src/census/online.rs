//! The census's online half: which releases a registry has, installing one into a fresh folder
//! of its own (npm with `--ignore-scripts`; a venv per PyPI release, wheels only), and capturing
//! its whole contract. Every step of a release runs in the sandbox ([`sandbox`]) with a cleared
//! environment (installers keep only the way to the registry, the server only what the spec
//! names), and the release's folder is removed after it. Every failure is a [`Failure`] row,
//! never a crash.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::derive::Failure;
use super::sandbox::{self, Sandbox, Step};
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

/// A scratch folder for one census run: a random name, mode 0700, never reused; in it a fresh
/// folder per release. Holds the sandbox releases run in (`None` only with `--no-sandbox`) and
/// the interpreters their steps run.
pub struct Scratch {
    folder: tempfile::TempDir,
    /// The sandbox every step of a release runs in, when there is one.
    pub sandbox: Option<Sandbox>,
    tools: Tools,
    releases: std::sync::atomic::AtomicUsize,
}

/// The host's interpreters and installers a census runs (resolved once, before anything runs).
#[derive(Debug, Clone, Default)]
pub struct Tools {
    /// The Python that makes each release's venv (its real executable, not a shim).
    pub python: Option<PathBuf>,
    /// node.
    pub node: Option<PathBuf>,
    /// npm's script, run with node.
    pub npm: Option<PathBuf>,
}

impl Tools {
    /// Finds what `spec`'s packages need: Python for PyPI, node and npm for npm.
    pub fn find(spec: &CensusSpec) -> Result<Tools, String> {
        let schemes: Vec<Scheme> = spec
            .packages
            .iter()
            .filter_map(|p| p.package().ok().map(|p| p.scheme))
            .collect();
        let mut tools = Tools::default();
        if schemes.contains(&Scheme::Pypi) {
            // The interpreter's own executable: `python3` on PATH may be a shim (pyenv) that
            // needs the user's home.
            let out = Command::new("python3")
                .args([
                    "-c",
                    "import sys, os; print(os.path.join(sys.base_prefix, 'bin', 'python3'))",
                ])
                .stdin(Stdio::null())
                .output()
                .map_err(|e| format!("python3, which PyPI releases need: {e}"))?;
            let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
            let path = std::fs::canonicalize(&text)
                .map_err(|e| format!("python3 names its interpreter {text:?}: {e}"))?;
            tools.python = Some(path);
        }
        if schemes.contains(&Scheme::Npm) {
            let found = |name: &str| {
                sandbox::which(name)
                    .and_then(|p| std::fs::canonicalize(p).ok())
                    .ok_or_else(|| format!("{name}, which npm releases need, is not on PATH"))
            };
            tools.node = Some(found("node")?);
            tools.npm = Some(found("npm")?);
        }
        Ok(tools)
    }

    /// Folders outside `/usr` the interpreters live in, for the sandbox to bind read-only.
    pub fn roots(&self) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = Vec::new();
        for program in [&self.python, &self.node, &self.npm].into_iter().flatten() {
            // `PREFIX/bin/python3`, `PREFIX/bin/node`, `…/node_modules/npm/bin/npm-cli.js`.
            let Some(root) = program.parent().and_then(Path::parent) else {
                continue;
            };
            if !root.starts_with("/usr") && !roots.iter().any(|r| root.starts_with(r)) {
                roots.push(root.to_path_buf());
            }
        }
        roots
    }
}

/// A release's own folder: where it is on the host, and where its steps see it.
struct ReleaseFolder {
    host: PathBuf,
    seen: PathBuf,
    /// Where its steps' output is logged (outside the folder, which the release can write).
    log: PathBuf,
}

impl ReleaseFolder {
    fn seen(&self, rest: &str) -> String {
        self.seen.join(rest).to_string_lossy().into_owned()
    }
}

/// What of driftlab's environment an installer keeps: the way to the registry (a proxy, a CA),
/// nothing else.
const INSTALLER_ENV: [&str; 14] = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "PIP_CERT",
    "NODE_EXTRA_CA_CERTS",
    "npm_config_cafile",
];

impl Scratch {
    /// A new scratch folder in the system's temporary folder, with the sandbox (or none).
    pub fn create(tools: Tools, sandbox: Option<Sandbox>) -> std::io::Result<Scratch> {
        let folder = tempfile::Builder::new()
            .prefix("driftlab-census-")
            .tempdir()?;
        Ok(Scratch {
            folder,
            sandbox,
            tools,
            releases: std::sync::atomic::AtomicUsize::new(0),
        })
    }

    /// The scratch folder.
    pub fn root(&self) -> &Path {
        self.folder.path()
    }

    /// `text` with this machine's paths replaced by names: the scratch folder, `PATH`.
    pub(crate) fn scrub(&self, text: &str) -> String {
        let mut text = text.to_string();
        if let Ok(path) = std::env::var("PATH") {
            if !path.is_empty() {
                text = text.replace(&path, "$PATH");
            }
        }
        scrub_path(&text, &self.root().to_string_lossy(), "$SCRATCH")
    }

    /// A registry lister's command (`npm view`, `pip index versions`: no package's code runs),
    /// with the user's environment, so a proxy or a CA the registry needs still applies, and
    /// its temporary files and caches in the scratch folder.
    fn lister(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .env("TMPDIR", self.root())
            .env("npm_config_cache", self.root().join("list-cache/npm"))
            .env("PIP_CACHE_DIR", self.root().join("list-cache/pip"))
            .current_dir(self.root())
            .stdin(Stdio::null());
        command
    }

    /// A new folder for one release, which no other release's step can see.
    fn release_folder(&self) -> std::io::Result<ReleaseFolder> {
        let n = self
            .releases
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let host = self.root().join(format!("r{n}"));
        let logs = self.root().join("logs");
        std::fs::create_dir_all(&logs)?;
        match &self.sandbox {
            Some(sandbox) => sandbox.prepare(&host)?,
            None => {
                use std::os::unix::fs::DirBuilderExt;
                std::fs::DirBuilder::new().mode(0o700).create(&host)?;
                for dir in ["home", "tmp"] {
                    std::fs::create_dir(host.join(dir))?;
                }
            }
        }
        let seen = match self.sandbox {
            Some(_) => PathBuf::from(sandbox::RELEASE),
            None => host.clone(),
        };
        Ok(ReleaseFolder {
            host,
            seen,
            log: logs.join(format!("r{n}")),
        })
    }

    /// The words that run `program` as `step` of the release in `folder`, with nothing of
    /// driftlab's environment but `env` (and `HOME`, `TMPDIR`, `PATH`).
    fn argv(
        &self,
        step: Step,
        folder: &ReleaseFolder,
        env: &[(String, String)],
        program: &[String],
    ) -> Vec<String> {
        if let Some(sandbox) = &self.sandbox {
            return sandbox.argv(step, &folder.host, env, program);
        }
        let mut argv: Vec<String> = vec!["env".into(), "-i".into()];
        argv.push(format!(
            "PATH={}",
            std::env::var("PATH").unwrap_or_default()
        ));
        argv.push(format!("HOME={}", folder.seen("home")));
        argv.push(format!("TMPDIR={}", folder.seen("tmp")));
        argv.extend(env.iter().map(|(k, v)| format!("{k}={v}")));
        argv.extend(program.iter().cloned());
        argv
    }

    /// An installer's environment: its caches in the release's folder, and the way to the
    /// registry from driftlab's.
    fn installer_env(&self, folder: &ReleaseFolder) -> Vec<(String, String)> {
        let mut env = vec![
            ("npm_config_cache".to_string(), folder.seen(".cache/npm")),
            ("PIP_CACHE_DIR".to_string(), folder.seen(".cache/pip")),
        ];
        env.extend(
            INSTALLER_ENV
                .iter()
                .filter_map(|name| Some((name.to_string(), std::env::var(name).ok()?))),
        );
        env
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
        .root()
        .join(format!("versions-{}", sanitize(&package.key())));
    let timeout = Duration::from_secs(spec.install_timeout_seconds);
    match package.scheme {
        Scheme::Npm => {
            let mut command = scratch.lister("npm");
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
            let mut command = scratch.lister("python3");
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
    let sandboxed = scratch.sandbox.is_some();
    let install = |reason: String| Failure {
        stage: "install".into(),
        reason,
        sandboxed,
    };
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
    version: &str,
    scratch: &Scratch,
    folder: &ReleaseFolder,
) -> Result<Vec<u8>, Failure> {
    let sandboxed = scratch.sandbox.is_some();
    let install = |reason: String| Failure {
        stage: "install".into(),
        reason,
        sandboxed,
    };
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
            // Wheels only: building an sdist runs its code.
            let mut words: Vec<String> = [
                python.as_str(),
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--no-input",
                "--only-binary=:all:",
                "--index-url",
                index(spec),
            ]
            .map(String::from)
            .to_vec();
            words.push(format!("{}=={version}", package.name));
            step(words).map_err(|reason| {
                // The version is listed, so pip found no wheel it may take.
                let hint = match reason.contains("No matching distribution found") {
                    true => " (no wheel for this platform: a census installs wheels only, since building an sdist runs its code)",
                    false => "",
                };
                install(format!("{reason}{hint}"))
            })?;
            match (&package_spec.script, &package_spec.module) {
                (Some(script), _) => vec![format!("{venv}/bin/{script}")],
                (None, Some(module)) => vec![python, "-m".into(), module.clone()],
                (None, None) => return Err(install("no `script` or `module` to start".into())),
            }
        }
    };
    capture(spec, package_spec, program, scratch, folder)
}

fn path_word(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// The bin of an installed npm package, relative to the folder it was installed in (a bin is a
/// script, run with node).
fn npm_bin(folder: &Path, package: &Package, wanted: Option<&str>) -> Result<String, String> {
    let relative = Path::new("node_modules").join(&package.name);
    let dir = folder.join(&relative);
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
    Ok(relative.join(path).to_string_lossy().into_owned())
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
        .map_err(|e| failed(crate::text::with_causes(&e)))?;
    // A timeout's own hint names `capture`'s flag; a census sets the spec's timeout instead.
    let capture = live::capture(transport, &options).map_err(|e| match e {
        LiveError::Timeout { phase, seconds } => failed(format!(
            "no answer to {phase} within {seconds} s (raise capture_timeout_seconds)"
        )),
        e => failed(crate::text::with_causes(&e)),
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
