//! The matrix for print: classes are rows (grouped under a band naming their label), gates are
//! columns with rotated names, so 29 classes fit 7 in and 3.5 in. Every text is at least the
//! least print size; a cell holds its count (k/n) where every count fits a cell, else its rate
//! where every rate fits, else only its colour (the numbers are all in summary.csv). The two
//! colour scales are horizontal bars under the grid. A matrix taller than [`MAX_HEIGHT`] is
//! drawn in parts, split between labels where it can be, each part a figure of its own with the
//! header, the scales and the note.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{cell_colour, label_bands, two_scales, Drawn, NOTE_EMULATED, NOTE_NOT_APPLICABLE};
use crate::plot::style::{self, FONT};
use crate::plot::{Drawing, PRINT_MIN_SIZE};
use driftlab_mutate::mutate::Label;
use driftlab_record::Summary;

const TITLE_SIZE: f64 = 11.0;
const SIZE: f64 = PRINT_MIN_SIZE;
const LINE: u32 = 11;
const MARGIN: u32 = 6;
/// A row's height; a row of colour alone is lower.
const ROW_H: u32 = 12;
const COLOUR_ROW_H: u32 = 10;
/// The widest a gate's column gets: wider only spreads the grid.
const MAX_COLUMN: u32 = 60;
const BAR_W: u32 = 80;
const BAR_H: u32 = 7;
/// A colour bar's title, the bar, and its labels under it.
const BAR_BLOCK_H: u32 = LINE + BAR_H + 2 + LINE;
/// The tallest a print matrix (or a part of one) gets, in points: 6.5 in, which leaves a 9-in
/// column page room for the caption.
pub(crate) const MAX_HEIGHT: u32 = 468;

/// What a cell prints besides its colour.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CellText {
    Count,
    Rate,
    Colour,
}

pub(super) struct Layout {
    pub width: u32,
    pub height: u32,
    title: Vec<String>,
    subtitle: Vec<String>,
    /// Left edge and top of the grid (its first row, band or class).
    left: u32,
    top: u32,
    column: u32,
    row_h: u32,
    /// Each row top to bottom: a band naming a label, or a class by its index.
    rows: Vec<Row>,
    cell_text: CellText,
    /// Where each colour bar starts: side by side, or one under the other where 3.5 in is
    /// too narrow for both.
    bar_at: Vec<(u32, u32)>,
    note_top: u32,
    note: Vec<String>,
}

#[derive(Clone, Copy)]
enum Row {
    /// A label's band; `true` where it continues the band of the part before.
    Band(Label, bool),
    Class(usize),
}

/// Every row of the whole matrix, top to bottom.
fn all_rows(summary: &Summary) -> Vec<Row> {
    let bands = label_bands(summary);
    match bands.is_empty() {
        true => (0..summary.mutations.len()).map(Row::Class).collect(),
        false => bands
            .iter()
            .flat_map(|&(label, first, end)| {
                std::iter::once(Row::Band(label, false)).chain((first..end).map(Row::Class))
            })
            .collect(),
    }
}

/// `rows` in parts of at most `room` rows: whole labels where they fit, a label longer than a
/// part over as many parts as it takes, its band repeated at the top of each.
fn split_rows(rows: &[Row], room: usize) -> Vec<Vec<Row>> {
    let room = room.max(2);
    // The labels' runs: a band with its classes (or a lone class, without bands).
    let mut groups: Vec<Vec<Row>> = Vec::new();
    for &row in rows {
        match (row, groups.last_mut()) {
            (Row::Class(_), Some(group)) if matches!(group[0], Row::Band(..)) => group.push(row),
            _ => groups.push(vec![row]),
        }
    }
    let mut parts: Vec<Vec<Row>> = Vec::new();
    let mut part: Vec<Row> = Vec::new();
    for group in groups {
        if part.len() + group.len() > room && !part.is_empty() {
            parts.push(std::mem::take(&mut part));
        }
        if group.len() <= room {
            part.extend(group);
            continue;
        }
        let band = group[0];
        for (i, classes) in group[1..].chunks(room - 1).enumerate() {
            if !part.is_empty() {
                parts.push(std::mem::take(&mut part));
            }
            if let Row::Band(label, _) = band {
                part.push(Row::Band(label, i > 0));
            }
            part.extend_from_slice(classes);
        }
    }
    if !part.is_empty() {
        parts.push(part);
    }
    parts
}

