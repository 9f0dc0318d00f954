//! Pairs the tools of two surfaces: by exact name first, then removed/added pairs that look like
//! the same tool under a new name (a likely rename, with a confidence).

use std::borrow::Cow;
use std::collections::{BTreeSet, VecDeque};

use serde_json::Value;

use super::words::{jaccard, words};
use driftlab_contract::surface::{Surface, Tool};

/// Keyed only, never iterated: the hasher's order cannot reach a result.
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// Minimum similarity for a removed and an added tool to be reported as a rename. Calibrated on
/// every (removed, added) pair of consecutive real releases in the corpus, labelled by hand in
/// tests/data/rename-labels.csv (108 pairs): no non-rename scores above 0.41, the renames found
/// score 0.65 and up, and 0.5 sits in that gap. One real rename (`add` -> `get-sum`, 0.34) scores
/// below a non-rename and stays "removed + added": a wrong rename hint misleads more.
pub const RENAME_THRESHOLD: f64 = 0.5;

/// An approved tool and the candidate tool it became.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    /// The approved tool's index.
    pub old: usize,
    /// The candidate tool's index.
    pub new: usize,
    /// `None` for a same-name pair; the similarity for a likely rename.
    pub confidence: Option<f64>,
}

/// Which approved tool became which candidate tool, and what is left over.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pairing {
    /// The paired tools, in approved order.
    pub pairs: Vec<Pair>,
    /// Approved tool indices with no counterpart.
    pub removed: Vec<usize>,
    /// Candidate tool indices with no counterpart.
    pub added: Vec<usize>,
    /// Candidate tools that repeat the name of a paired tool (which pairs with the last copy).
    pub duplicates: Vec<usize>,
    /// The rename search hit [`MAX_RENAME_COMPARISONS`] and was abandoned: no rename is reported.
    pub capped: bool,
}

/// At most this many (removed, added) pairs are scored for renames: a payload with thousands of
/// removed and added look-alike tools cannot make the gate quadratic.
pub(crate) const MAX_RENAME_COMPARISONS: usize = 1_000_000;

/// Pairs the tools of two surfaces: by name, then removed and added tools by similarity (a
/// likely rename at [`RENAME_THRESHOLD`] and above).
pub fn pair(approved: &Surface, candidate: &Surface) -> Pairing {
    in_place(approved, candidate).unwrap_or_else(|| by_names(approved, candidate))
}

fn by_names(approved: &Surface, candidate: &Surface) -> Pairing {
    // Same-name pairs through a map from name to the candidate's tools, in order: linear in the
    // number of tools. A name listed as often on both sides pairs copy by copy (so an unchanged
    // payload has no change); otherwise the last copies pair, as a client that maps names to
    // tools keeps the last one, and the candidate's other copies are duplicates.
    let mut by_name: HashMap<Cow<'_, str>, VecDeque<usize>> = HashMap::default();
    for new in candidate.tools() {
        by_name
            .entry(name_key(&new))
            .or_default()
            .push_back(new.index);
    }
    let mut approved_copies: HashMap<Cow<'_, str>, usize> = HashMap::default();
    for old in approved.tools() {
        *approved_copies.entry(name_key(&old)).or_default() += 1;
    }
    let mut taken = vec![false; candidate.len()];
    let mut duplicates = Vec::new();
    let mut pairs = Vec::new();
    let mut removed = Vec::new();
    let mut seen: HashMap<Cow<'_, str>, usize> = HashMap::default();
    for old in approved.tools() {
        let key = name_key(&old);
        let copies = approved_copies[&key];
        let nth = {
            let n = seen.entry(key.clone()).or_default();
            *n += 1;
            *n
        };
        let Some(news) = by_name.get_mut(&key).filter(|q| !q.is_empty()) else {
            removed.push(old.index);
            continue;
        };
        let new = if news.len() == copies - nth + 1 {
            news.pop_front()
        } else if nth == copies {
            // The last approved copy pairs with the last candidate copy; the rest duplicate it.
            let last = news.pop_back();
            for &extra in news.iter() {
                taken[extra] = true;
                duplicates.push(extra);
            }
            news.clear();
            last
        } else {
            // An earlier copy of a name the candidate lists fewer times: not a removal.
            continue;
        };
        if let Some(new) = new {
            taken[new] = true;
            pairs.push(Pair {
                old: old.index,
                new,
                confidence: None,
            });
        }
    }
    duplicates.sort_unstable();
    let added: Vec<usize> = (0..candidate.len()).filter(|&i| !taken[i]).collect();

    // Likely renames: greedy on similarity, highest first; ties by approved then candidate index.
    let (mut scored, capped) = rename_candidates(approved, candidate, &removed, &added);
    if capped {
        scored.clear();
    }
    scored.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    let mut renamed_old = Vec::new();
    let mut renamed_new = Vec::new();
    for (score, r, a) in scored {
        if renamed_old.contains(&r) || renamed_new.contains(&a) {
            continue;
        }
        renamed_old.push(r);
        renamed_new.push(a);
        pairs.push(Pair {
            old: r,
            new: a,
            confidence: Some(score),
        });
    }
    pairs.sort_by_key(|p| p.old);
    Pairing {
        pairs,
        removed: removed
            .into_iter()
            .filter(|r| !renamed_old.contains(r))
            .collect(),
        added: added
            .into_iter()
            .filter(|a| !renamed_new.contains(a))
            .collect(),
        duplicates,
        capped,
    }
}

