//! Captures stored once per distinct contract. A release's capture keeps what is its own (the
//! command, the handshake, timings) in `captures/<package>/<version>.json`; its listings
//! (`toolsList`, `promptsList`, `resourcesList`, `resourceTemplatesList`, their bytes as the
//! server sent them) go to `captures/contracts/<sha256>.json`, named by the digest of those
//! bytes, and the release's file names the digest in their place. A release that changed
//! nothing but its version costs a few hundred bytes. Reading joins the two back; a whole
//! capture (as the 2026-12-05 census was first written) reads as it is, and [`pack`] moves
//! its listings out.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde_json::value::RawValue;

use driftlab_contract::text::sha256_hex;

/// The folder under `captures/` that holds the contracts.
pub(crate) const CONTRACTS: &str = "contracts";

/// The key that names a release's contract in its file.
const CONTRACT_KEY: &str = "contract";

/// The parts of a capture that make its contract, in the order a contract file holds them.
const LISTINGS: [&str; 4] = [
    "toolsList",
    "promptsList",
    "resourcesList",
    "resourceTemplatesList",
];

type Document = IndexMap<String, Box<RawValue>>;

/// Whether a file of a package's folder is a release's capture, not its install or failure
/// record (`versions.failed.json` is a failure record too).
pub(crate) fn is_capture(name: &str) -> bool {
    name.ends_with(".json") && !name.ends_with(".install.json") && !name.ends_with(".failed.json")
}

fn parse(bytes: &[u8], name: &str) -> Result<Document, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("{name}: not a capture: {e}"))
}

fn contract_path(captures: &Path, digest: &str) -> Result<PathBuf, String> {
    let hex = digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit());
    match hex && digest == digest.to_ascii_lowercase() {
        true => Ok(captures.join(CONTRACTS).join(format!("{digest}.json"))),
        false => Err(format!(
            "{digest:?}: not a contract digest (64 lowercase hex digits)"
        )),
    }
}

/// A whole capture in its two parts.
struct Split {
    /// The release's own file, naming the contract.
    own: Vec<u8>,
    /// The contract file's SHA-256.
    digest: String,
    /// The contract file.
    contract: Vec<u8>,
}

/// A whole capture split into the release's own file and its contract; `None` when `capture`
/// is already split.
fn split(capture: &[u8], name: &str) -> Result<Option<Split>, String> {
    let document = parse(capture, name)?;
    if document.contains_key(CONTRACT_KEY) || !document.contains_key(LISTINGS[0]) {
        return Ok(None);
    }
    let mut contract = Document::new();
    for key in LISTINGS {
        if let Some(value) = document.get(key) {
            contract.insert(key.to_string(), value.clone());
        }
    }
    let mut contract_bytes = serde_json::to_vec(&contract).map_err(|e| e.to_string())?;
    contract_bytes.push(b'\n');
    let digest = sha256_hex(&contract_bytes);
    let mut own = Document::new();
    for (key, value) in document {
        if key == LISTINGS[0] {
            let named =
                RawValue::from_string(format!("\"{digest}\"")).map_err(|e| e.to_string())?;
            own.insert(CONTRACT_KEY.to_string(), named);
        } else if !LISTINGS.contains(&key.as_str()) {
            own.insert(key, value);
        }
    }
    let mut own_bytes = serde_json::to_vec_pretty(&own).map_err(|e| e.to_string())?;
    own_bytes.push(b'\n');
    Ok(Some(Split {
        own: own_bytes,
        digest,
        contract: contract_bytes,
    }))
}

