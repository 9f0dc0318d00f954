//! A validating scanner over JSON bytes: one pass checks every token and reports places,
//! without building values. The payload reader's fast path (`payload::scan`) is built on it.
//!
//! It accepts only what serde_json parses into a `Value`, and declines (returns `None`) rather
//! than decide anything subtle: escaped keys where a key is matched, `\u` escapes of surrogates
//! (serde_json refuses unpaired ones), numbers with an exponent or over 300 integer digits
//! (serde_json refuses those beyond `f64`), nesting deeper than 128 levels, and anything
//! invalid. Callers then read the bytes the slower way.

use std::ops::Range;

/// Nesting beyond this is left to the general reader (serde_json's default limit).
const MAX_DEPTH: usize = 128;

/// The place (within `object`) of the value of member `key` of the JSON object `object` (the
/// last one, as in a `Value`); `None` when there is no such member, or when `object` is not an
/// object this scanner reads (callers then look at the parsed value instead).
pub fn object_member(object: &str, key: &str) -> Option<Range<usize>> {
    let mut scanner = Scanner {
        bytes: object.as_bytes(),
        at: 0,
    };
    let mut found = None;
    scanner.members(|scanner, name| {
        if name.escaped {
            return None;
        }
        let start = scanner.at;
        scanner.value(1)?;
        if scanner.text(&name) == key.as_bytes() {
            found = Some(start..scanner.at);
        }
        Some(())
    })?;
    found
}

/// The bytes a string scan must stop at: quote, backslash and control bytes.
pub(crate) static SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// How many bytes lead `bytes` before the first quote, backslash or control byte (all of them
/// when there is none): the bytes a JSON string holds as they are. Sixteen at a time where the
/// CPU compares sixteen at once.
pub(crate) fn plain_len(bytes: &[u8]) -> usize {
    let mut at = 0;
    while let Some(chunk) = bytes[at..].first_chunk::<16>() {
        let Some(special) = special_mask(chunk) else {
            break;
        };
        if special != 0 {
            return at + special.trailing_zeros() as usize;
        }
        at += 16;
    }
    at + bytes[at..]
        .iter()
        .position(|&b| SPECIAL[usize::from(b)])
        .unwrap_or(bytes.len() - at)
}

/// Bit `i` set when `chunk[i]` is [`SPECIAL`]; `None` where there is no vector compare.
#[cfg(target_arch = "x86_64")]
fn special_mask(chunk: &[u8; 16]) -> Option<u32> {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of every x86_64 target, and the load reads exactly the 16 bytes of
    // `chunk` (it needs no alignment).
    let special = unsafe {
        let bytes = _mm_loadu_si128(chunk.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'\\' as i8));
        // Below 0x20 exactly when the unsigned maximum with 0x1f is 0x1f.
        let below = _mm_set1_epi8(0x1f);
        let control = _mm_cmpeq_epi8(_mm_max_epu8(bytes, below), below);
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control))
    };
    Some(special as u32)
}

#[cfg(not(target_arch = "x86_64"))]
fn special_mask(_: &[u8; 16]) -> Option<u32> {
    None
}

pub(crate) struct Scanner<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) at: usize,
}

/// A string token: the place of its content (between the quotes) and whether it has escapes.
pub(crate) struct Token {
    pub(crate) content: Range<usize>,
    pub(crate) escaped: bool,
}

