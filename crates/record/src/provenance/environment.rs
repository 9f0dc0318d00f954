//! The environment a results folder's commands ran in: the interpreters, packages and servers,
//! read from what is installed (a venv's own package metadata, a `node_modules` tree's lockfile),
//! not from the requirement files that asked for them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use super::inputs::{as_given, Inputs};

/// What a Python environment holds: its interpreter's version and every installed package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonEnv {
    /// `sys.version`'s number (`3.11.7`), or why it could not be read.
    pub python: String,
    /// Each installed distribution's version, by its name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub packages: BTreeMap<String, String>,
}

/// The interpreters, packages and servers that ran: only what a command named (a venv's
/// interpreter, `node`, a script in a `node_modules` tree) or a script it ran imports by path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    /// `node --version`, when a command ran node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// Per Python environment: a venv by its path from where the command ran; an interpreter
    /// outside a venv by its path or, found on PATH, its name (its version only: its packages
    /// are the host's).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub python: BTreeMap<String, PythonEnv>,
    /// Per `node_modules` tree, by its path from where the command ran: each installed
    /// package's version, by its path in the tree (`@scope/name`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub npm: BTreeMap<String, BTreeMap<String, String>>,
}

/// Prints an interpreter's version and its installed distributions as one JSON object.
const PYTHON_PROBE: &str = "import importlib.metadata as m, json, sys\n\
print(json.dumps({'python': sys.version.split()[0], 'packages': \
{d.metadata['Name']: d.version for d in m.distributions() if d.metadata['Name']}}))";

/// Where to look for an environment: what the commands name, from `folder` (where they ran).
#[derive(Debug, Default, PartialEq, Eq)]
struct Wanted {
    node: bool,
    /// Venvs (by path) and interpreters on PATH (by name).
    python: BTreeSet<String>,
    npm: BTreeSet<String>,
}

impl Environment {
    /// The environment of `commands`, run in `folder` (as the command line gave it), whose
    /// scripts are among `inputs`; empty when they name nothing that can be read.
    pub(crate) fn of_commands(
        folder: &Path,
        commands: &[Vec<String>],
        inputs: &Inputs,
    ) -> Environment {
        let wanted = wanted(folder, commands, inputs);
        let mut environment = Environment::default();
        if wanted.node {
            environment.node = Some(node_version());
        }
        for python in &wanted.python {
            environment
                .python
                .insert(python.clone(), probe_python(python));
        }
        for tree in &wanted.npm {
            environment
                .npm
                .insert(tree.clone(), npm_tree(Path::new(tree)));
        }
        environment
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.node.is_none() && self.python.is_empty() && self.npm.is_empty()
    }

    /// How this machine's environment differs from the recorded one, the paths read from
    /// `base` (where the command ran): one line per difference, at most `max` in all.
    pub(crate) fn differences_here(&self, base: &Path, max: usize) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(recorded) = &self.node {
            let here = node_version_in(base);
            if here != *recorded {
                out.push(format!("node: {recorded} recorded, {here} here"));
            }
        }
        for (name, recorded) in &self.python {
            let here = probe_python_in(base, name);
            if here.python != recorded.python {
                out.push(format!(
                    "{name}: python {} recorded, {} here",
                    recorded.python, here.python
                ));
            }
            out.extend(differing(name, &recorded.packages, &here.packages));
        }
        for (tree, recorded) in &self.npm {
            out.extend(differing(tree, recorded, &npm_tree(&base.join(tree))));
        }
        if out.len() > max {
            let more = out.len() - max;
            out.truncate(max);
            out.push(format!("and {more} more"));
        }
        out
    }
}

