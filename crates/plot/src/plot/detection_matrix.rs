//! Heatmap: gates (rows) × mutation classes (columns), the detection rate and its count (k/n) in
//! each cell. Sized from the number of rows and columns (no wider than the grid and its title
//! need), with vertical column labels, so it stays readable at ~15 × 25. In a labelled study a
//! band over the columns names each run of classes with the same label (breaking, dangerous,
//! compatible, benign), and the two kinds of column have two scales: a flag of a class a gate
//! should flag is a detection (viridis), a flag of a harmless class a false alarm (reds), so a
//! false alarm never looks like a detection. A colour bar reads each scale; gates that emulate a
//! published tool are marked `(emulated)`.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::error::Drawn;
use super::style::{self, FONT};
use super::{render_both, Drawing, Figure, Medium, PlotError};
use driftlab_record::Summary;

pub(super) mod print;

/// The matrix's file name without extension or medium.
pub const FILE_STEM: &str = "detection-matrix";

const CELL_W: u32 = 76;
const CELL_H: u32 = 44;
const LABEL_FONT: f64 = 18.0;
/// Height of the label band over the column labels.
const BAND_H: u32 = 34;
/// Width of one colour bar and its labels, right of the grid.
const COLOUR_BAR_W: u32 = 150;
/// How far apart two colour bars are.
const COLOUR_BAR_STEP: i32 = 110;
/// The size of a cell's rate and of its count under it.
const RATE_SIZE: f64 = 16.0;
const COUNT_SIZE: f64 = 12.0;

struct Layout {
    left: u32,
    top: u32,
    width: u32,
    height: u32,
    /// The study's title, wrapped to the canvas, under the figure's own title.
    subtitle: Vec<String>,
    /// Top of the label band.
    band_top: u32,
    /// Height of the grid, or of the colour bar when that is taller.
    grid_height: u32,
    /// The note under the grid, wrapped to the canvas.
    note: Vec<String>,
}

const NOTE: &str =
    "Cell: share (and count, k/n) of the injected changes of that class the gate flagged.";
const NOTE_LABELLED: &str = " Breaking and dangerous columns: a flag is a detection (viridis). \
    Compatible and benign columns: a flag is a false alarm (reds).";
pub(super) const NOTE_NOT_APPLICABLE: &str = " Grey: class not applicable.";
pub(super) const NOTE_EMULATED: &str =
    " (emulated): a gate that emulates a published tool's check.";
const NOTE_SIZE: f64 = 18.0;
const NOTE_LINE: u32 = 24;
/// The colour bar's least height: room for its five labels.
const COLOUR_BAR_MIN_H: u32 = 160;

/// The figure's own title (30 px bold), then the study's (wrapped, 20 px).
pub(super) const TITLE: &str = "Detection rate, gate × mutation class";
const TITLE_SIZE: f64 = 30.0;
const SUBTITLE_SIZE: f64 = 20.0;
const SUBTITLE_LINE: u32 = 26;

/// The matrix for `medium`: on screen gates are rows and classes columns; in print, where
/// 24+ classes cannot be columns at 7 in, classes are rows grouped under their label, in parts
/// where the whole would be taller than a column page ([`print::MAX_HEIGHT`]).
pub fn render(summary: &Summary, medium: Medium) -> Result<Vec<Figure>, PlotError> {
    style::register_fonts().map_err(|fault| PlotError {
        figure: FILE_STEM,
        fault,
    })?;
    match medium.print() {
        None => {
            let layout = layout(summary);
            let size = (layout.width, layout.height);
            Ok(vec![render_both(
                FILE_STEM,
                medium,
                size,
                &Screen { summary, layout },
            )?])
        }
        Some(print) => {
            let parts = print::Layout::parts(summary, print.width.points());
            let n = parts.len();
            let mut figures = Vec::with_capacity(n);
            for (i, layout) in parts.into_iter().enumerate() {
                let size = (layout.width, layout.height);
                let mut figure =
                    render_both(FILE_STEM, medium, size, &print::Matrix { summary, layout })?;
                figure.part = (n > 1).then_some((i + 1, n));
                figures.push(figure);
            }
            Ok(figures)
        }
    }
}

/// How many parts the matrix is drawn in for `medium`: one on screen.
pub(crate) fn parts(summary: &Summary, medium: Medium) -> usize {
    medium.print().map_or(1, |print| {
        print::Layout::parts(summary, print.width.points()).len()
    })
}

struct Screen<'a> {
    summary: &'a Summary,
    layout: Layout,
}

impl Drawing for Screen<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        draw(root, self.summary, &self.layout)
    }
    /// None: every cell carries its count or rate, and every band its label.
    fn key(&self) -> Vec<crate::plot::Swatch> {
        Vec::new()
    }
}

