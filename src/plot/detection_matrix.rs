//! Heatmap: gates (rows) × mutation classes (columns), the detection rate in each cell. Sized from
//! the number of rows and columns (no wider than the grid and its title need), with vertical
//! column labels, so it stays readable at ~15 × 25. In a labelled study a band over the columns
//! names each run of classes with the same label (breaking, dangerous, compatible, benign): the
//! columns a gate should flag, and those it should not. A colour bar reads the scale.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::error::Drawn;
use super::style::{self, FONT};
use super::{render_both, Figure, PlotError};
use crate::record::Summary;

pub const FILE_STEM: &str = "detection-matrix";

const CELL_W: u32 = 76;
const CELL_H: u32 = 44;
const LABEL_FONT: f64 = 18.0;
/// Height of the label band over the column labels.
const BAND_H: u32 = 34;
/// Width of the colour bar and its labels, right of the grid.
const COLOUR_BAR_W: u32 = 150;

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
    "Cell: share of injected changes of that class the gate detected (grey: class not applicable).";
const NOTE_SIZE: f64 = 18.0;
const NOTE_LINE: u32 = 24;
/// The colour bar's least height: room for its five labels.
const COLOUR_BAR_MIN_H: u32 = 160;

/// The figure's own title (30 px bold), then the study's (wrapped, 20 px).
const TITLE: &str = "Detection rate, gate × mutation class";
const TITLE_SIZE: f64 = 30.0;
const SUBTITLE_SIZE: f64 = 20.0;
const SUBTITLE_LINE: u32 = 26;

pub fn render(summary: &Summary) -> Result<Figure, PlotError> {
    style::register_fonts().map_err(|fault| PlotError {
        figure: FILE_STEM,
        fault,
    })?;
    let layout = layout(summary);
    render_both(
        FILE_STEM,
        (layout.width, layout.height),
        &|root| draw(root, summary, &layout),
        &|root| draw(root, summary, &layout),
    )
}

/// Consecutive runs of classes with the same label: (label, first column, end column). Empty
/// for a study without labels.
pub fn label_bands(summary: &Summary) -> Vec<(crate::mutate::Label, usize, usize)> {
    let mut bands: Vec<(crate::mutate::Label, usize, usize)> = Vec::new();
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
    let left = 40 + widest(&mut summary.gates.iter().map(|g| g.id.as_str()));
    let longest_class = widest(&mut summary.mutations.iter().map(String::as_str));
    let cols = summary.mutations.len() as u32;
    let rows = summary.gates.len() as u32;
    let natural = left + cols * CELL_W + 30 + COLOUR_BAR_W;
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
    let note = style::wrap_words(NOTE, NOTE_SIZE, false, width - left - 20);
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
            gate.id.clone(),
            (left - 10, y + ch / 2),
            label.pos(Pos::new(HPos::Right, VPos::Center)),
        ))?;
        for (c, class) in summary.mutations.iter().enumerate() {
            let x = left + c as i32 * cw;
            let rate = summary.cell(&gate.id, class).and_then(|cell| cell.rate);
            let fill = rate.map_or(style::NOT_APPLICABLE, style::viridis);
            root.draw(&Rectangle::new([(x, y), (x + cw, y + ch)], fill.filled()))?;
            root.draw(&Rectangle::new(
                [(x, y), (x + cw, y + ch)],
                WHITE.stroke_width(2),
            ))?;
            let ink = if style::is_light(fill) { BLACK } else { WHITE };
            root.draw(&Text::new(
                style::percent(rate),
                (x + cw / 2, y + ch / 2),
                (FONT, 17)
                    .into_font()
                    .color(&ink)
                    .pos(Pos::new(HPos::Center, VPos::Center)),
            ))?;
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
    draw_colour_bar(
        root,
        left + summary.mutations.len() as i32 * cw + 30,
        top,
        layout.grid_height as i32,
    )?;
    style::draw_muted_lines(
        root,
        &layout.note,
        (left, top + layout.grid_height as i32 + 30),
        NOTE_LINE as i32,
        NOTE_SIZE,
        HPos::Left,
    )
}

