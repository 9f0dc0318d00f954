//! A library crate's `pub` items are what it promises the crates above it, so each must be kept
//! by one of them: named outside its crate (by another crate, the command line, the tests or
//! the benches), or named in the signature of another `pub` item of its crate (the error a
//! public function returns, a public field's type, a `pub use` list). Anything else is
//! `pub(crate)`. Names are matched as words, so a name used elsewhere for something else keeps
//! an item public: the check can miss a needless `pub`, never call a needed one needless.

use crate::architecture::code;
use crate::common::repo;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The item kinds a `pub` declaration can have, as the word after `pub`.
const KINDS: [&str; 8] = [
    "fn", "struct", "enum", "const", "static", "type", "trait", "mod",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// The name a line declares `pub` (not `pub(crate)`), if it declares one.
fn declared(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("pub ")?;
    let mut tokens = words(rest).skip_while(|w| ["const", "async", "unsafe"].contains(w));
    let (kind, name) = (tokens.next()?, tokens.next()?);
    // `pub const fn f` skipped `const` above; a `pub const NAME` has kind NAME here.
    match KINDS.contains(&kind) {
        true => Some(name),
        false if rest.starts_with("const ") => Some(kind),
        false => None,
    }
}

/// The words of every `pub` signature in `code` (from `pub` to its body, its `;`, or for a
/// field its line's end), leaving out the name each declaration declares.
fn signature_words(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if !trimmed.starts_with("pub ") {
            continue;
        }
        let own = declared(line);
        let is_use = trimmed.starts_with("pub use");
        let is_field = own.is_none() && !is_use;
        // A `use` list's braces hold names; an item's body starts at its brace.
        let ends: &[char] = if is_use { &[';'] } else { &['{', ';'] };
        let mut signature = trimmed.to_string();
        while !is_field && !signature.contains(ends) {
            let Some(next) = lines.next() else { break };
            signature.push_str(next);
        }
        let mut end = signature.find(ends).unwrap_or(signature.len());
        // An enum's variants are as public as the enum: its body is signature too.
        if trimmed.starts_with("pub enum ") && signature.contains('{') {
            let indent = &line[..line.len() - trimmed.len()];
            for next in lines.by_ref() {
                if next.starts_with(indent) && next[indent.len()..].starts_with('}') {
                    break;
                }
                signature.push_str(next);
            }
            end = signature.len();
        }
        let mut seen_own = false;
        for word in words(&signature[..end]) {
            if Some(word) == own && !seen_own {
                seen_own = true;
                continue;
            }
            out.insert(word.to_string());
        }
    }
    out
}

#[test]
fn every_pub_item_of_a_library_crate_is_kept_by_a_user_or_a_pub_signature() {
    let root = repo();
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    crates.sort();
    let mut everywhere = Vec::new();
    for dir in ["src", "tests", "benches", "fuzz", "crates"] {
        rust_files(&root.join(dir), &mut everywhere);
    }
    everywhere.push(root.join("build.rs"));
    let texts: Vec<(PathBuf, String)> = everywhere
        .into_iter()
        .filter_map(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t)))
        .collect();
    let mut needless = Vec::new();
    let mut checked = 0;
    for krate in &crates {
        let inside = |p: &Path| p.starts_with(krate);
        let outside: BTreeSet<&str> = texts
            .iter()
            .filter(|(p, _)| !inside(p))
            .flat_map(|(_, t)| words(t))
            .collect();
        let own: Vec<(&PathBuf, String)> = texts
            .iter()
            .filter(|(p, _)| inside(p))
            .map(|(p, t)| (p, code(t)))
            .collect();
        let in_signatures: BTreeSet<String> =
            own.iter().flat_map(|(_, c)| signature_words(c)).collect();
        for (path, code) in &own {
            for (number, line) in code.lines().enumerate() {
                let Some(name) = declared(line) else { continue };
                checked += 1;
                if !outside.contains(name) && !in_signatures.contains(name) {
                    let shown = path.strip_prefix(&root).unwrap().display();
                    needless.push(format!("{shown}:{}: {name}", number + 1));
                }
            }
        }
    }
    assert!(checked > 500, "only {checked} pub items found");
    assert!(
        needless.is_empty(),
        "pub items no crate above names and no pub signature of their crate needs \
         (make them pub(crate)):\n{}",
        needless.join("\n")
    );
}

#[test]
fn the_surface_reader_sees_declarations_and_signatures() {
    assert_eq!(declared("    pub fn run(x: u8) -> Out {"), Some("run"));
    assert_eq!(declared("pub const fn new() -> Self {"), Some("new"));
    assert_eq!(declared("pub const LIMIT: usize = 3;"), Some("LIMIT"));
    assert_eq!(declared("pub(crate) fn hidden() {"), None);
    assert_eq!(declared("    pub name: String,"), None);
    let code = "pub fn read(\n    path: &Path,\n) -> Result<Surface, InputError> {\n}\n\
                pub struct Capture {\n    pub timings: Timings,\n    hidden: Secret,\n}\n\
                pub use classes::{\n    Identity, NameTypo,\n};\n\
                pub enum Record {\n    Failed(Failure),\n}\n";
    let seen = signature_words(code);
    for kept in [
        "InputError",
        "Surface",
        "Timings",
        "Identity",
        "NameTypo",
        "Failure",
    ] {
        assert!(seen.contains(kept), "{kept} missing from {seen:?}");
    }
    for left_out in ["read", "Capture", "Secret"] {
        assert!(!seen.contains(left_out), "{left_out} in {seen:?}");
    }
}
