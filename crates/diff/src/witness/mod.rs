//! Witnesses: proof that a schema change breaks someone. For an input schema, a value the
//! approved schema accepts and the candidate's rejects (an old call the server now refuses); for
//! an output schema the mirror, a value the candidate's accepts and the approved one rejects (an
//! answer its consumers now refuse). Both verdicts come from the `jsonschema` crate, so a witness
//! is checkable by anyone with any validator.
//!
//! The search proposes instances of the schema the value must satisfy (`samples.rs`: its enum
//! values, bounds, lengths, union branches, one place varied at a time, then seeded draws) and
//! keeps those the other schema rejects, with where it rejects them. A finding's witness is one
//! rejected at or around the finding's place.

mod construct;
mod leaves;
mod places;
pub mod regex;
mod samples;

use std::collections::HashSet;
use std::sync::Arc;

use jsonschema::error::ValidationErrorKind;
use jsonschema::ValidationError;
use jsonschema::Validator;
use serde_json::Value;

use driftlab_contract::pointer;
use driftlab_contract::rng::Stream;
pub use places::instance_places;
use places::{document_pointer, union_branch};
use samples::Sampler;

/// Why a schema pair cannot be searched for a witness (said in the finding's proof).
#[derive(Debug, thiserror::Error)]
pub enum Unsearchable {
    /// A schema nests too deep to compile safely.
    #[error("the {side} schema nests deeper than {MAX_SCHEMA_DEPTH} levels")]
    TooDeep {
        /// Which schema (`approved` or `candidate`).
        side: String,
    },
    /// A schema does not compile.
    #[error(
        "the {side} schema does not compile ({})",
        driftlab_contract::text::shorten(&source.to_string(), 120)
    )]
    DoesNotCompile {
        /// Which schema (`approved` or `candidate`).
        side: String,
        /// The compiler's error.
        source: driftlab_contract::contract::SchemaError,
    },
}

/// The seed of every witness search (results depend on nothing else).
const SEED: u64 = 20261203;
/// Seeded draws added to the proposed instances.
const DRAWS: u64 = 8;
/// At most this many breaking instances are kept per schema pair.
const MAX_BREAKERS: usize = 64;
/// Schemas nested deeper than this are not compiled (the validator recurses on the stack).
const MAX_SCHEMA_DEPTH: usize = 128;

/// A value valid on one side and invalid on the other, shared by every finding it proves.
#[derive(Debug, PartialEq, Eq)]
pub struct Witness {
    /// The value.
    pub value: Value,
    /// Its compact JSON length, so reports can leave out huge ones without serializing them.
    pub json_len: usize,
}

/// A changed place to build witnesses at: the node's pointer in the accepting schema and in the
/// rejecting one (each relative to its schema's root).
pub struct Target {
    /// The node's pointer in the schema that accepts the witness.
    pub from: String,
    /// The node's pointer in the schema that rejects it.
    pub to: String,
}

/// At most this many constructed instances are tried per schema pair.
const MAX_CONSTRUCTED: usize = 400;

/// One instance the search found breaking, and where the rejecting schema rejects it.
struct Breaker {
    witness: Arc<Witness>,
    /// Instance pointers of the errors (a missing or unexpected property: its own pointer).
    errors: HashSet<String>,
    /// Every error pointer and each of its ancestors.
    near: HashSet<String>,
    /// Where in the rejecting schema (document pointers) it is refused: each failing keyword,
    /// a union's failure by the keywords that failed in its branches.
    keywords: Vec<String>,
}

/// The breaking instances of one schema pair, searched once for all its findings.
pub struct Search {
    breakers: Vec<Breaker>,
    /// How many instances were tried.
    pub tried: usize,
    /// How many of them the accepting side accepts, with `format` asserted and without.
    pub accepted: usize,
}

