//! What a declared contract accepts: a JSON Schema validator built one way everywhere, a tool's
//! contract compiled once, and the values single schema leaves accept or refuse.

mod pinned;
pub mod values;

use serde_json::Value;

pub use pinned::Contract;

/// A validator for `schema`: its `$schema` dialect (2020-12 when absent), format assertions on,
/// local `$ref`s only (the crate is built without network or file resolution).
pub fn validator(schema: &Value) -> Result<jsonschema::Validator, SchemaError> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(SchemaError)
}

/// A schema no validator can be built from; its text is the compiler's, cut to one short line
/// (it is quoted in findings and reports).
#[derive(Debug, thiserror::Error)]
#[error("{}", crate::text::shorten(&.0.to_string(), 200))]
pub struct SchemaError(pub jsonschema::ValidationError<'static>);
