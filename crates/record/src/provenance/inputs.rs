//! A results folder's inputs: the folder a command read them from (a study's spec folder, a
//! corpus) and every file in it by SHA-256, and finding that folder again to check them.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use driftlab_contract::fs::hash_file;

/// The folder a results folder's inputs were read from and each file's SHA-256: every file in
/// it but its prose (`*.md`: METHOD.md and LIMITS.md describe a study, they do not run in it),
/// hidden files and folders (`.venv`, recorded in the environment instead), Python's caches,
/// `node_modules`, and results folders (the one being written, and any with a manifest.json).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inputs {
    /// As the command was given it, relative to where it ran (`research/x`), `.` for there.
    pub folder: String,
    /// The spec, one of `files`, when the command reads one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// Each file's SHA-256, by its path in `folder` (`/`-separated).
    pub files: BTreeMap<String, String>,
}

/// An input whose bytes are not the pinned ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    /// Its path, the folder's included (`research/x/study.toml`).
    pub file: String,
    /// The SHA-256 pinned.
    pub expected: String,
    /// Its SHA-256 now, or why it could not be read.
    pub found: String,
}

/// What checking a folder's inputs found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputsCheck {
    /// The folder holding every pinned input, and the inputs that differ there.
    Checked {
        /// Where the inputs were found.
        at: PathBuf,
        /// How many inputs were pinned.
        pinned: usize,
        /// Those that differ.
        changed: Vec<Changed>,
    },
    /// No folder here or above the results folder holds the pinned inputs: nothing checked.
    NotFound,
}

impl Inputs {
    /// The inputs in `folder` (as the command was given it), `spec` naming the spec among them,
    /// the results folder `out` left out when it lies inside.
    pub fn of_folder(folder: &Path, spec: Option<&str>, out: Option<&Path>) -> io::Result<Inputs> {
        let mut files = BTreeMap::new();
        let out = out.and_then(|out| std::path::absolute(out).ok());
        collect(folder, "", out.as_deref(), &mut files)?;
        Ok(Inputs {
            folder: as_given(folder),
            spec: spec.map(str::to_string),
            files,
        })
    }

    /// The folder holding every pinned input: looked for from the current folder and from
    /// every folder above the results folder `results` (`results/<id>`), so that `verify`
    /// answers the same wherever it runs.
    pub fn locate(&self, results: &Path) -> Option<PathBuf> {
        // Absolute, so that the folder the command ran in (`base`) is one too.
        let mut candidates: Vec<PathBuf> = std::path::absolute(&self.folder).into_iter().collect();
        if let Ok(results) = results.canonicalize() {
            candidates.extend(results.ancestors().skip(1).map(|up| up.join(&self.folder)));
        }
        let holds_all = |at: &&PathBuf| self.files.keys().all(|file| at.join(file).is_file());
        // Else the folder with the spec: the inputs it no longer has are reported missing.
        let holds_spec = |at: &&PathBuf| self.spec.as_ref().is_some_and(|s| at.join(s).is_file());
        candidates
            .iter()
            .find(holds_all)
            .or_else(|| candidates.iter().find(holds_spec))
            .cloned()
    }

    /// The folder the environment's paths are relative to (where the command ran), given where
    /// the inputs were found: `at` less `folder`'s own steps.
    pub fn base(&self, at: &Path) -> PathBuf {
        let steps = Path::new(&self.folder)
            .components()
            .filter(|c| matches!(c, std::path::Component::Normal(_)))
            .count();
        at.ancestors().nth(steps).unwrap_or(at).to_path_buf()
    }

    /// Re-hashes every pinned input where [`Inputs::locate`] finds them.
    pub fn check(&self, results: &Path) -> InputsCheck {
        self.check_in(self.locate(results))
    }

