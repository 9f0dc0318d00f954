//! Stacked horizontal bars, one per row, each split into coloured segments with a legend. The
//! output-contracts study draws one row per server (its tools split by what their outputSchema
//! does with a corrupted answer); the guard study one row per class and path (its calls split by
//! verdict). Rows come sorted by the caller.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::error::Drawn;
use super::fill::{self, Fill};
use super::legend::{self, Entry, LegendStyle};
use super::style;
use super::{render_both, Drawing, Figure, Medium, PlotError, Swatch, PRINT_MIN_SIZE};

/// The chart's file name without extension or medium.
pub const FILE_STEM: &str = "output-contracts";

/// The segments, in drawing order, with their legend text and colour: five steps of lightness
/// (L* 47, 68, 26, 0 and 89), so they part in grey print without a hatch.
pub const SEGMENTS: [(&str, RGBColor); 5] = [
    ("enforceable", RGBColor(0, 127, 93)),
    ("partially enforceable", RGBColor(221, 153, 0)),
    (
        "vacuous (accepts a corrupted answer)",
        RGBColor(121, 23, 23),
    ),
    ("invalid (cannot compile)", RGBColor(0, 0, 0)),
    ("no outputSchema", RGBColor(224, 224, 224)),
];

/// One bar: its label and its count per segment.
pub struct ContractRow {
    /// The bar's label (a server, or a group of them).
    pub label: String,
    /// How many tools fall in each segment, in the chart's segment order.
    pub counts: Vec<usize>,
}

/// What a chart counts, singular and plural ("tool", "tools").
pub type Unit = (&'static str, &'static str);

/// Sizes and spacing of one medium.
struct Sizes {
    title: f64,
    title_line: i32,
    label: f64,
    line: i32,
    legend: LegendStyle,
    margin: i32,
    /// The least row height, and the gap between a row's bar and its neighbours.
    row: i32,
    bar_inset: i32,
}

const SCREEN: Sizes = Sizes {
    title: 28.0,
    title_line: 36,
    label: 16.0,
    line: 20,
    legend: LegendStyle::SCREEN,
    margin: 40,
    row: 30,
    bar_inset: 4,
};

const PRINT: Sizes = Sizes {
    title: 11.0,
    title_line: 14,
    label: PRINT_MIN_SIZE,
    line: 11,
    legend: LegendStyle::PRINT,
    margin: 6,
    row: 13,
    bar_inset: 2,
};

/// Where everything goes.
struct Layout {
    sizes: Sizes,
    width: u32,
    height: u32,
    title: Vec<String>,
    legend: Vec<Entry>,
    /// Each segment's paint, in the segments' order.
    fills: Vec<Fill>,
    /// The bars' left edge and width.
    left: i32,
    bar_width: i32,
    /// Each row's top, height and label lines.
    rows: Vec<(i32, i32, Vec<String>)>,
    bottom: i32,
}

impl Layout {
    fn new(
        title: &str,
        segments: &[(&str, RGBColor)],
        rows: &[ContractRow],
        unit: Unit,
        medium: Medium,
    ) -> Layout {
        let (sizes, width) = match medium.print() {
            None => (SCREEN, 1600),
            Some(print) => (PRINT, print.width.points()),
        };
        let room = width - 2 * sizes.margin as u32;
        let title = style::wrap_words(title, sizes.title, true, room);
        let series = legend::blocks(segments.iter().copied());
        let fills = series.iter().map(|one| one.fill).collect();
        let legend_top =
            sizes.margin / 2 + sizes.title_line * title.len() as i32 + sizes.margin / 2;
        let (legend, legend_bottom) = legend::layout(&series, legend_top, width, &sizes.legend);
        let totals = rows
            .iter()
            .map(|r| style::text_width(&total_label(r, unit), sizes.label, false))
            .max()
            .unwrap_or(0) as i32;
        // Labels take what they need, up to 45% of the canvas; longer ones wrap.
        let longest = rows
            .iter()
            .map(|r| style::text_width(&r.label, sizes.label, false))
            .max()
            .unwrap_or(0) as i32;
        let label_room = longest.min(width as i32 * 45 / 100);
        let left = sizes.margin + label_room + sizes.margin;
        let bar_width = width as i32 - left - totals - 2 * sizes.margin;
        let mut y = legend_bottom + sizes.margin + sizes.line / 2;
        let rows = rows
            .iter()
            .map(|r| {
                let lines = style::break_to_width(&r.label, sizes.label, label_room as u32);
                let height = sizes
                    .row
                    .max(sizes.line * lines.len() as i32 + 2 * sizes.bar_inset);
                let row = (y, height, lines);
                y += height;
                row
            })
            .collect();
        // The guides' labels under the bars, then a margin.
        let height = (y + sizes.bar_inset + sizes.line + sizes.margin + sizes.line / 2) as u32;
        Layout {
            sizes,
            width,
            height,
            title,
            legend,
            fills,
            left,
            bar_width,
            rows,
            bottom: y,
        }
    }
}

fn total_label(row: &ContractRow, unit: Unit) -> String {
    let total: usize = row.counts.iter().sum();
    format!("{total} {}", if total == 1 { unit.0 } else { unit.1 })
}

