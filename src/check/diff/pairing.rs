//! Pairs the tools of two surfaces: by exact name first, then removed/added pairs that look like
//! the same tool under a new name (a likely rename, with a confidence).

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use super::words::{jaccard, words};
use crate::surface::{Surface, Tool};

/// Minimum similarity for a removed and an added tool to be reported as a rename. Calibrated on
/// every (removed, added) pair of consecutive real releases in the corpus, labelled by hand in
/// tests/data/rename-labels.csv (108 pairs): no non-rename scores above 0.41, the renames found
/// score 0.65 and up, and 0.5 sits in that gap. One real rename (`add` -> `get-sum`, 0.34) scores
/// below a non-rename and stays "removed + added": a wrong rename hint misleads more.
pub const RENAME_THRESHOLD: f64 = 0.5;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    pub old: usize,
    pub new: usize,
    /// `None` for a same-name pair; the similarity for a likely rename.
    pub confidence: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pairing {
    pub pairs: Vec<Pair>,
    /// Approved tool indices with no counterpart.
    pub removed: Vec<usize>,
    /// Candidate tool indices with no counterpart.
    pub added: Vec<usize>,
    /// Candidate tools that repeat the name of a paired tool (which pairs with the last copy).
    pub duplicates: Vec<usize>,
}

pub fn pair(approved: &Surface, candidate: &Surface) -> Pairing {
    // Same-name pairs through a map from name to the candidate's tools, in order: linear in the
    // number of tools. A name listed as often on both sides pairs copy by copy (so an unchanged
    // payload has no change); otherwise the last copies pair, as a client that maps names to
    // tools keeps the last one, and the candidate's other copies are duplicates.
    let mut by_name: HashMap<String, VecDeque<usize>> = HashMap::new();
    for new in candidate.tools() {
        by_name
            .entry(name_key(&new))
            .or_default()
            .push_back(new.index);
    }
    let mut approved_copies: HashMap<String, usize> = HashMap::new();
    for old in approved.tools() {
        *approved_copies.entry(name_key(&old)).or_default() += 1;
    }
    let mut taken = vec![false; candidate.len()];
    let mut duplicates = Vec::new();
    let mut pairs = Vec::new();
    let mut removed = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
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
    let mut scored: Vec<(f64, usize, usize)> = Vec::new();
    for &r in &removed {
        for &a in &added {
            if let (Some(old), Some(new)) = (approved.tool(r), candidate.tool(a)) {
                let score = similarity(&old, &new);
                if score >= RENAME_THRESHOLD {
                    scored.push((score, r, a));
                }
            }
        }
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
    }
}

/// What a tool is known by: its name, or for a tool whose `name` is not a string (or missing) that
/// exact JSON value, so an unchanged malformed tool pairs with itself instead of looking renamed.
fn name_key(tool: &Tool<'_>) -> String {
    match tool.fields.get("name") {
        Some(Value::String(name)) => name.clone(),
        // A NUL cannot start a real name's key here, so the kinds never collide.
        Some(other) => format!("\0json:{other}"),
        None => "\0missing".into(),
    }
}

/// 0.45 × name words + 0.30 × description words + 0.25 × parameter names (Jaccard each).
pub fn similarity(old: &Tool<'_>, new: &Tool<'_>) -> f64 {
    let text = |t: &Tool<'_>, field: &str| {
        t.fields
            .get(field)
            .and_then(Value::as_str)
            .map(words)
            .unwrap_or_default()
    };
    let name = jaccard(&text(old, "name"), &text(new, "name"));
    let description = jaccard(&text(old, "description"), &text(new, "description"));
    let params = |t: &Tool<'_>| {
        t.input_schema()
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    };
    let schema = jaccard(&params(old), &params(new));
    0.45 * name + 0.30 * description + 0.25 * schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload;
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
}
