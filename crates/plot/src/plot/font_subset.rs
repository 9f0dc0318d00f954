//! A TrueType subset of the embedded DejaVu Sans holding only the glyphs a figure uses, so an SVG
//! can carry its font (a few kB) and render the same everywhere. Glyphs are renumbered; the
//! subset keeps a cmap for its characters (browsers need one, unlike PDF subsetters' output),
//! the legacy kern pairs among its glyphs (what the PNG renderer applies too) and the hinting
//! programs. Layout tables (GPOS, GSUB, GDEF, MATH) are dropped.

use std::collections::{BTreeMap, BTreeSet};

use ttf_parser::{Face, Tag};

/// Composite glyph flags (OpenType `glyf` table).
const ARG_1_AND_2_ARE_WORDS: u16 = 0x0001;
const WE_HAVE_A_SCALE: u16 = 0x0008;
const MORE_COMPONENTS: u16 = 0x0020;
const WE_HAVE_AN_X_AND_Y_SCALE: u16 = 0x0040;
const WE_HAVE_A_TWO_BY_TWO: u16 = 0x0080;

/// Tables copied byte for byte.
const COPIED: [&[u8; 4]; 5] = [b"OS/2", b"cvt ", b"fpgm", b"gasp", b"prep"];
/// Name records kept: copyright, family, subfamily, unique id, full name, version, PostScript.
const NAME_IDS: [u16; 7] = [0, 1, 2, 3, 4, 5, 6];

/// The subset of `font` for `chars`: `.notdef`, a glyph per character the font has, and the
/// glyphs those are composed of. `None` when the font lacks a table this needs.
pub fn subset(font: &[u8], chars: &BTreeSet<char>) -> Option<Vec<u8>> {
    let face = Face::parse(font, 0).ok()?;
    let table = |tag: &[u8; 4]| face.raw_face().table(Tag::from_bytes(tag));
    let head = table(b"head")?;
    let hhea = table(b"hhea")?;
    let maxp = table(b"maxp")?;
    let hmtx = table(b"hmtx")?;
    let loca = table(b"loca")?;
    let glyf = table(b"glyf")?;
    let glyph_count = usize::from(u16_at(maxp, 4)?);
    let long_loca = u16_at(head, 50)? == 1;
    let offset = |g: usize| -> Option<usize> {
        if long_loca {
            u32_at(loca, 4 * g).map(|v| v as usize)
        } else {
            u16_at(loca, 2 * g).map(|v| 2 * usize::from(v))
        }
    };
    let glyph = |g: u16| -> Option<&[u8]> {
        let g = usize::from(g);
        (g < glyph_count).then_some(())?;
        glyf.get(offset(g)?..offset(g + 1)?)
    };

    // Old glyph ids: .notdef, each character's glyph, then components until none is new.
    let mapped: BTreeMap<char, u16> = chars
        .iter()
        .filter_map(|&c| Some((c, face.glyph_index(c)?.0)))
        .collect();
    let mut kept: BTreeSet<u16> = std::iter::once(0).chain(mapped.values().copied()).collect();
    let mut pending: Vec<u16> = kept.iter().copied().collect();
    while let Some(g) = pending.pop() {
        for component in components(glyph(g)?)? {
            if kept.insert(component.1) {
                pending.push(component.1);
            }
        }
    }
    let new_id: BTreeMap<u16, u16> = kept
        .iter()
        .enumerate()
        .map(|(new, &old)| Some((old, u16::try_from(new).ok()?)))
        .collect::<Option<_>>()?;

    let mut new_glyf = Vec::new();
    let mut new_loca = Vec::new();
    for &old in &kept {
        new_loca.extend_from_slice(&u32::try_from(new_glyf.len()).ok()?.to_be_bytes());
        let mut bytes = glyph(old)?.to_vec();
        for (at, component) in components(&bytes)? {
            bytes[at..at + 2].copy_from_slice(&new_id[&component].to_be_bytes());
        }
        new_glyf.extend_from_slice(&bytes);
        new_glyf.resize(new_glyf.len().next_multiple_of(4), 0);
    }
    new_loca.extend_from_slice(&u32::try_from(new_glyf.len()).ok()?.to_be_bytes());

    let metrics_count = usize::from(u16_at(hhea, 34)?);
    let mut new_hmtx = Vec::new();
    for &old in &kept {
        let old = usize::from(old);
        let last = metrics_count.checked_sub(1)?;
        let advance = u16_at(hmtx, 4 * old.min(last))?;
        let bearing = if old < metrics_count {
            u16_at(hmtx, 4 * old + 2)?
        } else {
            u16_at(hmtx, 4 * metrics_count + 2 * (old - metrics_count))?
        };
        new_hmtx.extend_from_slice(&advance.to_be_bytes());
        new_hmtx.extend_from_slice(&bearing.to_be_bytes());
    }
    let count = u16::try_from(kept.len()).ok()?.to_be_bytes();

    let mut tables: BTreeMap<[u8; 4], Vec<u8>> = BTreeMap::new();
    let mut new_head = head.to_vec();
    new_head.get_mut(8..12)?.copy_from_slice(&[0; 4]); // checkSumAdjustment, set last
    new_head
        .get_mut(50..52)?
        .copy_from_slice(&1u16.to_be_bytes()); // long loca
    let mut new_hhea = hhea.to_vec();
    new_hhea.get_mut(34..36)?.copy_from_slice(&count);
    let mut new_maxp = maxp.to_vec();
    new_maxp.get_mut(4..6)?.copy_from_slice(&count);
    let char_ids: BTreeMap<char, u16> = mapped.iter().map(|(&c, g)| (c, new_id[g])).collect();
    tables.insert(*b"head", new_head);
    tables.insert(*b"hhea", new_hhea);
    tables.insert(*b"maxp", new_maxp);
    tables.insert(*b"hmtx", new_hmtx);
    tables.insert(*b"loca", new_loca);
    tables.insert(*b"glyf", new_glyf);
    tables.insert(*b"cmap", cmap(&char_ids));
    tables.insert(*b"post", post(table(b"post")?)?);
    tables.insert(*b"name", name(table(b"name")?)?);
    if let Some(kern) = table(b"kern").and_then(|k| kern(k, &new_id)) {
        tables.insert(*b"kern", kern);
    }
    for tag in COPIED {
        if let Some(bytes) = table(tag) {
            tables.insert(*tag, bytes.to_vec());
        }
    }
    Some(assemble(&tables))
}