/// The output-contracts chart: one bar per row, stacked by contract strength.
pub fn render(title: &str, rows: &[ContractRow], medium: Medium) -> Result<Figure, PlotError> {
    render_stacked(FILE_STEM, title, &SEGMENTS, rows, ("tool", "tools"), medium)
}

/// How long a bar is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Every bar full width: its segments are shares of its total.
    Share,
    /// The longest bar full width, the others in proportion: counts compare across rows.
    Count,
}

/// Any stacked bar chart: `segments` gives each count's legend text and colour, in order.
pub fn render_stacked(
    stem: &'static str,
    title: &str,
    segments: &[(&str, RGBColor)],
    rows: &[ContractRow],
    unit: Unit,
    medium: Medium,
) -> Result<Figure, PlotError> {
    render_scaled(stem, title, segments, rows, unit, Scale::Share, medium)
}

/// [`render_stacked`] with bars of either [`Scale`].
pub fn render_scaled(
    stem: &'static str,
    title: &str,
    segments: &[(&str, RGBColor)],
    rows: &[ContractRow],
    unit: Unit,
    scale: Scale,
    medium: Medium,
) -> Result<Figure, PlotError> {
    let layout = Layout::new(title, segments, rows, unit, medium);
    let size = (layout.width, layout.height);
    render_both(
        stem,
        medium,
        size,
        &Stacked {
            rows,
            unit,
            scale,
            layout,
        },
    )
}

struct Stacked<'a> {
    rows: &'a [ContractRow],
    unit: Unit,
    scale: Scale,
    layout: Layout,
}

impl Drawing for Stacked<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        draw(root, self)
    }
    fn key(&self) -> Vec<Swatch> {
        legend::swatches(&self.layout.legend, &self.layout.sizes.legend)
    }
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, chart: &Stacked<'_>) -> Drawn {
    let l = &chart.layout;
    let s = &l.sizes;
    root.fill(&WHITE)?;
    let text = |size: f64, bold: bool, h: HPos, v: VPos| style::text_style(size, bold, BLACK, h, v);
    for (i, line) in l.title.iter().enumerate() {
        root.draw(&Text::new(
            line.as_str(),
            (l.width as i32 / 2, s.margin / 2 + s.title_line * i as i32),
            text(s.title, true, HPos::Center, VPos::Top),
        ))?;
    }
    legend::draw(root, &l.legend, &s.legend)?;
    let (left, bar_width) = (l.left, l.bar_width);
    let longest: usize = chart
        .rows
        .iter()
        .map(|r| r.counts.iter().sum())
        .max()
        .unwrap_or(0);
    for (row, (y, height, lines)) in chart.rows.iter().zip(&l.rows) {
        let (y, height) = (*y, *height);
        let first = y + height / 2 - s.line * (lines.len() as i32 - 1) / 2;
        for (i, line) in lines.iter().enumerate() {
            root.draw(&Text::new(
                line.as_str(),
                (left - s.margin, first + s.line * i as i32),
                text(s.label, false, HPos::Right, VPos::Center),
            ))?;
        }
        let total: usize = match chart.scale {
            Scale::Share => row.counts.iter().sum(),
            Scale::Count => longest,
        };
        let mut start = 0usize;
        for (count, &paint) in row.counts.iter().zip(&l.fills) {
            if *count == 0 || total == 0 {
                continue;
            }
            let x0 = left + (bar_width as usize * start / total) as i32;
            let x1 = left + (bar_width as usize * (start + count) / total) as i32;
            let corners = [(x0, y + s.bar_inset), (x1, y + height - s.bar_inset)];
            fill::rect(root, corners, paint, s.legend.hatch)?;
            start += count;
        }
        let end = match chart.scale {
            Scale::Share => bar_width,
            Scale::Count if longest == 0 => 0,
            Scale::Count => {
                (bar_width as usize * row.counts.iter().sum::<usize>() / longest) as i32
            }
        };
        root.draw(&Text::new(
            total_label(row, chart.unit),
            (left + end + s.margin, y + height / 2),
            text(s.label, false, HPos::Left, VPos::Center),
        ))?;
    }
    // Guides under the bars: 0%, 50% and 100%, or none, half and all of the longest bar.
    let top = l.rows.first().map_or(l.bottom, |r| r.0);
    let bottom = l.bottom + s.bar_inset;
    let guides = match chart.scale {
        Scale::Share => [(0, "0%".into()), (50, "50%".into()), (100, "100%".into())],
        Scale::Count => [
            (0, "0".to_string()),
            (50, format!("{}", longest as f64 / 2.0)),
            (100, longest.to_string()),
        ],
    };
    for (share, label) in guides {
        let x = left + bar_width * share / 100;
        root.draw(&PathElement::new(
            vec![(x, top - s.bar_inset), (x, bottom)],
            style::GRID,
        ))?;
        root.draw(&Text::new(
            label.to_string(),
            (x, bottom + 2),
            text(s.label, false, HPos::Center, VPos::Top),
        ))?;
    }
    Ok(())
}
