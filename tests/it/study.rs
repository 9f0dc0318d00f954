//! `driftlab study` end to end: totals, determinism, committed results, errors.

use crate::common;

use std::fs;
use std::path::Path;

use common::*;
use serde_json::Value;

const STUDY_ID: &str = "mcp-contract-drift-2026-08-22";
const DETERMINISTIC_FILES: &[&str] = &["rows.csv", "summary.csv", "summary.json"];

fn study(dir: &Path, args: &[&str], threads: Option<usize>) -> Value {
    let mut all = vec!["study", "--quiet", "--out", "out"];
    all.extend_from_slice(args);
    let output = run_in(dir, &all, threads);
    assert!(output.status.success(), "{}", stderr(&output));
    read_json(&dir.join("out/summary.json"))
}

fn totals(summary: &Value) -> Vec<(String, u64, u64)> {
    summary["totals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["gate"].as_str().unwrap().to_string(),
                t["detected"].as_u64().unwrap(),
                t["total"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn false_positives(summary: &Value) -> Vec<u64> {
    summary["controls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["false_positives"].as_u64().unwrap())
        .collect()
}

/// The yardstick of the speed ratio (`scripts/bench-study.sh`) is the published method in plain
/// Node, kept in the repository: it must find what the published study found, or the ratio
/// compares unlike work.
#[test]
fn the_node_reference_finds_the_published_totals() {
    let node = std::process::Command::new("node")
        .arg(repo().join("benches/peers/node-study.mjs"))
        .arg("240")
        .output();
    let Ok(node) = node else {
        assert!(
            std::env::var_os("DRIFTLAB_REQUIRE_LIVE_SERVERS").is_none(),
            "node is missing but CI needs it"
        );
        return skip("node is not installed: the Node reference cannot run");
    };
    assert!(node.status.success(), "{}", stderr(&node));
    assert_eq!(
        stdout(&node).trim(),
        "structural 960/1200; structural+snapshot 1200/1200"
    );
}

#[test]
fn default_study_reproduces_the_published_totals() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_in(dir.path(), &["study"], None);
    assert!(output.status.success(), "{}", stderr(&output));
    let summary = read_json(
        &dir.path()
            .join("results")
            .join(STUDY_ID)
            .join("summary.json"),
    );
    assert_eq!(
        totals(&summary),
        [
            ("structural".into(), 960, 1200),
            ("structural+ordered-snapshot".into(), 1200, 1200)
        ]
    );
    assert_eq!(false_positives(&summary), [0, 0]);
    let reorder = summary["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["gate"] == "structural" && c["mutation"] == "tools-reordered")
        .unwrap();
    assert_eq!(reorder["detected"], 0);
    let table = stdout(&output);
    assert!(
        table.contains("960/1200") && table.contains("1200/1200"),
        "{table}"
    );
    assert!(table.contains("false positives (identity)"));
}

#[test]
fn other_seeds_and_sizes_give_other_rows_and_the_same_totals() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    for (seed, surfaces, tools) in [("1", 100u64, "3"), ("987654321", 37, "5")] {
        let summary = study(
            dir.path(),
            &[
                "--force",
                "--seed",
                seed,
                "--surfaces",
                &surfaces.to_string(),
                "--tools",
                tools,
            ],
            None,
        );
        let n = surfaces * 5;
        assert_eq!(
            totals(&summary),
            [
                ("structural".into(), 4 * n / 5, n),
                ("structural+ordered-snapshot".into(), n, n)
            ]
        );
        assert_eq!(false_positives(&summary), [0, 0]);
        rows.push(fs::read(dir.path().join("out/rows.csv")).unwrap());
    }
    assert_ne!(rows[0], rows[1]);
}

#[test]
fn output_is_identical_across_thread_counts_and_reruns() {
    let dir = tempfile::tempdir().unwrap();
    let mut runs = Vec::new();
    for threads in [1, 2, 2, 7] {
        // More surfaces than one runner chunk, so chunking and ordering are exercised.
        study(dir.path(), &["--surfaces", "2500"], Some(threads));
        let bytes: Vec<Vec<u8>> = DETERMINISTIC_FILES
            .iter()
            .map(|f| fs::read(dir.path().join("out").join(f)).unwrap())
            .collect();
        runs.push(bytes);
    }
    for run in &runs[1..] {
        assert!(
            run == &runs[0],
            "results differ between thread counts or reruns"
        );
    }
}

/// The committed results are what `driftlab study` produces today, byte for byte (the manifest's
/// `code`, the commit that wrote it, is the only part allowed to differ; time, host, duration
/// and threads are in run.json).
#[test]
fn committed_results_are_regenerated_byte_for_byte() {
    regenerate(STUDY_ID, None);
}

#[test]
fn committed_taxonomy_results_are_regenerated_byte_for_byte() {
    regenerate(
        "mcp-drift-taxonomy-2026-11-30",
        Some("research/2026-11-30-mcp-drift-taxonomy/study.toml"),
    );
}

#[test]
fn committed_real_base_taxonomy_results_are_regenerated_byte_for_byte() {
    regenerate(
        "mcp-drift-taxonomy-2026-11-30-real",
        Some("research/2026-11-30-mcp-drift-taxonomy/study-real.toml"),
    );
}

#[test]
fn committed_whole_contract_results_are_regenerated_byte_for_byte() {
    regenerate(
        "mcp-whole-contract-2026-12-03",
        Some("research/2026-12-03-whole-contract/study.toml"),
    );
}

/// Reruns a committed study from the repository root, as its manifest's command says, into a
/// temporary folder, and compares every file.
fn regenerate(study: &str, spec: Option<&str>) {
    let committed = repo().join("results").join(study);
    let mut args = vec!["study", "--quiet"];
    args.extend(spec);
    // Keep the whole value: its temporary folder lives as long as it does.
    let regenerated = assert_regenerates(study, &args);
    assert!(regenerated.names.len() >= DETERMINISTIC_FILES.len());
    let fresh = &regenerated.fresh;
    // The manifest is deterministic but for the code that wrote it (compared apart above); the
    // run's time and host go to run.json, which git ignores.
    assert!(fresh.join("run.json").is_file());
    assert!(!committed.join("run.json").exists() || git_ignores(&committed.join("run.json")));
}

/// Whether git would leave `path` out of `git status` (true when this is no git checkout).
fn git_ignores(path: &Path) -> bool {
    std::process::Command::new("git")
        .arg("check-ignore")
        .arg("-q")
        .arg(path)
        .current_dir(repo())
        .status()
        .map_or(true, |s| s.code() != Some(1))
}

#[test]
fn run_records_are_git_ignored_in_results() {
    let probe = repo().join("results/mcp-contract-drift-2026-08-22/run.json");
    assert!(
        git_ignores(&probe),
        ".gitignore must ignore results/*/run.json"
    );
}

#[test]
fn manifest_hashes_every_other_file() {
    let dir = tempfile::tempdir().unwrap();
    study(dir.path(), &["--surfaces", "10"], None);
    let manifest = read_json(&dir.path().join("out/manifest.json"));
    for name in DETERMINISTIC_FILES {
        let bytes = fs::read(dir.path().join("out").join(name)).unwrap();
        assert_eq!(
            manifest["files"][name].as_str().unwrap(),
            driftlab_contract::text::sha256_hex(&bytes),
            "{name}"
        );
    }
    assert_eq!(manifest["seed"], 20260822);
    assert!(manifest["rng"].as_str().unwrap().contains("ChaCha8"));
    assert_eq!(manifest["command"], "driftlab study --surfaces 10");
    // The code that wrote it is in it; the volatile record is beside it, not in it (and not
    // pinned by it).
    assert_eq!(manifest["code"]["version"], env!("CARGO_PKG_VERSION"));
    for volatile in ["run", "host", "started_at"] {
        assert!(
            manifest.get(volatile).is_none(),
            "{volatile} in manifest.json"
        );
    }
    assert!(manifest["files"].get("run.json").is_none());
    let run = read_json(&dir.path().join("out/run.json"));
    assert!(run["started_at"].as_str().unwrap().ends_with('Z'), "{run}");
}

#[test]
fn rows_have_one_line_per_surface_mutation_and_gate() {
    let dir = tempfile::tempdir().unwrap();
    study(dir.path(), &["--surfaces", "4"], None);
    let text = fs::read_to_string(dir.path().join("out/rows.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "surface,base,mutation,applicable,tool_index,detail,gate,detected,rules_fired,findings,first_pointer"
    );
    assert_eq!(lines.count(), 4 * 6 * 2);
    assert!(text.contains(",synthetic,tools-reordered,true,,order "));
    assert!(text.contains(",structural+ordered-snapshot,true,ordered-snapshot,1,/tools/"));
}

/// The report's Reproduce line runs as printed where the study ran, even where the spec's own
/// folder holds its run (as at a checkout root): an overridden run's default folder is beside
/// it, and the line gives the same rows.
#[test]
fn the_reproduce_line_reproduces_as_printed() {
    let dir = tempfile::tempdir().unwrap();
    let default = run_in(dir.path(), &["study", "--quiet", "--surfaces", "4"], None);
    assert!(default.status.success(), "{}", stderr(&default));
    let committed = fs::read(
        dir.path()
            .join("results/mcp-contract-drift-2026-08-22-surfaces-4/rows.csv"),
    )
    .unwrap();
    let mine = [
        "study",
        "--quiet",
        "--seed",
        "9",
        "--surfaces",
        "4",
        "--out",
        "mine",
    ];
    let output = run_in(dir.path(), &mine, None);
    assert!(output.status.success(), "{}", stderr(&output));
    let rows = fs::read(dir.path().join("mine/rows.csv")).unwrap();
    let report = fs::read_to_string(dir.path().join("mine/report.md")).unwrap();
    let line = report
        .split("## Reproduce\n\n```sh\n")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap();
    assert_eq!(line, "driftlab study --seed 9 --surfaces 4");
    let words: Vec<&str> = line.split(' ').skip(1).collect();
    let again = run_in(dir.path(), &words, None);
    assert!(again.status.success(), "{line}: {}", stderr(&again));
    let default_folder = dir
        .path()
        .join("results/mcp-contract-drift-2026-08-22-seed-9-surfaces-4");
    assert_eq!(fs::read(default_folder.join("rows.csv")).unwrap(), rows);
    assert_eq!(
        fs::read(
            dir.path()
                .join("results/mcp-contract-drift-2026-08-22-surfaces-4/rows.csv")
        )
        .unwrap(),
        committed,
        "the other run's folder is left alone"
    );
}

#[test]
fn refuses_to_overwrite_another_studys_results() {
    let dir = tempfile::tempdir().unwrap();
    study(dir.path(), &["--surfaces", "5"], None);
    let output = run_in(
        dir.path(),
        &["study", "--quiet", "--out", "out", "--surfaces", "6"],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains("holds results of a different study"),
        "{message}"
    );
    assert_eq!(message.lines().count(), 1, "{message}");
    // The same spec may overwrite; --force overwrites anything.
    study(dir.path(), &["--surfaces", "5"], None);
    study(dir.path(), &["--surfaces", "6", "--force"], None);
    fs::write(dir.path().join("other/x.txt"), "").unwrap_or_else(|_| {
        fs::create_dir(dir.path().join("other")).unwrap();
        fs::write(dir.path().join("other/x.txt"), "").unwrap();
    });
    let output = run_in(dir.path(), &["study", "--quiet", "--out", "other"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("not a driftlab results folder"));
}

#[test]
fn malformed_specs_exit_2_with_one_line_naming_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("id = \"x\"\nseed = -1\n", "bad.toml:2:8:"),
        (
            "id = \"x\"\nseed = 1\nsurfaces = 3\nmutations = [\"name-space\"]\n[[gates]]\nid = \"g\"\nrules = [\"nope\"]\n",
            "bad.toml: `gates[0].rules[0]`: unknown rule \"nope\"",
        ),
        ("id = ", "bad.toml:1:"),
    ];
    for (text, expected) in cases {
        fs::write(dir.path().join("bad.toml"), text).unwrap();
        let output = run_in(dir.path(), &["study", "bad.toml"], None);
        assert_eq!(output.status.code(), Some(2));
        let message = stderr(&output);
        assert!(message.contains(expected), "{message:?} lacks {expected:?}");
        assert_eq!(message.trim_end().lines().count(), 1, "{message:?}");
        assert!(!dir.path().join("results").exists());
    }
    let output = run_in(dir.path(), &["study", "missing.toml"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("study spec missing.toml: cannot read"));
}

#[test]
fn generate_writes_surfaces_and_candidates_as_json_lines() {
    let output = run(&["generate", "--seed", "5", "--surfaces", "3"]);
    assert!(output.status.success());
    let lines: Vec<Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[2]["surface"], 2);
    assert_eq!(lines[0]["payload"]["tools"].as_array().unwrap().len(), 3);

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.jsonl");
    let output = run(&[
        "generate",
        "--seed",
        "5",
        "--surfaces",
        "2",
        "--candidates",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert!(output.status.success());
    let lines: Vec<Value> = fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2 * (1 + 6));
    assert_eq!(lines[1]["mutation"], "identity");
    assert_eq!(lines[1]["payload"], lines[0]["payload"]);
    let missing = lines
        .iter()
        .find(|l| l["mutation"] == "input-schema-missing")
        .unwrap();
    let k = missing["tool_index"].as_u64().unwrap() as usize;
    assert!(missing["payload"]["tools"][k].get("inputSchema").is_none());
    // Generated surfaces are the study's surfaces.
    assert_eq!(
        lines[0]["payload"],
        driftlab_mutate::generate::surface(5, 0, 3)
    );
}

/// docs/study.md's table is exactly what `driftlab mutations --format markdown` prints, and the
/// JSON listing has one object per class keyed by the column names.
#[test]
fn the_mutation_listings_match_the_registry() {
    let output = run(&["mutations", "--format", "markdown"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let page = std::fs::read_to_string(crate::common::repo().join("docs/study.md")).unwrap();
    let marker = "<!-- driftlab mutations --markdown -->\n";
    let start = page.find(marker).expect("marker in the page") + marker.len();
    let end = start + page[start..].find("<!-- end -->").expect("end marker");
    assert_eq!(
        &page[start..end],
        stdout(&output),
        "docs/study.md: the mutations table is stale: run scripts/regenerate"
    );
    let output = run(&["mutations", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        json.as_array().unwrap().len(),
        driftlab_mutate::mutate::REGISTRY.len()
    );
    assert!(json[0]["label"].is_string());
    assert_eq!(json[0]["part"], "tools");
    assert_eq!(
        json[0]["mutation"],
        driftlab_mutate::mutate::REGISTRY[0].id()
    );
}

#[test]
fn help_lists_every_command() {
    let output = run(&["--help"]);
    assert!(output.status.success());
    for command in ["study", "generate", "rules", "mutations"] {
        assert!(stdout(&output).contains(command), "{command}");
    }
    let output = run(&["study", "--nope"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn flags_name_themselves_in_errors_and_threads_do_not_change_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for (flags, expected) in [
        (&["--surfaces", "0"][..], "--surfaces 0: must be at least 1"),
        (&["--tools", "0"][..], "--tools 0: must be between 1 and"),
        (&["-j", "0"][..], "--threads 0: give at least 1"),
    ] {
        let mut args = vec!["study", "--quiet"];
        args.extend_from_slice(flags);
        let output = run_in(dir.path(), &args, None);
        assert_eq!(output.status.code(), Some(2), "{flags:?}");
        assert!(stderr(&output).contains(expected), "{}", stderr(&output));
    }
    for (out, threads) in [("one", "1"), ("two", "2")] {
        let output = run_in(
            dir.path(),
            &[
                "study",
                "--quiet",
                "--surfaces",
                "50",
                "-j",
                threads,
                "-o",
                out,
            ],
            None,
        );
        assert!(output.status.success(), "{}", stderr(&output));
    }
    for file in ["rows.csv", "summary.json"] {
        assert_eq!(
            fs::read(dir.path().join("one").join(file)).unwrap(),
            fs::read(dir.path().join("two").join(file)).unwrap()
        );
    }
    let run = read_json(&dir.path().join("one/run.json"));
    assert_eq!(run["threads"], 1);
    // Provenance: which code wrote the folder.
    let code = &run["code"];
    assert_eq!(code["version"], env!("CARGO_PKG_VERSION"));
    let hex = |v: &Value, n: usize| {
        v.as_str()
            .is_some_and(|s| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    assert!(hex(&code["source_sha256"], 64), "{code}");
    assert!(
        code.get("git_commit").is_none() || hex(&code["git_commit"], 40),
        "{code}"
    );
    // `generate` takes its spec as `study` does, positionally; the old flag still works.
    let spec = repo().join("examples/sweep.toml");
    let spec = spec.to_str().unwrap();
    let positional = run_in(dir.path(), &["generate", spec, "--surfaces", "2"], None);
    let flag = run_in(
        dir.path(),
        &["generate", "--spec", spec, "--surfaces", "2"],
        None,
    );
    assert!(positional.status.success(), "{}", stderr(&positional));
    assert_eq!(positional.stdout, flag.stdout);
    // A shard's headline counts its own surfaces, and says which of how many.
    let output = run_in(dir.path(), &["study", "--shard", "2/3", "-o", "s2"], None);
    let text = stdout(&output);
    assert!(text.contains("surfaces 80 to 159 of 0 to 239"), "{text}");
    assert!(
        text.contains(": 80 surfaces (shard 2/3 of 240) x 5 mutation classes = 400"),
        "{text}"
    );
    // A merge with a shard twice names what is missing in shard terms.
    let output = run_in(dir.path(), &["merge", "s2", "s2", "-o", "m"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("got 2/3, 2/3 (missing 1/3, 3/3)"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_live_server_that_cannot_start_is_named_once_and_leaves_no_folder() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("study.toml"),
        "id = \"gone\"\ntitle = \"Gone\"\nseed = 1\nsurfaces = 1\nmutations = [\"tool-removed\"]\n\
         [[live]]\nname = \"gone\"\ncommand = [\"/no/such/server\"]\n\
         [[gates]]\nid = \"structural\"\nrules = [\"structural\"]\n",
    )
    .unwrap();
    let output = run_in(
        dir.path(),
        &["study", "--quiet", "study.toml", "--out", "out"],
        None,
    );
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert_eq!(err.matches("live server gone: ").count(), 1, "{err}");
    assert!(err.contains("/no/such/server"), "{err}");
    assert!(!dir.path().join("out").exists());
}

/// The report's macro recall is the mean of the per-class rates of breaking and dangerous
/// classes, computed here from summary.json; controls are shown as k/n.
#[test]
fn the_metrics_table_gives_macro_recall_and_the_controls() {
    let dir = repo().join("results/mcp-drift-taxonomy-2026-11-30");
    let summary = read_json(&dir.join("summary.json"));
    let report = fs::read_to_string(dir.join("report.md")).unwrap();
    let positive = |class: &str| {
        summary["labels"].as_array().unwrap().iter().any(|l| {
            l["mutation"] == class && (l["label"] == "breaking" || l["label"] == "dangerous")
        })
    };
    for gate in ["structural", "sorted-hash", "required-and-types"] {
        let rates: Vec<f64> = summary["cells"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["gate"] == gate && c["total"].as_u64().unwrap() > 0)
            .filter(|c| positive(c["mutation"].as_str().unwrap()))
            .map(|c| c["detected"].as_f64().unwrap() / c["total"].as_f64().unwrap())
            .collect();
        let expected = rates.iter().sum::<f64>() / rates.len() as f64;
        let row = report
            .lines()
            .find(|l| l.starts_with(&format!("| `{gate}` |")) && l.matches('|').count() == 13)
            .unwrap_or_else(|| panic!("no metrics row for {gate}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(cells[8], format!("{expected:.3}"), "{gate}: {row}");
        assert_eq!(cells[11], "0/240", "{gate}: {row}");
    }
    assert!(report.contains("are not counted as negatives"));
}