impl Search {
    /// Searches `from` (the side the value must satisfy) against `to`; `sides` names them in
    /// messages (`("approved", "candidate")`). `foreign` names are tried as unlisted properties
    /// (for outputs: the approved schema's names, so that a dropped property's old type is
    /// checked). `label` keys the seeded draws.
    pub fn run(
        (from, to): (&Value, &Value),
        sides: (&str, &str),
        foreign: &[String],
        targets: &[Target],
        label: &str,
    ) -> Result<Search, Unsearchable> {
        let valid = |schema: &Value, side: &str| -> Result<Validator, Unsearchable> {
            let side = side.to_string();
            if depth(schema) > MAX_SCHEMA_DEPTH {
                return Err(Unsearchable::TooDeep { side });
            }
            // One validator for both sides, whatever their dialects: `format` asserted on both
            // (a draft-07 validator asserts it by default and a 2020-12 one does not, which made
            // a `$schema` change alone look like a break).
            driftlab_contract::contract::validator(schema)
                .map_err(|source| Unsearchable::DoesNotCompile { side, source })
        };
        let (accepting, rejecting) = (valid(from, sides.0)?, valid(to, sides.1)?);
        // A witness the accepting side takes only when `format` is asserted is refused by a
        // validator that reads it as an annotation (a `oneOf` whose branches then both match):
        // the accepting side must take it either way. Without a `format` keyword the two
        // readings are one validator, compiled once.
        let accepting_anyway = match mentions_format(from) {
            true => Some(
                driftlab_contract::contract::annotating_validator(from).map_err(|source| {
                    Unsearchable::DoesNotCompile {
                        side: sides.0.to_string(),
                        source,
                    }
                })?,
            ),
            false => None,
        };
        let mut sampler = Sampler::new(from, foreign);
        let mut candidates = constructed(&mut sampler, (from, to), targets);
        candidates.extend(sampler.candidates());
        let mut rng = Stream::derive_parts(SEED, &["witness:", label], 0);
        for _ in 0..DRAWS {
            candidates.push(sampler.random(&mut rng));
        }
        let mut search = Search {
            breakers: Vec::new(),
            tried: 0,
            accepted: 0,
        };
        let mut seen = HashSet::new();
        for value in candidates {
            if search.breakers.len() == MAX_BREAKERS {
                break;
            }
            search.tried += 1;
            let anyway = |v: &Validator| v.is_valid(&value);
            if !accepting.is_valid(&value) || !accepting_anyway.as_ref().is_none_or(anyway) {
                continue;
            }
            search.accepted += 1;
            if rejecting.is_valid(&value) {
                continue;
            }
            let (errors, keywords) = error_places(&rejecting, to, &value);
            let json = value.to_string();
            if !seen.insert(json.clone()) {
                continue;
            }
            let near = errors
                .iter()
                .flat_map(|e| ancestors(e))
                .map(str::to_string)
                .collect();
            search.breakers.push(Breaker {
                witness: Arc::new(Witness {
                    value,
                    json_len: json.len(),
                }),
                errors,
                near,
                keywords,
            });
        }
        Ok(search)
    }

    /// A breaking value rejected at or around one of the instance pointers `places` (none:
    /// anywhere), preferring one rejected nowhere else, so that it proves this finding alone.
    /// When the finding's schema node (`node`, in the rejecting schema) sits in a branch of an
    /// `anyOf` or `oneOf`, the value must be refused in that branch at the node: a union refuses
    /// a value at its own place whichever branch the value was built for, and a sibling
    /// finding's witness proves nothing here.
    pub fn witness(&self, places: &[String], node: Option<&str>) -> Option<Arc<Witness>> {
        let own_place = |b: &&Breaker| {
            let Some((node, branch)) = node.and_then(|n| Some((n, union_branch(n)?))) else {
                return true;
            };
            b.keywords
                .iter()
                .any(|k| is_within(k, branch) && (is_within(k, node) || is_within(node, k)))
        };
        let near = |e: &str| places.iter().any(|p| is_within(e, p) || is_within(p, e));
        let related = |b: &&Breaker| {
            places.is_empty()
                || places.iter().any(|p| {
                    b.near.contains(p.as_str()) || ancestors(p).any(|a| b.errors.contains(a))
                })
        };
        let only_here = |b: &&Breaker| {
            places.is_empty() || (b.errors.len() <= 16 && b.errors.iter().all(|e| near(e)))
        };
        let mut related = self
            .breakers
            .iter()
            .filter(related)
            .filter(own_place)
            .peekable();
        let first = related.peek().copied();
        related
            .find(only_here)
            .or(first)
            .map(|b| Arc::clone(&b.witness))
    }