impl Layout {
    /// The matrix at `width` points: one layout, or one per part where the whole would be taller
    /// than [`MAX_HEIGHT`].
    pub fn parts(summary: &Summary, width: u32) -> Vec<Layout> {
        let rows = all_rows(summary);
        let whole = Layout::new(summary, width, rows.clone(), None);
        if whole.height <= MAX_HEIGHT {
            return vec![whole];
        }
        // The room a part has for rows, under the longest title a part can have.
        let bare = Layout::new(summary, width, Vec::new(), Some((99, 99)));
        let room = (MAX_HEIGHT.saturating_sub(bare.height) / bare.row_h) as usize;
        let parts = split_rows(&rows, room);
        let n = parts.len();
        parts
            .into_iter()
            .enumerate()
            .map(|(i, rows)| Layout::new(summary, width, rows, Some((i + 1, n))))
            .collect()
    }

    /// `rows` of the matrix at `width` points; `part` is (this part, of how many).
    fn new(summary: &Summary, width: u32, rows: Vec<Row>, part: Option<(usize, usize)>) -> Layout {
        let room = width - 2 * MARGIN;
        let title = match part {
            None => super::TITLE.to_string(),
            Some((i, n)) => format!("{} (part {i} of {n})", super::TITLE),
        };
        let title = style::wrap_words(&title, TITLE_SIZE, true, room);
        let subtitle = style::wrap_words(summary.display_title(), SIZE, false, room);
        let gates: Vec<String> = summary.gates.iter().map(style::gate_label).collect();
        let widest = |labels: &mut dyn Iterator<Item = &str>| {
            labels
                .map(|l| style::text_width(l, SIZE, false))
                .max()
                .unwrap_or(0)
        };
        let left = MARGIN + widest(&mut summary.mutations.iter().map(String::as_str)) + 4;
        let columns = summary.gates.len().max(1) as u32;
        let column = (width.saturating_sub(left + MARGIN) / columns).min(MAX_COLUMN);
        let header = widest(&mut gates.iter().map(String::as_str)) + 4;
        let top = 4 + (title.len() as u32) * 14 + subtitle.len() as u32 * LINE + 4 + header;
        let cell_text = cell_text(summary, column);
        let row_h = match cell_text {
            CellText::Colour => COLOUR_ROW_H,
            _ => ROW_H,
        };
        let bars_top = top + rows.len() as u32 * row_h + 8;
        let scales = if two_scales(summary) { 2 } else { 1 };
        // Under the grid, side by side; from the left margin where the grid's left is too far
        // right; one under the other where even that is too narrow.
        let needed = scales * (BAR_W + 40);
        let bars_left = if left + needed <= width { left } else { MARGIN };
        let side_by_side = bars_left + needed <= width;
        let bar_at: Vec<(u32, u32)> = (0..scales)
            .map(|i| match side_by_side {
                true => (bars_left + i * (BAR_W + 40), bars_top),
                false => (bars_left, bars_top + i * (BAR_BLOCK_H + 4)),
            })
            .collect();
        let bars_bottom = bar_at.last().map_or(bars_top, |&(_, y)| y + BAR_BLOCK_H);
        let note = style::wrap_words(&note(summary, &gates, cell_text), SIZE, false, room);
        let note_top = bars_bottom + 6;
        Layout {
            width,
            height: note_top + note.len() as u32 * LINE + MARGIN,
            title,
            subtitle,
            left,
            top,
            column,
            row_h,
            rows,
            cell_text,
            bar_at,
            note_top,
            note,
        }
    }
}

/// The most a cell can hold at this column width, the same for every cell.
fn cell_text(summary: &Summary, column: u32) -> CellText {
    let fits = |text: String| style::text_width(&text, SIZE, false) + 3 <= column;
    let applicable = || summary.cells.iter().filter(|c| c.total > 0);
    if applicable().all(|c| fits(style::count(c.detected, c.total))) {
        CellText::Count
    } else if applicable().all(|c| fits(style::percent(c.rate))) && fits("n/a".into()) {
        CellText::Rate
    } else {
        CellText::Colour
    }
}

