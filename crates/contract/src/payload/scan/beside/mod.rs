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

/// Comparisons of a changed tool with every approved tool, looking for one moved, per read: a
/// study's candidates (tens of tools) never reach it.
const MOVED_SEARCH_BUDGET: usize = 1 << 20;

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
    let mut budget = MOVED_SEARCH_BUDGET;
    let mut next_element = |scanner: &mut Scanner, tools: &mut Vec<RawTool>| {
        element(scanner, tools, &mut fields, beside, (approved, &mut budget))
    };
    if kept == 0 {
        // Right after the array's `[` and the whitespace before the approved first tool.
        if scanner.close(b']') {
            return None;
        }
        next_element(&mut scanner, &mut tools)?;
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
        next_element(&mut scanner, &mut tools)?;
    }
}

/// The next element of the tools array, added to `tools`: where its bytes start with those of
/// an approved tool (the one at its place first: a moved tool is often the same; the others
/// while `budget` lasts), that tool moved here, as the scanner's reading of a tool object
/// depends on its bytes alone; otherwise read beside the approved tool at its place, or scanned.
/// Either way the tool reads the same: the budget decides only how much is shared.
fn element(
    scanner: &mut Scanner,
    tools: &mut Vec<RawTool>,
    fields: &mut Vec<RawField>,
    beside: &Surface,
    (approved, budget): (&[RawTool], &mut usize),
) -> Option<()> {
    let (old, rest) = (beside.text().as_bytes(), &scanner.bytes[scanner.at..]);
    let same_place = approved.get(tools.len());
    let starts_rest = |tool: &&RawTool| rest.starts_with(&old[tool.span()]);
    let moved = || {
        // Each look through every approved tool is paid from the budget: a large payload
        // whose tools all changed would otherwise compare every pair (53,077 tools: 8 s).
        *budget = budget.checked_sub(approved.len())?;
        approved.iter().find(starts_rest)
    };
    if let Some(tool) = same_place.filter(starts_rest).or_else(moved) {
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
mod tests;
