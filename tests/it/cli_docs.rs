//! Shell completions and man pages are generated from the command line itself: every command
//! and flag appears in them.

use crate::common;

use common::*;

#[test]
fn completions_name_every_command_and_their_flags() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let output = run(&["completions", shell]);
        assert!(output.status.success(), "{shell}: {}", stderr(&output));
        let script = stdout(&output);
        for word in [
            "check",
            "study",
            "guard-study",
            "approved",
            "rows",
            "completions",
        ] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
    let output = run(&["completions", "tcsh"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("invalid value 'tcsh'"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn man_writes_a_page_per_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man");
    let output = run(&["man", "-o", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let page = |name: &str| std::fs::read_to_string(out.join(format!("{name}.1"))).unwrap();
    assert!(
        page("driftlab").contains("driftlab\\-check"),
        "{}",
        page("driftlab")
    );
    let check = page("driftlab-check");
    assert!(check.starts_with(".ie") || check.contains(".TH"), "{check}");
    assert!(check.contains("approved"), "{check}");
    let pages = std::fs::read_dir(&out).unwrap().count();
    // driftlab.1 and one page per command (every command the listing in `--help` shows).
    let help = stdout(&run(&["--help"]));
    let commands = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.trim_start().starts_with("help "))
        .count();
    assert_eq!(pages, 1 + commands, "{help}");
}

/// The README's set-up block: its shell lines, comments stripped.
fn set_up_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = &readme[readme.find("## Set up").expect("README: Set up")..];
    let block = section.split("```sh\n").nth(1).unwrap();
    let block = &block[..block.find("```").unwrap()];
    block
        .lines()
        .map(|line| line.split(" #").next().unwrap().trim().to_string())
        .filter(|line| !line.is_empty())
        .collect()
}

#[test]
fn the_readme_test_command_is_what_ci_runs() {
    let commands = set_up_commands();
    let test = commands
        .iter()
        .find(|c| c.starts_with("cargo test"))
        .expect("README's set-up names the test command");
    let ci = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|line| line.trim() == test),
        "README's test command `{test}` is not a line of .ci/run: change one to match the other"
    );
    // It reuses the first command's build: both are release builds.
    assert!(commands
        .iter()
        .any(|c| c.starts_with("cargo build --release")));
    // And the install step is the script CI runs.
    assert!(commands.iter().any(|c| c == "scripts/install-test-deps.sh"));
    assert!(ci.contains("scripts/install-test-deps.sh"));
    assert!(test.contains("--release"), "{test}");
}

#[test]
fn the_first_gate_example_does_what_the_readme_says() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let corpus = repo().join("tests/data/corpus");
    let output = run_in(
        &corpus,
        &[
            "check",
            "--approved",
            "@modelcontextprotocol__server-filesystem@2025.1.14+pinned-zod.json",
            "@modelcontextprotocol__server-filesystem@2025.8.21+pinned-zod.json",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let first = stdout(&output)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    let verdict = "3 warning, 5 compatible (fail-on breaking)";
    assert!(
        first.starts_with("PASS") && first.ends_with(verdict),
        "{first}"
    );
    assert!(
        readme.contains(&format!("prints `PASS … {verdict}` and exits 0")),
        "README's first gate example no longer states what check prints: {first}"
    );
}

#[test]
fn the_guard_page_names_every_rule_the_guard_refuses_a_line_by() {
    let readme = std::fs::read_to_string(repo().join("docs/guard.md")).unwrap();
    let start = readme
        .find("**Fail closed.**")
        .expect("docs/guard.md: the guard's fail-closed rule");
    let section = &readme[start..start + readme[start..].find("How it is tested").unwrap()];
    let mut rules: Vec<&str> = driftlab_contract::jsonrpc::RULES.to_vec();
    rules.push("reserved-id");
    for rule in rules {
        assert!(
            section.contains(&format!("`{rule}`")),
            "docs/guard.md's table of refusals does not name `{rule}`"
        );
    }
}

/// Every derived region of the docs (tables and counts from the registries and the committed
/// results) is what `scripts/regenerate` would write.
#[test]
fn every_derived_region_is_up_to_date() {
    let root = repo();
    let output = run(&["derived", "--check", "--root", root.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
    // The regions this test keeps: the rule and class tables, the rule pages, the counts in
    // prose, the metrics table and the six-stack table at a glance (docs/six-stacks.md).
    let summary = stdout(&output);
    let regions: usize = summary.split_whitespace().next().unwrap().parse().unwrap();
    assert!(regions >= 12, "{summary}");
}

/// `driftlab rules --help` says how schema verdicts are proven, and the rules page too.
#[test]
fn the_rules_listing_documents_witnesses() {
    let help = stdout(&run(&["rules", "--help"]));
    assert!(
        help.contains("only with a witness") && help.contains("`unknown`"),
        "{help}"
    );
    let page = std::fs::read_to_string(repo().join("docs/rules.md")).unwrap();
    assert!(page.contains("*witness*") && page.contains("(unproven: …)"));
}

#[test]
fn the_version_names_the_code_it_was_built_from() {
    let output = run(&["--version"]);
    assert!(output.status.success());
    let line = stdout(&output);
    let built_from = line
        .trim()
        .strip_prefix(&format!("driftlab {} (", env!("CARGO_PKG_VERSION")))
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{line}"));
    // In a checkout the commit (and whether the sources differed); elsewhere the sources' hash.
    let hex = |s: &str| s.len() == 12 && s.bytes().all(|b| b.is_ascii_hexdigit());
    let named = match built_from.split_once(' ') {
        Some(("commit", rest)) => hex(rest.trim_end_matches(", modified")),
        Some(("source", rest)) => rest.strip_prefix("sha256 ").is_some_and(hex),
        _ => false,
    };
    assert!(named, "{line}");
}

/// Every repository path the contributor's recipes, the README and docs/ name in backticks
/// exists (a `<placeholder>` path is left out), so a moved file cannot leave a recipe behind.
#[test]
fn the_docs_name_only_paths_that_exist() {
    let mut pages = vec![repo().join("CONTRIBUTING.md"), repo().join("README.md")];
    for entry in std::fs::read_dir(repo().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    let roots = [
        "src/",
        "crates/",
        "tests/",
        "research/",
        "scripts/",
        "benches/",
        "docs/",
        "results/",
    ];
    let (mut missing, mut checked) = (Vec::new(), 0);
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for (i, quoted) in text.split('`').enumerate() {
            let path = quoted.split([' ', ':', '#']).next().unwrap_or("");
            if i % 2 == 0
                || !roots.iter().any(|r| path.starts_with(r))
                || path.contains(['<', '*', '{', '$'])
            {
                continue;
            }
            checked += 1;
            if !repo().join(path.trim_end_matches(['.', ','])).exists() {
                missing.push(format!("{}: `{path}`", page.display()));
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} paths found: is the parse right?"
    );
    assert!(
        missing.is_empty(),
        "paths that do not exist:\n{}",
        missing.join("\n")
    );
}