fn note(summary: &Summary, gates: &[String], cell_text: CellText) -> String {
    let mut note = match cell_text {
        CellText::Count => "Cell: count (k/n) of the injected changes of that class the gate flagged.",
        CellText::Rate => "Cell: share of the injected changes of that class the gate flagged (counts k/n in summary.csv).",
        CellText::Colour => "Cell colour: share of the injected changes of that class the gate flagged (rates and counts in summary.csv).",
    }
    .to_string();
    if two_scales(summary) {
        note.push_str(
            " Breaking and dangerous rows: a flag is a detection (viridis). \
             Compatible and benign rows: a flag is a false alarm (reds).",
        );
    }
    if summary.cells.iter().any(|c| c.total == 0) {
        note.push_str(NOTE_NOT_APPLICABLE);
    }
    if gates.iter().any(|g| g.ends_with("(emulated)")) {
        note.push_str(NOTE_EMULATED);
    }
    note
}

pub(super) struct Matrix<'a> {
    pub summary: &'a Summary,
    pub layout: Layout,
}

impl Drawing for Matrix<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        draw(root, self.summary, &self.layout)
    }
    /// None: every cell carries its count or rate, and every band its label.
    fn key(&self) -> Vec<crate::plot::Swatch> {
        Vec::new()
    }
}

fn text(size: f64, colour: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    (FONT, size).into_font().color(&colour).pos(Pos::new(h, v))
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, summary: &Summary, l: &Layout) -> Drawn {
    root.fill(&WHITE)?;
    let centre = l.width as i32 / 2;
    for (i, line) in l.title.iter().enumerate() {
        root.draw(&Text::new(
            line.as_str(),
            (centre, 4 + 14 * i as i32),
            (FONT, TITLE_SIZE, FontStyle::Bold)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Top)),
        ))?;
    }
    let subtitle_top = 4 + 14 * l.title.len() as i32;
    style::draw_muted_lines(
        root,
        &l.subtitle,
        (centre, subtitle_top),
        LINE as i32,
        SIZE,
        HPos::Center,
    )?;
    let (left, top, column) = (l.left as i32, l.top as i32, l.column as i32);
    let row_h = l.row_h as i32;
    // Gate names read bottom to top over their columns.
    for (g, gate) in summary.gates.iter().enumerate() {
        root.draw(&Text::new(
            style::gate_label(gate),
            (
                left + g as i32 * column + column / 2 - SIZE as i32 / 2,
                top - 4,
            ),
            (FONT, SIZE)
                .into_font()
                .color(&BLACK)
                .transform(FontTransform::Rotate270)
                .pos(Pos::new(HPos::Left, VPos::Top)),
        ))?;
    }
    let grid_right = left + summary.gates.len() as i32 * column;
    for (r, row) in l.rows.iter().enumerate() {
        let y = top + r as i32 * row_h;
        match *row {
            Row::Band(label, continued) => {
                root.draw(&Rectangle::new(
                    [(MARGIN as i32, y + 1), (grid_right, y + row_h - 1)],
                    style::label_colour(label).filled(),
                ))?;
                let name = match continued {
                    true => format!("{} (continued)", label.as_str()),
                    false => label.as_str().to_string(),
                };
                root.draw(&Text::new(
                    name,
                    (MARGIN as i32 + 3, y + row_h / 2),
                    text(SIZE, WHITE, HPos::Left, VPos::Center),
                ))?;
            }
            Row::Class(c) => draw_class_row(root, summary, l, c, y)?,
        }
    }
    draw_colour_bars(root, summary, l)?;
    style::draw_muted_lines(
        root,
        &l.note,
        (MARGIN as i32, l.note_top as i32),
        LINE as i32,
        SIZE,
        HPos::Left,
    )
}

