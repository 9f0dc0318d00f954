//! Reading a candidate beside the approved surface it was made from, scanning only where their
//! bytes differ.
//!
//! A study's candidate is its approved payload with a tool changed, added, removed or moved, so
//! most of its bytes equal the approved text's. The scanner reads left to right, and right after
//! a tool object of the `tools` array its state is the same whatever the tools were: inside the
//! top-level object, inside its one `tools` array, after an element. So:
//! - where the candidate starts with the approved bytes up to the end of a tool, scanning that
//!   much of it gives what it gave in the approved text: the same tools at the same places;
//! - where, right after a tool, the rest of the candidate equals the approved text after one of
//!   its tools, scanning the rest gives what it gave there: the approved surface's later tools
//!   (and the approved text's end, which the scanner accepted), moved by the difference in length.
//!
//! Between the two, a tool whose bytes start with those of an approved tool (moved, say) reads as
//! that tool did, since the scanner's reading of a tool object depends on its bytes alone. Only
//! the rest is scanned; every other byte is compared with a byte the scanner read in the approved
//! text. The result is what [`super::read`] gives, which a test holds it to.

use crate::json_scan::Scanner;
use crate::surface::{Key, RawField, RawTool, Surface};

/// The tools of `new` as [`super::read`] reads them, or `None` to leave it to that: when
/// `beside` was not read by the scanner, when `new` differs from it before its first tool, when
/// the tools array ends in the part that differs, or when a scanned tool or member is not UTF-8.
/// `new` is UTF-8 when `Some`: every other byte is either the approved text's, in a part that
/// starts and ends at ASCII bytes, or a byte the scanner accepts only as ASCII (whitespace,
/// commas, brackets). Each tool with the bytes of an approved tool shares what that one has
/// parsed (the one at its place first).
pub(crate) fn read_beside(new: &[u8], beside: &Surface) -> Option<Vec<RawTool>> {
    let approved = beside.scanned_tools()?;
    let old = beside.text().as_bytes();
    let first = approved.first()?.span();
    let prefix = common_prefix(old, new);
    if first.start > prefix {
        return None;
    }
    let suffix = common_suffix(old, new);
    // The tools wholly within the common prefix read as they did, at the same places.
    let kept = approved.partition_point(|tool| tool.span().end <= prefix);
    // Room for one tool more than approved, as a class adds at most one.
    let mut tools = Vec::with_capacity(approved.len() + 1);
    tools.extend_from_slice(&approved[..kept]);
    let differs_from = match kept {
        0 => first.start,
        kept => approved[kept - 1].span().end,
    };
    let mut scanner = Scanner {
        bytes: new,
        at: differs_from,
    };
    // Allocated only if a tool is scanned.
    let mut fields = Vec::new();
    if kept == 0 {
        // Right after the array's `[` and the whitespace before the approved first tool.
        if scanner.close(b']') {
            return None;
        }
        element(&mut scanner, &mut tools, &mut fields, beside, approved)?;
    }
    // How many bytes follow each approved tool; only those within the common suffix can match.
    let old_rest = |tool: &RawTool| old.len() - tool.span().end;
    let mut next = approved.partition_point(|tool| old_rest(tool) > suffix);
    loop {
        let rest = new.len() - scanner.at;
        while next < approved.len() && old_rest(&approved[next]) > rest {
            next += 1;
        }
        if next < approved.len() && old_rest(&approved[next]) == rest {
            for tool in &approved[next + 1..] {
                let at = new.len() - (old.len() - tool.span().start);
                let same_place = approved.get(tools.len());
                let same_place = same_place.filter(|same| old[same.span()] == old[tool.span()]);
                tools.push(same_place.unwrap_or(tool).moved_to(at));
            }
            return Some(tools);
        }
        if !scanner.comma_or_close(b']')? {
            return None;
        }
        element(&mut scanner, &mut tools, &mut fields, beside, approved)?;
    }
}

