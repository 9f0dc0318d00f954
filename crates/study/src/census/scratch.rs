//! A census run's scratch folder (a random name, mode 0700, never reused), the interpreters its
//! releases run, and a fresh folder per release; the commands each step runs, in the sandbox
//! or (with `--no-sandbox`) plainly, with a cleared environment.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::sandbox::{self, Sandbox, Step};
use super::spec::CensusSpec;
use super::version::Scheme;

/// A scratch folder for one census run: a random name, mode 0700, never reused; in it a fresh
/// folder per release. Holds the sandbox releases run in (`None` only with `--no-sandbox`) and
/// the interpreters their steps run.
pub struct Scratch {
    folder: tempfile::TempDir,
    /// The sandbox every step of a release runs in, when there is one.
    pub sandbox: Option<Sandbox>,
    pub(crate) tools: Tools,
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
    /// uv, which installs a PyPI release as of its upload time; pip (as of today) without it.
    pub uv: Option<PathBuf>,
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
            let python = spec.python.as_deref().unwrap_or("python3");
            let out = Command::new(python)
                .args([
                    "-c",
                    "import sys, os; print(os.path.join(sys.base_prefix, 'bin', 'python3'))",
                ])
                .stdin(Stdio::null())
                .output()
                .map_err(|e| format!("{python}, which PyPI releases need: {e}"))?;
            if !out.status.success() {
                let said = String::from_utf8_lossy(&out.stderr);
                let first = said.lines().next().unwrap_or("").trim();
                return Err(format!(
                    "{python}, which PyPI releases need, failed ({}): {}",
                    out.status,
                    driftlab_contract::text::shorten(first, 200)
                ));
            }
            let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
            let path = std::fs::canonicalize(&text)
                .map_err(|e| format!("{python} names its interpreter {text:?}: {e}"))?;
            tools.python = Some(path);
            // Named in the spec, uv must be there; else it is used where PATH has it.
            tools.uv = match &spec.uv {
                Some(named) => Some(resolve(named).ok_or_else(|| {
                    format!("uv {named:?}, which the spec names for PyPI installs, was not found")
                })?),
                None => resolve("uv"),
            };
        }
        if schemes.contains(&Scheme::Npm) {
            let found = |name: &str| {
                driftlab_contract::fs::on_path(name)
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
        for program in [&self.python, &self.node, &self.npm, &self.uv]
            .into_iter()
            .flatten()
        {
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

/// A program named by a path (with a `/`) or found on PATH, as its real file.
fn resolve(named: &str) -> Option<PathBuf> {
    let path = driftlab_contract::fs::on_path(named)?;
    std::fs::canonicalize(path).ok().filter(|p| p.is_file())
}

/// A release's own folder: where it is on the host, and where its steps see it.
pub(crate) struct ReleaseFolder {
    pub(crate) host: PathBuf,
    pub(crate) seen: PathBuf,
    /// Where its steps' output is logged (outside the folder, which the release can write).
    pub(crate) log: PathBuf,
    /// The user its sandboxed steps run as (`None`: the caller's own).
    pub(crate) user: Option<u32>,
}

impl ReleaseFolder {
    pub(crate) fn seen(&self, rest: &str) -> String {
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
    pub(crate) fn lister(&self, program: &str) -> Command {
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
    pub(crate) fn release_folder(&self) -> std::io::Result<ReleaseFolder> {
        let n = self
            .releases
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let host = self.root().join(format!("r{n}"));
        let logs = self.root().join("logs");
        std::fs::create_dir_all(&logs)?;
        let user = match &self.sandbox {
            Some(sandbox) => sandbox.prepare(&host)?,
            None => {
                use std::os::unix::fs::DirBuilderExt;
                std::fs::DirBuilder::new().mode(0o700).create(&host)?;
                for dir in ["home", "tmp"] {
                    std::fs::create_dir(host.join(dir))?;
                }
                None
            }
        };
        let seen = match self.sandbox {
            Some(_) => PathBuf::from(sandbox::RELEASE),
            None => host.clone(),
        };
        Ok(ReleaseFolder {
            host,
            seen,
            log: logs.join(format!("r{n}")),
            user,
        })
    }

    /// The words that run `program` as `step` of the release in `folder`, with nothing of
    /// driftlab's environment but `env` (and `HOME`, `TMPDIR`, `PATH`).
    pub(crate) fn argv(
        &self,
        step: Step,
        folder: &ReleaseFolder,
        env: &[(String, String)],
        program: &[String],
    ) -> Vec<String> {
        if let Some(sandbox) = &self.sandbox {
            return sandbox.argv(step, &folder.host, folder.user, env, program);
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
    pub(crate) fn installer_env(&self, folder: &ReleaseFolder) -> Vec<(String, String)> {
        let mut env = vec![
            ("npm_config_cache".to_string(), folder.seen(".cache/npm")),
            ("PIP_CACHE_DIR".to_string(), folder.seen(".cache/pip")),
            // uv installs into the interpreter the census names, never one it downloads.
            ("UV_PYTHON_DOWNLOADS".to_string(), "never".to_string()),
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
