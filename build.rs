//! Records which code a binary was built from, for results folders' manifests: the git commit
//! and whether tracked code differed from it (in a checkout), and a SHA-256 of the sources (always).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

/// The files that make the binary (the research files it embeds are under `research/`).
const SOURCES: &[&str] = &[
    "src",
    "crates",
    "Cargo.toml",
    "Cargo.lock",
    "build.rs",
    "research/mcp-contract-drift-2026-08-22/study.toml",
    "research/mcp-contract-drift-2026-08-22/LIMITS.md",
];

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

fn files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        if let Ok(entries) = fs::read_dir(path) {
            for entry in entries.flatten() {
                files(&entry.path(), out);
            }
        }
    } else if path.is_file() {
        out.push(path.to_path_buf());
    }
}

fn main() {
    for source in SOURCES {
        println!("cargo:rerun-if-changed={source}");
    }
    let mut paths = Vec::new();
    for source in SOURCES {
        files(Path::new(source), &mut paths);
    }
    paths.sort();
    let mut hasher = Sha256::new();
    for path in &paths {
        // Name and length first, so moving bytes between files changes the hash.
        let bytes = fs::read(path).unwrap_or_default();
        hasher.update(path.to_string_lossy().as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    let hash: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    println!("cargo:rustc-env=DRIFTLAB_SOURCE_SHA256={hash}");

    // In a checkout: rerun when HEAD moves too (a commit changes no source file).
    let (mut commit, mut dirty) = (String::new(), String::new());
    if let Some(git_dir) = git(&["rev-parse", "--git-dir"]) {
        let head = Path::new(&git_dir).join("HEAD");
        if head.exists() {
            println!("cargo:rerun-if-changed={}", head.display());
        }
        if let Some(reference) = git(&["symbolic-ref", "-q", "HEAD"]) {
            let file = Path::new(&git_dir).join(reference);
            if file.exists() {
                println!("cargo:rerun-if-changed={}", file.display());
            }
        }
        let packed = Path::new(&git_dir).join("packed-refs");
        if packed.exists() {
            println!("cargo:rerun-if-changed={}", packed.display());
        }
        commit = git(&["rev-parse", "HEAD"]).unwrap_or_default();
        let mut status = vec!["status", "--porcelain", "--untracked-files=no", "--"];
        status.extend_from_slice(SOURCES);
        dirty = git(&status).map_or(String::new(), |s| (!s.is_empty()).to_string());
    }
    println!("cargo:rustc-env=DRIFTLAB_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=DRIFTLAB_GIT_DIRTY={dirty}");
    // `driftlab --version`: the version and the code it was built from.
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let built_from = match (commit.get(..12), dirty.as_str()) {
        (Some(short), "true") => format!("commit {short}, modified"),
        (Some(short), _) => format!("commit {short}"),
        (None, _) => format!("source sha256 {}", &hash[..12]),
    };
    println!("cargo:rustc-env=DRIFTLAB_LONG_VERSION={version} ({built_from})");
}
