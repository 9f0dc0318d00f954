//! Where a JSON value ends, found by scanning its bytes without parsing or recursion (nesting
//! can be deep): for locating findings in a file (`report::region`) and for stepping over the
//! large members of a payload (`payload::members`). The text must be valid JSON; on anything
//! else the answers are `None` or unspecified, never a panic. [`validating`] checks as it goes.

mod validating;

pub use validating::object_member;
pub(crate) use validating::{plain_len, Scanner, Token, SPECIAL};

/// The offset after the string starting at `at` (its opening quote).
pub fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The offset after the value starting at `at`, without recursion (nesting can be deep).
pub fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while let Some(&b) = bytes.get(i) {
                match b {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let len = bytes[at..]
                .iter()
                .take_while(|b| !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .count();
            (len > 0).then_some(at + len)
        }
    }
}
