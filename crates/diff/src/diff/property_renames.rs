//! The rename search among a schema's removed and added properties: a removed property pairs
//! with the added one of the same shape that shares a name word or its description, the one
//! with the most name words in common. Only pairs that share a word or a description are ever
//! compared (found through an index), and at most [`MAX_RENAME_COMPARISONS`] of them.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Value};

use super::pairing::MAX_RENAME_COMPARISONS;
use super::words::{jaccard, words};
use driftlab_contract::lookup::Lookup;

/// The added properties of one schema, indexed for the rename search.
pub(crate) struct PropertyRenames<'a> {
    added: Vec<&'a String>,
    props: &'a Map<String, Value>,
    /// Built on the first search: a schema with no removed property never needs it.
    index: Option<Index<'a>>,
    taken: Vec<bool>,
    compared: usize,
    /// The search stopped at [`MAX_RENAME_COMPARISONS`]; later removed properties get no rename.
    pub capped: bool,
}

/// Each added property's schema and name words, and its positions by `w:<name word>` and
/// `d:<description>`.
struct Index<'a> {
    schemas: Vec<&'a Value>,
    words: Vec<BTreeSet<Cow<'a, str>>>,
    by_key: HashMap<String, Vec<usize>>,
}

impl<'a> Index<'a> {
    fn new(added: &[&'a String], props: &'a Map<String, Value>) -> Index<'a> {
        let schemas: Vec<&Value> = added.iter().map(|k| &props[k.as_str()]).collect();
        let words: Vec<BTreeSet<Cow<'a, str>>> = added.iter().map(|k| words(k)).collect();
        let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, (w, schema)) in words.iter().zip(&schemas).enumerate() {
            for key in keys(w, schema) {
                by_key.entry(key).or_default().push(i);
            }
        }
        Index {
            schemas,
            words,
            by_key,
        }
    }
}

impl<'a> PropertyRenames<'a> {
    pub fn new(added: &[&'a String], props: &'a Map<String, Value>) -> PropertyRenames<'a> {
        PropertyRenames {
            added: added.to_vec(),
            props,
            index: None,
            taken: vec![false; added.len()],
            compared: 0,
            capped: false,
        }
    }

    /// The untaken added property that `removed` (with schema `old`) was most likely renamed
    /// to: same shape, and related (a shared name word or description); among several, the most
    /// name words in common, the last in schema order on a tie.
    pub(crate) fn best(&mut self, removed: &str, old: &Value) -> Option<usize> {
        if self.capped {
            return None;
        }
        let (added, props) = (&self.added, self.props);
        let index = self.index.get_or_insert_with(|| Index::new(added, props));
        let old_words = words(removed);
        let mut candidates: Vec<usize> = keys(&old_words, old)
            .filter_map(|key| index.by_key.get(&key))
            .flatten()
            .copied()
            .filter(|&i| !self.taken[i])
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        self.compared += candidates.len();
        if self.compared > MAX_RENAME_COMPARISONS {
            self.capped = true;
            return None;
        }
        let mut best: Option<(f64, usize)> = None;
        for i in candidates {
            let new = index.schemas[i];
            if !same_shape(old, new) || !related(&old_words, &index.words[i], old, new) {
                continue;
            }
            let score = jaccard(&old_words, &index.words[i]);
            if best.is_none_or(|(top, _)| score >= top) {
                best = Some((score, i));
            }
        }
        best.map(|(_, i)| i)
    }

    /// Marks added property `i` as paired and returns its name.
    pub fn take(&mut self, i: usize) -> &'a String {
        self.taken[i] = true;
        self.added[i]
    }

    /// The added properties not paired with a removed one, in schema order.
    pub(crate) fn untaken(&self) -> impl Iterator<Item = &'a String> + '_ {
        self.added
            .iter()
            .zip(&self.taken)
            .filter(|(_, taken)| !**taken)
            .map(|(a, _)| *a)
    }
}

/// The index keys under which a property can meet its rename: its name words and description
/// (and "no words": two names without words count as sharing them, see `jaccard`).
fn keys<'k>(
    words: &'k BTreeSet<Cow<'_, str>>,
    schema: &'k Value,
) -> impl Iterator<Item = String> + 'k {
    let none = words.is_empty().then(|| "\0no-words".to_string());
    words
        .iter()
        .map(|w| format!("w:{w}"))
        .chain(none)
        .chain(description(schema).map(|d| format!("d:{d}")))
}

fn description(v: &Value) -> Option<&str> {
    v.field("description")
        .and_then(Value::as_str)
        .filter(|d| !d.is_empty())
}

/// A shared word in the names, or the same non-empty description.
fn related(
    old_words: &BTreeSet<Cow<'_, str>>,
    new_words: &BTreeSet<Cow<'_, str>>,
    old: &Value,
    new: &Value,
) -> bool {
    jaccard(old_words, new_words) > 0.0
        || description(old).is_some_and(|d| description(new) == Some(d))
}

/// Same type, enum and format: a removed and an added property that could be one renamed.
fn same_shape(a: &Value, b: &Value) -> bool {
    ["type", "enum", "format", "items", "$ref"]
        .iter()
        .all(|k| a.field(k) == b.field(k))
}

/// Values for a message: the first ten, then how many more (a 100k-value enum must not make a
/// 100k-value message).
pub(crate) fn list_values(values: &[&Value]) -> String {
    const SHOWN: usize = 10;
    let mut text = values
        .iter()
        .take(SHOWN)
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if values.len() > SHOWN {
        text.push_str(&format!(" and {} more", values.len() - SHOWN));
    }
    text
}