fn draw_class_row<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    summary: &Summary,
    l: &Layout,
    c: usize,
    y: i32,
) -> Drawn {
    let (left, column, row_h) = (l.left as i32, l.column as i32, l.row_h as i32);
    let class = &summary.mutations[c];
    root.draw(&Text::new(
        class.as_str(),
        (left - 4, y + row_h / 2),
        text(SIZE, BLACK, HPos::Right, VPos::Center),
    ))?;
    for (g, gate) in summary.gates.iter().enumerate() {
        let x = left + g as i32 * column;
        let cell = summary.cell(&gate.id, class);
        let rate = cell.and_then(|cell| cell.rate);
        let fill = cell_colour(summary, class, rate);
        root.draw(&Rectangle::new(
            [(x, y), (x + column, y + row_h)],
            fill.filled(),
        ))?;
        root.draw(&Rectangle::new(
            [(x, y), (x + column, y + row_h)],
            WHITE.stroke_width(1),
        ))?;
        let label = match (l.cell_text, cell.filter(|c| c.total > 0)) {
            (CellText::Colour, _) => None,
            (_, None) => Some("n/a".to_string()),
            (CellText::Count, Some(c)) => Some(style::count(c.detected, c.total)),
            (CellText::Rate, Some(_)) => Some(style::percent(rate)),
        };
        if let Some(label) = label {
            let ink = if style::is_light(fill) { BLACK } else { WHITE };
            root.draw(&Text::new(
                label,
                (x + column / 2, y + row_h / 2),
                text(SIZE, ink, HPos::Center, VPos::Center),
            ))?;
        }
    }
    Ok(())
}

/// A colour scale: the colour of a rate in `0..=1`.
type Scale = fn(f64) -> RGBColor;

/// One horizontal bar per scale, 0% left to 100% right, titled when there are two.
fn draw_colour_bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    summary: &Summary,
    l: &Layout,
) -> Drawn {
    let scales: Vec<(Scale, &str)> = match two_scales(summary) {
        true => vec![
            (style::viridis, "detected (should flag)"),
            (style::reds, "false alarm (harmless)"),
        ],
        false => vec![(style::viridis, "flagged")],
    };
    for (&(x, y), (scale, title)) in l.bar_at.iter().zip(scales) {
        let (x, y) = (x as i32, y as i32);
        root.draw(&Text::new(
            title,
            (x, y),
            text(SIZE, BLACK, HPos::Left, VPos::Top),
        ))?;
        let bar_top = y + LINE as i32;
        let steps = BAR_W as i32;
        for i in 0..steps {
            let rate = f64::from(i) / f64::from(steps - 1);
            root.draw(&Rectangle::new(
                [(x + i, bar_top), (x + i + 1, bar_top + BAR_H as i32)],
                scale(rate).filled(),
            ))?;
        }
        for (rate, h) in [(0.0, HPos::Left), (0.5, HPos::Center), (1.0, HPos::Right)] {
            root.draw(&Text::new(
                style::percent(Some(rate)),
                (
                    x + (rate * f64::from(BAR_W)) as i32,
                    bar_top + BAR_H as i32 + 2,
                ),
                text(SIZE, BLACK, h, VPos::Top),
            ))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A label longer than a part continues under its band, marked, in as many parts as it
    /// takes; the next label starts a part of its own when it does not fit the rest.
    #[test]
    fn a_label_longer_than_a_part_continues_under_its_band() {
        let mut rows = vec![Row::Band(Label::Breaking, false)];
        rows.extend((0..10).map(Row::Class));
        rows.push(Row::Band(Label::Dangerous, false));
        rows.extend((10..12).map(Row::Class));
        let parts = split_rows(&rows, 4);
        let shape: Vec<Vec<String>> = parts
            .iter()
            .map(|part| {
                part.iter()
                    .map(|row| match *row {
                        Row::Band(label, true) => format!("{} (continued)", label.as_str()),
                        Row::Band(label, false) => label.as_str().to_string(),
                        Row::Class(c) => c.to_string(),
                    })
                    .collect()
            })
            .collect();
        let continued = "breaking (continued)";
        assert_eq!(
            shape,
            [
                vec!["breaking", "0", "1", "2"],
                vec![continued, "3", "4", "5"],
                vec![continued, "6", "7", "8"],
                vec![continued, "9"],
                vec!["dangerous", "10", "11"],
            ]
        );
    }
}