/// Each component of a composite glyph: where its glyph id is, and the id. Empty for a simple
/// or empty glyph; `None` when the glyph is cut short.
fn components(glyph: &[u8]) -> Option<Vec<(usize, u16)>> {
    let mut out = Vec::new();
    if glyph.is_empty() || (u16_at(glyph, 0)? as i16) >= 0 {
        return Some(out);
    }
    let mut at = 10;
    loop {
        let flags = u16_at(glyph, at)?;
        out.push((at + 2, u16_at(glyph, at + 2)?));
        at += 4 + if flags & ARG_1_AND_2_ARE_WORDS != 0 {
            4
        } else {
            2
        };
        at += if flags & WE_HAVE_A_SCALE != 0 {
            2
        } else if flags & WE_HAVE_AN_X_AND_Y_SCALE != 0 {
            4
        } else if flags & WE_HAVE_A_TWO_BY_TWO != 0 {
            8
        } else {
            0
        };
        if flags & MORE_COMPONENTS == 0 {
            return Some(out);
        }
    }
}

/// A format 4 cmap (Windows, Unicode BMP) with a segment per run of consecutive characters
/// whose glyph ids are consecutive too.
fn cmap(chars: &BTreeMap<char, u16>) -> Vec<u8> {
    let mut segments: Vec<(u16, u16, u16)> = Vec::new(); // start, end, first glyph
    for (&c, &g) in chars {
        let Ok(code) = u16::try_from(u32::from(c)) else {
            continue; // beyond the BMP: left to a fallback font
        };
        if code == 0xFFFF {
            continue;
        }
        match segments.last_mut() {
            Some((start, end, first))
                if *end + 1 == code && first.wrapping_add(code - *start) == g =>
            {
                *end = code;
            }
            _ => segments.push((code, code, g)),
        }
    }
    segments.push((0xFFFF, 0xFFFF, 0)); // the required final segment, mapping to .notdef
    let n = segments.len() as u16;
    let mut out = Vec::new();
    // Header: version 0, one encoding record (Windows, Unicode BMP) at offset 12.
    put_u16s(&mut out, &[0, 1, 3, 1]);
    out.extend_from_slice(&12u32.to_be_bytes());
    put_u16s(&mut out, &[4, 16 + 8 * n, 0, 2 * n]);
    put_u16s(&mut out, &search_fields(n, 2));
    let ends: Vec<u16> = segments.iter().map(|s| s.1).collect();
    put_u16s(&mut out, &ends);
    put_u16s(&mut out, &[0]); // reservedPad
    let starts: Vec<u16> = segments.iter().map(|s| s.0).collect();
    put_u16s(&mut out, &starts);
    let deltas: Vec<u16> = segments
        .iter()
        .map(|&(start, _, first)| {
            if start == 0xFFFF {
                1
            } else {
                first.wrapping_sub(start)
            }
        })
        .collect();
    put_u16s(&mut out, &deltas);
    put_u16s(&mut out, &vec![0; segments.len()]); // idRangeOffset
    out
}