/// Writes a release's capture as `path` plus its contract under `captures/contracts/` (once:
/// an existing contract file of that digest holds the same bytes).
pub(crate) fn write_capture(captures: &Path, path: &Path, capture: &[u8]) -> Result<(), String> {
    match split(capture, &path.display().to_string())? {
        None => write(path, capture),
        Some(parts) => write_split(captures, path, parts),
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    driftlab_contract::fs::write_atomic(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn write_split(captures: &Path, path: &Path, parts: Split) -> Result<(), String> {
    let contract_file = contract_path(captures, &parts.digest)?;
    write_contract(captures, &contract_file, &parts.contract)?;
    write(path, &parts.own)
}

/// Writes a contract file unless it is there (its name is its bytes' digest: same bytes).
fn write_contract(captures: &Path, file: &Path, bytes: &[u8]) -> Result<(), String> {
    if file.is_file() {
        return Ok(());
    }
    let folder = captures.join(CONTRACTS);
    std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    write(file, bytes)
}

/// The contract a release's file names, if it names one (its path under the census folder's
/// `captures/`).
pub(crate) fn contract_of(
    captures: &Path,
    release: &[u8],
    name: &str,
) -> Result<Option<PathBuf>, String> {
    named_contract(captures, &parse(release, name)?, name)
}

fn named_contract(
    captures: &Path,
    document: &Document,
    name: &str,
) -> Result<Option<PathBuf>, String> {
    match document.get(CONTRACT_KEY) {
        None => Ok(None),
        Some(raw) => {
            let digest: String = serde_json::from_str(raw.get())
                .map_err(|_| format!("{name}: `contract` is not a digest"))?;
            contract_path(captures, &digest).map(Some)
        }
    }
}

/// A release's whole capture: its file with its contract's listings back in place of the
/// digest. The contract file must still have that digest.
pub(crate) fn read_capture(captures: &Path, path: &Path) -> Result<Vec<u8>, String> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let document = parse(&bytes, &name)?;
    let Some(contract_file) = named_contract(captures, &document, &name)? else {
        return Ok(bytes);
    };
    let contract_bytes = std::fs::read(&contract_file)
        .map_err(|e| format!("{name}: its contract {}: {e}", contract_file.display()))?;
    let stem = contract_file
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy();
    if sha256_hex(&contract_bytes) != stem {
        return Err(format!(
            "{}: its bytes do not have the digest it is named by: the file was edited or damaged",
            contract_file.display()
        ));
    }
    let contract = parse(&contract_bytes, &contract_file.display().to_string())?;
    let mut whole = Document::new();
    for (key, value) in document {
        if key == CONTRACT_KEY {
            whole.extend(contract.iter().map(|(k, v)| (k.clone(), v.clone())));
        } else {
            whole.insert(key, value);
        }
    }
    serde_json::to_vec(&whole).map_err(|e| e.to_string())
}

/// Splits every whole capture in `folder` (a package's) into its own file and its contract,
/// returning how many were split. Lossless: [`read_capture`] gives the same document back.
pub(crate) fn pack(captures: &Path, folder: &Path) -> Result<usize, String> {
    let mut packed = 0;
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Ok(0);
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if !is_capture(&path.file_name().unwrap_or_default().to_string_lossy()) {
            continue;
        }
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if let Some(parts) = split(&bytes, &path.display().to_string())? {
            write_split(captures, &path, parts)?;
            packed += 1;
        }
    }
    Ok(packed)
}

/// Copies the contracts the captures in `folder` (a package's, under `from`) name into `to`'s
/// `contracts/` (a shard's into the merged census).
pub(crate) fn copy_contracts(from: &Path, folder: &Path, to: &Path) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Ok(());
    };
    for path in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
        let name = path.display().to_string();
        if !is_capture(&name) {
            continue;
        }
        let bytes = std::fs::read(&path).map_err(|e| format!("{name}: {e}"))?;
        let Ok(Some(source)) = contract_of(from, &bytes, &name) else {
            continue;
        };
        let target = to.join(source.strip_prefix(from).unwrap_or(&source));
        if !target.is_file() {
            let contract =
                std::fs::read(&source).map_err(|e| format!("{}: {e}", source.display()))?;
            write_contract(to, &target, &contract)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAPTURE: &str = "{\n  \"format\": \"driftlab-capture/1\",\n  \"protocolVersion\": \"2025-11-25\",\n  \"toolsList\": {\"tools\":[{\"name\":\"a\",  \"inputSchema\":{\"type\":\"object\"}}]},\n  \"promptsList\": {\"prompts\":[]},\n  \"capture\": {\n    \"pages\": 1\n  }\n}\n";

    #[test]
    fn a_split_capture_reads_back_whole_and_two_releases_share_one_contract() {
        let dir = tempfile::tempdir().unwrap();
        let captures = dir.path();
        let folder = captures.join("npm/x");
        std::fs::create_dir_all(&folder).unwrap();
        let other = CAPTURE.replace("2025-11-25", "2025-06-18");
        write_capture(captures, &folder.join("1.0.0.json"), CAPTURE.as_bytes()).unwrap();
        write_capture(captures, &folder.join("1.0.1.json"), other.as_bytes()).unwrap();
        let contracts: Vec<_> = std::fs::read_dir(captures.join(CONTRACTS))
            .unwrap()
            .collect();
        assert_eq!(contracts.len(), 1);
        let own = std::fs::read_to_string(folder.join("1.0.0.json")).unwrap();
        assert!(
            !own.contains("toolsList") && own.contains("\"contract\""),
            "{own}"
        );
        let whole = read_capture(captures, &folder.join("1.0.0.json")).unwrap();
        let (a, b): (serde_json::Value, serde_json::Value) = (
            serde_json::from_slice(&whole).unwrap(),
            serde_json::from_str(CAPTURE).unwrap(),
        );
        assert_eq!(a, b);
        // The tools' bytes as the server sent them, spaces and all.
        assert!(String::from_utf8(whole)
            .unwrap()
            .contains("\"name\":\"a\",  \"inputSchema\""));
    }

    #[test]
    fn a_damaged_contract_or_a_digest_that_leaves_the_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let captures = dir.path();
        let release = captures.join("1.0.0.json");
        write_capture(captures, &release, CAPTURE.as_bytes()).unwrap();
        let contract = std::fs::read_dir(captures.join(CONTRACTS))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        std::fs::write(&contract, "{\"toolsList\":{\"tools\":[]}}\n").unwrap();
        let error = read_capture(captures, &release).unwrap_err();
        assert!(error.contains("edited or damaged"), "{error}");
        std::fs::write(&release, "{\"contract\": \"../../etc/passwd\"}").unwrap();
        let error = read_capture(captures, &release).unwrap_err();
        assert!(error.contains("not a contract digest"), "{error}");
    }

    #[test]
    fn packing_splits_whole_captures_once_and_leaves_other_records() {
        let dir = tempfile::tempdir().unwrap();
        let captures = dir.path();
        let folder = captures.join("pypi/x");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("1.0.0.json"), CAPTURE).unwrap();
        std::fs::write(folder.join("1.0.1.failed.json"), "{\"stage\":\"install\"}").unwrap();
        assert_eq!(pack(captures, &folder).unwrap(), 1);
        assert_eq!(pack(captures, &folder).unwrap(), 0);
        let whole = read_capture(captures, &folder.join("1.0.0.json")).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&whole).unwrap();
        assert_eq!(value["toolsList"]["tools"][0]["name"], "a");
    }
}
