//! Stacked horizontal bars, one per row, each split into coloured segments with a legend. The
//! output-contracts study draws one row per server (its tools split by what their outputSchema
//! does with a corrupted answer); the guard study one row per class and path (its calls split by
//! verdict). Rows come sorted by the caller.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::error::Drawn;
use super::style::{self, FONT};
use super::{render_both, Figure, PlotError};

pub const FILE_STEM: &str = "output-contracts";

/// The segments, in drawing order, with their legend text and colour.
pub const SEGMENTS: [(&str, RGBColor); 5] = [
    ("enforceable", RGBColor(0, 158, 115)),
    ("partially enforceable", RGBColor(230, 159, 0)),
    ("vacuous (accepts a corrupted answer)", RGBColor(213, 94, 0)),
    ("invalid (cannot compile)", RGBColor(0, 0, 0)),
    ("no outputSchema", RGBColor(200, 200, 200)),
];

/// One bar: its label and its count per segment.
pub struct ContractRow {
    pub label: String,
    pub counts: Vec<usize>,
}

/// What a chart counts, singular and plural ("tool", "tools").
pub type Unit = (&'static str, &'static str);

const LEFT: i32 = 560;
const RIGHT_MARGIN: i32 = 150;
const TOP: i32 = 150;
const ROW: i32 = 30;

pub fn render(title: &str, rows: &[ContractRow]) -> Result<Figure, PlotError> {
    render_stacked(FILE_STEM, title, &SEGMENTS, rows, ("tool", "tools"))
}

/// Any stacked bar chart: `segments` gives each count's legend text and colour, in order.
pub fn render_stacked(
    stem: &'static str,
    title: &str,
    segments: &[(&str, RGBColor)],
    rows: &[ContractRow],
    unit: Unit,
) -> Result<Figure, PlotError> {
    let height = (TOP + ROW * rows.len() as i32 + 60) as u32;
    render_both(
        stem,
        (1600, height),
        &|root| draw(root, title, segments, rows, unit),
        &|root| draw(root, title, segments, rows, unit),
    )
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    segments: &[(&str, RGBColor)],
    rows: &[ContractRow],
    unit: Unit,
) -> Drawn {
    root.fill(&WHITE)?;
    let (width, _) = root.dim_in_pixel();
    let text = |size: u32, bold: bool, h: HPos| {
        let style = if bold {
            FontStyle::Bold
        } else {
            FontStyle::Normal
        };
        (FONT, size, style)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(h, VPos::Center))
    };
    root.draw(&Text::new(
        title.to_string(),
        (width as i32 / 2, 30),
        text(28, true, HPos::Center),
    ))?;
    // Legend: one swatch and label per segment, in one row.
    let mut x = 40;
    for &(label, colour) in segments {
        root.draw(&Rectangle::new([(x, 75), (x + 22, 97)], colour.filled()))?;
        root.draw(&Text::new(
            label.to_string(),
            (x + 30, 86),
            text(18, false, HPos::Left),
        ))?;
        x += 40 + 9 * label.chars().count() as i32 + 20;
    }
    let bar_width = width as i32 - LEFT - RIGHT_MARGIN;
    for (i, row) in rows.iter().enumerate() {
        let y = TOP + ROW * i as i32;
        let total: usize = row.counts.iter().sum();
        root.draw(&Text::new(
            row.label.clone(),
            (LEFT - 12, y + ROW / 2),
            text(16, false, HPos::Right),
        ))?;
        let mut start = 0usize;
        for (count, &(_, colour)) in row.counts.iter().zip(segments) {
            if *count == 0 || total == 0 {
                continue;
            }
            let x0 = LEFT + (bar_width as usize * start / total) as i32;
            let x1 = LEFT + (bar_width as usize * (start + count) / total) as i32;
            root.draw(&Rectangle::new(
                [(x0, y + 4), (x1, y + ROW - 4)],
                colour.filled(),
            ))?;
            start += count;
        }
        root.draw(&Text::new(
            format!("{total} {}", if total == 1 { unit.0 } else { unit.1 }),
            (LEFT + bar_width + 10, y + ROW / 2),
            text(16, false, HPos::Left),
        ))?;
    }
    // 0%, 50% and 100% guides under the bars.
    let bottom = TOP + ROW * rows.len() as i32 + 4;
    for (share, label) in [(0, "0%"), (50, "50%"), (100, "100%")] {
        let x = LEFT + bar_width * share / 100;
        root.draw(&PathElement::new(
            vec![(x, TOP - 6), (x, bottom)],
            style::GRID,
        ))?;
        root.draw(&Text::new(
            label.to_string(),
            (x, bottom + 16),
            text(16, false, HPos::Center),
        ))?;
    }
    Ok(())
}
