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
fn past_the_moved_tool_budget_tools_still_read_as_the_scanner_reads_them() {
    // 1,100 tools, every one changed and the first moved last: looking for moved tools
    // through every approved one would take 1.2 million comparisons, over the budget.
    let tool = |i: usize, v: &str| format!(r#"{{"name":"t{i}","description":"d{v}"}}"#);
    let list = |tools: Vec<String>| format!(r#"{{"tools":[{}]}}"#, tools.join(","));
    let old = list((0..1100).map(|i| tool(i, "")).collect());
    let mut changed: Vec<String> = (1..1100).map(|i| tool(i, "2")).collect();
    changed.push(tool(0, ""));
    let new = list(changed);
    const { assert!(1100 * 1100 > MOVED_SEARCH_BUDGET) };
    let approved = payload::read(old.as_bytes(), "a", Limits::default()).unwrap();
    let beside = read_beside(new.as_bytes(), &approved).expect("read beside");
    let scanned = super::super::read(&new, Some(&approved)).unwrap();
    assert_eq!(described(&new, beside), described(&new, scanned));
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
