//! What a launched server loads, as named parts of files to hash: for an installed npm package,
//! the package, every package its `dependencies` reach as Node resolves them (hoisted or
//! nested), and the node binary; for a Python environment, everything its `site-packages` hold
//! (the distribution, its dependencies, `.pth` files and `sitecustomize`/`usercustomize`), what
//! the base interpreter runs at start-up (its `sitecustomize`/`usercustomize`, and its
//! `site-packages`' `.pth` files when the environment includes them), and the interpreter the
//! environment runs. A closure over [`MAX_FILES`] files or [`MAX_BYTES`] bytes is not hashed:
//! the lock says so.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// The most files a closure may have to be pinned.
pub(crate) const MAX_FILES: usize = 200_000;
/// The most bytes a closure may have to be pinned.
pub(crate) const MAX_BYTES: u64 = 2 << 30;

/// A file of a closure, by the name it is hashed under (machine-independent: relative to the
/// part's root) and where it is; or a link, hashed by its target.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Entry {
    /// A regular file.
    File(PathBuf),
    /// A symbolic link's target, as written.
    Link(String),
}

/// Each part's entries by name.
pub(super) type Parts = BTreeMap<&'static str, BTreeMap<String, Entry>>;

/// Counts files and bytes against the bounds.
struct Budget {
    files: usize,
    bytes: u64,
    max_files: usize,
}

impl Budget {
    /// The bounds: [`MAX_FILES`] files, or `DRIFTLAB_CLOSURE_MAX_FILES` where set (docs/lock.md).
    fn new() -> Budget {
        let max_files = std::env::var("DRIFTLAB_CLOSURE_MAX_FILES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(MAX_FILES);
        Budget {
            files: 0,
            bytes: 0,
            max_files,
        }
    }

    fn take(&mut self, path: &Path) -> Result<(), String> {
        self.files += 1;
        self.bytes += std::fs::metadata(path).map_or(0, |m| m.len());
        if self.files > self.max_files {
            return Err(format!("over {} files", self.max_files));
        }
        if self.bytes > MAX_BYTES {
            return Err(format!("over {} MiB", MAX_BYTES >> 20));
        }
        Ok(())
    }
}

/// The closure of the npm package in `package` run by `node` (its real path).
pub(super) fn npm(package: &Path, node: Option<&Path>) -> Result<Parts, String> {
    let mut budget = Budget::new();
    let mut parts = Parts::new();
    let package = package.canonicalize().map_err(|e| e.to_string())?;
    parts.insert("package", files_of(&package, &package, &mut budget)?);
    // Every package the dependencies reach, named by its path from the project's folder (the
    // parent of its outermost node_modules), so hoisted and nested copies stay apart.
    let root = outermost_node_modules(&package)
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| package.clone());
    let mut seen = BTreeSet::from([package.clone()]);
    let mut queue: VecDeque<PathBuf> = VecDeque::from([package.clone()]);
    let mut dependencies = BTreeMap::new();
    while let Some(dir) = queue.pop_front() {
        for name in declared_dependencies(&dir) {
            let Some(found) = resolve(&dir, &name) else {
                continue; // an optional or peer dependency that is not installed
            };
            if seen.insert(found.clone()) {
                dependencies.extend(files_of(&found, &root, &mut budget)?);
                queue.push_back(found);
            }
        }
    }
    parts.insert("dependencies", dependencies);
    if let Some(node) = node {
        parts.insert("interpreter", interpreter(node, "node", &mut budget)?);
    }
    Ok(parts)
}

