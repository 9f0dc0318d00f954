//! A watch record on disk: plain files a git repository can hold.
//!
//! ```text
//! RECORD/watch.json             {"format": 1, "rule_set": "…"}: the rule set every change is judged by
//! RECORD/contracts/<sha256>.json  each contract observed, exactly as served, stored once
//! RECORD/servers/<name>.jsonl   one line per poll of that server, appended in time order
//! ```
//!
//! One log per server, so shards of a long list never write the same file. A line is appended by
//! writing the whole log anew and renaming it into place: a kill mid-write leaves the old log,
//! never half a line. Contracts are written before the line that names them.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use driftlab_check::check::Severity;
use driftlab_contract::fs::write_atomic;
use driftlab_contract::text::sha256_hex;

/// What the record's `watch.json` says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The record format (1).
    pub format: u32,
    /// The rule set changes are judged by, pinned when the record is made so that re-judging it
    /// later gives the same bytes.
    pub rule_set: String,
}

/// One poll of one server, as its log line says it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// When, RFC 3339 UTC.
    pub at: String,
    /// What the poll saw.
    #[serde(flatten)]
    pub seen: Seen,
}

/// What a poll saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Seen {
    /// A contract: the same as the last one seen (`change` absent, `previous` absent), the
    /// first one, or a change from `previous`, judged.
    Contract {
        /// The contract's digest (`sha256:…`), its file in `contracts/`.
        contract: String,
        /// The digest of its JSON value, whatever its spelling (key order, spacing): two
        /// contracts with one value are the same contract. A report reads only these, so a
        /// record's logs can be shared without the contracts.
        value: String,
        /// The last contract seen before, when this one differs from it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        previous: Option<String>,
        /// The change from `previous`, judged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        change: Option<Judged>,
    },
    /// No contract: the server could not be reached or read. Never a change.
    Failed {
        /// `auth`, `timeout`, `tls`, `http`, `protocol` or `start`.
        failed: String,
        /// Why, in one line.
        reason: String,
    },
}

/// A change between two contracts, judged by direction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Judged {
    /// `breaking`, `unknown`, `compatible`, `text`, `bytes` or `unjudged` (see [`super::judge`]).
    pub kind: String,
    /// Every finding, in the rules' order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<WatchFinding>,
}

/// A finding as a record keeps it: enough to read the change without re-running anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchFinding {
    /// The rule's id.
    pub rule: String,
    /// Its severity.
    pub severity: String,
    /// Where, in the newer contract (in the older one when the thing is gone).
    pub pointer: String,
    /// One line.
    pub message: String,
    /// A value the older contract accepts and the newer one rejects, when one proves the break.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness: Option<serde_json::Value>,
}

impl WatchFinding {
    /// The severity as the checker has it.
    pub fn severity(&self) -> Option<Severity> {
        Severity::parse(&self.severity)
    }
}

/// A record folder.
pub struct Record {
    root: PathBuf,
}

/// The digest a contract is stored under.
pub(crate) fn contract_digest(bytes: &[u8]) -> String {
    format!("sha256:{}", sha256_hex(bytes))
}

/// The digest of a contract's JSON value (canonical JSON: keys sorted, no spacing), or of its
/// bytes when they are not JSON.
pub(crate) fn value_digest(bytes: &[u8]) -> String {
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(value) => driftlab_contract::digest::digest(&value),
        Err(_) => contract_digest(bytes),
    }
}

/// Whether `name` can name a server's log: lowercase letters, digits, `.`, `_` and `-`, not
/// starting with a dot.
pub(crate) fn valid_server_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name.len() <= 100
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
}

impl Record {
    /// Opens the record at `root`, making it (pinned to `rule_set`) when it does not exist.
    pub fn open_or_create(root: &Path, rule_set: &str) -> Result<Record, String> {
        let record = Record {
            root: root.to_path_buf(),
        };
        if !record.header_path().exists() {
            std::fs::create_dir_all(root.join("contracts"))
                .and_then(|()| std::fs::create_dir_all(root.join("servers")))
                .map_err(|e| format!("{}: cannot create the record: {e}", root.display()))?;
            let header = Header {
                format: 1,
                rule_set: rule_set.to_string(),
            };
            write_atomic(&record.header_path(), &pretty(&header))
                .map_err(|e| format!("{}: {e}", record.header_path().display()))?;
        }
        record.header()?;
        Ok(record)
    }

    /// Opens an existing record.
    pub fn open(root: &Path) -> Result<Record, String> {
        let record = Record {
            root: root.to_path_buf(),
        };
        if !record.header_path().is_file() {
            return Err(format!(
                "{}: not a watch record (no watch.json)",
                root.display()
            ));
        }
        record.header()?;
        Ok(record)
    }

    fn header_path(&self) -> PathBuf {
        self.root.join("watch.json")
    }

    /// The record's header.
    pub fn header(&self) -> Result<Header, String> {
        let header: Header =
            driftlab_contract::fs::read_json(&self.header_path()).map_err(|e| e.to_string())?;
        if header.format != 1 {
            return Err(format!(
                "{}: format {} is not one this build reads (1)",
                self.header_path().display(),
                header.format
            ));
        }
        Ok(header)
    }

    fn contract_path(&self, digest: &str) -> PathBuf {
        let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
        self.root.join("contracts").join(format!("{hex}.json"))
    }

    fn log_path(&self, server: &str) -> PathBuf {
        self.root.join("servers").join(format!("{server}.jsonl"))
    }

    /// Stores a contract (once) and returns its digest.
    pub fn store(&self, bytes: &[u8]) -> Result<String, String> {
        let digest = contract_digest(bytes);
        let path = self.contract_path(&digest);
        if !path.exists() {
            write_atomic(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(digest)
    }

    /// A stored contract's bytes, checked against its digest.
    pub fn contract(&self, digest: &str) -> Result<Vec<u8>, String> {
        let path = self.contract_path(digest);
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if contract_digest(&bytes) != digest {
            return Err(format!(
                "{}: its bytes do not hash to its name (edited or damaged)",
                path.display()
            ));
        }
        Ok(bytes)
    }

    /// The servers with a log, by name.
    pub fn servers(&self) -> Result<Vec<String>, String> {
        let dir = self.root.join("servers");
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
            let path = entry.map_err(|e| e.to_string())?.path();
            if let Some(name) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".jsonl"))
            {
                names.push(name.to_string());
            }
        }
        names.sort();
        Ok(names)
    }

    /// A server's observations, in the order they were appended (empty when it has no log).
    pub fn log(&self, server: &str) -> Result<Vec<Observation>, String> {
        let path = self.log_path(server);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        text.lines()
            .enumerate()
            .map(|(i, line)| {
                serde_json::from_str(line).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))
            })
            .collect()
    }

    /// The last contract a server's log names, if any.
    pub(crate) fn last_contract(&self, server: &str) -> Result<Option<String>, String> {
        Ok(self
            .log(server)?
            .into_iter()
            .rev()
            .find_map(|o| match o.seen {
                Seen::Contract { contract, .. } => Some(contract),
                Seen::Failed { .. } => None,
            }))
    }

    /// Appends one observation to a server's log, atomically.
    pub fn append(&self, server: &str, observation: &Observation) -> Result<(), String> {
        let path = self.log_path(server);
        let mut bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        bytes.extend_from_slice(&line(observation));
        write_atomic(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// An observation as its log line: compact JSON and a newline.
pub fn line(observation: &Observation) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(observation).expect("an observation serializes");
    bytes.push(b'\n');
    bytes
}

fn pretty<T: Serialize>(value: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).expect("serializes");
    bytes.push(b'\n');
    bytes
}
