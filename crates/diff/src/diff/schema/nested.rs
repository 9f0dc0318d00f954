//! The schemas inside a schema: `properties` (with renames and requiredness) and
//! `additionalProperties` (`items` and `prefixItems`: items.rs).

use serde_json::{Map, Value};

use super::{empty_map, unchanged, At, Direction, Walker};
use crate::diff::pairing::MAX_RENAME_COMPARISONS;
use crate::diff::property_renames::PropertyRenames;
use crate::diff::ChangeKind as K;
use driftlab_contract::lookup::Lookup;
use driftlab_contract::pointer;
use driftlab_contract::surface::required_names;

impl<'a> Walker<'_, 'a, '_> {
    pub(super) fn additional_properties(
        &mut self,
        o: &'a Map<String, Value>,
        n: &'a Map<String, Value>,
        at: &At,
        depth: usize,
    ) {
        let raw = (
            o.field("additionalProperties"),
            n.field("additionalProperties"),
        );
        if raw.0 == raw.1 {
            return;
        }
        let subject = self.subject(at);
        let closed = |v: Option<&Value>| v == Some(&Value::Bool(false));
        // Absent, `true` and `{}` (or a schema of annotations only) accept every value alike.
        let open = |v: Option<&Value>| v.is_none_or(accepts_everything);
        match raw {
            (a, b) if open(a) && !open(b) => self.tightened(
                at,
                "additionalProperties",
                raw,
                format!("{subject}: additionalProperties {} (unlisted properties restricted)", if closed(b) { "set to false" } else { "now constrained" }),
            ),
            (a, b) if !open(a) && open(b) => self.loosened(
                at,
                "additionalProperties",
                raw,
                format!("{subject}: additionalProperties restriction dropped (unlisted properties allowed)"),
            ),
            (a, b) if closed(a) => self.loosened(at, "additionalProperties", raw, format!("{subject}: additionalProperties false replaced by a schema {}", b.map(driftlab_contract::payload::short).unwrap_or_default())),
            (_, b) if closed(b) => self.tightened(at, "additionalProperties", raw, format!("{subject}: additionalProperties set to false")),
            (Some(a), Some(b)) => {
                let child = at.child("additionalProperties", None, format!("{}{{*}}", at.path));
                self.walk(a, b, &child, depth + 1);
            }
            _ => {}
        }
    }