    /// Re-hashes every pinned input in `at`, the folder [`Inputs::locate`] found (none: not
    /// checked).
    pub(super) fn check_in(&self, at: Option<PathBuf>) -> InputsCheck {
        let Some(at) = at else {
            return InputsCheck::NotFound;
        };
        let changed = self
            .files
            .iter()
            .filter_map(|(file, expected)| {
                let found = match hash_file(&at.join(file)) {
                    Ok(hash) if hash == *expected => return None,
                    Ok(hash) => hash,
                    Err(e) => format!("unreadable ({e})"),
                };
                Some(Changed {
                    file: format!("{}/{file}", self.folder),
                    expected: expected.clone(),
                    found,
                })
            })
            .collect();
        InputsCheck::Checked {
            at,
            pinned: self.files.len(),
            changed,
        }
    }
}

/// A path as a manifest writes it: `/`-separated, `.` for the current folder.
pub(super) fn as_given(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let text = text.trim_end_matches('/');
    if text.is_empty() {
        ".".to_string()
    } else {
        text.to_string()
    }
}

/// Whether a folder's entry is left out of its inputs.
fn left_out(name: &str, is_dir: bool) -> bool {
    name.starts_with('.')
        || (is_dir && matches!(name, "__pycache__" | "node_modules"))
        || (!is_dir && name.ends_with(".md"))
}

/// More files than a study's folder holds: a spec in a folder of its own is what is meant.
const MAX_FILES: usize = 10_000;

fn collect(
    dir: &Path,
    prefix: &str,
    results: Option<&Path>,
    out: &mut BTreeMap<String, String>,
) -> io::Result<()> {
    let mut entries: Vec<_> = fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        // A link to a folder is not followed (it could lead back up); a link to a file is.
        let is_dir = entry.file_type()?.is_dir();
        let path = entry.path();
        let is_results = || {
            let path = std::path::absolute(&path).ok();
            results.is_some_and(|r| path.as_deref() == Some(r))
        };
        // Another results folder (one with a manifest) is an output, as `out` is.
        let is_other_results = || path.join(super::MANIFEST).is_file();
        if left_out(&name, is_dir) || (is_dir && (is_results() || is_other_results())) {
            continue;
        }
        let key = format!("{prefix}{name}");
        if is_dir {
            collect(&path, &format!("{key}/"), results, out)?;
        } else if path.is_file() {
            if out.len() == MAX_FILES {
                return Err(io::Error::other(format!(
                    "more than {MAX_FILES} files to pin as inputs; keep the spec in a folder of its own"
                )));
            }
            out.insert(key, hash_file(&path)?);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prose_hidden_folders_and_caches_are_left_out_and_an_edit_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("study");
        for (file, text) in [
            ("study.toml", "id = 1"),
            ("METHOD.md", "prose"),
            ("bench/server.py", "print(1)"),
            ("out/rows.csv", "results, not inputs"),
            ("earlier/manifest.json", "{}"),
            ("earlier/rows.csv", "another results folder"),
            ("bench/__pycache__/server.pyc", "x"),
            (".venv/bin/python", "x"),
        ] {
            let path = root.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        let inputs = Inputs::of_folder(&root, Some("study.toml"), Some(&root.join("out"))).unwrap();
        assert_eq!(
            inputs.files.keys().collect::<Vec<_>>(),
            ["bench/server.py", "study.toml"]
        );
        let results = dir.path().join("results/x");
        fs::create_dir_all(&results).unwrap();
        let relative = Inputs {
            folder: "study".into(),
            ..inputs.clone()
        };
        let InputsCheck::Checked { changed, .. } = relative.check(&results) else {
            panic!("the folder above the results is found");
        };
        assert!(changed.is_empty());
        fs::write(root.join("bench/server.py"), "print(2)").unwrap();
        let InputsCheck::Checked { changed, .. } = relative.check(&results) else {
            panic!("found");
        };
        assert_eq!(changed.len(), 1);
        assert_eq!(changed[0].file, "study/bench/server.py");
        let elsewhere = Inputs {
            folder: "no-such-folder".into(),
            ..inputs
        };
        assert_eq!(elsewhere.check(&results), InputsCheck::NotFound);
    }
}
