//! Fonts, palette and text helpers shared by the charts.

use std::sync::{LazyLock, OnceLock};

use ab_glyph::{Font, FontRef, GlyphId, ScaleFont};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, RGBColor};

use super::error::{DrawFault, Drawn};

pub(crate) const FONT: &str = "sans-serif";

pub(super) static REGULAR: &[u8] = include_bytes!("../../../../assets/fonts/DejaVuSans.ttf");
pub(super) static BOLD: &[u8] = include_bytes!("../../../../assets/fonts/DejaVuSans-Bold.ttf");

/// The embedded fonts parsed once, for measuring and drawing text (regular, bold).
static FONTS: LazyLock<Option<(FontRef<'static>, FontRef<'static>)>> = LazyLock::new(|| {
    Some((
        FontRef::try_from_slice(REGULAR).ok()?,
        FontRef::try_from_slice(BOLD).ok()?,
    ))
});

/// The embedded regular or bold font, if it parsed (it is embedded, so it does).
pub(super) fn font(bold: bool) -> Option<&'static FontRef<'static>> {
    FONTS
        .as_ref()
        .map(|(regular, heavy)| if bold { heavy } else { regular })
}

/// How `text` is set in `font` at `size` px: each glyph with its pen position (advances plus
/// kerning), and the width of the whole run. Measuring and drawing share it, so labels are
/// drawn exactly as wide as the layout measured them.
pub(super) fn glyph_run(font: &FontRef<'_>, size: f32, text: &str) -> (Vec<(GlyphId, f32)>, f32) {
    let scaled = font.as_scaled(size);
    let mut glyphs = Vec::with_capacity(text.len());
    let mut pen = 0f32;
    let mut previous = None;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(previous) = previous {
            pen += scaled.kern(previous, id);
        }
        glyphs.push((id, pen));
        pen += scaled.h_advance(id);
        previous = Some(id);
    }
    (glyphs, pen)
}

/// The width in pixels of `text` at `size` px, as the charts draw it: advances plus kerning.
pub(crate) fn text_width(text: &str, size: f64, bold: bool) -> u32 {
    match font(bold) {
        Some(font) => glyph_run(font, size as f32, text).1.ceil() as u32,
        // Without the font (it is embedded, so never): about 0.62 em per character.
        None => (text.chars().count() as f64 * size * 0.62) as u32,
    }
}

/// `text` broken at spaces into lines at most `width` px wide at `size` px (a word longer than
/// that gets a line of its own).
pub(crate) fn wrap_words(text: &str, size: f64, bold: bool, width: u32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if text_width(&format!("{line} {word}"), size, bold) <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// `text` in lines at most `width` px wide at `size` px: broken after a space, `-`, `_`, `/`
/// or `@` where it can be, inside a run of other characters only where it must.
pub(crate) fn break_to_width(text: &str, size: f64, width: u32) -> Vec<String> {
    let fits = |line: &str| text_width(line, size, false) <= width;
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    // The pieces: each ends just after a break character.
    let mut pieces: Vec<String> = Vec::new();
    let mut piece = String::new();
    for c in text.chars() {
        piece.push(c);
        if matches!(c, ' ' | '-' | '_' | '/' | '@') {
            pieces.push(std::mem::take(&mut piece));
        }
    }
    pieces.push(piece);
    for piece in pieces.into_iter().filter(|p| !p.is_empty()) {
        if fits(&format!("{line}{piece}")) {
            line.push_str(&piece);
            continue;
        }
        if fits(&piece) {
            lines.push(std::mem::take(&mut line).trim_end().to_string());
            line = piece;
            continue;
        }
        // Too long for any line: fill this one, then as many as it takes.
        for c in piece.chars() {
            if !line.is_empty() && !fits(&format!("{line}{c}")) {
                lines.push(std::mem::take(&mut line));
            }
            line.push(c);
        }
    }
    if !line.is_empty() {
        lines.push(line.trim_end().to_string());
    }
    lines
}

/// Draws `lines` in muted text of `size` px one under another, `step` px apart, the first with
/// its top at `(x, y)`, anchored left or centred by `h_pos`.
pub(crate) fn draw_muted_lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    lines: &[String],
    (x, y): (i32, i32),
    step: i32,
    size: f64,
    h_pos: HPos,
) -> Drawn {
    for (i, line) in lines.iter().enumerate() {
        root.draw(&Text::new(
            line.as_str(),
            (x, y + step * i as i32),
            (FONT, size)
                .into_font()
                .color(&MUTED)
                .pos(Pos::new(h_pos, VPos::Top)),
        ))?;
    }
    Ok(())
}

