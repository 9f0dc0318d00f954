//! The code a server's argv runs, pinned by a digest read without network: a server swapped in
//! place (a local edit, a republished tag, a tampered cache) keeps its package, its version and
//! its contract, and only this tells it apart.
//!
//! - an installed npm package (a script under `node_modules/`): its folder's files;
//! - a Python distribution's console script: the files its `RECORD` lists (bytecode caches left
//!   out: Python writes them as it runs);
//! - `docker run image@sha256:…`: the image digest the argv pins;
//! - any other program or script that is a file: that file.
//!
//! Runners that fetch at start (`npx`, `uvx`, `pipx run`, an unpinned image) are not pinned:
//! what they run is in a cache driftlab does not read.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::package::{node_package_dir, python_dist_info};

/// What was hashed, and its digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Artifact {
    /// `npm-files`, `python-files`, `docker-image` or `file`.
    pub kind: String,
    /// The folder, file or image that was hashed.
    pub of: String,
    /// `sha256:<hex>`.
    pub digest: String,
}

/// Files larger than this are not read (a package is code, not data).
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
    match &*program_name {
        "docker" | "podman" => docker_digest(rest),
        "npx" | "bunx" | "uvx" | "pipx" | "pnpm" | "yarn" => None,
        "node" | "python" | "python3" | "deno" | "bun" => {
            let script = rest.iter().find(|w| !w.starts_with('-'))?;
            of_file(&from(script))
        }
        program if program == argv[0] => of_file(&on_path(&argv[0])?),
        _ => of_file(&from(&argv[0])),
    }
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
    })
}

/// A program as the system would find it: a path as given, else the first match on `PATH`.
fn on_path(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// The artifact of a program or script file.
fn of_file(file: &Path) -> Option<Artifact> {
    let real = file.canonicalize().ok()?;
    if let Some(dir) = node_package_dir(&real) {
        return hashed("npm-files", &dir, files_below(&dir)?);
    }
    if let Some(info) = python_dist_info(file) {
        let site = info.parent()?;
        return hashed("python-files", &info, recorded_files(&info, site)?);
    }
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
        digest: format!("sha256:{}", crate::text::hex(&hasher.finalize())),
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
        assert_eq!(before.kind, "npm-files");
        assert!(before.of.ends_with("node_modules/@acme/server"));
        // Another package below it is its own artifact.
        std::fs::write(package.join("node_modules/dep/x.js"), "b").unwrap();
        assert_eq!(of_argv(&run, None).unwrap(), before);
        std::fs::write(&entry, "console.log(2)").unwrap();
        assert_ne!(of_argv(&run, None).unwrap().digest, before.digest);
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
