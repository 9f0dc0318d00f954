//! The import drawing of `src/`, held to the floors `docs/architecture.md` declares: every
//! module a file names (`crate::…`, `driftlab_contract::…`, `super::…`, `self::…`, a child
//! module's path) is an arrow;
//! an arrow between top-level modules must point to a lower floor; arrows between files that
//! are not each other's ancestor must form no circle; no source file is over 500 lines. Test
//! code (`#[cfg(test)] mod …` and `*tests.rs` files) is left out: tests may use anything.

use crate::common::repo;
use std::collections::{BTreeMap, BTreeSet};

pub(crate) type Module = Vec<String>;

/// The folders that hold the rooms: the root package's `src/` and each workspace crate's, with
/// the room a crate's files form when the crate is one room of its own (its files sit at its
/// root: `crates/rules`), sorted.
fn source_roots() -> Vec<(std::path::PathBuf, Option<String>)> {
    let mut roots = vec![(repo().join("src"), None)];
    let mut crates: Vec<_> = std::fs::read_dir(repo().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    crates.sort();
    for dir in crates {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let src = dir.join("src");
        let own_room = !src.join(&name).exists() && !src.join(format!("{name}.rs")).exists();
        roots.push((src, own_room.then_some(name)));
    }
    roots
}

/// Every `.rs` file of the rooms: its path from the repository, its path as a module (from its
/// crate's `src/`, under the crate's room where the crate is one), and its text; sorted.
fn source_files() -> Vec<(std::path::PathBuf, std::path::PathBuf, String)> {
    let mut out = Vec::new();
    for (src, room) in source_roots() {
        let mut stack = vec![src.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let relative = path.strip_prefix(&src).unwrap();
                    let module = match &room {
                        Some(room) => std::path::Path::new(room).join(relative),
                        None => relative.to_path_buf(),
                    };
                    let shown = path.strip_prefix(repo()).unwrap().to_path_buf();
                    out.push((shown, module, text));
                }
            }
        }
    }
    out.sort();
    out
}

/// Every module file of the rooms (but `main.rs`, test files and the crate roots that only
/// declare their rooms) by module path, with its text.
pub(crate) fn modules() -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    for (shown, relative, text) in source_files() {
        let name = relative.file_name().unwrap().to_string_lossy().into_owned();
        if name == "main.rs" || name.ends_with("tests.rs") {
            continue;
        }
        if name == "lib.rs" && relative.parent() == Some(std::path::Path::new("")) {
            // A crate root: the root package's is the library's, the others declare rooms.
            if !shown.starts_with("src") {
                continue;
            }
        }
        let mut module: Module = relative
            .with_extension("")
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        if module.last().is_some_and(|m| m == "mod" || m == "lib") {
            module.pop();
        }
        out.insert(module, text);
    }
    out
}

/// The text without its test module and without `//` comments.
pub(crate) fn code(text: &str) -> String {
    let mut kept = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod ") && next.ends_with('{'))
        {
            break;
        }
        kept.push_str(line.split("//").next().unwrap_or(""));
        kept.push('\n');
    }
    kept
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Every path `a::b::…` in `code` (with `use` groups `a::{b, c::d}` spread out).
fn paths(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !is_ident(bytes[i]) || (i > 0 && (is_ident(bytes[i - 1]) || bytes[i - 1] == b':')) {
            i += 1;
            continue;
        }
        let (path, end) = path_at(code, i, Vec::new(), &mut out);
        if path.len() > 1 {
            out.push(path);
        }
        i = end.max(i + 1);
    }
    out
}