/// Text in the embedded font at `size`, bold or not, in `colour`, anchored at `(h, v)`.
pub(crate) fn text_style(
    size: f64,
    bold: bool,
    colour: RGBColor,
    h: HPos,
    v: VPos,
) -> TextStyle<'static> {
    let weight = if bold {
        FontStyle::Bold
    } else {
        FontStyle::Normal
    };
    (FONT, size, weight)
        .into_font()
        .color(&colour)
        .pos(Pos::new(h, v))
}

/// Registers the embedded DejaVu Sans under the family `sans-serif` (once per process).
pub(crate) fn register_fonts() -> Drawn {
    static LOADED: OnceLock<bool> = OnceLock::new();
    let loaded = LOADED.get_or_init(|| {
        [(FontStyle::Normal, REGULAR), (FontStyle::Bold, BOLD)]
            .into_iter()
            .all(|(style, bytes)| plotters::style::register_font(FONT, style, bytes).is_ok())
    });
    match loaded {
        true => Ok(()),
        false => Err(DrawFault::Font),
    }
}

/// Okabe–Ito (distinguishable with the common forms of colour blindness), its yellow replaced by
/// a darker gold that reads on white, then five more from Paul Tol's muted scheme: twelve gates
/// before a colour repeats.
pub(crate) const PALETTE: &[RGBColor] = &[
    RGBColor(0, 114, 178),   // blue
    RGBColor(230, 159, 0),   // orange
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(153, 136, 0),   // dark gold (Okabe–Ito yellow has too little contrast on white)
    RGBColor(0, 0, 0),       // black
    RGBColor(51, 34, 136),   // indigo
    RGBColor(136, 34, 85),   // wine
    RGBColor(68, 170, 153),  // teal
    RGBColor(153, 153, 153), // grey
];

pub(crate) fn series_colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The colour of each label's band in the matrix header.
pub(crate) fn label_colour(label: driftlab_mutate::mutate::Label) -> RGBColor {
    use driftlab_mutate::mutate::Label;
    match label {
        Label::Breaking => RGBColor(178, 34, 34),
        Label::Dangerous => RGBColor(213, 94, 0),
        Label::Compatible => RGBColor(0, 114, 178),
        Label::Benign => RGBColor(0, 158, 115),
        Label::Control => RGBColor(120, 120, 120),
    }
}

pub(crate) const GRID: RGBColor = RGBColor(220, 220, 220);
pub(crate) const MUTED: RGBColor = RGBColor(90, 90, 90);
pub(crate) const NOT_APPLICABLE: RGBColor = RGBColor(235, 235, 235);

/// Viridis (perceptually uniform, colour-blind safe), sampled at 9 stops and interpolated.
const VIRIDIS: [(u8, u8, u8); 9] = [
    (68, 1, 84),
    (71, 44, 122),
    (59, 81, 139),
    (44, 113, 142),
    (33, 144, 141),
    (39, 173, 129),
    (92, 200, 99),
    (170, 220, 50),
    (253, 231, 37),
];

/// The colour of a rate in `0..=1`.
pub(crate) fn viridis(rate: f64) -> RGBColor {
    interpolate(&VIRIDIS, rate)
}

