//! Charts from a finished [`Summary`]. Nothing here computes a statistic: every number drawn is
//! read from the summary. Every chart renders to SVG (deterministic text) and PNG, with the
//! embedded DejaVu Sans font, so no system font is needed.

mod bitmap_text;
pub mod contract_chart;
mod detection_chart;
mod detection_matrix;
mod error;
mod font_subset;
mod style;
mod svg_font;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::record::Summary;
use bitmap_text::TextBackend;
use error::Drawn;

pub use detection_chart::FILE_STEM as DETECTION_CHART;
pub use detection_matrix::FILE_STEM as DETECTION_MATRIX;
pub use error::{DrawFault, PlotError};
pub use style::{count, percent};

/// One figure in both formats.
pub struct Figure {
    /// File name without extension, e.g. `detection-chart`.
    pub stem: &'static str,
    pub svg: String,
    pub png: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

/// Every figure of a study.
pub fn all(summary: &Summary) -> Result<Vec<Figure>, PlotError> {
    Ok(vec![
        detection_chart::render(summary)?,
        detection_matrix::render(summary)?,
    ])
}

type Draw<'a> = dyn Fn(&DrawingArea<SVGBackend<'_>, Shift>) -> Drawn + 'a;
type DrawPng<'a> = dyn Fn(&DrawingArea<TextBackend<'_>, Shift>) -> Drawn + 'a;

/// Renders the same drawing code to an SVG string and a PNG image.
fn render_both(
    stem: &'static str,
    (width, height): (u32, u32),
    svg_draw: &Draw<'_>,
    png_draw: &DrawPng<'_>,
) -> Result<Figure, PlotError> {
    let fail = |fault: DrawFault| PlotError {
        figure: stem,
        fault,
    };
    style::register_fonts().map_err(fail)?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        svg_draw(&root).map_err(fail)?;
        root.present().map_err(|e| fail(e.into()))?;
    }
    // The PNG is drawn with the embedded DejaVu Sans; the SVG embeds the subset it uses and
    // names it, then metrically close fallbacks for viewers that refuse embedded fonts
    // (DejaVu derives from Bitstream Vera, and Verdana's metrics nearly match).
    let svg = svg_font::embed(&svg.replace(
        &format!("font-family=\"{}\"", style::FONT),
        &format!(
            "font-family=\"{}, Bitstream Vera Sans, Verdana, sans-serif\"",
            svg_font::FAMILY
        ),
    ));
    let mut pixels = vec![0u8; width as usize * height as usize * 3];
    {
        let root = TextBackend(BitMapBackend::with_buffer(&mut pixels, (width, height)))
            .into_drawing_area();
        png_draw(&root).map_err(fail)?;
        root.present().map_err(|e| fail(e.into()))?;
    }
    let png = encode_png(&pixels, width, height).map_err(fail)?;
    Ok(Figure {
        stem,
        svg,
        png,
        width,
        height,
    })
}

fn encode_png(rgb: &[u8], width: u32, height: u32) -> Drawn<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(rgb)?;
    }
    Ok(out)
}

/// A summary of `gates` × `classes` cells with long, realistic labels and varied rates (some not
/// applicable), for checking that charts stay readable at the sizes later studies reach.
#[doc(hidden)]
pub fn sample_summary(gates: usize, classes: usize) -> Summary {
    use crate::record::{rate, Cell, GateInfo};
    let gate_ids: Vec<String> = (0..gates)
        .map(|g| format!("classifier-fail-on-warning+ordered-snapshot-{g:02}"))
        .collect();
    let mutations: Vec<String> = (0..classes)
        .map(|m| format!("optional-parameter-became-required-{m:02}"))
        .collect();
    let mut cells = Vec::new();
    for (g, gate) in gate_ids.iter().enumerate() {
        for (m, mutation) in mutations.iter().enumerate() {
            let total = if (g + m) % 11 == 0 { 0 } else { 240 };
            let detected = (total * ((g * 7 + m * 3) % 10) as u64) / 9;
            cells.push(Cell {
                gate: gate.clone(),
                mutation: mutation.clone(),
                detected,
                total,
                not_applicable: 240 - total,
                rate: rate(detected, total),
            });
        }
    }
    Summary {
        study: "large-matrix-check".into(),
        title: String::new(),
        seed: 1,
        surfaces: 240,
        tools: 3,
        shard: None,
        bases: Vec::new(),
        gates: gate_ids
            .iter()
            .map(|g| GateInfo {
                id: g.clone(),
                rules: vec!["structural".into()],
                command: None,
            })
            .collect(),
        mutations,
        cells,
        totals: Vec::new(),
        controls: Vec::new(),
        labels: Vec::new(),
        metrics: Vec::new(),
        crashes: Vec::new(),
    }
}
