//! Real payloads from published MCP servers (copied from the shared corpus into tests/data/corpus;
//! see SOURCE.md there). Every version pair, with expectations written by reading the payloads.

use crate::common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use common::*;
use driftlab_check::check::rules::of_kind;
use driftlab_check::check::RuleKind;
use driftlab_check::verdict::{evaluate, FailOn, Outcome, ResolvedPolicy, Verdict};
use driftlab_contract::payload::{self, Limits};

fn path(name: &str) -> PathBuf {
    repo()
        .join("tests/data/corpus")
        .join(format!("{name}.json"))
}

fn surface(name: &str) -> driftlab_contract::surface::Surface {
    let p = path(name);
    payload::read(
        &std::fs::read(&p).unwrap(),
        &p.display().to_string(),
        Limits::default(),
    )
    .unwrap()
}

fn diff(old: &str, new: &str) -> Outcome {
    evaluate(
        &of_kind(RuleKind::Diff),
        &surface(old),
        &surface(new),
        None,
        &ResolvedPolicy::default(),
        FailOn::Breaking,
    )
}

fn tools(outcome: &Outcome, rule: &str) -> BTreeSet<String> {
    outcome
        .findings
        .iter()
        .filter(|f| f.rule == rule)
        .map(|f| f.tool.as_ref().unwrap().name.clone())
        .collect()
}

