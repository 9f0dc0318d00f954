//! What a declared contract accepts: a JSON Schema validator built one way everywhere, a tool's
//! contract compiled once, and the values single schema leaves accept or refuse.

mod pinned;
mod ref_depth;
pub mod values;

use serde_json::Value;

pub use pinned::Contract;
pub use ref_depth::{ref_depth, MAX_REF_DEPTH};

/// A validator for `schema`: its `$schema` dialect (2020-12 when absent), format assertions on,
/// local `$ref`s only (the crate is built without network or file resolution). A schema whose
/// `$ref`s nest deeper than [`MAX_REF_DEPTH`] is refused: the compiler would overflow the stack.
pub fn validator(schema: &Value) -> Result<jsonschema::Validator, SchemaError> {
    built(schema, true)
}

/// [`validator`] with `format` as an annotation only, as the JSON Schema drafts since 2019-09
/// have it by default and as most validators ship (Python's `jsonschema`, Ajv without
/// `ajv-formats`): a value both readings accept is accepted by any validator.
pub fn annotating_validator(schema: &Value) -> Result<jsonschema::Validator, SchemaError> {
    built(schema, false)
}

fn built(schema: &Value, formats: bool) -> Result<jsonschema::Validator, SchemaError> {
    let links = ref_depth(schema, MAX_REF_DEPTH);
    if links > MAX_REF_DEPTH {
        return Err(SchemaError::RefChain { links });
    }
    jsonschema::options()
        .should_validate_formats(formats)
        .build(schema)
        .map_err(SchemaError::Invalid)
}

/// A schema no validator is built from; its text is the compiler's, cut to one short line
/// (it is quoted in findings and reports).
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// The schema breaks its meta-schema, or does not compile.
    #[error("{}", crate::text::shorten(&.0.to_string(), 200))]
    Invalid(jsonschema::ValidationError<'static>),
    /// A `$ref` chain too long to follow.
    #[error("its $ref links nest more than {MAX_REF_DEPTH} deep (at least {links}); not compiled")]
    RefChain {
        /// How many `$ref` links the chain had when it was cut.
        links: usize,
    },
}
