//! A legend: "■ series" entries left to right, wrapping between entries (and inside an entry too
//! long for a line), measured in the embedded font. Each swatch is painted as its series is
//! (hatched or dashed where the series is), and the figure keeps where each swatch is, so a
//! test can read them back from the rendered image in grey.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::error::Drawn;
use super::fill::{self, Density, Fill};
use super::style::{self, FONT};
use super::{Swatch, PRINT_MIN_SIZE};

/// What a swatch shows of its series.
#[derive(Clone, Copy)]
pub enum Sample {
    /// A block of its fill, as bars are drawn.
    Block,
    /// A line across the swatch, as links are drawn, this many units wide.
    Line(u32),
}

/// One series as its legend shows it.
pub struct Series {
    pub label: String,
    pub fill: Fill,
    pub sample: Sample,
}

/// Blocks for `labels`, filled in order by [`fill::fills`] of their colours.
pub fn blocks<'a>(labels: impl IntoIterator<Item = (&'a str, RGBColor)>) -> Vec<Series> {
    let (labels, colours): (Vec<&str>, Vec<RGBColor>) = labels.into_iter().unzip();
    labels
        .into_iter()
        .zip(fill::fills(&colours))
        .map(|(label, fill)| Series {
            label: label.to_string(),
            fill,
            sample: Sample::Block,
        })
        .collect()
}

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
    /// The hatches' spacing and width.
    pub hatch: Density,
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
        hatch: Density::SCREEN,
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
        hatch: Density::PRINT,
    };
}

/// One entry: its top-left corner, its text lines, and how its swatch is painted.
pub struct Entry {
    at: (i32, i32),
    lines: Vec<String>,
    label: String,
    fill: Fill,
    sample: Sample,
}

/// Lays `series` out from `top` on a canvas `width` wide; returns the entries and the bottom.
pub fn layout(series: &[Series], top: i32, width: u32, s: &LegendStyle) -> (Vec<Entry>, i32) {
    let (left, right) = (s.left, width as i32 - s.right);
    let text_room = (right - left - s.swatch_gap).max(1) as u32;
    let (mut x, mut y) = (left, top);
    let mut entries = Vec::new();
    let mut bottom = top + s.row;
    for one in series {
        let lines = style::wrap_words(&one.label, s.size, false, text_room);
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
            label: one.label.clone(),
            fill: one.fill,
            sample: one.sample,
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
        let [a, b] = swatch_corners(entry, s);
        match entry.sample {
            Sample::Block => fill::rect(root, [a, b], entry.fill, s.hatch)?,
            Sample::Line(width) => {
                let mid = (a.1 + b.1) / 2;
                fill::line(
                    root,
                    (a.0, mid),
                    b.0,
                    entry.fill,
                    width,
                    s.hatch.dash_unit(),
                )?
            }
        }
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

/// Where an entry's swatch is: its top-left and bottom-right corners.
fn swatch_corners(entry: &Entry, s: &LegendStyle) -> [(i32, i32); 2] {
    let (x, y) = entry.at;
    [
        (x, y + s.swatch_inset),
        (x + s.swatch, y + s.swatch_inset + s.swatch),
    ]
}

/// Each entry's swatch, for the figure's key.
pub(crate) fn swatches(entries: &[Entry], s: &LegendStyle) -> Vec<Swatch> {
    entries
        .iter()
        .map(|entry| Swatch {
            label: entry.label.clone(),
            corners: swatch_corners(entry, s),
        })
        .collect()
}
