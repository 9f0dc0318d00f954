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
pub mod regex;
mod samples;

use std::collections::HashSet;
use std::sync::Arc;

use jsonschema::error::ValidationErrorKind;
use jsonschema::Validator;
use serde_json::Value;

use crate::pointer;
use crate::rng::Stream;
use samples::Sampler;

/// Why a schema pair cannot be searched for a witness (said in the finding's proof).
#[derive(Debug, thiserror::Error)]
pub enum Unsearchable {
    #[error("the {side} schema nests deeper than {MAX_SCHEMA_DEPTH} levels")]
    TooDeep { side: String },
    #[error(
        "the {side} schema does not compile ({})",
        crate::text::shorten(&source.to_string(), 120)
    )]
    DoesNotCompile {
        side: String,
        source: crate::contract::SchemaError,
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
    pub value: Value,
    /// Its compact JSON length, so reports can leave out huge ones without serializing them.
    pub json_len: usize,
}

/// A changed place to build witnesses at: the node's pointer in the accepting schema and in the
/// rejecting one (each relative to its schema's root).
pub struct Target {
    pub from: String,
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
}

/// The breaking instances of one schema pair, searched once for all its findings.
pub struct Search {
    breakers: Vec<Breaker>,
    /// How many instances were tried.
    pub tried: usize,
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
            crate::contract::validator(schema)
                .map_err(|source| Unsearchable::DoesNotCompile { side, source })
        };
        let (accepting, rejecting) = (valid(from, sides.0)?, valid(to, sides.1)?);
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
        };
        let mut seen = HashSet::new();
        for value in candidates {
            if search.breakers.len() == MAX_BREAKERS {
                break;
            }
            search.tried += 1;
            if !accepting.is_valid(&value) || rejecting.is_valid(&value) {
                continue;
            }
            let errors = error_places(&rejecting, &value);
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
            });
        }
        Ok(search)
    }

    /// A breaking value rejected at or around one of the instance pointers `places` (none:
    /// anywhere), preferring one rejected nowhere else, so that it proves this finding alone.
    pub fn witness(&self, places: &[String]) -> Option<Arc<Witness>> {
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
        let mut related = self.breakers.iter().filter(related).peekable();
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
        let Some(place) = instance_place(&target.to).or_else(|| instance_place(&target.from))
        else {
            continue;
        };
        let tokens = pointer::tokens(&place);
        let values = construct::values(sampler, &mut rejecting, (from_node, to_node), (from, to));
        for value in values {
            out.extend(sampler.plant(&tokens, &value));
            if out.len() >= MAX_CONSTRUCTED {
                out.truncate(MAX_CONSTRUCTED);
                return out;
            }
        }
    }
    out
}

/// Where `validator` rejects `value`: instance pointers, a missing required property or an
/// unexpected one at its own pointer.
fn error_places(validator: &Validator, value: &Value) -> HashSet<String> {
    let mut places = HashSet::new();
    for error in validator.iter_errors(value) {
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
    places
}

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

/// The instance pointer a schema pointer (relative to the schema's root) constrains: through
/// `properties`, `items`, `prefixItems`, `additionalProperties` and union branches; `None` for
/// a place in `$defs` (reached from wherever it is referenced).
pub fn instance_place(schema_pointer: &str) -> Option<String> {
    let tokens = pointer::tokens(schema_pointer);
    let mut place = String::new();
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "properties" | "prefixItems" if i + 1 < tokens.len() => {
                place = pointer::push(&place, &tokens[i + 1]);
                i += 2;
            }
            "items" => {
                let tuple = tokens
                    .get(i + 1)
                    .is_some_and(|t| t.parse::<usize>().is_ok());
                place = pointer::push(&place, if tuple { &tokens[i + 1] } else { "0" });
                i += if tuple { 2 } else { 1 };
            }
            "additionalProperties" => {
                place = pointer::push(&place, samples::EXTRA_PROPERTY);
                i += 1;
            }
            "anyOf" | "oneOf" | "allOf" => i += 2,
            "$defs" | "definitions" => return None,
            _ => break,
        }
    }
    Some(place)
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