/// The legacy kern table's horizontal format 0 pairs between kept glyphs, renumbered.
fn kern(table: &[u8], new_id: &BTreeMap<u16, u16>) -> Option<Vec<u8>> {
    let mut pairs: Vec<(u16, u16, u16)> = Vec::new();
    let mut at = 4;
    for _ in 0..u16_at(table, 2)? {
        let length = usize::from(u16_at(table, at + 2)?);
        let coverage = u16_at(table, at + 4)?;
        // Format 0, horizontal, neither minimum values nor cross-stream.
        if coverage >> 8 == 0 && coverage & 0x07 == 1 {
            for p in 0..usize::from(u16_at(table, at + 6)?) {
                let pair = at + 14 + 6 * p;
                let (left, right) = (u16_at(table, pair)?, u16_at(table, pair + 2)?);
                if let (Some(&l), Some(&r)) = (new_id.get(&left), new_id.get(&right)) {
                    pairs.push((l, r, u16_at(table, pair + 4)?));
                }
            }
        }
        at += length.max(6);
    }
    if pairs.is_empty() {
        return None;
    }
    pairs.sort_unstable();
    let n = u16::try_from(pairs.len()).ok()?;
    let length = u16::try_from(14 + 6 * pairs.len()).ok()?;
    let mut out = Vec::new();
    // Version 0, one subtable: version 0, its length, coverage (format 0, horizontal), pairs.
    put_u16s(&mut out, &[0, 1, 0, length, 1, n]);
    put_u16s(&mut out, &search_fields(n, 6));
    for (l, r, v) in pairs {
        put_u16s(&mut out, &[l, r, v]);
    }
    Some(out)
}

/// `post` version 3: no glyph names.
fn post(table: &[u8]) -> Option<Vec<u8>> {
    let mut out = table.get(..32)?.to_vec();
    out[..4].copy_from_slice(&0x0003_0000u32.to_be_bytes());
    Some(out)
}

/// The Windows-platform name records of [`NAME_IDS`] (the copyright notice among them).
fn name(table: &[u8]) -> Option<Vec<u8>> {
    let strings = usize::from(u16_at(table, 4)?);
    let mut records: Vec<([u16; 4], &[u8])> = Vec::new();
    for r in 0..usize::from(u16_at(table, 2)?) {
        let at = 6 + 12 * r;
        let field = |i: usize| u16_at(table, at + 2 * i);
        let (platform, id) = (field(0)?, field(3)?);
        if platform == 3 && NAME_IDS.contains(&id) {
            let start = strings + usize::from(field(5)?);
            let text = table.get(start..start + usize::from(field(4)?))?;
            records.push(([platform, field(1)?, field(2)?, id], text));
        }
    }
    let count = u16::try_from(records.len()).ok()?;
    let mut out = Vec::new();
    put_u16s(&mut out, &[0, count, 6 + 12 * count]);
    let mut text = Vec::new();
    for (ids, bytes) in &records {
        put_u16s(&mut out, ids);
        out.extend_from_slice(&u16::try_from(bytes.len()).ok()?.to_be_bytes());
        out.extend_from_slice(&u16::try_from(text.len()).ok()?.to_be_bytes());
        text.extend_from_slice(bytes);
    }
    out.extend_from_slice(&text);
    Some(out)
}

/// The font file: table directory (sorted by tag), tables at 4-byte boundaries, checksums, and
/// head's checkSumAdjustment.
fn assemble(tables: &BTreeMap<[u8; 4], Vec<u8>>) -> Vec<u8> {
    let n = tables.len() as u16;
    let mut out = Vec::new();
    out.extend_from_slice(&0x0001_0000u32.to_be_bytes());
    put_u16s(&mut out, &[n]);
    put_u16s(&mut out, &search_fields(n, 16));
    let mut offset = 12 + 16 * tables.len();
    let mut head_at = 0;
    for (tag, bytes) in tables {
        if tag == b"head" {
            head_at = offset;
        }
        out.extend_from_slice(tag);
        out.extend_from_slice(&checksum(bytes).to_be_bytes());
        out.extend_from_slice(&(offset as u32).to_be_bytes());
        out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
        offset += bytes.len().next_multiple_of(4);
    }
    for bytes in tables.values() {
        out.extend_from_slice(bytes);
        out.resize(out.len().next_multiple_of(4), 0);
    }
    let adjustment = 0xB1B0_AFBAu32.wrapping_sub(checksum(&out));
    out[head_at + 8..head_at + 12].copy_from_slice(&adjustment.to_be_bytes());
    out
}