/// A vertical viridis bar from 0% (bottom) to 100% (top), labelled every 25%.
fn draw_colour_bar<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    x: i32,
    top: i32,
    height: i32,
) -> Drawn {
    let steps = 50;
    let step = (height as f64 / steps as f64).ceil() as i32;
    for i in 0..steps {
        let rate = 1.0 - i as f64 / (steps - 1) as f64;
        let y = top + (height * i) / steps;
        root.draw(&Rectangle::new(
            [(x, y), (x + 28, y + step)],
            style::viridis(rate).filled(),
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
mod tests {
    use super::*;

    #[test]
    fn labels_fit_their_areas_at_15_by_25() {
        style::register_fonts().unwrap();
        let summary = super::super::sample_summary(15, 25);
        let layout = layout(&summary);
        let mut pixels = vec![0u8; 3 * 64 * 64];
        let area = BitMapBackend::with_buffer(&mut pixels, (64, 64)).into_drawing_area();
        let font = (FONT, LABEL_FONT).into_font().color(&BLACK);
        // Rotated column labels: each is one text line tall, narrower than a column.
        assert!(CELL_W as f64 >= LABEL_FONT * 1.5);
        for class in &summary.mutations {
            let (w, _) = area.estimate_text_size(class, &font).unwrap();
            assert!(
                w + 8 + 60 < layout.top,
                "{class}: {w}px does not fit above the grid"
            );
        }
        for gate in summary.gates.iter().map(|g| &g.id) {
            let (w, h) = area.estimate_text_size(gate, &font).unwrap();
            assert!(
                w + 10 < layout.left,
                "{gate}: {w}px does not fit left of the grid"
            );
            assert!(h < CELL_H, "{gate}: {h}px taller than a row");
        }
        let cell_font = (FONT, 17).into_font().color(&BLACK);
        let (w, _) = area.estimate_text_size("66.7%", &cell_font).unwrap();
        assert!(w < CELL_W - 6);
    }

    #[test]
    fn a_one_column_band_names_its_label_in_full_within_the_column() {
        use crate::mutate::Label;
        use crate::record::ClassLabel;
        let mut summary = super::super::sample_summary(2, 5);
        for (c, class) in summary.mutations.iter().enumerate() {
            let label = if c == 4 {
                Label::Dangerous
            } else {
                Label::Breaking
            };
            summary.labels.push(ClassLabel {
                mutation: class.clone(),
                label,
            });
        }
        let svg = render(&summary).unwrap().svg;
        assert!(
            svg.contains("\ndangerous\n"),
            "the one-column band is not named in full"
        );
        // The column is 76 px wide; its band leaves 4 px each side and 8 px for the text.
        let room = CELL_W - 4 - 8;
        for word in ["breaking", "dangerous", "compatible", "benign"] {
            let size = band_font_size(word, room);
            assert!(size >= 10.0, "{word}");
            assert!(
                style::text_width(word, size, false) <= room,
                "{word} at {size}px"
            );
        }
    }

    #[test]
    fn labelled_columns_get_bands_and_the_canvas_fits_the_grid() {
        use crate::mutate::Label;
        use crate::record::ClassLabel;
        let mut summary = super::super::sample_summary(9, 24);
        let labels = [
            (14, Label::Breaking),
            (3, Label::Dangerous),
            (5, Label::Compatible),
            (2, Label::Benign),
        ];
        let mut classes = summary.mutations.iter();
        for (n, label) in labels {
            for class in classes.by_ref().take(n) {
                summary.labels.push(ClassLabel {
                    mutation: class.clone(),
                    label,
                });
            }
        }
        let bands = label_bands(&summary);
        assert_eq!(
            bands,
            [
                (Label::Breaking, 0, 14),
                (Label::Dangerous, 14, 17),
                (Label::Compatible, 17, 22),
                (Label::Benign, 22, 24)
            ]
        );
        let figure = render(&summary).unwrap();
        for label in ["breaking", "dangerous", "compatible", "benign"] {
            assert!(
                figure.svg.contains(&format!("\n{label}\n")),
                "band {label} drawn"
            );
        }
        // No empty canvas: as wide as the grid, its labels and the colour bar, and no taller
        // than the header the labels need; the study's title wraps instead of widening it.
        summary.title = "a study title much longer than the grid is wide ".repeat(8);
        let layout = layout(&summary);
        let longest = style::text_width(&summary.mutations[0], LABEL_FONT, false);
        assert_eq!(layout.width, layout.left + 24 * CELL_W + 30 + COLOUR_BAR_W);
        assert!(layout.subtitle.len() >= 2, "{:?}", layout.subtitle);
        for line in &layout.subtitle {
            assert!(style::text_width(line, SUBTITLE_SIZE, false) <= layout.width - 80);
        }
        assert_eq!(
            layout.top,
            layout.band_top + BAND_H + 8 + longest + 16,
            "the band sits right over the column labels"
        );
        for line in &layout.note {
            assert!(style::text_width(line, NOTE_SIZE, false) <= layout.width - layout.left - 20);
        }
        // A two-gate, five-class study (the published one's shape): the note wraps to the
        // canvas rather than running off it.
        let small = super::super::sample_summary(2, 5);
        let layout = super::layout(&small);
        assert!(layout.note.len() >= 2, "{:?}", layout.note);
        assert!(layout.height >= layout.top + layout.grid_height + 30 + 2 * NOTE_LINE);
        // Without labels there are no bands.
        summary.labels.clear();
        assert!(label_bands(&summary).is_empty());
    }
}
