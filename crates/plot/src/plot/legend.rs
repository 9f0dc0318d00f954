//! A legend: "■ series" entries left to right, wrapping between entries (and inside an entry too
//! long for a line), measured in the embedded font.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::error::Drawn;
use super::style::{self, FONT};
use super::PRINT_MIN_SIZE;

/// Sizes and spacing of a legend.
pub(crate) struct LegendStyle {
    pub size: f64,
    pub left: i32,
    /// Room kept free right of the legend.
    pub right: i32,
    pub swatch: i32,
    /// From an entry's top to its swatch's.
    pub swatch_inset: i32,
    /// From a swatch's left edge to its text.
    pub swatch_gap: i32,
    /// After an entry's text, before the next swatch.
    pub entry_gap: i32,
    /// The height of a one-line entry.
    pub row: i32,
    /// From one row of entries to the next.
    pub step: i32,
    /// From one line of an entry to its next.
    pub line: i32,
}

impl LegendStyle {
    /// The stacked charts' and timelines' legend on screen, in pixels.
    pub(crate) const SCREEN: LegendStyle = LegendStyle {
        size: 18.0,
        left: 40,
        right: 40,
        swatch: 22,
        swatch_inset: 2,
        swatch_gap: 30,
        entry_gap: 40,
        row: 26,
        step: 32,
        line: 22,
    };

    /// Every print figure's legend, in points.
    pub(crate) const PRINT: LegendStyle = LegendStyle {
        size: PRINT_MIN_SIZE,
        left: 6,
        right: 6,
        swatch: 8,
        swatch_inset: 1,
        swatch_gap: 11,
        entry_gap: 12,
        row: 11,
        step: 12,
        line: 11,
    };
}

/// One entry: its top-left corner, its text lines and colour.
pub struct Entry {
    at: (i32, i32),
    lines: Vec<String>,
    colour: RGBColor,
}

/// Lays `series` out from `top` on a canvas `width` wide; returns the entries and the bottom.
pub fn layout(
    series: &[(String, RGBColor)],
    top: i32,
    width: u32,
    s: &LegendStyle,
) -> (Vec<Entry>, i32) {
    let (left, right) = (s.left, width as i32 - s.right);
    let text_room = (right - left - s.swatch_gap).max(1) as u32;
    let (mut x, mut y) = (left, top);
    let mut entries = Vec::new();
    let mut bottom = top + s.row;
    for (label, colour) in series {
        let lines = style::wrap_words(label, s.size, false, text_room);
        let text_w = lines
            .iter()
            .map(|l| style::text_width(l, s.size, false) as i32)
            .max()
            .unwrap_or(0);
        if x + s.swatch_gap + text_w > right && x > left {
            x = left;
            y = bottom - s.row + s.step;
        }
        bottom = bottom.max(y + s.row + s.line * (lines.len() as i32 - 1));
        entries.push(Entry {
            at: (x, y),
            lines,
            colour: *colour,
        });
        x += s.swatch_gap + text_w + s.entry_gap;
    }
    (entries, bottom)
}

pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    entries: &[Entry],
    s: &LegendStyle,
) -> Drawn {
    let font = (FONT, s.size).into_font().color(&BLACK);
    for entry in entries {
        let (x, y) = entry.at;
        root.draw(&Rectangle::new(
            [
                (x, y + s.swatch_inset),
                (x + s.swatch, y + s.swatch_inset + s.swatch),
            ],
            entry.colour.filled(),
        ))?;
        for (i, line) in entry.lines.iter().enumerate() {
            root.draw(&Text::new(
                line.clone(),
                (x + s.swatch_gap, y + s.swatch_inset - 1 + s.line * i as i32),
                font.pos(Pos::new(HPos::Left, VPos::Top)),
            ))?;
        }
    }
    Ok(())
}