/// The pairing of two surfaces that list the same names in the same order (most releases): each
/// tool with the one at its place, as the maps below would pair them, without building them.
fn in_place(approved: &Surface, candidate: &Surface) -> Option<Pairing> {
    let same_names = approved.len() == candidate.len()
        && approved.tools().zip(candidate.tools()).all(|(old, new)| {
            // Equal texts are equal values: parse names only when their texts differ.
            old.raw() == new.raw()
                || old.raw_field("name") == new.raw_field("name")
                || old.get("name") == new.get("name")
        });
    same_names.then(|| Pairing {
        pairs: (0..approved.len())
            .map(|i| Pair {
                old: i,
                new: i,
                confidence: None,
            })
            .collect(),
        ..Pairing::default()
    })
}

/// What a tool is known by: its name (borrowed), or for a tool whose `name` is not a string (or
/// missing) that exact JSON value, so an unchanged malformed tool pairs with itself instead of
/// looking renamed.
fn name_key<'a>(tool: &Tool<'a>) -> Cow<'a, str> {
    if let Some(name) = tool.name_str() {
        return Cow::Borrowed(name);
    }
    // Not a string (those `name_str` gave). A NUL cannot start a real name's key here, so the
    // kinds never collide.
    match tool.get("name") {
        Some(other) => Cow::Owned(format!("\0json:{other}")),
        None => Cow::Borrowed("\0missing"),
    }
}

/// What the rename score looks at, computed once per tool (borrowed from it where it can be).
struct Features<'t> {
    name: BTreeSet<Cow<'t, str>>,
    description: BTreeSet<Cow<'t, str>>,
    params: BTreeSet<&'t str>,
}

impl<'t> Features<'t> {
    fn of(t: &Tool<'t>) -> Features<'t> {
        let text = |field: &str| {
            t.get(field)
                .and_then(Value::as_str)
                .map(words)
                .unwrap_or_default()
        };
        Features {
            name: text("name"),
            description: text("description"),
            params: t
                .input_schema()
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object)
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default(),
        }
    }

    /// Keys two tools must share to reach the threshold: with no shared name word and no shared
    /// parameter the score is at most 0.30 (the description), unless both have no parameters
    /// (two empty sets count as equal), hence the extra key for "no parameters".
    fn keys(&self) -> impl Iterator<Item = String> + '_ {
        let none = self.params.is_empty().then(|| "\0no-params".to_string());
        self.name
            .iter()
            .map(|w| format!("n:{w}"))
            .chain(self.params.iter().map(|p| format!("p:{p}")))
            .chain(none)
    }

    fn score(&self, other: &Features<'_>) -> f64 {
        0.45 * jaccard(&self.name, &other.name)
            + 0.30 * jaccard(&self.description, &other.description)
            + 0.25 * jaccard(&self.params, &other.params)
    }
}