fn count(outcome: &Outcome, rule: &str) -> usize {
    outcome.findings.iter().filter(|f| f.rule == rule).count()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

const EVERYTHING: &str = "@modelcontextprotocol__server-everything";
const FILESYSTEM: &str = "@modelcontextprotocol__server-filesystem";

#[test]
fn everything_2025_1_14_to_2025_9_25_adds_four_tools_and_moves_one() {
    let o = diff(
        &format!("{EVERYTHING}@2025.1.14"),
        &format!("{EVERYTHING}@2025.9.25"),
    );
    assert_eq!(
        tools(&o, "tool-added"),
        set(&[
            "annotatedMessage",
            "getResourceLinks",
            "getResourceReference",
            "structuredContent"
        ])
    );
    assert_eq!(
        count(&o, "tools-reordered"),
        1,
        "longRunningOperation moved before printEnv"
    );
    assert_eq!(count(&o, "tool-removed") + count(&o, "tool-renamed"), 0);
    assert_eq!(o.verdict, Verdict::Pass);
}

#[test]
fn everything_2025_9_25_to_2026_8_31_is_mostly_renames_not_removals() {
    let o = diff(
        &format!("{EVERYTHING}@2025.9.25"),
        &format!("{EVERYTHING}@2026.8.31"),
    );
    assert_eq!(
        tools(&o, "tool-renamed"),
        set(&[
            "annotatedMessage -> get-annotated-message",
            "getResourceLinks -> get-resource-links",
            "getResourceReference -> get-resource-reference",
            "getTinyImage -> get-tiny-image",
            "longRunningOperation -> trigger-long-running-operation",
            "printEnv -> get-env",
            "structuredContent -> get-structured-content",
        ])
    );
    // `add` became `get-sum` with new words in name and description: too different to call a
    // rename, so it stays a removal plus an addition; sampleLLM is really gone.
    assert_eq!(tools(&o, "tool-removed"), set(&["add", "sampleLLM"]));
    assert_eq!(
        tools(&o, "tool-added"),
        set(&[
            "get-sum",
            "gzip-file-as-resource",
            "simulate-research-query",
            "toggle-simulated-logging",
            "toggle-subscriber-updates"
        ])
    );
    assert!(tools(&o, "tool-description-changed").contains("echo"));
    // The renamed get-structured-content now restricts location to an enum.
    let enum_added = o
        .findings
        .iter()
        .find(|f| f.rule == "constraint-tightened")
        .unwrap();
    assert!(
        enum_added.pointer.ends_with("/properties/location/enum"),
        "{}",
        enum_added.pointer
    );
    assert_eq!(o.verdict, Verdict::Drift);
}

#[test]
fn filesystem_2025_1_14_to_2025_8_21_adds_tools_and_optional_parameters() {
    let o = diff(
        &format!("{FILESYSTEM}@2025.1.14+pinned-zod"),
        &format!("{FILESYSTEM}@2025.8.21+pinned-zod"),
    );
    assert_eq!(
        tools(&o, "tool-added"),
        set(&[
            "list_directory_with_sizes",
            "read_media_file",
            "read_text_file"
        ])
    );
    assert_eq!(tools(&o, "optional-parameter-added"), set(&["read_file"]));
    assert_eq!(count(&o, "optional-parameter-added"), 2, "head and tail");
    let deprecation = o
        .findings
        .iter()
        .find(|f| {
            f.rule == "tool-description-changed" && f.tool.as_ref().unwrap().name == "read_file"
        })
        .unwrap();
    assert!(deprecation.new.as_deref().unwrap().contains("DEPRECATED"));
    assert!(o
        .findings
        .iter()
        .all(|f| f.severity < driftlab_check::check::Severity::Unknown));
    assert_eq!(o.verdict, Verdict::Pass);
}

#[test]
fn filesystem_2025_8_21_to_2026_8_31_adds_output_schemas_and_tightens_one_parameter() {
    let o = diff(
        &format!("{FILESYSTEM}@2025.8.21+pinned-zod"),
        &format!("{FILESYSTEM}@2026.8.31"),
    );
    assert_eq!(count(&o, "output-schema-added"), 14);
    assert_eq!(count(&o, "title-changed"), 14);
    assert_eq!(
        tools(&o, "constraint-tightened"),
        set(&["read_multiple_files"]),
        "paths gained minItems: 1"
    );
    assert_eq!(
        tools(&o, "optional-parameter-added"),
        set(&["directory_tree"]),
        "excludePatterns"
    );
    assert_eq!(
        count(&o, "tool-removed") + count(&o, "tool-added") + count(&o, "tool-renamed"),
        0
    );
    assert_eq!(o.verdict, Verdict::Drift);
}

#[test]
fn plain_install_filesystem_schemas_fail_check() {
    // zod 4 turns these input schemas into {"$schema": …}: no type, no properties.
    for (version, broken) in [("2025.1.14", 10), ("2025.8.21", 13)] {
        let pinned = surface(&format!("{FILESYSTEM}@{version}+pinned-zod"));
        let plain = surface(&format!("{FILESYSTEM}@{version}"));
        let mut rules = of_kind(RuleKind::Payload);
        rules.extend(of_kind(RuleKind::Diff));
        let o = evaluate(
            &rules,
            &pinned,
            &plain,
            Some(&pinned),
            &ResolvedPolicy::default(),
            FailOn::Breaking,
        );
        assert_eq!(o.verdict, Verdict::Drift);
        assert_eq!(count(&o, "input-schema-not-object"), broken, "{version}");
        // One root cause per tool, not one removal per parameter.
        assert_eq!(count(&o, "input-schema-replaced"), broken, "{version}");
        assert_eq!(count(&o, "parameter-removed"), 0, "{version}");
        assert_eq!(count(&o, "tool-removed"), 0);
    }
    let output = run(&[
        "check",
        "--approved",
        path(&format!("{FILESYSTEM}@2025.8.21+pinned-zod"))
            .to_str()
            .unwrap(),
        path(&format!("{FILESYSTEM}@2025.8.21")).to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("input-schema-not-object"));
}

#[test]
fn memory_0_6_2_to_2026_8_31_only_adds_contracts() {
    let o = diff(
        "@modelcontextprotocol__server-memory@0.6.2",
        "@modelcontextprotocol__server-memory@2026.8.31",
    );
    assert_eq!(count(&o, "output-schema-added"), 9);
    assert_eq!(count(&o, "schema-dialect-changed"), 9);
    assert!(!o
        .findings
        .iter()
        .any(|f| f.severity == driftlab_check::check::Severity::Breaking));
    assert_eq!(o.verdict, Verdict::Pass);
}

#[test]
fn fetch_bounds_rewritten_equivalently_are_not_drift() {
    // exclusiveMinimum 0 / exclusiveMaximum 1000000 became minimum 1 / maximum 999999 on an
    // integer: the same bounds. Only prompt-facing text and annotations changed.
    let o = diff("mcp-server-fetch@2025.4.7", "mcp-server-fetch@2026.10.24");
    assert_eq!(
        count(&o, "constraint-tightened") + count(&o, "constraint-loosened"),
        0
    );
    assert_eq!(count(&o, "parameter-description-changed"), 1);
    assert_eq!(o.verdict, Verdict::Pass);
    let strict = evaluate(
        &of_kind(RuleKind::Diff),
        &surface("mcp-server-fetch@2025.4.7"),
        &surface("mcp-server-fetch@2026.10.24"),
        None,
        &ResolvedPolicy::default(),
        FailOn::Warning,
    );
    assert_eq!(strict.verdict, Verdict::Drift);
}

#[test]
fn time_2025_7_1_to_2026_10_19_adds_output_schemas_and_fixes_a_typo() {
    let o = diff("mcp-server-time@2025.7.1", "mcp-server-time@2026.10.19");
    assert_eq!(count(&o, "output-schema-added"), 2);
    assert_eq!(
        tools(&o, "tool-description-changed"),
        set(&["get_current_time"])
    );
    assert_eq!(o.verdict, Verdict::Pass);
}

#[test]
fn every_corpus_payload_diffs_against_itself_with_no_findings() {
    let dir = repo().join("tests/data/corpus");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "json") {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            assert!(diff(&name, &name).findings.is_empty(), "{name}");
            seen += 1;
        }
    }
    assert_eq!(seen, 14);
}