/// Consecutive runs of classes with the same label: (label, first column, end column). Empty
/// for a study without labels.
pub(crate) fn label_bands(
    summary: &Summary,
) -> Vec<(driftlab_mutate::mutate::Label, usize, usize)> {
    let mut bands: Vec<(driftlab_mutate::mutate::Label, usize, usize)> = Vec::new();
    for (c, class) in summary.mutations.iter().enumerate() {
        let Some(label) = summary.labels.iter().find(|l| &l.mutation == class) else {
            return Vec::new();
        };
        match bands.last_mut() {
            Some((last, _, end)) if *last == label.label && *end == c => *end = c + 1,
            _ => bands.push((label.label, c, c + 1)),
        }
    }
    bands
}

/// The largest size, down to 10 px, at which `text` fits in `room` pixels.
fn band_font_size(text: &str, room: u32) -> f64 {
    let mut size = LABEL_FONT;
    while size > 10.0 && style::text_width(text, size, false) > room {
        size -= 1.0;
    }
    size
}

/// Label areas are as wide as the longest labels, measured in the embedded font; the canvas is
/// as wide as the grid, its labels and colour bar, or the figure's title, whichever is wider, and
/// the study's title wraps to it: no empty canvas.
fn layout(summary: &Summary) -> Layout {
    let widest = |labels: &mut dyn Iterator<Item = &str>| {
        labels
            .map(|l| style::text_width(l, LABEL_FONT, false))
            .max()
            .unwrap_or(0)
    };
    let gates: Vec<String> = summary.gates.iter().map(style::gate_label).collect();
    let left = 40 + widest(&mut gates.iter().map(String::as_str));
    let longest_class = widest(&mut summary.mutations.iter().map(String::as_str));
    let cols = summary.mutations.len() as u32;
    let rows = summary.gates.len() as u32;
    let natural = left + cols * CELL_W + 30 + colour_bars_width(summary);
    let width = natural.max(style::text_width(TITLE, TITLE_SIZE, true) + 80);
    let subtitle = style::wrap_words(summary.display_title(), SUBTITLE_SIZE, false, width - 80);
    let band_top = 64 + subtitle.len() as u32 * SUBTITLE_LINE;
    let band = if label_bands(summary).is_empty() {
        0
    } else {
        BAND_H + 8
    };
    let top = band_top + band + longest_class + 16;
    // Centre the grid when the title is wider than it.
    let left = left + (width - natural) / 2;
    let grid_height = (rows * CELL_H).max(COLOUR_BAR_MIN_H);
    let note = style::wrap_words(&note(summary, &gates), NOTE_SIZE, false, width - left - 20);
    Layout {
        left,
        top,
        width,
        height: top + grid_height + 30 + note.len() as u32 * NOTE_LINE + 20,
        subtitle,
        band_top,
        grid_height,
        note,
    }
}

/// Whether the study has harmless (compatible or benign) classes: then the matrix has two scales.
pub(super) fn two_scales(summary: &Summary) -> bool {
    summary.labels.iter().any(|l| is_harmless(l.label))
}

fn is_harmless(label: driftlab_mutate::mutate::Label) -> bool {
    use driftlab_mutate::mutate::Label;
    matches!(label, Label::Compatible | Label::Benign)
}

fn colour_bars_width(summary: &Summary) -> u32 {
    match two_scales(summary) {
        true => COLOUR_BAR_STEP as u32 + COLOUR_BAR_W,
        false => COLOUR_BAR_W,
    }
}

/// The note under the grid: what a cell holds, and only what this figure shows.
pub(super) fn note(summary: &Summary, gates: &[String]) -> String {
    let mut note = NOTE.to_string();
    if two_scales(summary) {
        note.push_str(NOTE_LABELLED);
    }
    if summary.cells.iter().any(|c| c.total == 0) {
        note.push_str(NOTE_NOT_APPLICABLE);
    }
    if gates.iter().any(|g| g.ends_with("(emulated)")) {
        note.push_str(NOTE_EMULATED);
    }
    note
}

