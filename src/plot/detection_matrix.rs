//! Heatmap: gates (rows) × mutation classes (columns), the detection rate in each cell. Sized from
//! the number of rows and columns, with vertical column labels, so it stays readable at ~15 × 25.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{self, FONT};
use super::{render_both, Figure, PlotError};
use crate::record::Summary;

pub const FILE_STEM: &str = "detection-matrix";

const CELL_W: u32 = 76;
const CELL_H: u32 = 44;
const LABEL_FONT: f64 = 18.0;

struct Layout {
    left: u32,
    top: u32,
    width: u32,
    height: u32,
}

pub fn render(summary: &Summary) -> Result<Figure, PlotError> {
    style::register_fonts().map_err(|message| PlotError {
        figure: FILE_STEM,
        message,
    })?;
    let layout = layout(summary);
    render_both(
        FILE_STEM,
        (layout.width, layout.height),
        &|root| draw(root, summary, &layout),
        &|root| draw(root, summary, &layout),
    )
}

/// Label areas are sized from the longest labels (about 0.6 em per character).
fn layout(summary: &Summary) -> Layout {
    let chars = |s: &str| s.chars().count() as u32;
    let longest_gate = summary
        .gates
        .iter()
        .map(|g| chars(&g.id))
        .max()
        .unwrap_or(4);
    let longest_class = summary
        .mutations
        .iter()
        .map(|m| chars(m))
        .max()
        .unwrap_or(4);
    let em = LABEL_FONT as u32;
    let left = 40 + longest_gate * em * 62 / 100;
    let top = 110 + longest_class * em * 62 / 100;
    let cols = summary.mutations.len() as u32;
    let rows = summary.gates.len() as u32;
    let natural = left + cols * CELL_W + 60;
    let width = natural.max(1600);
    Layout {
        // Centre the grid when the figure is wider than it needs to be.
        left: left + (width - natural) / 2,
        top,
        width,
        height: top + rows * CELL_H + 90,
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    summary: &Summary,
    layout: &Layout,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    root.draw(&Text::new(
        format!("Detection rate, gate × mutation class: {}", summary.study),
        (layout.width as i32 / 2, 18),
        (FONT, 30, FontStyle::Bold)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))
    .map_err(err)?;
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
        ))
        .map_err(err)?;
    }
    for (r, gate) in summary.gates.iter().enumerate() {
        let y = top + r as i32 * ch;
        root.draw(&Text::new(
            gate.id.clone(),
            (left - 10, y + ch / 2),
            label.pos(Pos::new(HPos::Right, VPos::Center)),
        ))
        .map_err(err)?;
        for (c, class) in summary.mutations.iter().enumerate() {
            let x = left + c as i32 * cw;
            let rate = summary.cell(&gate.id, class).and_then(|cell| cell.rate);
            let fill = rate.map_or(style::NOT_APPLICABLE, style::viridis);
            root.draw(&Rectangle::new([(x, y), (x + cw, y + ch)], fill.filled()))
                .map_err(err)?;
            root.draw(&Rectangle::new(
                [(x, y), (x + cw, y + ch)],
                WHITE.stroke_width(2),
            ))
            .map_err(err)?;
            let ink = if style::is_light(fill) { BLACK } else { WHITE };
            root.draw(&Text::new(
                style::percent(rate),
                (x + cw / 2, y + ch / 2),
                (FONT, 17)
                    .into_font()
                    .color(&ink)
                    .pos(Pos::new(HPos::Center, VPos::Center)),
            ))
            .map_err(err)?;
        }
    }
    let note_y = top + summary.gates.len() as i32 * ch + 30;
    root.draw(&Text::new(
        "Cell: share of injected changes of that class the gate detected (grey: class not applicable).",
        (left, note_y),
        (FONT, 18).into_font().color(&style::MUTED).pos(Pos::new(HPos::Left, VPos::Top)),
    ))
    .map_err(err)?;
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
}
