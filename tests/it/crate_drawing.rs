//! docs/architecture.md's drawing of the crates, held to Cargo's graph (`cargo metadata`): every
//! crate a row, every arrow a normal dependency and every normal dependency an arrow, each job the one sentence that opens the
//! crate's `lib.rs`. And the paths: no crate root re-exports a neighbour's modules, and no
//! command module of `src/cli/` imports from the dispatcher (`cli/mod.rs`).

use crate::architecture::{arrows, modules};
use crate::common::repo;
use std::collections::{BTreeMap, BTreeSet};

/// Cargo's graph of the workspace (`cargo metadata --no-deps`): each package's folder and its
/// normal dependencies on workspace crates, by short name (`driftlab-check` as `check`), by
/// package name.
pub(crate) fn packages() -> BTreeMap<String, (std::path::PathBuf, BTreeSet<String>)> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--offline",
            "--no-deps",
            "--format-version",
            "1",
        ])
        .current_dir(repo())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut out = BTreeMap::new();
    for package in metadata["packages"].as_array().unwrap() {
        let manifest = std::path::PathBuf::from(package["manifest_path"].as_str().unwrap());
        let deps = package["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str()?.strip_prefix("driftlab-"))
            .map(str::to_string)
            .collect();
        let name = package["name"].as_str().unwrap().to_string();
        out.insert(name, (manifest.parent().unwrap().to_path_buf(), deps));
    }
    out
}

/// The first paragraph of a crate's `//!` docs, its lines joined by spaces.
fn opening(lib: &std::path::Path) -> String {
    let text = std::fs::read_to_string(lib).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .map_while(|l| l.strip_prefix("//!"))
        .map(str::trim)
        .take_while(|l| !l.is_empty())
        .collect();
    lines.join(" ")
}

/// The rows of docs/architecture.md's crate table: package name, job, dependencies.
fn drawn() -> Vec<(String, String, BTreeSet<String>)> {
    let text = std::fs::read_to_string(repo().join("docs/architecture.md")).unwrap();
    let start = text
        .find("| Crate | Job | Depends on |")
        .expect("docs/architecture.md draws the crates");
    text[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            assert_eq!(cells.len(), 3, "{line}");
            let deps = match cells[2].trim() {
                "—" => BTreeSet::new(),
                list => list.split(", ").map(str::to_string).collect(),
            };
            (
                cells[0].trim().trim_matches('`').to_string(),
                cells[1].trim().to_string(),
                deps,
            )
        })
        .collect()
}

#[test]
fn the_crate_drawing_is_cargos() {
    let packages = packages();
    let rows = drawn();
    let named: BTreeSet<&String> = rows.iter().map(|(name, _, _)| name).collect();
    assert_eq!(
        named,
        packages.keys().collect(),
        "docs/architecture.md's crate table names other crates than the workspace has"
    );
    for (name, job, deps) in &rows {
        let (folder, cargos) = &packages[name];
        assert_eq!(
            deps, cargos,
            "{name}: the drawing's arrows are not Cargo's (its normal dependencies)"
        );
        let lib = folder.join("src/lib.rs");
        let opening = opening(&lib);
        assert_eq!(
            job,
            &opening,
            "{name}: the drawing's job is not the sentence that opens {}",
            lib.display()
        );
        let sentence = opening.trim_end_matches('.');
        assert!(
            opening.ends_with('.') && !sentence.contains(". ") && opening.len() <= 140,
            "{}: open with one sentence (a blank `//!` line, then the rest): {opening:?}",
            lib.display()
        );
    }
}

/// Whether a `use` line names only types (`use driftlab_check::check::Rule;`,
/// `use a::{B, C};`), not modules or functions.
fn imports_types_only(line: &str) -> bool {
    let names = line.trim_end_matches(';').rsplit("::").next().unwrap_or("");
    let names = names.trim_start_matches('{').trim_end_matches('}');
    names
        .split(',')
        .map(str::trim)
        .all(|name| name.starts_with(|c: char| c.is_ascii_uppercase()))
}

#[test]
fn no_crate_root_re_exports_a_neighbours_modules() {
    let re_exports: Vec<String> = packages()
        .values()
        .flat_map(|(folder, _)| {
            let lib = folder.join("src/lib.rs");
            let text = std::fs::read_to_string(&lib).unwrap();
            text.lines()
                .map(str::trim)
                .filter(|l| l.starts_with("use driftlab_") || l.starts_with("pub use driftlab_"))
                // `use driftlab_rules as _;` links a crate; it names nothing.
                .filter(|l| !l.ends_with(" as _;"))
                // A crate that is one room (`crates/rules`) has its code in `lib.rs`: the types
                // it uses are imports, not old paths kept.
                .filter(|l| !imports_types_only(l))
                .map(|l| format!("{}: {l}", lib.display()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        re_exports.is_empty(),
        "name the crate where the module is used instead:\n{}",
        re_exports.join("\n")
    );
}

#[test]
fn no_command_module_imports_from_the_dispatcher() {
    let modules = modules();
    let dispatcher = vec!["cli".to_string()];
    assert!(modules.contains_key(&dispatcher));
    let back: Vec<String> = arrows(&modules)
        .into_iter()
        .filter(|(from, to)| from.len() == 2 && from[0] == "cli" && to.contains(&dispatcher))
        .map(|(from, _)| from.join("/"))
        .collect();
    assert!(
        back.is_empty(),
        "command modules that import from cli/mod.rs (move what they use to a module of its own, \
         as cli/exit.rs and cli/output.rs): {back:?}"
    );
}