    /// How many distinct breaking values were found (at most `MAX_BREAKERS`).
    pub fn breaking(&self) -> usize {
        self.breakers.len()
    }

    /// Any breaking value.
    pub fn any(&self) -> Option<Arc<Witness>> {
        self.breakers.first().map(|b| Arc::clone(&b.witness))
    }
}

/// Instances built at each target from the keywords that changed there (`construct.rs`).
fn constructed(
    sampler: &mut Sampler<'_>,
    (from, to): (&Value, &Value),
    targets: &[Target],
) -> Vec<Value> {
    let mut rejecting = Sampler::new(to, &[]);
    let mut out = Vec::new();
    for target in targets {
        let (Some(from_node), Some(to_node)) = (from.pointer(&target.from), to.pointer(&target.to))
        else {
            continue;
        };
        let mut places = places::instance_places(to, &target.to);
        if places.is_empty() {
            places = places::instance_places(from, &target.from);
        }
        if places.is_empty() {
            continue;
        }
        let values = construct::values(sampler, &mut rejecting, (from_node, to_node), (from, to));
        for place in &places {
            let tokens = pointer::tokens(place);
            for value in &values {
                out.extend(sampler.plant(&tokens, value));
                if out.len() >= MAX_CONSTRUCTED {
                    out.truncate(MAX_CONSTRUCTED);
                    return out;
                }
            }
        }
    }
    out
}

/// Where `validator` (of `schema`) rejects `value`: instance pointers, a missing required
/// property or an unexpected one at its own pointer; and the failing keywords (see
/// [`Breaker::keywords`]).
fn error_places(
    validator: &Validator,
    schema: &Value,
    value: &Value,
) -> (HashSet<String>, Vec<String>) {
    let mut places = HashSet::new();
    let mut keywords = Vec::new();
    for error in validator.iter_errors(value) {
        failing_keywords(schema, &error, &mut keywords);
        let at = error.instance_path().as_str().to_string();
        match error.kind() {
            ValidationErrorKind::Required { property } => {
                places.insert(pointer::push(&at, property.as_str().unwrap_or_default()));
            }
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                places.extend(unexpected.iter().map(|name| pointer::push(&at, name)));
            }
            _ => {
                places.insert(at);
            }
        }
    }
    (places, keywords)
}

/// The keywords an error failed at, as document pointers in `schema`: a failed union by the
/// keywords that failed in its branches, at most [`MAX_KEYWORDS`] in all.
fn failing_keywords(schema: &Value, error: &ValidationError<'_>, out: &mut Vec<String>) {
    if out.len() >= MAX_KEYWORDS {
        return;
    }
    match error.kind() {
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            for branch_error in context.iter().flatten() {
                failing_keywords(schema, branch_error, out);
            }
        }
        _ => out.extend(document_pointer(schema, error.schema_path().as_str())),
    }
}

/// Failing keywords kept per breaking value.
const MAX_KEYWORDS: usize = 64;

/// `pointer` and each pointer above it, up to the root `""`.
fn ancestors(pointer: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(Some(pointer), |p| p.rfind('/').map(|cut| &p[..cut]))
}

/// `inner` is `outer` or below it.
fn is_within(inner: &str, outer: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Whether a schema holds a `format` keyword anywhere, without recursion.
fn mentions_format(schema: &Value) -> bool {
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if map.get("format").is_some_and(Value::is_string) {
                    return true;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}

/// Nesting depth of a JSON value, without recursion.
fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 1)];
    while let Some((value, level)) = stack.pop() {
        deepest = deepest.max(level);
        match value {
            Value::Object(map) => stack.extend(map.values().map(|v| (v, level + 1))),
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, level + 1))),
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests;
