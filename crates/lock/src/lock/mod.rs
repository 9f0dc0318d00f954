//! The multi-server lockfile (`driftlab lock`): per server of a client config, its launch
//! identity, the package its argv runs, the protocol it spoke, its whole contract as
//! `driftlab snapshot` records it, and that contract's canonical digests
//! (driftlab-contract-digest/1, docs/digests.md). The file is deterministic: locking the same
//! servers twice gives the same bytes (it holds no time and no expanded variable).

pub mod artifact;
pub mod build;
pub mod capture;
pub mod check;
mod closure;
mod error;
pub mod gate;
pub mod install;
pub mod package;

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use artifact::Artifact;
use driftlab_contract::payload::{self, Limits};
use driftlab_contract::surface::Surface;
pub use error::LockError;
pub use package::Package;

/// The lockfile format this driftlab writes and reads.
pub(crate) const LOCKFILE_VERSION: &str = "driftlab-lock/1";

/// A lockfile of at most this many bytes is read (it holds whole contracts).
pub(crate) const MAX_LOCK_BYTES: usize = 256 * 1024 * 1024;

/// A lockfile (docs/lock.md): each server's launch, artifact and whole contract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Lockfile {
    /// The format's version.
    pub lockfile_version: String,
    /// How the digests are made.
    pub digest_algorithm: String,
    /// The client config the lock was made from (`lock --config`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub config: Option<LockedConfig>,
    /// Every config `lock --discover` found (instead of `config`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub discovered: Option<Discovered>,
    /// Every server, in config order.
    pub servers: Vec<LockedServer>,
}

/// What `lock --discover` read: the project it looked in and each config it found there and
/// below the home folder. A server is named `LABEL/NAME` where two configs name one alike
/// (`config::discover::merged`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Discovered {
    /// Absolute: project configs and `~/.claude.json`'s project servers are read for it.
    pub project: String,
    /// Each config found, in discovery order.
    pub configs: Vec<LockedConfig>,
}

/// The client config the lock was made from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LockedConfig {
    /// Relative to the lockfile's folder when it is below it, else absolute.
    pub path: String,
    /// The client it belongs to, when known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub client: Option<String>,
    /// `mcpServers`, `servers` or `mcp_servers`.
    pub layout: String,
    /// `user` or `project`, in a `discovered` lock.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub scope: Option<String>,
}

/// One server's entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LockedServer {
    /// Its name (`LABEL/NAME` where two discovered configs name one alike).
    pub name: String,
    /// `{"command": [argv…]}` or `{"url": …}`, as the config writes it (variables unexpanded).
    pub launch: Value,
    /// The package and version the argv runs, when it names one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub package: Option<Package>,
    /// The digest of the code the argv runs, where it can be read without network.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub artifact: Option<Artifact>,
    /// Why the server was not captured (it needs a person's input, OAuth, ...).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub skipped: Option<String>,
    /// What it spoke when locked.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub protocol: Option<LockedProtocol>,
    /// The contract's digests (docs/digests.md), checked against the recorded contract when the
    /// lockfile is read.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub digests: Option<Value>,
    /// The whole contract, as `driftlab snapshot` records it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub contract: Option<Value>,
}

/// What the server spoke when it was locked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LockedProtocol {
    /// The protocol version in use, when the server named one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub version: Option<String>,
    /// `initialize` or `2026-07-28`.
    pub era: String,
}

impl LockedServer {
    /// A captured server's entry: its contract recorded as a snapshot, with its digests.
    pub fn locked(
        name: &str,
        launch: Value,
        package: Option<Package>,
        artifact: Option<Artifact>,
        protocol: LockedProtocol,
        surface: &Surface,
    ) -> LockedServer {
        let contract = surface.to_snapshot_value();
        let digests = driftlab_contract::digest::ContractDigests::of(&contract);
        LockedServer {
            name: name.to_string(),
            launch,
            package,
            artifact,
            skipped: None,
            protocol: Some(protocol),
            digests: serde_json::to_value(digests).ok(),
            contract: Some(contract),
        }
    }