/// The next element of the tools array, added to `tools`: where its bytes start with those of
/// an approved tool (the one at its place first: a moved tool is often the same), that tool
/// moved here, as the scanner's reading of a tool object depends on its bytes alone; otherwise
/// read beside the approved tool at its place, or scanned.
fn element(
    scanner: &mut Scanner,
    tools: &mut Vec<RawTool>,
    fields: &mut Vec<RawField>,
    beside: &Surface,
    approved: &[RawTool],
) -> Option<()> {
    let (old, rest) = (beside.text().as_bytes(), &scanner.bytes[scanner.at..]);
    let same_place = approved.get(tools.len());
    let mut same = same_place.into_iter().chain(approved);
    if let Some(tool) = same.find(|tool| rest.starts_with(&old[tool.span()])) {
        tools.push(tool.moved_to(scanner.at));
        scanner.at += tool.span().len();
        return Some(());
    }
    match same_place {
        Some(same_place) => {
            let tool = changed_tool(scanner, fields, &old[same_place.span()], same_place)?;
            tools.push(tool);
            Some(())
        }
        None => {
            let start = scanner.at;
            scanner.tool_element(tools, fields, Some(beside))?;
            utf8(&scanner.bytes[start..scanner.at])
        }
    }
}

/// A tool object whose bytes differ from those of `approved` (an approved tool, whose bytes are
/// `old`), read member by member: inside a tool object, right after a member's value, the
/// scanner's state is the same whatever the members were, except for the keys it has seen. So
/// - the members followed by a byte the two have in common at their start read as they did
///   (not a member that merely ends there: a number's end depends on the byte after it);
/// - where, right after a member, the rest of the object equals the approved one's rest after
///   one of its members, that rest reads as it did, moved;
/// - and the members between are scanned. Keys are checked for repeats across all of them.
///
/// `fields` is a spare field list, empty before and after.
fn changed_tool(
    scanner: &mut Scanner,
    fields: &mut Vec<RawField>,
    old: &[u8],
    approved: &RawTool,
) -> Option<RawTool> {
    let start = scanner.at;
    let old_fields = approved.fields();
    let common = common_prefix(old, &scanner.bytes[start..]);
    let kept = old_fields.partition_point(|field| field.value_end() < common);
    fields.extend(old_fields[..kept].iter().map(|field| field.moved(0, start)));
    // After a member, or before the first one.
    let mut after_member = kept > 0;
    if after_member {
        scanner.at = start + old_fields[kept - 1].value_end();
    } else {
        scanner.expect(b'{')?;
        if scanner.close(b'}') {
            return Some(RawTool::new(start..scanner.at, std::mem::take(fields)));
        }
    }
    loop {
        if after_member {
            // Does the rest equal the approved tool's rest after one of its members? Not one
            // before the last kept: its rest would repeat a kept key.
            let scanned = fields.len() - kept;
            let rest = &scanner.bytes[scanner.at..];
            let joins = (kept.saturating_sub(1)..old_fields.len())
                .find(|&j| rest.starts_with(&old[old_fields[j].value_end()..]));
            if let Some(j) = joins {
                let from = old_fields[j].value_end();
                let end = scanner.at + old.len() - from;
                for field in &old_fields[j + 1..] {
                    let field = field.moved(from, scanner.at);
                    // Kept and joined keys are an approved tool's, so differ: check the scanned.
                    let Key::Span(key) = &field.key else {
                        return None;
                    };
                    if scanner.repeats(key, &fields[kept..kept + scanned]) {
                        return None;
                    }
                    fields.push(field);
                }
                scanner.at = end;
                return Some(RawTool::new(start..end, std::mem::take(fields)));
            }
            if !scanner.comma_or_close(b'}')? {
                return Some(RawTool::new(start..scanner.at, std::mem::take(fields)));
            }
        }
        let member = scanner.at;
        let key = scanner.string()?;
        scanner.colon()?;
        scanner.tool_member(key, fields)?;
        utf8(&scanner.bytes[member..scanner.at])?;
        after_member = true;
    }
}

