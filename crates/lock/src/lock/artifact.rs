//! The code a server's argv runs, pinned by a digest read without network: a server swapped in
//! place (a local edit, a republished tag, a tampered cache or dependency, an injected `.pth`, a
//! replaced interpreter) keeps its package, its version and its contract, and only this tells
//! it apart.
//!
//! - an installed npm package (a script under `node_modules/`): `npm-closure`, the package,
//!   every package its dependencies reach as Node resolves them, and the node binary;
//! - a Python environment's console script, `python -m` or a script run by an environment's
//!   Python: `python-environment`, every file of its `site-packages` (bytecode caches left out:
//!   Python writes them as it runs), the base interpreter's start-up hooks and the interpreter;
//! - `docker run image@sha256:…`: the image digest the argv pins;
//! - any other program or script that is a file: that file.
//!
//! Each closure is hashed in named parts, so a changed digest says which part changed. One over
//! [`closure::MAX_FILES`] files or [`closure::MAX_BYTES`] bytes is recorded as not pinned, with
//! why. Runners that fetch at start (`npx`, `uvx`, `pipx run`, an unpinned image) are not
//! pinned: what they run is in a cache driftlab does not read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::closure::{self, Entry, Parts};
use super::package::{node_package_dir, python_dist_info};
use driftlab_contract::fs::on_path;

/// What was hashed, and its digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Artifact {
    /// `npm-closure`, `python-environment`, `docker-image` or `file` (`npm-files` and
    /// `python-files` in lockfiles written before closures were pinned).
    pub kind: String,
    /// The folder, file or image that was hashed.
    pub of: String,
    /// `sha256:<hex>` over every part; empty when not pinned.
    pub digest: String,
    /// Each part's digest (`package`, `dependencies`, `site-packages`, `startup`,
    /// `interpreter`), so a change names what changed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub parts: BTreeMap<String, String>,
    /// Why the closure was not hashed (it is over the bounds), when it was not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_pinned: Option<String>,
}

impl Artifact {
    /// Whether `now` is the same code as this artifact (where it is kept on this machine may
    /// differ).
    pub(crate) fn same_code(&self, now: &Artifact) -> bool {
        self.kind == now.kind && self.digest == now.digest && self.not_pinned == now.not_pinned
    }

    /// The parts whose digest differs in `now`, in order.
    pub(crate) fn changed_parts(&self, now: &Artifact) -> Vec<String> {
        self.parts
            .iter()
            .filter(|(part, digest)| now.parts.get(*part) != Some(digest))
            .map(|(part, _)| part.clone())
            .collect()
    }
}

/// Files larger than this are not read by the digests of lockfiles written before closures.
const MAX_FILES: usize = 50_000;

/// The artifact `argv` runs (relative paths from `dir`, else from here), where it can be read
/// without network.
pub(crate) fn of_argv(argv: &[String], dir: Option<&Path>) -> Option<Artifact> {
    let program_name = Path::new(argv.first()?).file_name()?.to_string_lossy();
    let rest = &argv[1..];
    let from = |path: &str| match dir {
        Some(dir) => dir.join(path),
        None => PathBuf::from(path),
    };
    let program = || on_path(&argv[0]).map(|p| from(&p.to_string_lossy()));
    match &*program_name {
        "docker" | "podman" => docker_digest(rest),
        "npx" | "bunx" | "uvx" | "pipx" | "pnpm" | "yarn" => None,
        "node" | "deno" | "bun" => {
            let script = from(rest.iter().find(|w| !w.starts_with('-'))?);
            let real = script.canonicalize().ok()?;
            match node_package_dir(&real) {
                Some(package) => npm_closure(&package, program().as_deref()),
                None => of_file(&real),
            }
        }
        name if is_python(name) => {
            let python = program()?;
            match (
                environment_of(&python),
                rest.iter().find(|w| !w.starts_with('-')),
            ) {
                (Some(env), _) => python_environment(&env, &python),
                (None, Some(script)) => of_file(&from(script)),
                (None, None) => None,
            }
        }
        _ => {
            let program = program()?;
            let real = program.canonicalize().ok()?;
            if let Some(package) = node_package_dir(&real) {
                return npm_closure(&package, on_path("node").as_deref());
            }
            if python_dist_info(&program).is_some() {
                let env = program.parent()?.parent()?;
                let python = shebang(&program).unwrap_or_else(|| env.join("bin/python"));
                return python_environment(env, &python);
            }
            of_file(&real)
        }
    }
}

/// The artifact of `argv` as a lockfile of `kind` recorded it: the old per-package digests for
/// lockfiles written before closures were pinned, so they are checked as they were written.
pub(crate) fn of_argv_as(argv: &[String], dir: Option<&Path>, kind: &str) -> Option<Artifact> {
    match kind {
        "npm-files" | "python-files" => legacy(argv, dir),
        _ => of_argv(argv, dir),
    }
}