fn differing(
    place: &str,
    recorded: &BTreeMap<String, String>,
    here: &BTreeMap<String, String>,
) -> Vec<String> {
    let names: BTreeSet<&String> = recorded.keys().chain(here.keys()).collect();
    names
        .into_iter()
        .filter_map(|name| match (recorded.get(name), here.get(name)) {
            (Some(a), Some(b)) if a == b => None,
            (Some(a), Some(b)) => Some(format!("{place}: {name} {a} recorded, {b} here")),
            (Some(a), None) => Some(format!("{place}: {name} {a} recorded, not installed here")),
            (None, Some(b)) => Some(format!("{place}: {name} {b} installed here, not recorded")),
            (None, None) => None,
        })
        .collect()
}

fn wanted(folder: &Path, commands: &[Vec<String>], inputs: &Inputs) -> Wanted {
    let mut wanted = Wanted::default();
    for word in commands.iter().flatten() {
        if word == "node" {
            wanted.node = true;
        } else if word.starts_with("python") && !word.contains('/') {
            wanted.python.insert(word.clone());
        } else if word.contains('/') {
            let path = normalize(&folder.join(word));
            if let Some(venv) = venv_of(&path) {
                wanted.python.insert(as_given(&venv));
            } else if is_python(&path) {
                wanted.python.insert(as_given(&path));
            }
            if let Some(tree) = node_modules_of(&path) {
                wanted.npm.insert(as_given(&tree));
            }
        }
    }
    // A script that imports from a node_modules tree by path (`../../servers/node_modules/x`).
    if wanted.node {
        for script in inputs.files.keys().filter(|f| is_script(f)) {
            let script = folder.join(script);
            let Ok(text) = std::fs::read_to_string(&script) else {
                continue;
            };
            let here = script.parent().unwrap_or(folder);
            for imported in imported_paths(&text) {
                if let Some(tree) = node_modules_of(&normalize(&here.join(imported))) {
                    wanted.npm.insert(as_given(&tree));
                }
            }
        }
    }
    wanted
}

/// An interpreter outside a venv, named by its path (`/usr/bin/python3.11`).
fn is_python(path: &Path) -> bool {
    let named = path
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("python"));
    named && path.is_file()
}

fn is_script(file: &str) -> bool {
    [".mjs", ".cjs", ".js"]
        .iter()
        .any(|ext| file.ends_with(ext))
}

/// The relative paths a script imports or requires (`from "../x.js"`, `require("./y")`).
fn imported_paths(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|line| line.contains("import") || line.contains("require("))
        .filter_map(|line| {
            let start = line.find(['"', '\''])?;
            let quote = line[start..].chars().next()?;
            let rest = &line[start + 1..];
            let path = &rest[..rest.find(quote)?];
            path.starts_with('.').then_some(path)
        })
        .collect()
}

/// `path` with `.` and `name/..` steps taken out (lexically: the paths name files that may not
/// exist yet, and a link is not what the command line named).
fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.iter().collect()
}

/// The venv a path lies in: the nearest folder above it with a `pyvenv.cfg`.
fn venv_of(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .find(|dir| dir.join("pyvenv.cfg").is_file())
        .map(Path::to_path_buf)
}

/// The `node_modules` folder a path lies in (the outermost).
fn node_modules_of(path: &Path) -> Option<PathBuf> {
    let mut tree = PathBuf::new();
    for component in path.components() {
        tree.push(component);
        if component.as_os_str() == "node_modules" {
            return Some(tree);
        }
    }
    None
}

fn node_version() -> String {
    node_version_in(Path::new("."))
}

fn node_version_in(dir: &Path) -> String {
    match Command::new("node")
        .arg("--version")
        .current_dir(dir)
        .output()
    {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        Ok(out) => format!("unknown (node --version exited with {})", out.status),
        Err(e) => format!("unknown (node: {e})"),
    }
}

fn probe_python(name: &str) -> PythonEnv {
    probe_python_in(Path::new("."), name)
}