/// The colour at `rate` in `0..=1` along `stops`, evenly spaced, mixed linearly between them.
fn interpolate(stops: &[(u8, u8, u8)], rate: f64) -> RGBColor {
    let t = rate.clamp(0.0, 1.0) * (stops.len() - 1) as f64;
    let i = (t.floor() as usize).min(stops.len() - 2);
    let f = t - i as f64;
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * f).round() as u8;
    let (a, b) = (stops[i], stops[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// ColorBrewer's sequential Reds: the matrix's scale for harmless classes, where a flag is a
/// false alarm, so it never looks like a detection.
const REDS: [(u8, u8, u8); 5] = [
    (255, 245, 240),
    (252, 187, 161),
    (251, 106, 74),
    (203, 24, 29),
    (103, 0, 13),
];

/// The colour of a false-alarm rate in `0..=1`: near white for none, dark red for all.
pub(crate) fn reds(rate: f64) -> RGBColor {
    interpolate(&REDS, rate)
}

/// A gate as figures name it: its id, marked `(emulated)` when every rule it runs emulates a
/// published tool's check (`sorted-hash`, `description-hash`, `name-set`, `required-and-types`).
pub(crate) fn gate_label(gate: &driftlab_record::GateInfo) -> String {
    let emulated = !gate.rules.is_empty()
        && gate.rules.iter().all(|id| {
            driftlab_check::check::rules::by_id(id)
                .is_some_and(|r| r.summary().starts_with("emulation:"))
        });
    match emulated {
        true => format!("{} (emulated)", gate.id),
        false => gate.id.clone(),
    }
}

/// True when black text reads better than white on this colour, in colour and in grey: above
/// the middle of the lightness scale, so text is at least 45 L* from its ground.
pub(crate) fn is_light(c: RGBColor) -> bool {
    super::fill::lightness(c) > 55.0
}

/// `detected/total`, the way every table and chart prints a count.
pub fn count(detected: u64, total: u64) -> String {
    format!("{detected}/{total}")
}

/// A rate as a percentage for labels: `80%`, `66.7%`, `n/a`.
pub fn percent(rate: Option<f64>) -> String {
    match rate {
        None => "n/a".into(),
        Some(r) => {
            let p = r * 100.0;
            if (p - p.round()).abs() < 1e-9 {
                format!("{p:.0}%")
            } else {
                format!("{p:.1}%")
            }
        }
    }
}

/// Splits a label into at most two lines at the `-` or `+` nearest its middle, when longer than
/// `max` characters.
pub fn wrap(label: &str, max: usize) -> Vec<String> {
    if label.chars().count() <= max {
        return vec![label.to_string()];
    }
    let middle = label.len() / 2;
    let cut = label
        .char_indices()
        .filter(|(_, c)| *c == '-' || *c == '+')
        .map(|(i, _)| i)
        .min_by_key(|i| i.abs_diff(middle));
    match cut {
        Some(i) => vec![label[..=i].to_string(), label[i + 1..].to_string()],
        None => vec![label.to_string()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(percent(Some(0.8)), "80%");
        assert_eq!(percent(Some(2.0 / 3.0)), "66.7%");
        assert_eq!(percent(None), "n/a");
        assert_eq!(
            wrap("input-schema-array-root", 14),
            ["input-schema-", "array-root"]
        );
        assert_eq!(wrap("name-space", 14), ["name-space"]);
        register_fonts().unwrap();
        let lines = wrap_words("a study of drift in contracts", 20.0, false, 120);
        assert!(lines.len() > 1, "{lines:?}");
        assert_eq!(lines.join(" "), "a study of drift in contracts");
        assert!(lines.iter().all(|l| text_width(l, 20.0, false) <= 120));
        assert!(text_width("WW", 20.0, true) > text_width("ii", 20.0, true));
    }

    #[test]
    fn a_label_breaks_at_its_separators_then_where_it_must() {
        register_fonts().unwrap();
        let label = "@modelcontextprotocol__server-filesystem@2026.8.31";
        let width = text_width("modelcontextprotocol", 9.0, false);
        let lines = break_to_width(label, 9.0, width);
        assert_eq!(lines.concat(), label);
        assert!(
            lines.iter().all(|l| text_width(l, 9.0, false) <= width),
            "{lines:?}"
        );
        assert!(lines[0].starts_with("@model"), "{lines:?}");
        assert_eq!(break_to_width("a-b", 9.0, 1000), ["a-b"]);
        // A word wider than the room is cut where it must be.
        let narrow = break_to_width("abcdefgh", 9.0, text_width("abc", 9.0, false));
        assert_eq!(narrow, ["abc", "def", "gh"]);
    }

    #[test]
    fn viridis_ends() {
        assert_eq!(viridis(0.0), RGBColor(68, 1, 84));
        assert_eq!(viridis(1.0), RGBColor(253, 231, 37));
        assert!(!is_light(viridis(0.0)) && is_light(viridis(1.0)));
    }

    /// The matrix labels every cell, so it reads in grey where its text does: black or white,
    /// whichever is further from the cell's lightness, at every rate of both scales.
    #[test]
    fn matrix_text_stands_45_lightness_from_every_cell() {
        use super::super::fill::lightness;
        for (scale, rising) in [(viridis as fn(f64) -> RGBColor, true), (reds, false)] {
            let mut last = None;
            for step in 0..=100 {
                let cell = scale(f64::from(step) / 100.0);
                let ink = if is_light(cell) { BLACK } else { WHITE };
                let contrast = (lightness(cell) - lightness(ink)).abs();
                assert!(contrast >= 45.0, "{cell:?}: {contrast:.1} L*");
                // Each scale runs one way in grey, so a rate still reads as more or less.
                let l = lightness(cell);
                if let Some(previous) = last {
                    assert_eq!(l >= previous, rising, "{cell:?}");
                }
                last = Some(l);
            }
        }
    }
}
