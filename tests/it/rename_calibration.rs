//! Calibration of the tool-rename confidence on every real version pair in the corpus: every
//! (removed tool, added tool) pair is labelled by hand in tests/data/rename-labels.csv, and the
//! threshold must separate the renames from the rest.

use std::collections::BTreeMap;
use std::path::PathBuf;

use driftlab_contract::payload::{self, Limits};
use driftlab_contract::surface::Surface;
use driftlab_diff::diff::{pair, similarity, RENAME_THRESHOLD};

/// Consecutive releases of the same server in tests/data/corpus (the pinned-zod builds, where a
/// release has one, since the plain install's schemas are broken).
const VERSION_PAIRS: &[(&str, &str)] = &[
    (
        "@modelcontextprotocol__server-everything@2025.1.14",
        "@modelcontextprotocol__server-everything@2025.9.25",
    ),
    (
        "@modelcontextprotocol__server-everything@2025.9.25",
        "@modelcontextprotocol__server-everything@2026.8.31",
    ),
    (
        "@modelcontextprotocol__server-filesystem@2025.1.14+pinned-zod",
        "@modelcontextprotocol__server-filesystem@2025.8.21+pinned-zod",
    ),
    (
        "@modelcontextprotocol__server-filesystem@2025.8.21+pinned-zod",
        "@modelcontextprotocol__server-filesystem@2026.8.31",
    ),
    (
        "@modelcontextprotocol__server-memory@0.6.2",
        "@modelcontextprotocol__server-memory@2026.8.31",
    ),
    ("mcp-server-fetch@2025.4.7", "mcp-server-fetch@2026.10.24"),
    ("mcp-server-time@2025.7.1", "mcp-server-time@2026.10.19"),
];

fn surface(stem: &str) -> Surface {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/corpus/{stem}.json"));
    payload::read(&std::fs::read(&path).unwrap(), stem, Limits::default()).unwrap()
}

/// (old tool, new tool) → score, for every removed × added pair of every version pair.
fn scored() -> BTreeMap<(String, String), f64> {
    let mut out = BTreeMap::new();
    for (old, new) in VERSION_PAIRS {
        let (a, b) = (surface(old), surface(new));
        let names = |s: &Surface| -> Vec<String> {
            s.tools()
                .map(|t| t.name_str().unwrap().to_string())
                .collect()
        };
        let (old_names, new_names) = (names(&a), names(&b));
        for o in a
            .tools()
            .filter(|t| !new_names.contains(&t.name_str().unwrap().to_string()))
        {
            for n in b
                .tools()
                .filter(|t| !old_names.contains(&t.name_str().unwrap().to_string()))
            {
                let key = (
                    o.name_str().unwrap().to_string(),
                    n.name_str().unwrap().to_string(),
                );
                out.insert(key, similarity(&o, &n));
            }
        }
    }
    out
}

fn labels() -> BTreeMap<(String, String), bool> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/rename-labels.csv");
    let text = std::fs::read_to_string(path).unwrap();
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    let mut reader = csv::Reader::from_reader(body.as_bytes());
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            ((r[0].to_string(), r[1].to_string()), &r[2] == "rename")
        })
        .collect()
}

#[test]
fn the_rename_threshold_separates_labelled_renames_from_the_rest() {
    let (scores, labels) = (scored(), labels());
    assert_eq!(
        scores.keys().collect::<Vec<_>>(),
        labels.keys().collect::<Vec<_>>(),
        "every removed × added pair is labelled, and only those"
    );
    let best_wrong = scores
        .iter()
        .filter(|(k, _)| !labels[*k])
        .map(|(_, s)| *s)
        .fold(0.0, f64::max);
    let found: Vec<f64> = scores
        .iter()
        .filter(|(k, s)| labels[*k] && **s >= RENAME_THRESHOLD)
        .map(|(_, s)| *s)
        .collect();
    let renames = labels.values().filter(|l| **l).count();
    // No pair that is not a rename reaches the threshold (a wrong rename hint misleads a model
    // more than "removed + added"), and the threshold sits in the gap below the renames found.
    assert!(best_wrong < RENAME_THRESHOLD, "{best_wrong}");
    let weakest = found.iter().copied().fold(1.0, f64::min);
    assert!(RENAME_THRESHOLD <= weakest);
    println!(
        "renames found {}/{renames}; highest non-rename {best_wrong:.3}; weakest rename found {weakest:.3}",
        found.len()
    );
    assert_eq!(
        (found.len(), renames),
        (7, 8),
        "add -> get-sum scores below a non-rename"
    );
    // Every version pair's tools still pair as diff reports them.
    for (old, new) in VERSION_PAIRS {
        let p = pair(&surface(old), &surface(new));
        for x in p.pairs.iter().filter(|x| x.confidence.is_some()) {
            assert!(x.confidence.unwrap() >= RENAME_THRESHOLD);
        }
    }
}