/// A venv's interpreter and packages (`name` the venv's path), or the version alone of an
/// interpreter named by its path or found on PATH (its packages are the host's).
fn probe_python_in(base: &Path, name: &str) -> PythonEnv {
    let venv = base.join(name);
    let in_venv = name.contains('/') && venv.join("pyvenv.cfg").is_file();
    let program = if in_venv {
        venv.join("bin/python")
    } else if name.contains('/') {
        venv
    } else {
        PathBuf::from(name)
    };
    let unknown = |why: String| PythonEnv {
        python: format!("unknown ({why})"),
        packages: BTreeMap::new(),
    };
    let output = match Command::new(&program).args(["-c", PYTHON_PROBE]).output() {
        Ok(out) if out.status.success() => out.stdout,
        Ok(out) => return unknown(format!("{} exited with {}", program.display(), out.status)),
        Err(e) => return unknown(format!("{}: {e}", program.display())),
    };
    match serde_json::from_slice::<PythonEnv>(&output) {
        Ok(mut env) => {
            if !in_venv {
                env.packages.clear();
            }
            env
        }
        Err(e) => unknown(format!("{}: {e}", program.display())),
    }
}

/// Each package of a `node_modules` tree by its path in the tree, from the lockfile npm keeps
/// there (`.package-lock.json`), else from each top-level package's package.json.
fn npm_tree(tree: &Path) -> BTreeMap<String, String> {
    #[derive(Deserialize)]
    struct Lock {
        #[serde(default)]
        packages: BTreeMap<String, Package>,
    }
    #[derive(Deserialize)]
    struct Package {
        #[serde(default)]
        version: Option<String>,
    }
    if let Ok(bytes) = std::fs::read(tree.join(".package-lock.json")) {
        if let Ok(lock) = serde_json::from_slice::<Lock>(&bytes) {
            return lock
                .packages
                .into_iter()
                .filter_map(|(path, package)| {
                    let name = path.strip_prefix("node_modules/")?.to_string();
                    Some((name, package.version?))
                })
                .collect();
        }
    }
    let mut out = BTreeMap::new();
    let version_of = |dir: &Path| -> Option<String> {
        let bytes = std::fs::read(dir.join("package.json")).ok()?;
        let package: Package = serde_json::from_slice(&bytes).ok()?;
        package.version
    };
    let Ok(entries) = std::fs::read_dir(tree) else {
        return out;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let dirs: Vec<(String, PathBuf)> = if name.starts_with('@') {
            std::fs::read_dir(entry.path())
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| {
                    (
                        format!("{name}/{}", e.file_name().to_string_lossy()),
                        e.path(),
                    )
                })
                .collect()
        } else {
            vec![(name, entry.path())]
        };
        for (name, dir) in dirs {
            if let Some(version) = version_of(&dir) {
                out.insert(name, version);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_lexically() {
        assert_eq!(
            normalize(Path::new("research/x/../../servers/.venv/bin/python")),
            PathBuf::from("servers/.venv/bin/python")
        );
        assert_eq!(
            normalize(Path::new("./../../servers")),
            PathBuf::from("../../servers")
        );
    }

    #[test]
    fn a_script_s_relative_imports_are_read_and_packages_are_not() {
        let text = "import { z } from \"../../../servers/node_modules/zod/index.js\";\n\
                    import fs from \"node:fs\";\nconst x = require('./local.js');\n";
        assert_eq!(
            imported_paths(text),
            ["../../../servers/node_modules/zod/index.js", "./local.js"]
        );
        assert_eq!(
            node_modules_of(Path::new("servers/node_modules/zod/index.js")),
            Some(PathBuf::from("servers/node_modules"))
        );
    }

    #[test]
    fn a_node_modules_tree_is_read_from_its_lockfile() {
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("node_modules");
        std::fs::create_dir_all(&tree).unwrap();
        std::fs::write(
            tree.join(".package-lock.json"),
            r#"{"packages": {"node_modules/zod": {"version": "3.25.1"},
                "node_modules/@scope/x": {"version": "1.0.0"}, "": {}}}"#,
        )
        .unwrap();
        let read = npm_tree(&tree);
        assert_eq!(read.get("zod").map(String::as_str), Some("3.25.1"));
        assert_eq!(read.get("@scope/x").map(String::as_str), Some("1.0.0"));
        assert_eq!(read.len(), 2);
    }
}
