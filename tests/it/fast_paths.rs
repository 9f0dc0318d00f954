//! The study's hot path takes shortcuts: a reader that borrows the structure instead of
//! building values, candidates spliced from their base's bytes, parsed tools shared between
//! surfaces. Each shortcut must change speed, never an answer: these tests hold each to the
//! general code it stands in for, on real payloads and on every mutation class.

use crate::common;

use std::path::PathBuf;

use common::repo;
use driftlab_contract::payload::{self, Limits};
use driftlab_mutate::mutate::{self, REGISTRY};
use driftlab_study::study::splice::{Base, Workspace};
use serde_json::Value;

/// Every real payload the repository holds: the test corpus and the taxonomy study's bases.
fn real_payloads() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for dir in [
        "tests/data/corpus",
        "research/2026-11-30-mcp-drift-taxonomy/bases",
    ] {
        for entry in std::fs::read_dir(repo().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                let bytes = std::fs::read(&path).unwrap();
                files.push((path, bytes));
            }
        }
    }
    files.sort();
    assert!(files.len() >= 20, "{} payloads", files.len());
    files
}

/// `read`, `read_owned` and the general reader agree: the same surface (tools, fields,
/// locations) or the same error.
fn assert_same_reading(bytes: &[u8], what: &str) {
    let fast = payload::read(bytes, "p", Limits::default());
    let general = payload::read_general(bytes, "p", Limits::default());
    assert_eq!(fast, general, "{what}");
    let owned = payload::read_owned(bytes.to_vec(), "p", Limits::default());
    assert_eq!(owned, general, "{what}: read_owned");
    if let Ok(surface) = fast {
        for tool in surface.tools() {
            let general = general_tool(&general, tool.index);
            for key in [
                "name",
                "inputSchema",
                "outputSchema",
                "description",
                "absent",
            ] {
                assert_eq!(tool.get(key), general.get(key), "{what}: {key}");
            }
        }
    }
}

fn general_tool(
    general: &Result<driftlab_contract::surface::Surface, payload::PayloadError>,
    index: usize,
) -> serde_json::Map<String, Value> {
    general
        .as_ref()
        .unwrap()
        .tool(index)
        .unwrap()
        .fields()
        .clone()
}

#[test]
fn the_fast_reader_reads_every_real_payload_as_the_general_reader_does() {
    let mut fast = 0;
    for (path, bytes) in real_payloads() {
        let what = path.display().to_string();
        assert_same_reading(&bytes, &what);
        let value: Value = serde_json::from_slice(&bytes).unwrap();
        // The same document compact and pretty, and as its bare result object.
        let compact = serde_json::to_vec(&value).unwrap();
        let pretty = serde_json::to_vec_pretty(&value).unwrap();
        assert_same_reading(&compact, &format!("{what} (compact)"));
        assert_same_reading(&pretty, &format!("{what} (pretty)"));
        let result = payload::read(&bytes, "p", Limits::default()).unwrap();
        let bare = serde_json::to_vec(&result.to_value()).unwrap();
        assert_same_reading(&bare, &format!("{what} (result object)"));
        assert!(payload::takes_fast_path(&bare, Limits::default()), "{what}");
        fast += usize::from(payload::takes_fast_path(&bytes, Limits::default()));
    }
    // Only payloads with escapes in keys, repeated keys or deep nesting may take the general
    // reader; the real ones are ordinary.
    assert!(fast >= 20, "only {fast} payloads took the fast path");
}