/// `python`, `python3` or `python3.N`: an interpreter, not a program named after one.
fn is_python(name: &str) -> bool {
    let minor = name.strip_prefix("python3.");
    name == "python"
        || name == "python3"
        || minor.is_some_and(|m| !m.is_empty() && m.chars().all(|c| c.is_ascii_digit()))
}

/// The environment (a venv) an interpreter path belongs to: `ENV/bin/python…` beside
/// `ENV/pyvenv.cfg`.
fn environment_of(python: &Path) -> Option<PathBuf> {
    let env = python.parent()?.parent()?;
    env.join("pyvenv.cfg").is_file().then(|| env.to_path_buf())
}

/// The interpreter a script's `#!` line names.
fn shebang(script: &Path) -> Option<PathBuf> {
    let mut head = vec![0; 512];
    let mut file = std::fs::File::open(script).ok()?;
    let n = std::io::Read::read(&mut file, &mut head).ok()?;
    let line = std::str::from_utf8(&head[..n]).ok()?.lines().next()?;
    let interpreter = line.strip_prefix("#!")?.split_whitespace().next()?;
    Some(PathBuf::from(interpreter))
}

fn npm_closure(package: &Path, node: Option<&Path>) -> Option<Artifact> {
    let of = package.display().to_string();
    Some(match closure::npm(package, node) {
        Ok(parts) => hashed_parts("npm-closure", of, &parts)?,
        Err(why) => not_pinned("npm-closure", of, why),
    })
}

fn python_environment(env: &Path, python: &Path) -> Option<Artifact> {
    let env = env.canonicalize().ok()?;
    let of = env.display().to_string();
    Some(match closure::python(&env, python) {
        Ok(parts) => hashed_parts("python-environment", of, &parts)?,
        Err(why) => not_pinned("python-environment", of, why),
    })
}

fn not_pinned(kind: &str, of: String, why: String) -> Artifact {
    Artifact {
        kind: kind.into(),
        of,
        digest: String::new(),
        parts: BTreeMap::new(),
        not_pinned: Some(format!("not pinned: its closure is {why}")),
    }
}

/// sha256 of each part (each entry's name, kind and bytes or link target, in name order), and
/// of all of them; `None` when a file cannot be read.
fn hashed_parts(kind: &str, of: String, parts: &Parts) -> Option<Artifact> {
    let mut all = Sha256::new();
    let mut digests = BTreeMap::new();
    for (part, entries) in parts {
        let mut hasher = Sha256::new();
        for (name, entry) in entries {
            hasher.update(name.as_bytes());
            hasher.update([0]);
            match entry {
                Entry::File(path) => {
                    let bytes = std::fs::read(path).ok()?;
                    hasher.update([b'f']);
                    hasher.update((bytes.len() as u64).to_le_bytes());
                    hasher.update(&bytes);
                }
                Entry::Link(target) => {
                    hasher.update([b'l']);
                    hasher.update((target.len() as u64).to_le_bytes());
                    hasher.update(target.as_bytes());
                }
            }
        }
        let digest = format!(
            "sha256:{}",
            driftlab_contract::text::hex(&hasher.finalize())
        );
        all.update(part.as_bytes());
        all.update([0]);
        all.update(digest.as_bytes());
        digests.insert(part.to_string(), digest);
    }
    Some(Artifact {
        kind: kind.into(),
        of,
        digest: format!("sha256:{}", driftlab_contract::text::hex(&all.finalize())),
        parts: digests,
        not_pinned: None,
    })
}

/// The per-package digests lockfiles recorded before closures were pinned.
fn legacy(argv: &[String], dir: Option<&Path>) -> Option<Artifact> {
    let program_name = Path::new(argv.first()?).file_name()?.to_string_lossy();
    let rest = &argv[1..];
    let from = |path: &str| match dir {
        Some(dir) => dir.join(path),
        None => PathBuf::from(path),
    };
    let file = match &*program_name {
        "node" | "python" | "python3" | "deno" | "bun" => {
            from(rest.iter().find(|w| !w.starts_with('-'))?)
        }
        program if program == argv[0] => on_path(&argv[0])?,
        _ => from(&argv[0]),
    };
    let real = file.canonicalize().ok()?;
    if let Some(dir) = node_package_dir(&real) {
        return hashed("npm-files", &dir, files_below(&dir)?);
    }
    let info = python_dist_info(&file)?;
    let site = info.parent()?;
    hashed("python-files", &info, recorded_files(&info, site)?)
}

/// `image@sha256:…` among a `docker run`'s words.
fn docker_digest(args: &[String]) -> Option<Artifact> {
    if args.first().is_none_or(|w| w != "run") {
        return None;
    }
    let image = args.iter().find(|w| w.contains("@sha256:"))?;
    let (name, digest) = image.split_once('@')?;
    Some(Artifact {
        kind: "docker-image".into(),
        of: name.to_string(),
        digest: digest.to_string(),
        parts: BTreeMap::new(),
        not_pinned: None,
    })
}

