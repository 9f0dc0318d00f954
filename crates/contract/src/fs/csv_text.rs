//! CSV as a spreadsheet opens it: a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage
//! return is a formula to Excel, LibreOffice and Google Sheets (`=HYPERLINK(…)` from a server's
//! tool name), so every CSV driftlab writes gets a `'` before such a cell, which spreadsheets
//! read as "text follows". Numbers (`-3`, `+1.5e-7`) stay as they are: a spreadsheet reads them as
//! numbers, never as formulas.
//!
//! The pass works on the bytes the `csv` crate writes (RFC 4180, quoted only where needed), so
//! every writer keeps using serde and the pass is one scan with no reparse.

use std::borrow::Cow;

/// The bytes of an in-memory CSV writer, every formula-like cell made text.
pub fn finish(writer: csv::Writer<Vec<u8>>) -> Result<Vec<u8>, csv::Error> {
    let bytes = writer.into_inner().map_err(|e| e.into_error())?;
    Ok(match neutralise(&bytes) {
        Cow::Borrowed(_) => bytes,
        Cow::Owned(marked) => marked,
    })
}

/// `csv` output with every formula-like cell made text.
pub(crate) fn neutralise(bytes: &[u8]) -> Cow<'_, [u8]> {
    let starts = cells_to_mark(bytes);
    if starts.is_empty() {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len() + starts.len());
    let mut from = 0;
    for at in starts {
        out.extend_from_slice(&bytes[from..at]);
        out.push(b'\'');
        from = at;
    }
    out.extend_from_slice(&bytes[from..]);
    Cow::Owned(out)
}

/// Where to insert a `'`: the first content byte of each cell that needs one.
fn cells_to_mark(bytes: &[u8]) -> Vec<usize> {
    let mut marks = Vec::new();
    let mut at = 0;
    while at <= bytes.len() {
        // `at` starts a cell.
        if bytes.get(at) == Some(&b'"') {
            // A quoted cell ends at a `"` not followed by another.
            let content = at + 1;
            let mut i = content;
            while i < bytes.len() {
                if bytes[i] == b'"' {
                    if bytes.get(i + 1) == Some(&b'"') {
                        i += 2;
                        continue;
                    }
                    break;
                }
                i += 1;
            }
            // The csv crate quotes only what needs it, so a quoted cell is never a number.
            if bytes.get(content).is_some_and(|b| is_trigger(*b)) {
                marks.push(content);
            }
            at = i + 2; // past the closing quote and the separator
        } else {
            let end = bytes[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'\n'))
                .map_or(bytes.len(), |n| at + n);
            let cell = &bytes[at..end];
            let cell = cell.strip_suffix(b"\r").unwrap_or(cell);
            if needs_mark(cell) {
                marks.push(at);
            }
            at = end + 1;
        }
    }
    marks
}

fn is_trigger(byte: u8) -> bool {
    matches!(byte, b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r')
}

/// Whether a cell's text begins like a formula and is not a number.
fn needs_mark(text: &[u8]) -> bool {
    text.first().is_some_and(|b| is_trigger(*b)) && !is_number(text)
}

/// A plain decimal number: sign, digits with at most one point, an optional exponent.
fn is_number(text: &[u8]) -> bool {
    let text = text
        .strip_prefix(b"-")
        .or(text.strip_prefix(b"+"))
        .unwrap_or(text);
    let (mantissa, exponent) = match text.iter().position(|b| matches!(b, b'e' | b'E')) {
        Some(e) => (&text[..e], Some(&text[e + 1..])),
        None => (text, None),
    };
    let digits = mantissa.iter().filter(|b| b.is_ascii_digit()).count();
    let points = mantissa.iter().filter(|b| **b == b'.').count();
    let mantissa_ok = digits > 0 && points <= 1 && digits + points == mantissa.len();
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(b"-").or(e.strip_prefix(b"+")).unwrap_or(e);
        !e.is_empty() && e.iter().all(u8::is_ascii_digit)
    });
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(rows: &[&[&str]]) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        for row in rows {
            w.write_record(*row).unwrap();
        }
        let bytes = w.into_inner().unwrap();
        String::from_utf8(neutralise(&bytes).into_owned()).unwrap()
    }

    #[test]
    fn formula_cells_become_text_and_numbers_stay_numbers() {
        let out = written(&[
            &["tool", "n", "note"],
            &["=HYPERLINK(\"http://x\",\"y\")", "-3", "@SUM(A1)"],
            &["+cmd", "+1.5e-7", "-h"],
            &["plain", "1e5", "\tx"],
            &["a,=b", "", "-"],
        ]);
        assert_eq!(
            out,
            "tool,n,note\n\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",-3,'@SUM(A1)\n'+cmd,+1.5e-7,'-h\nplain,1e5,'\tx\n\"a,=b\",,'-\n"
        );
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(out.as_bytes());
        let cells: Vec<Vec<String>> = reader
            .records()
            .map(|r| r.unwrap().iter().map(String::from).collect())
            .collect();
        assert_eq!(cells[1][0], "'=HYPERLINK(\"http://x\",\"y\")");
        assert_eq!(cells[4][0], "a,=b", "only a cell's first byte counts");
    }

    #[test]
    fn a_cell_with_a_carriage_return_first_is_quoted_and_marked() {
        let out = written(&[&["\rx", "ok"]]);
        assert_eq!(out, "\"'\rx\",ok\n");
    }

    #[test]
    fn nothing_to_mark_borrows_the_bytes() {
        let bytes = b"a,b\n1,-2\n";
        assert!(matches!(neutralise(bytes), Cow::Borrowed(_)));
        assert!(needs_mark(b"=1+1") && !needs_mark(b"-0.5"));
        assert!(
            !is_number(b"-") && !is_number(b"1e") && !is_number(b"1.2.3") && !is_number(b"-inf")
        );
    }
}