#[test]
fn what_the_fast_reader_leaves_gets_the_general_readers_answer() {
    let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
    let cases: Vec<(String, bool)> = vec![
        // (payload, whether the fast path reads it)
        (
            r#"{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}"#.into(),
            true,
        ),
        (
            r#" {"tools" : [ {"name" : "a"} , {"name":"b"} ] } "#.into(),
            true,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x"}]}}"#.into(),
            true,
        ),
        (
            r#"[{"tools":[{"name":"p1"}],"nextCursor":"c"},{"tools":[{"name":"p2"}]}]"#.into(),
            true,
        ),
        (
            r#"{"package":"x","toolsList":{"tools":[{"name":"c"}]}}"#.into(),
            true,
        ),
        (r#"[{"name":"x"},{"name":"y"}]"#.into(), true),
        ("[]".into(), true),
        (r#"{"tools":[]}"#.into(), true),
        (
            r#"{"tools":[{"name":"a","inputSchema":{"type":"object","type":"array"}}]}"#.into(),
            true,
        ),
        // A lone surrogate and an out-of-range number: lax scanners accept them, `Value` does not.
        (r#"{"tools":[{"name":"\ud800"}]}"#.into(), false),
        (r#"{"tools":[{"name":"a","x":1e400}]}"#.into(), false),
        // Escaped or repeated keys; an empty tool; nesting deeper than 128.
        (r#"{"tools":[{"n\u0061me":"a"}]}"#.into(), false),
        (r#"{"tools":[{"name":"a","name":"b"}]}"#.into(), false),
        (r#"{"tools":[],"tools":[{"name":"b"}]}"#.into(), false),
        (
            r#"{"tools":[{"name":"a"}],"tool\u0073":[{"name":"b"}]}"#.into(),
            false,
        ),
        (r#"{"tools":[{}]}"#.into(), true),
        (format!(r#"{{"tools":[{{"name":"a","x":{deep}}}]}}"#), false),
        // Errors of every kind.
        (r#"{"tools":{"a":1}}"#.into(), false),
        (r#"{"tools":[{"name":"a"},"b"]}"#.into(), false),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}"#.into(),
            false,
        ),
        (r#"{"tools":[{"name":"a"}]} x"#.into(), false),
        (r#"{"tools": [1,"#.into(), false),
        ("42".into(), false),
        (r#"{"a":1}"#.into(), false),
        ("[[1]]".into(), false),
        (r#"{"tools":[{"name":"get\u005fuser"}]}"#.into(), true),
        // Numbers and strings at the edges of the grammar.
        (
            r#"{"tools":[{"name":"a","x":[-0,0.5,-12.25,18446744073709551616,1e5,1E-2]}]}"#.into(),
            true,
        ),
        (r#"{"tools":[{"name":"a","x":01}]}"#.into(), false),
        (r#"{"tools":[{"name":"a","x":1.}]}"#.into(), false),
        (r#"{"tools":[{"name":"a","x":-}]}"#.into(), false),
        (r#"{"tools":[{"name":"a","x":.5}]}"#.into(), false),
        (
            format!(r#"{{"tools":[{{"name":"a","x":{}}}]}}"#, "9".repeat(400)),
            false,
        ),
        (
            format!(r#"{{"tools":[{{"name":"a","x":{}.5}}]}}"#, "9".repeat(250)),
            true,
        ),
        ("{\"tools\":[{\"name\":\"a\tb\"}]}".into(), false),
        (
            r#"{"tools":[{"name":"\u00e9\n\/","x":"\uD83D\uDE00"}]}"#.into(),
            true,
        ),
        (r#"{"tools":[{"name":"a","x":"\q"}]}"#.into(), false),
        (r#"{"tools":[{"name":"a","x":[tru]}]}"#.into(), false),
        (r#"{"tools":[{"name":"a","x":{"a":1,}}]}"#.into(), false),
        (r#"{"tools":[{"name":"a"},]}"#.into(), false),
        ("{\"tools\":[{\"name\":\"a\"}]}\n\t ".into(), true),
        (
            r#"{"other":{"tools":1},"tools":[{"name":"a"}],"more":[1,{"b":null}]}"#.into(),
            true,
        ),
        ("\u{feff}{\"tools\":[{\"name\":\"a\"}]}".into(), true),
    ];
    // Not UTF-8, with and without a byte-order mark: the same error from every reader.
    assert_same_reading(b"{\"tools\":[{\"name\":\"\xff\"}]}", "not UTF-8");
    assert_same_reading(
        b"\xEF\xBB\xBF{\"tools\":[{\"name\":\"\xc3\"}]}",
        "BOM, not UTF-8",
    );
    for (text, fast) in &cases {
        assert_same_reading(text.as_bytes(), text);
        assert_eq!(
            payload::takes_fast_path(text.as_bytes(), Limits::default()),
            *fast,
            "{text}"
        );
    }
}

/// Bases for the splice test: generated surfaces of several sizes and seeds (some with a whole
/// contract beside the tools), and every real payload as a study reads it (its bare result
/// object).
fn bases() -> Vec<Value> {
    let mut bases: Vec<Value> = real_payloads()
        .iter()
        .map(|(_, bytes)| {
            payload::read(bytes, "b", Limits::default())
                .unwrap()
                .to_value()
        })
        .collect();
    for seed in [1, 20260822, 7] {
        for index in 0..60 {
            let tools = 1 + (index % 6) as usize;
            bases.push(driftlab_mutate::generate::surface(seed, index, tools));
        }
    }
    for index in 0..60 {
        bases.push(driftlab_mutate::generate::surface_with_contract(
            11, index, 3,
        ));
    }
    bases
}

#[test]
fn spliced_candidates_are_the_bytes_of_the_serialized_mutated_surface() {
    let mut out = Vec::new();
    let mut applied = vec![0usize; REGISTRY.len()];
    for (b, base) in bases().iter().enumerate() {
        let spliced = Base::new(base);
        assert_eq!(spliced.bytes(), serde_json::to_vec(base).unwrap());
        let read = payload::read(spliced.bytes(), "b", Limits::default()).unwrap();
        // As the runner makes candidates (editing the bytes where a class can), and on the copy.
        for read in [Some(&read), None] {
            let mut workspace = Workspace::new(&spliced, read);
            for (c, class) in REGISTRY.iter().enumerate() {
                let stream = || mutate::stream(3, *class, b as u64);
                let mut mutated = base.clone();
                let expected = class.apply(&mut mutated, &mut stream());
                let got = workspace.candidate(&spliced, *class, stream, &mut out);
                assert_eq!(got, expected, "{} on base {b}", class.id());
                if got.is_ok() {
                    applied[c] += 1;
                    // A class's bytes are serde_json's, compact or (a formatting class) pretty.
                    let written = class.serialize(&mutated);
                    assert!(
                        written == serde_json::to_vec(&mutated).unwrap()
                            || written == serde_json::to_vec_pretty(&mutated).unwrap(),
                        "{} on base {b}",
                        class.id()
                    );
                    assert_eq!(
                        String::from_utf8_lossy(&out),
                        String::from_utf8_lossy(&class.serialize(&mutated)),
                        "{} on base {b}",
                        class.id()
                    );
                }
                // The copy is the base again, ready for the next class: the same members in
                // the same order (`Value`'s `==` ignores the order of an object's members).
                if let Some(copy) = workspace.copy() {
                    assert_eq!(copy, base, "{} on base {b}", class.id());
                    assert_eq!(serde_json::to_vec(copy).unwrap(), spliced.bytes());
                }
            }
        }
    }
    for (class, n) in REGISTRY.iter().zip(applied) {
        assert!(n >= 100, "{} applied only {n} times", class.id());
    }
}

#[test]
fn a_generated_base_written_from_its_draws_splices_as_its_value_does() {
    let (mut written_out, mut given_out) = (Vec::new(), Vec::new());
    for seed in [1, 20260822, 7] {
        for index in 0..60 {
            let tools = 1 + (index % 6) as usize;
            let value = driftlab_mutate::generate::surface(seed, index, tools);
            let given = Base::new(&value);
            let written = Base::generated(driftlab_mutate::generate::plan(seed, index, tools));
            assert_eq!(written.bytes(), given.bytes(), "{seed} {index}");
            let read = payload::read(written.bytes(), "b", Limits::default()).unwrap();
            for read in [Some(&read), None] {
                let mut from_written = Workspace::new(&written, read);
                let mut from_given = Workspace::new(&given, read);
                for class in REGISTRY {
                    let stream = || mutate::stream(seed, *class, index);
                    assert_eq!(
                        from_written.candidate(&written, *class, stream, &mut written_out),
                        from_given.candidate(&given, *class, stream, &mut given_out),
                        "{} on {seed} {index}",
                        class.id()
                    );
                    assert_eq!(written_out, given_out, "{} on {seed} {index}", class.id());
                }
            }
            // Built on demand, the value is the generator's.
            assert_eq!(written.value(), &value);
        }
    }
}

#[test]
fn a_class_that_edits_bytes_draws_as_it_applies() {
    let mut edits = std::collections::BTreeMap::<&str, usize>::new();
    for (b, base) in bases().iter().enumerate() {
        let bytes = serde_json::to_vec(base).unwrap();
        let read = payload::read(&bytes, "b", Limits::default()).unwrap();
        for class in REGISTRY {
            let (mut by_edit, mut by_apply) = (
                mutate::stream(9, *class, b as u64),
                mutate::stream(9, *class, b as u64),
            );
            let Some((applied, _)) = class.edit(&read, &mut by_edit) else {
                continue;
            };
            *edits.entry(class.id()).or_default() += 1;
            assert_eq!(class.apply(&mut base.clone(), &mut by_apply), Ok(applied));
            // The same draws: both streams are at the same place afterwards.
            assert_eq!(by_edit.next_u64(), by_apply.next_u64(), "{}", class.id());
        }
    }
    // The classes that edit bytes do so on every generated base (180) they apply to.
    let expected = [
        ("description-replaced", 180),
        ("description-reworded", 180),
        ("description-rewritten", 180),
        ("input-schema-array-root", 180),
        ("input-schema-missing", 180),
        ("input-schema-null", 180),
        ("name-randomized", 180),
        ("name-space", 180),
        ("tool-added", 180),
        ("tool-removed", 180),
        ("tool-renamed", 180),
        ("tools-reordered", 150),
    ];
    for (id, at_least) in expected {
        let n = edits.get(id).copied().unwrap_or(0);
        assert!(n >= at_least, "{id} edited only {n} bases");
    }
}

#[test]
fn shared_parsed_tools_answer_as_their_own_would() {
    for (path, bytes) in real_payloads() {
        let approved = payload::read(&bytes, "a", Limits::default()).unwrap();
        let value = approved.to_value();
        // Every candidate of the taxonomy's classes, read with and without sharing.
        for class in REGISTRY {
            let mut mutated = value.clone();
            if class
                .apply(&mut mutated, &mut mutate::stream(5, *class, 0))
                .is_err()
            {
                continue;
            }
            let bytes = class.serialize(&mutated);
            let own = payload::read(&bytes, "c", Limits::default()).unwrap();
            let mut shared = own.clone();
            shared.share_parsed(&approved);
            for (a, b) in own.tools().zip(shared.tools()) {
                assert_eq!(a.fields(), b.fields(), "{} {}", path.display(), class.id());
                assert_eq!(a.raw(), b.raw());
            }
            // The runner's reading, which shares while it scans, beside the original bytes and
            // beside their compact form (where the untouched tools have the same bytes).
            let compact = payload::read(&class.serialize(&value), "a", Limits::default()).unwrap();
            for beside in [&approved, &compact] {
                let read = payload::read_candidate(bytes.clone(), "c", Limits::default(), beside);
                let read = read.unwrap();
                assert_eq!(read, own, "{} {}", path.display(), class.id());
                for (a, b) in own.tools().zip(read.tools()) {
                    assert_eq!(a.fields(), b.fields(), "{} {}", path.display(), class.id());
                    assert_eq!(a.location(), b.location());
                }
                for (i, tool) in read.tools().enumerate() {
                    let same = beside.tool(i).is_some_and(|t| t.raw() == tool.raw());
                    assert_eq!(read.shares_parsed(i, beside, i), same, "{}", class.id());
                }
            }
        }
    }
}

/// Without `--rows all`, a gate stops at its first rule with a finding at its threshold, cheap
/// rules first (`study::evaluate`): the taxonomy's gates, several of whose rules fire on most
/// classes, must decide as when every rule runs. Both specs, three row modes: the same
/// `summary.json`, and `--rows missed` the undetected rows of `--rows all` byte for byte.
#[test]
fn gates_that_stop_at_their_first_firing_rule_decide_as_when_every_rule_runs() {
    let dir = tempfile::tempdir().unwrap();
    for spec in ["study.toml", "study-real.toml"] {
        let spec = repo()
            .join("research/2026-11-30-mcp-drift-taxonomy")
            .join(spec);
        let spec = spec.to_str().unwrap();
        for rows in ["all", "missed", "none"] {
            let args = [
                "study",
                spec,
                "--quiet",
                "--no-figures",
                "--surfaces",
                "48",
                "--rows",
                rows,
                "--out",
                rows,
                "--force",
            ];
            let output = common::run_in(dir.path(), &args, None);
            assert!(output.status.success(), "{}", common::stderr(&output));
        }
        let read = |path: &str| std::fs::read_to_string(dir.path().join(path)).unwrap();
        let summary = read("all/summary.json");
        assert_eq!(read("missed/summary.json"), summary, "{spec}");
        assert_eq!(read("none/summary.json"), summary, "{spec}");
        // The classifier gates detect most classes through one rule and several at once.
        assert!(summary.contains("classifier-fail-on-warning"), "{spec}");
        let records = |path: &str| {
            let mut reader = csv::Reader::from_path(dir.path().join(path)).unwrap();
            let header = reader.headers().unwrap().clone();
            let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
            (header, rows)
        };
        let (header, all) = records("all/rows.csv");
        let column = |name: &str| header.iter().position(|h| h == name).unwrap();
        let (mutation, applicable, detected) =
            (column("mutation"), column("applicable"), column("detected"));
        let missed: Vec<&csv::StringRecord> = all
            .iter()
            .filter(|row| {
                &row[mutation] != "identity"
                    && &row[applicable] == "true"
                    && &row[detected] == "false"
            })
            .collect();
        assert!(missed.len() > 1000, "{spec}: {} missed rows", missed.len());
        let (missed_header, kept) = records("missed/rows.csv");
        assert_eq!(missed_header, header, "{spec}");
        assert!(kept.iter().eq(missed), "{spec}");
    }
}