/// 0.45 × name words + 0.30 × description words + 0.25 × parameter names (Jaccard each).
pub fn similarity(old: &Tool<'_>, new: &Tool<'_>) -> f64 {
    Features::of(old).score(&Features::of(new))
}

/// Every (removed, added) pair at or above the threshold, scoring only pairs that share a key
/// (which loses none); `true` when the pairs to score exceed [`MAX_RENAME_COMPARISONS`].
fn rename_candidates(
    approved: &Surface,
    candidate: &Surface,
    removed: &[usize],
    added: &[usize],
) -> (Vec<(f64, usize, usize)>, bool) {
    if removed.is_empty() || added.is_empty() {
        // No pair to score (a tool only added or only removed): no features to compute.
        return (Vec::new(), false);
    }
    let added_features: Vec<(usize, Features)> = added
        .iter()
        .filter_map(|&a| Some((a, Features::of(&candidate.tool(a)?))))
        .collect();
    let mut index: HashMap<String, Vec<usize>> = HashMap::default();
    for (i, (_, f)) in added_features.iter().enumerate() {
        for key in f.keys() {
            index.entry(key).or_default().push(i);
        }
    }
    let mut scored = Vec::new();
    let mut compared = 0usize;
    // Which added tools this removed tool was already scored against (stamp = its position + 1).
    let mut seen = vec![0usize; added_features.len()];
    for (stamp, &r) in removed.iter().enumerate() {
        let Some(old) = approved.tool(r) else {
            continue;
        };
        let old = Features::of(&old);
        for key in old.keys() {
            for &i in index.get(&key).map(Vec::as_slice).unwrap_or_default() {
                if seen[i] == stamp + 1 {
                    continue;
                }
                seen[i] = stamp + 1;
                compared += 1;
                if compared > MAX_RENAME_COMPARISONS {
                    return (scored, true);
                }
                let (a, new) = &added_features[i];
                let score = old.score(new);
                if score >= RENAME_THRESHOLD {
                    scored.push((score, r, *a));
                }
            }
        }
    }
    (scored, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlab_contract::payload;
    use serde_json::json;

    fn surface(v: Value) -> Surface {
        payload::from_value(v, "t").unwrap()
    }

    #[test]
    fn same_names_pair_and_a_style_change_is_a_rename() {
        let a = surface(json!([
            {"name": "echo", "description": "Echo"},
            {"name": "getTinyImage", "description": "Returns the tiny image", "inputSchema": {"type": "object"}},
            {"name": "sampleLLM", "description": "Samples from an LLM", "inputSchema": {"type": "object", "properties": {"prompt": {}}}}
        ]));
        let b = surface(json!([
            {"name": "get-tiny-image", "description": "Returns a tiny image", "inputSchema": {"type": "object"}},
            {"name": "echo", "description": "Echo"},
            {"name": "toggle-logging", "description": "Turns logging on or off", "inputSchema": {"type": "object", "properties": {"level": {}}}}
        ]));
        let p = pair(&a, &b);
        assert_eq!(
            p.pairs[0],
            Pair {
                old: 0,
                new: 1,
                confidence: None
            }
        );
        assert_eq!((p.pairs[1].old, p.pairs[1].new), (1, 0));
        assert!(p.pairs[1].confidence.unwrap() > 0.8);
        assert_eq!(p.removed, [2]);
        assert_eq!(p.added, [2]);
    }

    #[test]
    fn a_new_duplicate_pairs_the_last_copy_and_is_reported() {
        let a = surface(json!([{"name": "x"}, {"name": "y"}]));
        let b = surface(json!([{"name": "x"}, {"name": "y"}, {"name": "x"}]));
        let p = pair(&a, &b);
        assert_eq!(
            p.pairs.iter().map(|p| (p.old, p.new)).collect::<Vec<_>>(),
            [(0, 2), (1, 1)]
        );
        assert_eq!(
            (p.duplicates, p.added, p.removed),
            (vec![0], vec![], vec![])
        );
        // The same duplicates on both sides pair copy by copy; a fixed duplicate is no removal.
        let p = pair(&b, &b);
        assert!(p.pairs.iter().all(|x| x.old == x.new) && p.duplicates.is_empty());
        let p = pair(&b, &a);
        assert_eq!(
            p.pairs.iter().map(|p| (p.old, p.new)).collect::<Vec<_>>(),
            [(1, 1), (2, 0)]
        );
        assert!(p.removed.is_empty() && p.added.is_empty());
    }

    #[test]
    fn the_rename_search_scores_only_pairs_that_could_reach_the_threshold_and_is_capped() {
        // Blocking loses nothing: the pairs it skips score below the threshold by construction,
        // and brute force agrees on a mixed surface.
        let a = surface(json!([
            {"name": "fetch_page", "inputSchema": {"type": "object", "properties": {"url": {}}}},
            {"name": "alpha"},
            {"name": "list_files", "description": "List files", "inputSchema": {"type": "object", "properties": {"dir": {}}}}
        ]));
        let b = surface(json!([
            {"name": "fetch-web-page", "inputSchema": {"type": "object", "properties": {"url": {}}}},
            {"name": "omega"},
            {"name": "read_notes", "description": "List files", "inputSchema": {"type": "object", "properties": {"folder": {}}}}
        ]));
        let (scored, capped) = rename_candidates(&a, &b, &[0, 1, 2], &[0, 1, 2]);
        let mut brute = Vec::new();
        for r in 0..3 {
            for n in 0..3 {
                let s = similarity(&a.tool(r).unwrap(), &b.tool(n).unwrap());
                if s >= RENAME_THRESHOLD {
                    brute.push((s, r, n));
                }
            }
        }
        assert!(!capped);
        assert_eq!(scored, brute);
        // Thousands of look-alike tools: the search stops after a bounded number of scores.
        let many = |prefix: &str| {
            let tools: Vec<Value> = (0..1200)
                .map(|i| json!({"name": format!("{prefix}_tool_{i}"), "description": "a tool"}))
                .collect();
            surface(Value::Array(tools))
        };
        let p = pair(&many("old"), &many("new"));
        assert!(p.capped && p.pairs.is_empty());
        assert_eq!((p.removed.len(), p.added.len()), (1200, 1200));
    }

    #[test]
    fn tools_without_a_string_name_pair_with_their_unchanged_selves() {
        let tools =
            json!([{"name": 42}, {"description": "nameless"}, {"name": null}, {"name": "ok"}]);
        let p = pair(&surface(tools.clone()), &surface(tools));
        assert!(p.removed.is_empty() && p.added.is_empty(), "{p:?}");
        assert!(p
            .pairs
            .iter()
            .all(|x| x.old == x.new && x.confidence.is_none()));
        // A number name and the same digits as a string are different names.
        let p = pair(
            &surface(json!([{"name": 42}])),
            &surface(json!([{"name": "42"}])),
        );
        assert!(p.pairs.iter().all(|x| x.confidence.is_some()), "{p:?}");
    }

    #[test]
    fn names_in_the_same_order_pair_in_place_as_the_name_maps_would() {
        let old = json!([
            {"name": "a", "description": "x"}, {"name": "a"}, {"name": 42},
            {"description": "nameless"}, {"name": "b", "inputSchema": {"type": "object"}}
        ]);
        let new = json!([
            {"name": "a"}, {"name": "a", "description": "y"}, {"name": 42, "title": "t"},
            {"description": "other"}, {"name": "b", "inputSchema": {"type": "array"}}
        ]);
        let (old, new) = (surface(old), surface(new));
        let fast = in_place(&old, &new).expect("same names in the same order");
        assert_eq!(fast, by_names(&old, &new));
        assert_eq!(fast.pairs.len(), 5);
        // Another order, count or name is left to the maps.
        let swapped = surface(json!([{"name": "b"}, {"name": "a"}]));
        let one = surface(json!([{"name": "a"}]));
        assert_eq!(
            in_place(&swapped, &surface(json!([{"name": "a"}, {"name": "b"}]))),
            None
        );
        assert_eq!(in_place(&one, &swapped), None);
    }
}
