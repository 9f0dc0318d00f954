//! What a results folder was made from, as its manifest pins it: the code that wrote it (the
//! commit), its inputs (the spec and every file of the spec's folder, by SHA-256) and the
//! environment its commands ran in (interpreters, packages and servers as installed), with the
//! checks `driftlab verify` can make of them offline.

mod code;
mod environment;
mod inputs;

use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

pub use code::{CodeVersion, CODE_VERSION};
pub use environment::{Environment, PythonEnv};
pub use inputs::{Changed, Inputs, InputsCheck};

/// The file name of every results folder's manifest.
pub const MANIFEST: &str = "manifest.json";

/// The code, inputs and environment of a results folder. The code differs with every commit
/// while the results do not, so a regeneration compares a manifest without it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// The driftlab that wrote the folder (absent in folders written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<CodeVersion>,
    /// What it read; absent when it read no folder of inputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Inputs>,
    /// What its commands ran in; absent when it ran none.
    #[serde(default, skip_serializing_if = "Environment::is_empty")]
    pub environment: Environment,
}

/// What `verify` found of a folder's provenance, beside its own files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProvenanceCheck {
    /// The inputs re-hashed, when the folder pins any.
    pub inputs: Option<InputsCheck>,
    /// The recorded code, described, and whether this checkout's history holds it.
    pub code: Option<String>,
    /// How the environment here differs from the recorded one.
    pub environment: Vec<String>,
}

impl Provenance {
    /// This program's code, `inputs` and the environment of `commands`, which ran in the inputs'
    /// folder (none for a command that runs nothing).
    pub fn of(inputs: Inputs, commands: &[Vec<String>]) -> Provenance {
        let environment = Environment::of_commands(Path::new(&inputs.folder), commands, &inputs);
        Provenance {
            code: Some(CodeVersion::current()),
            inputs: Some(inputs),
            environment,
        }
    }

    /// [`Provenance::of`] the folder of the spec at `spec` (as the command line gave it),
    /// the results folder `out` left out where it lies inside.
    pub fn of_spec(spec: &Path, commands: &[Vec<String>], out: &Path) -> io::Result<Provenance> {
        let folder = spec.parent().filter(|p| !p.as_os_str().is_empty());
        let name = spec.file_name().map(|n| n.to_string_lossy().into_owned());
        let inputs =
            Inputs::of_folder(folder.unwrap_or(Path::new(".")), name.as_deref(), Some(out))?;
        Ok(Provenance::of(inputs, commands))
    }

    /// Checks what can be checked offline: the inputs against the folder that holds them (found
    /// from here or above `results`), the commit against that checkout's history, and the
    /// environment against what is installed there.
    pub fn check(&self, results: &Path) -> ProvenanceCheck {
        let located = self
            .inputs
            .as_ref()
            .map(|inputs| (inputs, inputs.locate(results)));
        let base = match &located {
            Some((inputs, Some(at))) => inputs.base(at),
            _ => results.to_path_buf(),
        };
        let code = self.code.as_ref().map(|code| {
            let history = code
                .git_commit
                .as_deref()
                .map(|commit| in_history(&base, commit));
            match history {
                Some(history) => format!("{}: {history}", code.describe()),
                None => code.describe(),
            }
        });
        let environment = match &located {
            Some((_, None)) => Vec::new(),
            _ => self.environment.differences_here(&base, 12),
        };
        ProvenanceCheck {
            inputs: located.map(|(inputs, at)| inputs.check_in(at)),
            code,
            environment,
        }
    }
}

/// Whether two manifests say the same but for the code that wrote them (a rerun at a later
/// commit writes the same results and inputs; only `code` names the commit). False when either
/// is not JSON.
pub fn same_but_code(a: &[u8], b: &[u8]) -> bool {
    let without_code = |bytes: &[u8]| {
        let mut value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
        value.as_object_mut()?.remove("code");
        Some(value)
    };
    match (without_code(a), without_code(b)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Whether the git checkout at `dir` holds `commit` in its history.
fn in_history(dir: &Path, commit: &str) -> &'static str {
    let status = Command::new("git")
        .args(["merge-base", "--is-ancestor", commit, "HEAD"])
        .current_dir(dir)
        .output()
        .map(|out| out.status.code());
    match status {
        Ok(Some(0)) => "in this checkout's history",
        Ok(Some(1)) => "not an ancestor of this checkout's HEAD",
        _ => "not found here (no git, not a checkout, or a shallow clone)",
    }
}

/// The driftlab that wrote a folder, the command that reproduces it, what it was made from and
/// each file's SHA-256: the manifest of the folders of `guard-study`, `stack-study`, `census`,
/// `scan --corpus` and `watch report` (the study runner's richer one is
/// `driftlab_study::study::results::Manifest`); `driftlab verify` reads either.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct FolderManifest {
    /// The version of driftlab that wrote the folder.
    driftlab_version: String,
    /// The command that writes the folder again.
    command: String,
    /// Its code, inputs and environment.
    #[serde(flatten)]
    provenance: Provenance,
    /// Each file's SHA-256, by its path in the folder.
    files: BTreeMap<String, String>,
}

/// `manifest.json` for `files` (name, bytes) written by `command` from `provenance`: its name
/// and bytes, to write beside them.
pub fn folder_manifest(
    command: &str,
    provenance: &Provenance,
    files: &[(String, Vec<u8>)],
) -> (String, Vec<u8>) {
    let manifest = FolderManifest {
        driftlab_version: env!("CARGO_PKG_VERSION").to_string(),
        command: command.to_string(),
        provenance: provenance.clone(),
        files: files
            .iter()
            .map(|(name, bytes)| (name.clone(), driftlab_contract::text::sha256_hex(bytes)))
            .collect(),
    };
    // A struct of strings always serialises.
    let mut bytes = serde_json::to_vec_pretty(&manifest).unwrap_or_default();
    bytes.push(b'\n');
    (MANIFEST.to_string(), bytes)
}