/// The artifact of a program or script file on its own.
fn of_file(file: &Path) -> Option<Artifact> {
    let real = file.canonicalize().ok()?;
    real.is_file()
        .then(|| hashed("file", &real, vec![real.clone()]))
        .flatten()
}

/// sha256 over each file's path (relative to `root`'s folder), length and bytes, in path order.
fn hashed(kind: &str, root: &Path, mut files: Vec<PathBuf>) -> Option<Artifact> {
    files.sort();
    let base = root.parent().unwrap_or(root);
    let mut hasher = Sha256::new();
    for file in &files {
        let bytes = std::fs::read(file).ok()?;
        let name = file.strip_prefix(base).unwrap_or(file);
        hasher.update(name.to_string_lossy().as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Some(Artifact {
        kind: kind.into(),
        of: root.display().to_string(),
        digest: format!(
            "sha256:{}",
            driftlab_contract::text::hex(&hasher.finalize())
        ),
        parts: BTreeMap::new(),
        not_pinned: None,
    })
}

/// Every file below `dir`, nested `node_modules/` (other packages) and links left out.
fn files_below(dir: &Path) -> Option<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).ok()?.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() && entry.file_name() != "node_modules" {
                folders.push(entry.path());
            } else if kind.is_file() {
                files.push(entry.path());
            }
            if files.len() > MAX_FILES {
                return None;
            }
        }
    }
    Some(files)
}

/// The files a distribution's `RECORD` lists (paths relative to `site`), bytecode left out.
fn recorded_files(info: &Path, site: &Path) -> Option<Vec<PathBuf>> {
    let record = std::fs::read_to_string(info.join("RECORD")).ok()?;
    let files: Vec<PathBuf> = record
        .lines()
        .filter_map(|line| line.split(',').next())
        .filter(|path| !path.is_empty() && !path.contains("__pycache__") && !path.ends_with(".pyc"))
        .map(|path| site.join(path))
        .filter(|path| path.is_file())
        .take(MAX_FILES + 1)
        .collect();
    (files.len() <= MAX_FILES).then_some(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn an_installed_npm_package_is_pinned_by_its_files_and_an_edit_changes_it() {
        let dir = tempfile::tempdir().unwrap();
        let package = dir.path().join("node_modules/@acme/server");
        std::fs::create_dir_all(package.join("dist")).unwrap();
        std::fs::create_dir_all(package.join("node_modules/dep")).unwrap();
        std::fs::write(package.join("package.json"), r#"{"name":"@acme/server"}"#).unwrap();
        let entry = package.join("dist/index.js");
        std::fs::write(&entry, "console.log(1)").unwrap();
        std::fs::write(package.join("node_modules/dep/x.js"), "a").unwrap();
        let run = argv(&["node", entry.to_str().unwrap()]);
        let before = of_argv(&run, None).unwrap();
        assert_eq!(before.kind, "npm-closure");
        assert!(before.of.ends_with("node_modules/@acme/server"));
        // A package below it that it does not depend on is not in its closure.
        std::fs::write(package.join("node_modules/dep/x.js"), "b").unwrap();
        assert_eq!(of_argv(&run, None).unwrap(), before);
        std::fs::write(&entry, "console.log(2)").unwrap();
        assert_ne!(of_argv(&run, None).unwrap().digest, before.digest);
    }

    #[test]
    fn only_an_interpreter_name_is_read_as_one() {
        for name in ["python", "python3", "python3.11"] {
            assert!(is_python(name), "{name}");
        }
        for name in [
            "python-lsp-server",
            "python3.x",
            "python3.",
            "pythonista",
            "python2",
        ] {
            assert!(!is_python(name), "{name}");
        }
    }

    #[test]
    fn docker_by_digest_a_plain_file_and_runners() {
        let docker = argv(&["docker", "run", "-i", "acme/mcp@sha256:abcd"]);
        let pinned = of_argv(&docker, None).unwrap();
        assert_eq!(
            (pinned.kind.as_str(), pinned.digest.as_str()),
            ("docker-image", "sha256:abcd")
        );
        assert_eq!(
            of_argv(&argv(&["docker", "run", "-i", "acme/mcp:1.0"]), None),
            None
        );
        assert_eq!(
            of_argv(&argv(&["npx", "-y", "@acme/server@1.0.0"]), None),
            None
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("server.py"), "print(1)").unwrap();
        let file = of_argv(&argv(&["python3", "server.py"]), Some(dir.path())).unwrap();
        assert_eq!(file.kind, "file");
        assert!(file.of.ends_with("server.py"));
    }
}