    /// A server that could not be captured, and why.
    pub fn skipped(name: &str, launch: Value, package: Option<Package>, why: &str) -> LockedServer {
        LockedServer {
            name: name.to_string(),
            launch,
            package,
            artifact: None,
            skipped: Some(why.to_string()),
            protocol: None,
            digests: None,
            contract: None,
        }
    }

    /// The locked contract read as a surface (pointers relative to the `contract` member), or
    /// `None` for a skipped server.
    pub fn surface(&self, lock_name: &str) -> Result<Option<Surface>, payload::PayloadError> {
        let Some(contract) = &self.contract else {
            return Ok(None);
        };
        // A JSON value always serialises.
        let bytes = serde_json::to_vec_pretty(contract).unwrap_or_default();
        let name = format!("{lock_name} (server {:?})", self.name);
        let unlimited = Limits {
            max_bytes: usize::MAX,
        };
        let parts = payload::contract::read(&bytes, &name, unlimited)?;
        let surface = payload::read_owned(bytes, &name, unlimited)?;
        Ok(Some(surface.with_contract(parts)))
    }
}

impl Lockfile {
    /// The entry of the server named `name`.
    pub fn server(&self, name: &str) -> Option<&LockedServer> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// The file's bytes: pretty JSON and a final newline.
    pub fn render(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }

    /// Reads and checks a lockfile; every error is one line naming the file (and the place).
    pub fn read(path: &Path) -> Result<(Lockfile, String), LockError> {
        let file = path.display().to_string();
        let bytes = driftlab_contract::fs::read_limited(path, MAX_LOCK_BYTES)?;
        let unlimited = Limits {
            max_bytes: usize::MAX,
        };
        let value = payload::parse_json(&bytes, &file, unlimited)?;
        let version = value.get("lockfileVersion").and_then(Value::as_str);
        if version != Some(LOCKFILE_VERSION) {
            let found = version.map_or("missing".to_string(), |v| format!("{v:?}"));
            return Err(LockError::Version { file, found });
        }
        let lock: Lockfile = serde_json::from_value(value).map_err(|error| LockError::Shape {
            file: file.clone(),
            error,
        })?;
        if lock.config.is_some() == lock.discovered.is_some() {
            return Err(LockError::ConfigOrDiscovered { file });
        }
        if lock.digest_algorithm != driftlab_contract::digest::ALGORITHM {
            let found = lock.digest_algorithm.clone();
            return Err(LockError::DigestAlgorithm { file, found });
        }
        let mut names = std::collections::HashSet::new();
        for server in &lock.servers {
            let name = || server.name.clone();
            if !names.insert(server.name.as_str()) {
                return Err(LockError::LockedTwice { file, name: name() });
            }
            let kind_ok = matches!(
                (&server.contract, &server.skipped),
                (Some(_), None) | (None, Some(_))
            );
            if !kind_ok {
                return Err(LockError::ContractOrSkipped { file, name: name() });
            }
            if let Some(contract) = &server.contract {
                let recorded =
                    serde_json::to_value(driftlab_contract::digest::ContractDigests::of(contract));
                if server.digests.as_ref() != recorded.as_ref().ok() {
                    return Err(LockError::DigestsDiffer { file, name: name() });
                }
            }
        }
        let text = String::from_utf8(bytes).unwrap_or_default();
        Ok((lock, text))
    }
}

/// How the lock names a config: relative to the lock's folder when it is below it.
pub(crate) fn config_path_for_lock(config: &Path, lock: &Path) -> String {
    let absolute = |p: &Path| p.canonicalize().ok();
    let lock_dir = lock.parent().map(|d| match d.as_os_str().is_empty() {
        true => Path::new("."),
        false => d,
    });
    // The lock may not exist yet: its folder does.
    if let (Some(config), Some(dir)) = (absolute(config), lock_dir.and_then(absolute)) {
        if let Ok(relative) = config.strip_prefix(&dir) {
            return relative.display().to_string();
        }
        return config.display().to_string();
    }
    config.display().to_string()
}

/// The config a lock names, as a path from here.
pub fn config_path_from_lock(recorded: &str, lock: &Path) -> std::path::PathBuf {
    let recorded = Path::new(recorded);
    match (recorded.is_absolute(), lock.parent()) {
        (false, Some(dir)) => dir.join(recorded),
        _ => recorded.to_path_buf(),
    }
}
