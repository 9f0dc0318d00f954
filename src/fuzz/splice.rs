//! Fuzzes the study's candidates. The input, read as a payload, is the base (as a study reads a
//! real base: `payload::read`, then `to_value`); for every mutation class, the candidate the
//! runner builds (editing the base's bytes where the class can, else changing a working copy and
//! splicing) must have the outcome of `apply` on a clone and the bytes of serializing that clone,
//! and the working copy must be the base again afterwards. Both with and without the approved
//! reading of the base that the edits use.

use driftlab_contract::payload::{self, Limits};
use driftlab_mutate::mutate::{self, REGISTRY};
use driftlab_study::study::splice::{Base, Workspace};

/// One fuzz input (`fuzz/fuzz_targets/splice.rs` runs it; `tests/it/fuzz_seeds.rs` runs it on the
/// committed seeds).
pub fn splice(data: &[u8]) {
    let limits = Limits { max_bytes: 1 << 20 };
    let Ok(surface) = payload::read(data, "base", limits) else {
        return;
    };
    let base = surface.to_value();
    let spliced = Base::new(&base);
    assert_eq!(spliced.bytes(), serde_json::to_vec(&base).unwrap());
    let read =
        payload::read(spliced.bytes(), "base", Limits::default()).expect("a written base reads");
    // The stream index varies with the input, so that classes draw different tools and values.
    let index = data.len() as u64;
    let mut out = Vec::new();
    for read in [Some(&read), None] {
        let mut workspace = Workspace::new(&spliced, read);
        for class in REGISTRY {
            let stream = || mutate::stream(1, *class, index);
            let mut mutated = base.clone();
            let expected = class.apply(&mut mutated, &mut stream());
            let got = workspace.candidate(&spliced, *class, stream, &mut out);
            assert_eq!(got, expected, "{}", class.id());
            if got.is_ok() {
                assert!(
                    out == class.serialize(&mutated),
                    "{}: the candidate's bytes differ",
                    class.id()
                );
            }
            if let Some(copy) = workspace.copy() {
                assert!(
                    serde_json::to_vec(copy).unwrap() == spliced.bytes(),
                    "{}: the copy is not the base",
                    class.id()
                );
            }
        }
    }
}