/// The path starting at `at` after `prefix`; a group's members go to `out`.
fn path_at(
    code: &str,
    mut at: usize,
    mut path: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> (Vec<String>, usize) {
    let bytes = code.as_bytes();
    loop {
        let start = at;
        while at < bytes.len() && is_ident(bytes[at]) {
            at += 1;
        }
        if start == at {
            return (path, at);
        }
        path.push(code[start..at].to_string());
        if !code[at..].starts_with("::") {
            return (path, at);
        }
        at += 2;
        if bytes.get(at) == Some(&b'{') {
            at += 1;
            loop {
                while at < bytes.len() && matches!(bytes[at], b' ' | b'\n' | b',') {
                    at += 1;
                }
                if at >= bytes.len() || bytes[at] == b'}' {
                    return (Vec::new(), at + 1);
                }
                let (member, end) = path_at(code, at, path.clone(), out);
                if !member.is_empty() {
                    out.push(member);
                }
                at = end.max(at + 1);
            }
        }
    }
}

/// The module files each module file names.
pub(crate) fn arrows(modules: &BTreeMap<Module, String>) -> BTreeMap<Module, BTreeSet<Module>> {
    let own_rooms: BTreeSet<String> = source_roots().into_iter().filter_map(|(_, r)| r).collect();
    let mut arrows = BTreeMap::new();
    for (module, text) in modules {
        let children: BTreeSet<&str> = modules
            .keys()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
            .map(|m| m.last().unwrap().as_str())
            .collect();
        let mut targets = BTreeSet::new();
        for path in paths(&code(text)) {
            let full: Module = match path[0].as_str() {
                "crate" => path[1..].to_vec(),
                // Another workspace crate: its rooms are top-level modules of the drawing, and a
                // crate that is one room (`driftlab_rules`) is that room.
                head if head.starts_with("driftlab_") => {
                    let name = head.trim_start_matches("driftlab_");
                    match own_rooms.contains(name) {
                        true => [vec![name.to_string()], path[1..].to_vec()].concat(),
                        false => path[1..].to_vec(),
                    }
                }
                "self" => [module.clone(), path[1..].to_vec()].concat(),
                "super" => {
                    let ups = path.iter().take_while(|s| *s == "super").count();
                    let base = &module[..module.len().saturating_sub(ups)];
                    [base.to_vec(), path[ups..].to_vec()].concat()
                }
                head if children.contains(head) => [module.clone(), path].concat(),
                _ => continue,
            };
            // The deepest module file the path runs through.
            let target = (1..=full.len())
                .rev()
                .map(|n| full[..n].to_vec())
                .find(|m| modules.contains_key(m));
            if let Some(target) = target.filter(|t| t != module) {
                targets.insert(target);
            }
        }
        arrows.insert(module.clone(), targets);
    }
    arrows
}

/// The floors `docs/architecture.md` declares, lowest first: lines `N. room, room, …`.
fn declared_floors() -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(repo().join("docs/architecture.md")).unwrap();
    let mut floors = BTreeMap::new();
    for line in text.lines() {
        let Some((number, rooms)) = line.split_once(". `") else {
            continue;
        };
        let Ok(floor) = number.trim().parse::<usize>() else {
            continue;
        };
        for room in rooms.split(", ") {
            floors.insert(room.trim_matches('`').to_string(), floor);
        }
    }
    floors
}

fn show(module: &[String]) -> String {
    if module.is_empty() {
        "lib".into()
    } else {
        module.join("/")
    }
}