/// A cell's colour: grey when the class did not apply, else its rate on its column's scale.
pub(super) fn cell_colour(summary: &Summary, class: &str, rate: Option<f64>) -> RGBColor {
    let harmless = summary
        .labels
        .iter()
        .any(|l| l.mutation == class && is_harmless(l.label));
    match (rate, harmless) {
        (None, _) => style::NOT_APPLICABLE,
        (Some(rate), true) => style::reds(rate),
        (Some(rate), false) => style::viridis(rate),
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    summary: &Summary,
    layout: &Layout,
) -> Drawn {
    root.fill(&WHITE)?;
    root.draw(&Text::new(
        TITLE,
        (layout.width as i32 / 2, 18),
        (FONT, TITLE_SIZE, FontStyle::Bold)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))?;
    style::draw_muted_lines(
        root,
        &layout.subtitle,
        (layout.width as i32 / 2, 60),
        SUBTITLE_LINE as i32,
        SUBTITLE_SIZE,
        HPos::Center,
    )?;
    let (left, top) = (layout.left as i32, layout.top as i32);
    let (cw, ch) = (CELL_W as i32, CELL_H as i32);
    let label = (FONT, LABEL_FONT).into_font().color(&BLACK);
    for (c, class) in summary.mutations.iter().enumerate() {
        // Vertical labels read bottom to top, one column wide each: they cannot overlap.
        root.draw(&Text::new(
            class.clone(),
            (
                left + c as i32 * cw + cw / 2 - LABEL_FONT as i32 / 2,
                top - 8,
            ),
            label
                .transform(FontTransform::Rotate270)
                .pos(Pos::new(HPos::Left, VPos::Top)),
        ))?;
    }
    for (r, gate) in summary.gates.iter().enumerate() {
        let y = top + r as i32 * ch;
        root.draw(&Text::new(
            style::gate_label(gate),
            (left - 10, y + ch / 2),
            label.pos(Pos::new(HPos::Right, VPos::Center)),
        ))?;
        for (c, class) in summary.mutations.iter().enumerate() {
            let x = left + c as i32 * cw;
            let cell = summary.cell(&gate.id, class);
            let rate = cell.and_then(|cell| cell.rate);
            let fill = cell_colour(summary, class, rate);
            root.draw(&Rectangle::new([(x, y), (x + cw, y + ch)], fill.filled()))?;
            root.draw(&Rectangle::new(
                [(x, y), (x + cw, y + ch)],
                WHITE.stroke_width(2),
            ))?;
            let ink = if style::is_light(fill) { BLACK } else { WHITE };
            let count = cell
                .filter(|c| c.total > 0)
                .map(|c| style::count(c.detected, c.total))
                .filter(|k| style::text_width(k, COUNT_SIZE, false) + 6 <= CELL_W);
            let rate_y = if count.is_some() {
                y + ch / 2 - 8
            } else {
                y + ch / 2
            };
            root.draw(&Text::new(
                style::percent(rate),
                (x + cw / 2, rate_y),
                (FONT, RATE_SIZE)
                    .into_font()
                    .color(&ink)
                    .pos(Pos::new(HPos::Center, VPos::Center)),
            ))?;
            if let Some(count) = count {
                root.draw(&Text::new(
                    count,
                    (x + cw / 2, y + ch / 2 + 11),
                    (FONT, COUNT_SIZE)
                        .into_font()
                        .color(&ink)
                        .pos(Pos::new(HPos::Center, VPos::Center)),
                ))?;
            }
        }
    }
    for (label, first, end) in label_bands(summary) {
        let (x0, x1) = (left + first as i32 * cw, left + end as i32 * cw);
        let y0 = layout.band_top as i32;
        let colour = style::label_colour(label);
        root.draw(&Rectangle::new(
            [(x0 + 2, y0), (x1 - 2, y0 + BAND_H as i32)],
            colour.filled(),
        ))?;
        // The whole word, in a smaller size where one column is too narrow for it.
        let text = label.as_str();
        let room = (x1 - x0 - 8).max(0) as u32;
        let size = band_font_size(text, room);
        root.draw(&Text::new(
            text,
            ((x0 + x1) / 2, y0 + BAND_H as i32 / 2),
            (FONT, size)
                .into_font()
                .color(&WHITE)
                .pos(Pos::new(HPos::Center, VPos::Center)),
        ))?;
    }
    let bar_x = left + summary.mutations.len() as i32 * cw + 30;
    let height = layout.grid_height as i32;
    if two_scales(summary) {
        draw_colour_bar(root, bar_x, top, height, style::viridis, Some("detected"))?;
        let x = bar_x + COLOUR_BAR_STEP;
        draw_colour_bar(root, x, top, height, style::reds, Some("false alarm"))?;
    } else {
        draw_colour_bar(root, bar_x, top, height, style::viridis, None)?;
    }
    style::draw_muted_lines(
        root,
        &layout.note,
        (left, top + layout.grid_height as i32 + 30),
        NOTE_LINE as i32,
        NOTE_SIZE,
        HPos::Left,
    )
}

/// A vertical bar of `scale` from 0% (bottom) to 100% (top), labelled every 25%, with its
/// `title` over it.
fn draw_colour_bar<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    x: i32,
    top: i32,
    height: i32,
    scale: fn(f64) -> RGBColor,
    title: Option<&str>,
) -> Drawn {
    if let Some(title) = title {
        root.draw(&Text::new(
            title,
            (x, top - 10),
            (FONT, 15)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Bottom)),
        ))?;
    }
    let steps = 50;
    let step = (height as f64 / steps as f64).ceil() as i32;
    for i in 0..steps {
        let rate = 1.0 - i as f64 / (steps - 1) as f64;
        let y = top + (height * i) / steps;
        root.draw(&Rectangle::new(
            [(x, y), (x + 28, y + step)],
            scale(rate).filled(),
        ))?;
    }
    for quarter in 0..=4 {
        let rate = f64::from(quarter) / 4.0;
        let y = top + ((1.0 - rate) * f64::from(height)) as i32;
        root.draw(&Text::new(
            style::percent(Some(rate)),
            (x + 36, y),
            (FONT, 17)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