/// `Some` when `scanned` (bytes the scanner read, which starts and ends at ASCII bytes) is
/// UTF-8: the scanner itself looks only at the ASCII bytes of strings.
fn utf8(scanned: &[u8]) -> Option<()> {
    std::str::from_utf8(scanned).ok().map(drop)
}

/// How many bytes `a` and `b` have in common at their start.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let len = a.len().min(b.len());
    let (a, b) = (&a[..len], &b[..len]);
    let mut at = 0;
    // Whole 32-byte blocks first (one vector compare each), then words within the block that
    // differs.
    while let (Some(x), Some(y)) = (a[at..].first_chunk::<32>(), b[at..].first_chunk::<32>()) {
        if x != y {
            break;
        }
        at += 32;
    }
    while let (Some(x), Some(y)) = (a[at..].first_chunk::<8>(), b[at..].first_chunk::<8>()) {
        let differ = u64::from_le_bytes(*x) ^ u64::from_le_bytes(*y);
        if differ != 0 {
            return at + differ.trailing_zeros() as usize / 8;
        }
        at += 8;
    }
    at + a[at..]
        .iter()
        .zip(&b[at..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many bytes `a` and `b` have in common at their end.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let len = a.len().min(b.len());
    let (a, b) = (&a[a.len() - len..], &b[b.len() - len..]);
    let mut end = len;
    while let (Some(x), Some(y)) = (a[..end].last_chunk::<32>(), b[..end].last_chunk::<32>()) {
        if x != y {
            break;
        }
        end -= 32;
    }
    while let (Some(x), Some(y)) = (a[..end].last_chunk::<8>(), b[..end].last_chunk::<8>()) {
        // The last byte is the most significant: equal bytes at the end are leading zeros.
        let differ = u64::from_le_bytes(*x) ^ u64::from_le_bytes(*y);
        if differ != 0 {
            return len - end + differ.leading_zeros() as usize / 8;
        }
        end -= 8;
    }
    let same = a[..end]
        .iter()
        .rev()
        .zip(b[..end].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    len - end + same
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::{self, Limits};
    use crate::surface::Locations;

    /// What a reading found, tool by tool: its place, and each field's place and `type` member.
    fn described(text: &str, tools: Vec<RawTool>) -> Vec<String> {
        let mut locations = Locations::new();
        locations.push_array("/tools", tools.len());
        let surface = Surface::from_text(text.to_string(), tools, locations, true);
        let spans = (0..surface.len()).map(|i| surface.tool_span(i));
        surface
            .tools()
            .zip(spans)
            .map(|(tool, span)| {
                let fields: Vec<String> = tool
                    .keys()
                    .map(|key| {
                        let place = tool.field_place(key);
                        format!("{key} {place:?} {:?}", tool.raw_type_of(key))
                    })
                    .collect();
                format!("{span:?} {fields:?}")
            })
            .collect()
    }

    /// Approved texts around the places the shortcut depends on: first and last tool, members
    /// before and after the array, whitespace, repeated tools, nested values, non-ASCII text.
    const APPROVED: &[&str] = &[
        r#"{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","x":[1,2.5,{"y":null}]},{"name":"c","d":"\u00e9\n","inputSchema":{"type":"object","properties":{}}}]}"#,
        "{ \"tools\" : [\n  {\"name\": \"a\"} ,\n  {\"name\": \"b\", \"t\": true}\n ] ,\"after\":{}}\n",
        r#"{"nextCursor":"x","tools":[{"name":"a"},{"name":"a"},{"name":"a"}],"_meta":{"k":[false]}}"#,
        r#"{"tools":[{"name":"é","description":"naïve ☃"}]}"#,
        "{\"tools\":[{\"name\":\"a\",\"n\":12,\"t\":true,\"s\":{\"type\":\"object\"}},{ \"name\" : \"b\" , \"n\" : -1.5 }]}",
    ];

    /// Edits of `text`, each with whether it must be read beside: a byte removed, replaced or
    /// inserted at every place (bytes that open, close or separate values, and the lead of a
    /// two-byte character), which the shortcut may leave; and whole tools repeated, removed,
    /// swapped and replaced by others, which it must read.
    fn edits(text: &str, approved: &Surface) -> Vec<(Vec<u8>, bool)> {
        let bytes = text.as_bytes();
        let mut edits = Vec::new();
        for at in 0..=bytes.len() {
            for insert in [
                &b"}"[..],
                b"]",
                b",",
                b"\"",
                b" ",
                b"{",
                b"x",
                b"1",
                b"\xc3",
                b"\\",
            ] {
                edits.push((spliced(bytes, at..at, insert), false));
            }
            if at < bytes.len() {
                let mut removed = bytes.to_vec();
                removed.remove(at);
                edits.push((removed, false));
                let mut replaced = bytes.to_vec();
                replaced[at] = b'a';
                edits.push((replaced, false));
            }
        }
        let spans: Vec<_> = (0..approved.len())
            .filter_map(|i| approved.tool_span(i))
            .collect();
        let whole = |range, with: &[u8]| (spliced(bytes, range, with), true);
        for (i, span) in spans.iter().enumerate() {
            let tool = &bytes[span.clone()];
            edits.push(whole(span.start..span.start, &[tool, b","].concat()));
            edits.push(whole(span.end..span.end, &[b",", tool].concat()));
            if let Some(next) = spans.get(i + 1) {
                edits.push(whole(span.start..next.start, b""));
                edits.push(whole(span.end..next.end, b""));
                let swapped = [&bytes[next.clone()], &bytes[span.end..next.start], tool].concat();
                edits.push(whole(span.start..next.end, &swapped));
            }
            for other in &spans {
                edits.push(whole(span.clone(), &bytes[other.clone()]));
            }
            edits.extend(member_edits(bytes, approved, i));
        }
        // A tool added after the last, unlike any approved one, is scanned: UTF-8 or not.
        let end = spans.last().unwrap().end;
        edits.push(whole(end..end, ",{\"name\":\"é\"}".as_bytes()));
        edits.push((spliced(bytes, end..end, b",{\"name\":\"\xc3\"}"), false));
        edits
    }

    /// `bytes` with `range` replaced by `with`.
    fn spliced(bytes: &[u8], range: std::ops::Range<usize>, with: &[u8]) -> Vec<u8> {
        let mut edit = bytes.to_vec();
        edit.splice(range, with.iter().copied());
        edit
    }

    /// Edits of tool `index`'s members, each with whether it must be read beside: a member
    /// removed (with the comma after it, or before it for the last), its value replaced by
    /// `null`, a digit appended (a longer number, if it was one), the value wrapped in an array,
    /// a member added after it, and members repeated (which the scanner refuses, so they must
    /// not be read beside either).
    fn member_edits(bytes: &[u8], approved: &Surface, index: usize) -> Vec<(Vec<u8>, bool)> {
        let tool = approved.tool(index).unwrap();
        let start = approved.tool_span(index).unwrap().start;
        let keys: Vec<&str> = tool.keys().collect();
        let places: Vec<_> = keys.iter().map(|k| tool.field_place(k).unwrap()).collect();
        let edit = |range, with: &[u8], must_read| (spliced(bytes, range, with), must_read);
        let mut edits = Vec::new();
        for (i, place) in places.iter().enumerate() {
            let member = start + place.key.start - 1..start + place.value.end;
            let value = start + place.value.start..start + place.value.end;
            let member_bytes = &bytes[member.clone()];
            match places.get(i + 1) {
                Some(next) => edits.push(edit(member.start..start + next.key.start - 1, b"", true)),
                None if i > 0 => {
                    edits.push(edit(start + places[i - 1].value.end..member.end, b"", true))
                }
                None => edits.push(edit(member.clone(), b"", true)),
            }
            edits.push(edit(value.clone(), b"null", true));
            // After a number, a longer number; after anything else, invalid JSON.
            let number = matches!(bytes[value.start], b'-' | b'0'..=b'9');
            edits.push(edit(value.end..value.end, b"7", number));
            let wrapped = [&b"["[..], &bytes[value.clone()], b"]"].concat();
            edits.push(edit(value.clone(), &wrapped, true));
            edits.push(edit(member.end..member.end, b",\"zz\":[1]", true));
            if let Some(next) = places.get(i + 1) {
                let after_next = start + next.value.end;
                let repeated = [&b","[..], member_bytes].concat();
                edits.push(edit(after_next..after_next, &repeated, false));
                // The repeat before the member, so the rest after it is the approved rest.
                let before = [member_bytes, b","].concat();
                edits.push(edit(member.start..member.start, &before, false));
                // The next member repeated before this one: the repeat is in the rest.
                let next_bytes = &bytes[start + next.key.start - 1..start + next.value.end];
                let before = [next_bytes, b","].concat();
                edits.push(edit(member.start..member.start, &before, false));
            }
        }
        edits
    }

    #[test]
    fn reading_beside_gives_what_the_scanner_gives_or_leaves_it() {
        let (mut read, mut left) = (0, 0);
        for text in APPROVED {
            let approved = payload::read(text.as_bytes(), "a", Limits::default()).unwrap();
            assert!(approved.scanned_tools().is_some(), "{text}");
            for (edit, must_read) in edits(text, &approved) {
                let Some(beside) = read_beside(&edit, &approved) else {
                    assert!(!must_read, "left {edit:?}");
                    left += 1;
                    continue;
                };
                let edited = std::str::from_utf8(&edit)
                    .unwrap_or_else(|_| panic!("accepted bytes that are not UTF-8: {edit:?}"));
                let scanned = super::super::read(edited, Some(&approved));
                let scanned = scanned.unwrap_or_else(|| panic!("accepted {edited:?}"));
                assert_eq!(
                    described(edited, beside),
                    described(edited, scanned),
                    "{edited:?}"
                );
                read += 1;
            }
        }
        // Most byte edits make invalid JSON, which is left to the full scan.
        assert!(read > 600 && left > 1000, "{read} read beside, {left} left");
    }

    #[test]
    fn only_a_scanned_surface_is_read_beside() {
        // The serde path reads this wrapper; its text after a tool is not known to be valid
        // after any tool of a `tools` array.
        let wrapped = r#"{"result":{"tools":[{"name":"a"}]}}"#;
        let approved = payload::read(wrapped.as_bytes(), "a", Limits::default()).unwrap();
        assert!(approved.scanned_tools().is_none());
        assert!(read_beside(wrapped.as_bytes(), &approved).is_none());
        let plain = r#"{"tools":[{"name":"a"}]}"#;
        let approved = payload::read(plain.as_bytes(), "a", Limits::default()).unwrap();
        let tools = read_beside(plain.as_bytes(), &approved).unwrap();
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0].span(), 10..22);
    }

    #[test]
    fn common_ends_agree_with_the_bytewise_definition() {
        let prefix = |a: &[u8], b: &[u8]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let suffix = |a: &[u8], b: &[u8]| {
            let (a, b) = (a.iter().rev(), b.iter().rev());
            a.zip(b).take_while(|(x, y)| x == y).count()
        };
        let mut cases = 0;
        for len in 0..40 {
            let a: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            for at in 0..=len {
                // A byte changed, bytes inserted, a byte removed, at every place.
                let mut changed = a.clone();
                if at < len {
                    changed[at] ^= 0x80;
                }
                let mut inserted = a.clone();
                inserted.splice(at..at, [1, 2, 3]);
                let mut removed = a.clone();
                removed.drain(at..(at + 1).min(len));
                for b in [changed, inserted, removed] {
                    assert_eq!(common_prefix(&a, &b), prefix(&a, &b), "{a:?} {b:?}");
                    assert_eq!(common_suffix(&a, &b), suffix(&a, &b), "{a:?} {b:?}");
                    assert_eq!(common_suffix(&b, &a), suffix(&b, &a), "{b:?} {a:?}");
                    cases += 1;
                }
            }
        }
        assert!(cases > 1000);
    }
}
