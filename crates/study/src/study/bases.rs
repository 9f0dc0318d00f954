//! Each surface's base: a generated surface, or a real payload drawn from the study's bases.

use std::borrow::Cow;

use serde_json::Value;

use super::splice::Base;
use crate::study::spec::Study;
use driftlab_mutate::generate;

/// Surface `index`'s base: generated, or a real payload drawn with `below(bases)` from the
/// stream `(seed, "base", index)`.
pub fn base_surface(study: &Study, index: u64) -> (&str, Cow<'_, Value>) {
    match real_base(study, index) {
        Some((name, value)) => (name, Cow::Borrowed(value)),
        None => (SYNTHETIC, Cow::Owned(generated_surface(study, index))),
    }
}

/// Generated surface `index`, with a whole contract when the study's classes change one.
fn generated_surface(study: &Study, index: u64) -> Value {
    let (seed, tools) = (study.spec.seed, study.spec.tools);
    match study.whole_contract() {
        true => generate::surface_with_contract(seed, index, tools),
        false => generate::surface(seed, index, tools),
    }
}

/// [`base_surface`] ready for splicing: a generated base is written straight to bytes.
pub(super) fn base(study: &Study, index: u64) -> (&str, Base<'_>) {
    match real_base(study, index) {
        Some((name, value)) => (name, Base::new(value)),
        None if study.whole_contract() => (SYNTHETIC, Base::owned(generated_surface(study, index))),
        None => {
            let plan = generate::plan(study.spec.seed, index, study.spec.tools);
            (SYNTHETIC, Base::generated(plan))
        }
    }
}

/// The base name of a generated surface.
const SYNTHETIC: &str = "synthetic";

/// The real payload surface `index` is based on; `None` for a study of generated surfaces.
fn real_base(study: &Study, index: u64) -> Option<(&str, &Value)> {
    if study.bases.is_empty() {
        return None;
    }
    let mut rng = driftlab_contract::rng::Stream::derive(study.spec.seed, "base", index);
    let (name, value) = rng.choose(&study.bases);
    Some((name.as_str(), value))
}