impl Scanner<'_> {
    pub(crate) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    pub(crate) fn whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    pub(crate) fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// After an opening bracket: skips whitespace and consumes `close` if it comes next.
    pub(crate) fn close(&mut self, close: u8) -> bool {
        self.whitespace();
        let closed = self.peek() == Some(close);
        self.at += usize::from(closed);
        closed
    }

    /// After a member or element: `true` for a comma (another follows), `false` for `close`.
    pub(crate) fn comma_or_close(&mut self, close: u8) -> Option<bool> {
        self.whitespace();
        match self.peek()? {
            b',' => {
                self.at += 1;
                self.whitespace();
                Some(true)
            }
            b if b == close => {
                self.at += 1;
                Some(false)
            }
            _ => None,
        }
    }

    pub(crate) fn colon(&mut self) -> Option<()> {
        // Compact JSON has no whitespace around the colon: that case first.
        if self.peek() != Some(b':') {
            self.whitespace();
            self.expect(b':')?;
        } else {
            self.at += 1;
        }
        self.whitespace();
        Some(())
    }

    pub(crate) fn text(&self, token: &Token) -> &[u8] {
        &self.bytes[token.content.clone()]
    }

    /// A string; the input is valid UTF-8 already, so only escapes and control bytes matter.
    #[inline(always)]
    pub(crate) fn string(&mut self) -> Option<Token> {
        self.expect(b'"')?;
        self.string_after_quote()
    }

    /// [`Scanner::string`] once its opening quote is consumed. Inlined: most strings are a few
    /// bytes, and a call's register saves cost as much as scanning them.
    #[inline(always)]
    pub(crate) fn string_after_quote(&mut self) -> Option<Token> {
        let start = self.at;
        let mut escaped = false;
        loop {
            self.skip_plain();
            match *self.bytes.get(self.at)? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    self.at += 1;
                    match self.peek()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 1,
                        b'u' => {
                            let hex = self.bytes.get(self.at + 1..self.at + 5)?;
                            let surrogate = matches!(hex[0], b'd' | b'D')
                                && matches!(hex[1], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F');
                            if surrogate || !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            self.at += 5;
                        }
                        _ => return None,
                    }
                }
                0..=0x1f => return None,
                _ => self.at += 1,
            }
        }
        let content = start..self.at;
        self.at += 1;
        Some(Token { content, escaped })
    }

    /// Skips string bytes that need no attention (see [`plain_len`]).
    pub(crate) fn skip_plain(&mut self) {
        self.at += plain_len(&self.bytes[self.at.min(self.bytes.len())..]);
    }

    pub(crate) fn number(&mut self) -> Option<()> {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        let digits = self.digits();
        match digits {
            0 => return None,
            1 => {}
            // No leading zeros; beyond 300 digits `f64` may overflow, which serde_json refuses.
            2..=300 if self.bytes[self.at - digits] != b'0' => {}
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        // An exponent may overflow `f64`: left to serde_json.
        (!matches!(self.peek(), Some(b'e' | b'E'))).then_some(())
    }

    pub(crate) fn digits(&mut self) -> usize {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        self.at - start
    }

    pub(crate) fn literal(&mut self, word: &[u8]) -> Option<()> {
        let found = self.bytes.get(self.at..self.at + word.len())? == word;
        found.then(|| self.at += word.len())
    }

    /// Any value, validated; `depth` counts the arrays and objects around it. Inlined, so that
    /// only an object or array costs a call.
    #[inline(always)]
    pub(crate) fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => {
                self.at += 1;
                self.string_after_quote().map(drop)
            }
            b'{' | b'[' => self.container(depth),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number(),
        }
    }

    /// An object or array value (see [`Scanner::value`]).
    #[inline(never)]
    pub(crate) fn container(&mut self, depth: usize) -> Option<()> {
        self.within(depth)?;
        if self.peek() == Some(b'{') {
            self.members(|scanner, _| scanner.value(depth + 1))
        } else {
            self.elements(|scanner| scanner.value(depth + 1))
        }
    }

    /// Declines nesting beyond [`MAX_DEPTH`] (`depth` counts the brackets around a value).
    pub(crate) fn within(&self, depth: usize) -> Option<()> {
        (depth < MAX_DEPTH).then_some(())
    }

    /// An object: `member` is called for each key, after its colon, and consumes the value.
    pub(crate) fn members(
        &mut self,
        mut member: impl FnMut(&mut Self, Token) -> Option<()>,
    ) -> Option<()> {
        self.expect(b'{')?;
        if self.close(b'}') {
            return Some(());
        }
        loop {
            let key = self.string()?;
            self.colon()?;
            member(self, key)?;
            if !self.comma_or_close(b'}')? {
                return Some(());
            }
        }
    }

    /// An array: `element` consumes each element.
    pub(crate) fn elements(
        &mut self,
        mut element: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<()> {
        self.expect(b'[')?;
        if self.close(b']') {
            return Some(());
        }
        loop {
            element(self)?;
            if !self.comma_or_close(b']')? {
                return Some(());
            }
        }
    }

    /// An object value (as [`Scanner::value`] reads it), and what [`object_member`] would find
    /// of its `type` member: the last one's place, or `None` when there is none or a key is
    /// escaped.
    pub(crate) fn object_and_type_member(&mut self, depth: usize) -> Option<Option<Range<usize>>> {
        self.within(depth)?;
        let (mut escaped, mut found) = (false, None);
        self.members(|scanner, key| {
            escaped |= key.escaped;
            let start = scanner.at;
            scanner.value(depth + 1)?;
            if scanner.text(&key) == b"type" {
                found = Some(start..scanner.at);
            }
            Some(())
        })?;
        Some(found.filter(|_| !escaped))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-at-a-time definition `skip_plain` must agree with.
    fn plain_len_bytewise(bytes: &[u8]) -> usize {
        bytes
            .iter()
            .position(|&b| SPECIAL[usize::from(b)])
            .unwrap_or(bytes.len())
    }

    #[test]
    fn skip_plain_stops_at_the_first_special_byte_wherever_it_is() {
        // Fillers just past each boundary the vector tests rely on (0x20 above the control
        // bytes, the neighbours of '"' and '\\', 0x7f/0x80 where signed bytes turn negative,
        // 0xff), and a special byte as filler. Lengths cover two chunks of 16 and the tail.
        let fillers = [
            0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xc3, 0xff, b'a', 0x01,
        ];
        let specials = [b'"', b'\\', 0x00, 0x1f, b'\n', 0x01];
        let mut cases = 0;
        for len in 0..40 {
            for &filler in &fillers {
                for &special in &specials {
                    for at in 0..=len {
                        let mut bytes = vec![filler; len];
                        if at < len {
                            bytes[at] = special;
                        }
                        // A second special later must not matter.
                        bytes.push(b'"');
                        for start in 0..bytes.len().min(9) {
                            let mut scanner = Scanner {
                                bytes: &bytes,
                                at: start,
                            };
                            scanner.skip_plain();
                            assert_eq!(
                                scanner.at - start,
                                plain_len_bytewise(&bytes[start..]),
                                "{bytes:?} from {start}"
                            );
                            cases += 1;
                        }
                    }
                }
            }
        }
        assert!(cases > 10_000);
    }
}