/// The OpenType table checksum: the sum of big-endian u32 words, zero-padded.
fn checksum(bytes: &[u8]) -> u32 {
    bytes.chunks(4).fold(0u32, |sum, chunk| {
        let mut word = [0u8; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        sum.wrapping_add(u32::from_be_bytes(word))
    })
}

/// The binary-search hints OpenType puts before `count` sorted entries of `size` bytes:
/// searchRange, entrySelector, rangeShift.
fn search_fields(count: u16, size: u16) -> [u16; 3] {
    let power = 1u16 << (15 - count.max(1).leading_zeros());
    [
        size * power,
        power.trailing_zeros() as u16,
        size * (count - power),
    ]
}

/// Appends `values` big-endian.
fn put_u16s(out: &mut Vec<u8>, values: &[u16]) {
    for v in values {
        out.extend_from_slice(&v.to_be_bytes());
    }
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::style::{BOLD, REGULAR};

    fn chars(text: &str) -> BTreeSet<char> {
        text.chars().collect()
    }

    #[test]
    fn the_subset_draws_every_character_as_the_whole_font_does() {
        // Letters, digits, punctuation, and composites (é, Å are built from components).
        let text = "Tested: detection × rate 240/240 — é Å ½ {}[]%+";
        for font in [REGULAR, BOLD] {
            let bytes = subset(font, &chars(text)).unwrap();
            assert!(bytes.len() < 40_000, "{} bytes", bytes.len());
            let whole = Face::parse(font, 0).unwrap();
            let part = Face::parse(&bytes, 0).unwrap();
            assert!(part.number_of_glyphs() < 60, "{}", part.number_of_glyphs());
            for c in text.chars() {
                let (a, b) = (whole.glyph_index(c).unwrap(), part.glyph_index(c).unwrap());
                assert_eq!(whole.glyph_hor_advance(a), part.glyph_hor_advance(b), "{c}");
                assert_eq!(
                    whole.glyph_hor_side_bearing(a),
                    part.glyph_hor_side_bearing(b),
                    "{c}"
                );
                assert_eq!(outline(&whole, a), outline(&part, b), "{c}");
            }
            assert!(part.glyph_index('Z').is_none());
            // Kerning survives among kept glyphs (DejaVu kerns "Te").
            let kerning = |face: &Face, l: char, r: char| {
                let (l, r) = (face.glyph_index(l).unwrap(), face.glyph_index(r).unwrap());
                face.tables()
                    .kern
                    .and_then(|k| k.subtables.into_iter().find_map(|s| s.glyphs_kerning(l, r)))
            };
            assert!(kerning(&whole, 'T', 'e').is_some());
            assert_eq!(kerning(&whole, 'T', 'e'), kerning(&part, 'T', 'e'));
        }
    }

    #[test]
    fn the_file_checksums_to_the_magic_number() {
        let bytes = subset(REGULAR, &chars("abc")).unwrap();
        assert_eq!(checksum(&bytes), 0xB1B0_AFBA);
        assert_eq!(bytes, subset(REGULAR, &chars("cba")).unwrap());
    }

    /// A glyph's outline as a list of drawing commands.
    fn outline(face: &Face, glyph: ttf_parser::GlyphId) -> String {
        struct Path(String);
        impl ttf_parser::OutlineBuilder for Path {
            fn move_to(&mut self, x: f32, y: f32) {
                self.0 += &format!("M{x},{y}");
            }
            fn line_to(&mut self, x: f32, y: f32) {
                self.0 += &format!("L{x},{y}");
            }
            fn quad_to(&mut self, a: f32, b: f32, x: f32, y: f32) {
                self.0 += &format!("Q{a},{b},{x},{y}");
            }
            fn curve_to(&mut self, a: f32, b: f32, c: f32, d: f32, x: f32, y: f32) {
                self.0 += &format!("C{a},{b},{c},{d},{x},{y}");
            }
            fn close(&mut self) {
                self.0 += "Z";
            }
        }
        let mut path = Path(String::new());
        face.outline_glyph(glyph, &mut path);
        path.0
    }
}