    pub(super) fn properties(
        &mut self,
        o: &'a Map<String, Value>,
        n: &'a Map<String, Value>,
        at: &At,
        depth: usize,
    ) {
        let old_props = o
            .field("properties")
            .and_then(Value::as_object)
            .unwrap_or(empty_map());
        let new_props = n
            .field("properties")
            .and_then(Value::as_object)
            .unwrap_or(empty_map());
        let (old_req, new_req) = (required_names(o), required_names(n));
        let name = |key: &str| {
            if at.path.is_empty() {
                key.to_string()
            } else {
                format!("{}.{key}", at.path)
            }
        };

        for (key, old_schema) in old_props {
            let Some(new_schema) = new_props.field(key) else {
                continue;
            };
            if unchanged(old_schema, new_schema) {
                continue;
            }
            let child = at.child("properties", Some(key), name(key));
            self.walk(old_schema, new_schema, &child, depth + 1);
        }

        // Listed parameters replaced by an open object: every value stays valid, so no removal
        // breaks a call; what callers lose is the documentation.
        let admits_objects = |m: &Map<String, Value>| {
            super::keywords::type_set(m.field("type")).is_some_and(|t| t.contains("object"))
        };
        let open_object = admits_objects(o)
            && admits_objects(n)
            && n.field("additionalProperties")
                .is_none_or(accepts_everything)
            && n.field("patternProperties").is_none()
            && n.field("propertyNames").is_none();
        if self.direction == Direction::Request
            && new_props.is_empty()
            && !old_props.is_empty()
            && open_object
        {
            let mut names: Vec<String> = old_props
                .keys()
                .take(8)
                .map(|k| format!("{:?}", name(k)))
                .collect();
            if old_props.len() > 8 {
                names.push(format!("{} more", old_props.len() - 8));
            }
            let message = format!(
                "{}: its listed parameters ({}) are no longer documented; it now accepts any property (valid calls stay valid)",
                self.subject(at),
                names.join(", ")
            );
            self.push(
                K::ParametersUndocumented,
                at.keyword("properties"),
                o.field("properties"),
                n.field("properties"),
                message,
            );
            for key in old_req.difference(&new_req) {
                self.requiredness(&name(key), false, o, n, at);
            }
            return;
        }
        let removed: Vec<&String> = old_props
            .keys()
            .filter(|k| new_props.field(k).is_none())
            .collect();
        let added: Vec<&String> = new_props
            .keys()
            .filter(|k| old_props.field(k).is_none())
            .collect();
        let mut renames = PropertyRenames::new(&added, new_props);
        for key in removed {
            let rename = renames.best(key, &old_props[key.as_str()]);
            let old_at = pointer::push(&pointer::push(&at.old, "properties"), key);
            match (rename, self.direction) {
                (Some(new_key), Direction::Request) => {
                    let new_key = renames.take(new_key);
                    let new_at = pointer::push(&pointer::push(&at.new, "properties"), new_key);
                    let message = format!(
                        "parameter {:?} was likely renamed to {:?}",
                        name(key),
                        name(new_key)
                    );
                    self.push(
                        K::ParameterRenamed,
                        (old_at, new_at),
                        Some(&Value::from(key.as_str())),
                        Some(&Value::from(new_key.as_str())),
                        message,
                    );
                }
                _ => {
                    let (kind, what) = match self.direction {
                        Direction::Request => (K::ParameterRemoved, "parameter"),
                        Direction::Response => (K::OutputPropertyRemoved, "output property"),
                    };
                    let message = format!("{what} {:?} was removed", name(key));
                    self.diff.push(
                        kind,
                        Some(old_at),
                        None,
                        old_props.field(key.as_str()),
                        None,
                        message,
                    );
                }
            }
        }
        if renames.capped {
            let why = format!(
                "{}: more than {MAX_RENAME_COMPARISONS} property pairs to compare; the rename search stopped and the rest are reported as removed and added",
                self.subject(at)
            );
            self.unjudged(at.keyword("properties"), None, None, why);
        }
        for key in renames.untaken() {
            let new_at = pointer::push(&pointer::push(&at.new, "properties"), key);
            let (kind, message) = match (self.direction, new_req.contains(key.as_str())) {
                (Direction::Request, true) => (
                    K::RequiredParameterAdded,
                    format!("required parameter {:?} was added", name(key)),
                ),
                (Direction::Request, false) => (
                    K::OptionalParameterAdded,
                    format!("optional parameter {:?} was added", name(key)),
                ),
                // A closed approved output: an answer carrying the new property breaks a
                // client that validates answers against its cached approved listing.
                (Direction::Response, _)
                    if o.field("additionalProperties") == Some(&Value::Bool(false)) =>
                {
                    (
                        K::OutputPropertyAddedToClosed,
                        format!(
                        "output property {:?} was added where the approved outputSchema allows no \
                         unlisted property: an answer carrying it is refused by a client that \
                         validates answers against a cached approved listing",
                        name(key)
                    ),
                    )
                }
                (Direction::Response, _) => (
                    K::OutputCompatibleChange,
                    format!("output property {:?} was added", name(key)),
                ),
            };
            self.diff.push(
                kind,
                None,
                Some(new_at),
                None,
                new_props.field(key.as_str()),
                message,
            );
        }
        // A name that entered or left `required`: judged unless its property was itself added or
        // removed (reported above). Names without a property schema on either side count too.
        for key in old_req.symmetric_difference(&new_req) {
            if old_props.field(key).is_some() == new_props.field(key).is_some() {
                self.requiredness(&name(key), new_req.contains(key), o, n, at);
            }
        }
    }

    /// `path` became required (`is`) or optional.
    fn requiredness(
        &mut self,
        path: &str,
        is: bool,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        at: &At,
    ) {
        let (kind, message) = match (self.direction, is) {
            (Direction::Request, true) => (
                K::ParameterBecameRequired,
                format!("parameter {path:?} became required"),
            ),
            (Direction::Request, false) => (
                K::ParameterBecameOptional,
                format!("parameter {path:?} became optional"),
            ),
            (Direction::Response, false) => (
                K::OutputPropertyBecameOptional,
                format!("output property {path:?} is no longer guaranteed (became optional)"),
            ),
            (Direction::Response, true) => (
                K::OutputCompatibleChange,
                format!("output property {path:?} became required"),
            ),
        };
        self.push(
            kind,
            at.keyword("required"),
            o.field("required"),
            n.field("required"),
            message,
        );
    }
}

/// Whether a schema accepts every value: `true`, or an object of annotations only (`{}`,
/// `{"description": …}`).
pub(super) fn accepts_everything(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(m) => m.keys().all(|k| {
            super::ANNOTATIONS.contains(&k.as_str())
                || matches!(k.as_str(), "description" | "default")
        }),
        _ => false,
    }
}