/// A circle in `arrows`, if any (depth-first search).
fn circle(arrows: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
    fn visit(
        node: &Module,
        arrows: &BTreeMap<Module, BTreeSet<Module>>,
        state: &mut BTreeMap<Module, u8>,
        stack: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        state.insert(node.clone(), 1);
        stack.push(node.clone());
        for next in arrows.get(node).into_iter().flatten() {
            match state.get(next) {
                Some(1) => {
                    let from = stack.iter().position(|m| m == next).unwrap();
                    return Some([&stack[from..], std::slice::from_ref(next)].concat());
                }
                Some(_) => {}
                None => {
                    if let Some(found) = visit(next, arrows, state, stack) {
                        return Some(found);
                    }
                }
            }
        }
        stack.pop();
        state.insert(node.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in arrows.keys() {
        if !state.contains_key(node) {
            let found = visit(node, arrows, &mut state, &mut Vec::new());
            if found.is_some() {
                return found;
            }
        }
    }
    None
}

#[test]
fn the_path_reader_spreads_use_groups() {
    let found = paths("use crate::a::{b, c::{d, e}};\nlet x = super::f::g(1);");
    let found: Vec<String> = found.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        found,
        [
            "crate::a::b",
            "crate::a::c::d",
            "crate::a::c::e",
            "super::f::g"
        ]
    );
}

#[test]
fn every_arrow_between_rooms_points_down_a_floor() {
    let modules = modules();
    let floors = declared_floors();
    let rooms: BTreeSet<&String> = modules.keys().filter_map(|m| m.first()).collect();
    let undeclared: Vec<&&String> = rooms.iter().filter(|r| !floors.contains_key(**r)).collect();
    assert!(
        undeclared.is_empty(),
        "modules without a floor in docs/architecture.md: {undeclared:?}"
    );
    let mut up = Vec::new();
    for (from, targets) in arrows(&modules) {
        for to in targets {
            let (Some(a), Some(b)) = (from.first(), to.first()) else {
                continue;
            };
            if a != b && floors[a] <= floors[b] {
                up.push(format!(
                    "{} (floor {}) -> {} (floor {})",
                    show(&from),
                    floors[a],
                    show(&to),
                    floors[b]
                ));
            }
        }
    }
    assert!(
        up.is_empty(),
        "arrows that do not point down a floor (move the shared name down, or redraw \
         docs/architecture.md if the floors were wrong):\n{}",
        up.join("\n")
    );
}

#[test]
fn files_import_each_other_in_no_circle() {
    let modules = modules();
    let mut arrows = arrows(&modules);
    // A module and its own submodules are one room's wiring (a `mod.rs` re-exports its files).
    for (from, targets) in arrows.iter_mut() {
        targets.retain(|to| !to.starts_with(from) && !from.starts_with(to));
    }
    if let Some(found) = circle(&arrows) {
        let names: Vec<String> = found.iter().map(|m| show(m)).collect();
        panic!(
            "an import circle: {} (move what they share into a file below both)",
            names.join(" -> ")
        );
    }
}

#[test]
fn no_source_file_is_over_500_lines() {
    let long: Vec<String> = source_files()
        .into_iter()
        .map(|(path, _, text)| (path, text.lines().count()))
        .filter(|(_, lines)| *lines > 500)
        .map(|(path, lines)| format!("{} ({lines} lines)", path.display()))
        .collect();
    assert!(
        long.is_empty(),
        "split these files (tests can go to a `tests.rs` beside them):\n{}",
        long.join("\n")
    );
}

/// The rooms of each crate (its module files' first names) and the workspace crates it depends
/// on (from its `Cargo.toml`'s `[dependencies]`), by crate folder; the root package is `.`.
fn crates() -> BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> {
    let mut out: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> = BTreeMap::new();
    for (shown, module, _) in source_files() {
        let krate = match shown.strip_prefix("crates") {
            Ok(rest) => rest.iter().next().unwrap().to_string_lossy().into_owned(),
            Err(_) => ".".to_string(),
        };
        let room = module.iter().next().unwrap().to_string_lossy().into_owned();
        let room = room.trim_end_matches(".rs").to_string();
        if !["lib", "main"].contains(&room.as_str()) {
            out.entry(krate).or_default().0.insert(room);
        }
    }
    for (krate, (_, deps)) in out.iter_mut() {
        let manifest = std::fs::read_to_string(if krate == "." {
            repo().join("Cargo.toml")
        } else {
            repo().join("crates").join(krate).join("Cargo.toml")
        })
        .unwrap();
        let manifest: toml::Table = toml::from_str(&manifest).unwrap();
        let dependencies = manifest.get("dependencies").and_then(|d| d.as_table());
        for name in dependencies.into_iter().flat_map(|d| d.keys()) {
            if let Some(name) = name.strip_prefix("driftlab-") {
                deps.insert(name.to_string());
            }
        }
    }
    out
}

/// Cargo holds the crates to one direction; this holds them to the floors: every room of a
/// crate's dependencies sits on a floor no higher than the lowest of the crate's own, so an
/// arrow a crate may draw across its dependencies points down or sideways, never up.
#[test]
fn the_crates_are_bands_of_floors_each_on_the_ones_below() {
    let floors = declared_floors();
    let crates = crates();
    assert!(crates.len() > 5, "{:?}", crates.keys());
    let unplaced: Vec<&String> = crates
        .values()
        .flat_map(|(rooms, _)| rooms)
        .filter(|r| !floors.contains_key(*r))
        .collect();
    assert!(
        unplaced.is_empty(),
        "rooms without a floor in docs/architecture.md: {unplaced:?}"
    );
    let mut up = Vec::new();
    for (krate, (rooms, deps)) in &crates {
        let lowest = rooms.iter().map(|r| floors[r]).min().unwrap();
        for dep in deps {
            let (below, _) = &crates[dep];
            for room in below.iter().filter(|r| floors[*r] > lowest) {
                up.push(format!(
                    "{krate} (lowest floor {lowest}) depends on {dep}, whose `{room}` is on floor {}",
                    floors[room]
                ));
            }
        }
    }
    assert!(
        up.is_empty(),
        "crates that reach up a floor:\n{}",
        up.join("\n")
    );
}

/// Every library crate of the workspace documents its whole public surface: the compiler
/// refuses an undocumented public item there.
#[test]
fn every_library_crate_denies_missing_docs() {
    let crates = crates();
    let members: Vec<&String> = crates.keys().filter(|k| *k != ".").collect();
    assert!(members.len() > 5, "{members:?}");
    let lax: Vec<&&String> = members
        .iter()
        .filter(|krate| {
            let lib = repo().join("crates").join(krate).join("src/lib.rs");
            !std::fs::read_to_string(lib)
                .unwrap()
                .contains("#![deny(missing_docs)]")
        })
        .collect();
    assert!(
        lax.is_empty(),
        "crates without #![deny(missing_docs)]: {lax:?}"
    );
}