/// The closure of a Python environment `env` (a venv: `bin/`, `lib/python3.*/site-packages`,
/// `pyvenv.cfg`) run by the interpreter `python`.
pub(super) fn python(env: &Path, python: &Path) -> Result<Parts, String> {
    let mut budget = Budget::new();
    let mut parts = Parts::new();
    let mut site = BTreeMap::new();
    let mut interpreters = BTreeMap::new();
    let mut system_site = true;
    for packages in site_packages(env) {
        site.extend(files_of(&packages, env, &mut budget)?);
    }
    let config = env.join("pyvenv.cfg");
    if let Ok(text) = std::fs::read_to_string(&config) {
        system_site = text.lines().any(|l| {
            l.replace(' ', "")
                .eq_ignore_ascii_case("include-system-site-packages=true")
        });
        interpreters.insert("pyvenv.cfg".to_string(), Entry::File(config));
    }
    // The environment's own interpreters: links (their targets) or copies.
    for entry in std::fs::read_dir(env.join("bin")).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if !name.starts_with("python") {
            continue;
        }
        let key = format!("bin/{name}");
        match std::fs::read_link(&path) {
            Ok(target) => {
                interpreters.insert(key, Entry::Link(target.to_string_lossy().into_owned()))
            }
            Err(_) => interpreters.insert(key, Entry::File(path.clone())),
        };
    }
    // The interpreter's own file, once resolved: its prefix holds `libpython` and the stdlib.
    let real = python
        .canonicalize()
        .map_err(|e| format!("{}: {e}", python.display()))?;
    interpreters.extend(interpreter(&real, "python", &mut budget)?);
    let prefix = real.parent().and_then(Path::parent);
    // A shared build keeps the interpreter itself in `PREFIX/lib/libpython3…so…`.
    if let Some(lib) = prefix.map(|p| p.join("lib")) {
        for entry in std::fs::read_dir(&lib).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if name.starts_with("libpython") && name.contains(".so") && path.is_file() {
                budget.take(&path)?;
                interpreters.insert(format!("lib/{name}"), Entry::File(path));
            }
        }
    }
    // What the base interpreter runs at start-up, whichever environment it serves.
    let mut startup = BTreeMap::new();
    if let Some(stdlib) = prefix.and_then(base_stdlib) {
        for hook in ["sitecustomize.py", "usercustomize.py"] {
            let path = stdlib.join(hook);
            if path.is_file() {
                budget.take(&path)?;
                startup.insert(format!("stdlib/{hook}"), Entry::File(path));
            }
        }
        let base_site = stdlib.join("site-packages");
        if system_site && base_site.is_dir() {
            for entry in std::fs::read_dir(&base_site).map_err(|e| e.to_string())? {
                let path = entry.map_err(|e| e.to_string())?.path();
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                let starts = name.ends_with(".pth")
                    || name == "sitecustomize.py"
                    || name == "usercustomize.py";
                if starts && path.is_file() {
                    budget.take(&path)?;
                    startup.insert(format!("base-site-packages/{name}"), Entry::File(path));
                }
            }
        }
    }
    parts.insert("site-packages", site);
    parts.insert("interpreter", interpreters);
    parts.insert("startup", startup);
    Ok(parts)
}

/// The interpreter binary `program` resolves to, as one entry named `name`.
fn interpreter(
    program: &Path,
    name: &str,
    budget: &mut Budget,
) -> Result<BTreeMap<String, Entry>, String> {
    let real = program
        .canonicalize()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    budget.take(&real)?;
    Ok(BTreeMap::from([(name.to_string(), Entry::File(real))]))
}

/// The standard library folder under an interpreter's `prefix` (`PREFIX/lib/python3.X`),
/// where the base `sitecustomize.py` lives.
fn base_stdlib(prefix: &Path) -> Option<PathBuf> {
    let lib = std::fs::read_dir(prefix.join("lib")).ok()?;
    lib.flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("python3"))
                && p.join("os.py").is_file()
        })
        .min()
}

/// The `site-packages` folders of an environment.
pub(super) fn site_packages(env: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = ["lib", "lib64"]
        .iter()
        .filter_map(|lib| std::fs::read_dir(env.join(lib)).ok())
        .flat_map(|dir| dir.flatten().map(|e| e.path().join("site-packages")))
        .filter(|p| p.is_dir())
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    found.sort();
    found.dedup();
    found
}

/// Every file below `dir` (nested `node_modules/` and bytecode caches left out), named from
/// `root`; links are kept as their targets.
fn files_of(
    dir: &Path,
    root: &Path,
    budget: &mut Budget,
) -> Result<BTreeMap<String, Entry>, String> {
    let mut files = BTreeMap::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries =
            std::fs::read_dir(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let key = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned();
            if kind.is_symlink() {
                let target = std::fs::read_link(&path).map_err(|e| e.to_string())?;
                files.insert(key, Entry::Link(target.to_string_lossy().into_owned()));
            } else if kind.is_dir() {
                if name != "node_modules" && name != "__pycache__" {
                    folders.push(path);
                }
            } else if kind.is_file() && !name.to_string_lossy().ends_with(".pyc") {
                budget.take(&path)?;
                files.insert(key, Entry::File(path));
            }
        }
    }
    Ok(files)
}

/// The names in a package's `dependencies`, `optionalDependencies` and `peerDependencies`.
fn declared_dependencies(package: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(package.join("package.json")) else {
        return Vec::new();
    };
    let Ok(manifest) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let mut names: Vec<String> = ["dependencies", "optionalDependencies", "peerDependencies"]
        .iter()
        .filter_map(|field| manifest.get(field)?.as_object())
        .flat_map(|deps| deps.keys().cloned())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Where Node finds package `name` required from `from`: `node_modules/NAME` in `from` and
/// each folder above it.
fn resolve(from: &Path, name: &str) -> Option<PathBuf> {
    from.ancestors()
        .filter(|dir| dir.file_name().is_none_or(|n| n != "node_modules"))
        .map(|dir| dir.join("node_modules").join(name))
        .find(|candidate| candidate.join("package.json").is_file())
        .and_then(|found| found.canonicalize().ok())
}

/// The outermost `node_modules` folder above `dir`.
fn outermost_node_modules(dir: &Path) -> Option<&Path> {
    dir.ancestors()
        .filter(|d| d.file_name().is_some_and(|n| n == "node_modules"))
        .last()
}
