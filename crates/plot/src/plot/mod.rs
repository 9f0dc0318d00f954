//! Charts from a finished [`Summary`]. Nothing here computes a statistic: every number drawn is
//! read from the summary. Every chart renders to SVG (deterministic text) and PNG, with the
//! embedded DejaVu Sans font, so no system font is needed, for the screen and for print
//! ([`Medium`]).

mod bitmap_text;
pub mod contract_chart;
mod detection_chart;
mod detection_matrix;
mod error;
mod fill;
mod font_subset;
mod grey;
mod legend;
mod medium;
mod scaled;
mod style;
mod svg_font;
pub mod timeline;

use plotters::coord::Shift;
use plotters::prelude::*;

use bitmap_text::TextBackend;
use driftlab_record::Summary;
use error::Drawn;

pub use detection_chart::FILE_STEM as DETECTION_CHART;
pub use detection_matrix::FILE_STEM as DETECTION_MATRIX;
pub use error::{DrawFault, PlotError};
pub use medium::{
    file_names, print_links, print_links_named, Medium, Print, PrintWidth, DEFAULT_DPI,
    PRINT_MIN_PT, PRINT_MIN_SIZE,
};
pub use style::{count, percent};

/// One figure in both formats, for one medium.
pub struct Figure {
    /// File name without extension or medium, e.g. `detection-chart`.
    pub stem: &'static str,
    /// What the figure was drawn for.
    pub medium: Medium,
    /// The SVG document.
    pub svg: String,
    /// The PNG file's bytes.
    pub png: Vec<u8>,
    /// The canvas: pixels on screen, points in print.
    pub width: u32,
    /// The canvas height, in the same unit as `width`.
    pub height: u32,
    /// Which part this is, of how many, where a figure too tall for a page is drawn in parts.
    pub part: Option<(usize, usize)>,
    /// Where the legend shows each series, for reading them back in grey;
    /// empty where every series is labelled on the figure itself (the matrix's cells).
    pub key: Vec<Swatch>,
}

/// A legend swatch: its series' label and its corners on the canvas (top-left, bottom-right).
#[derive(Clone, Debug)]
pub struct Swatch {
    /// The series' legend text.
    pub label: String,
    /// The swatch's top-left and bottom-right corners, in canvas units.
    pub corners: [(i32, i32); 2],
}

impl Figure {
    /// The figure's two files, named for its medium and part: `detection-chart.svg`,
    /// `detection-chart-7in.png`, `detection-matrix-3.5in-part2.svg`.
    pub fn files(&self) -> [(String, &[u8]); 2] {
        let [svg, png] = self
            .medium
            .part_names(self.stem, self.part.map_or(0, |(i, _)| i));
        [(svg, self.svg.as_bytes()), (png, &self.png[..])]
    }
}

/// Every figure of a study, in one medium.
pub fn all(summary: &Summary, medium: Medium) -> Result<Vec<Figure>, PlotError> {
    let mut figures = vec![detection_chart::render(summary, medium)?];
    figures.extend(detection_matrix::render(summary, medium)?);
    Ok(figures)
}

/// A figure's files in each medium of `media`, drawn by `render`.
pub fn files_in(
    media: &[Medium],
    render: impl Fn(Medium) -> Result<Figure, PlotError>,
) -> Result<Vec<(String, Vec<u8>)>, PlotError> {
    let mut files = Vec::new();
    for &medium in media {
        let figure = render(medium)?;
        files.extend(figure.files().map(|(name, bytes)| (name, bytes.to_vec())));
    }
    Ok(files)
}

/// The file names [`all`] writes for `summary` in each of `media`, without drawing them.
pub fn study_file_names(summary: &Summary, media: &[Medium]) -> Vec<String> {
    let mut names = file_names(DETECTION_CHART, media);
    for &medium in media {
        match detection_matrix::parts(summary, medium) {
            1 => names.extend(medium.file_names(DETECTION_MATRIX)),
            n => names.extend((1..=n).flat_map(|i| medium.part_names(DETECTION_MATRIX, i))),
        }
    }
    names
}

/// A figure's drawing code, generic over the backend so one layout draws the SVG and the PNG.
trait Drawing {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn;
    /// Where the legend shows each series.
    fn key(&self) -> Vec<Swatch>;
}

/// Renders `drawing` on a canvas of `(width, height)` (pixels on screen, points in print) to an
/// SVG string and a PNG image.
fn render_both<D: Drawing>(
    stem: &'static str,
    medium: Medium,
    (width, height): (u32, u32),
    drawing: &D,
) -> Result<Figure, PlotError> {
    let fail = |fault: DrawFault| PlotError {
        figure: stem,
        fault,
    };
    style::register_fonts().map_err(fail)?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        drawing.draw(&root).map_err(fail)?;
        root.present().map_err(|e| fail(e.into()))?;
    }
    if let Medium::Print(_) = medium {
        svg = physical_size(&svg, width, height);
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
    // Every figure is read back in grey before it is kept: its legend's swatches must part.
    let key = drawing.key();
    let grey = |rgb: &[u8], (w, h): (u32, u32), per_unit: f64| {
        let image = grey::Image {
            rgb,
            width: w as usize,
            height: h as usize,
            per_unit,
        };
        grey::check_pixels(stem, &image, &key).map_err(|e| fail(DrawFault::Grey(e)))
    };
    let png = match medium.print() {
        None => {
            let mut pixels = vec![0u8; width as usize * height as usize * 3];
            {
                let backend = TextBackend(BitMapBackend::with_buffer(&mut pixels, (width, height)));
                let root = backend.into_drawing_area();
                drawing.draw(&root).map_err(fail)?;
                root.present().map_err(|e| fail(e.into()))?;
            }
            grey(&pixels, (width, height), 1.0)?;
            encode_png(&pixels, (width, height), None).map_err(fail)?
        }
        Some(print) => {
            // Points to pixels at the preset's dpi: 7 in at 300 dpi is 2,100 pixels wide.
            let k = f64::from(print.dpi) / 72.0;
            let pixels_of = |points: u32| (f64::from(points) * k).round() as u32;
            let (w, h) = (pixels_of(width), pixels_of(height));
            let mut pixels = vec![0u8; w as usize * h as usize * 3];
            {
                let inner = TextBackend(BitMapBackend::with_buffer(&mut pixels, (w, h)));
                let root = scaled::Scaled {
                    inner,
                    size: (width, height),
                    k,
                }
                .into_drawing_area();
                drawing.draw(&root).map_err(fail)?;
                root.present().map_err(|e| fail(e.into()))?;
            }
            grey(&pixels, (w, h), k)?;
            encode_png(&pixels, (w, h), Some(print.dpi)).map_err(fail)?
        }
    };
    Ok(Figure {
        stem,
        medium,
        svg,
        png,
        width,
        height,
        part: None,
        key,
    })
}

/// The SVG's pixel size replaced by its size in inches (a print canvas is in points, 72 to the
/// inch); the viewBox keeps the drawing's units.
fn physical_size(svg: &str, width: u32, height: u32) -> String {
    let inches = |points: u32| {
        let text = format!("{:.3}", f64::from(points) / 72.0);
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    svg.replacen(
        &format!("<svg width=\"{width}\" height=\"{height}\""),
        &format!(
            "<svg width=\"{}in\" height=\"{}in\"",
            inches(width),
            inches(height)
        ),
        1,
    )
}

/// An RGB PNG; with `dpi`, its `pHYs` chunk says how large it prints.
fn encode_png(rgb: &[u8], (width, height): (u32, u32), dpi: Option<u32>) -> Drawn<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Best);
        encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
        if let Some(dpi) = dpi {
            let per_metre = (f64::from(dpi) / 0.0254).round() as u32;
            encoder.set_pixel_dims(Some(png::PixelDimensions {
                xppu: per_metre,
                yppu: per_metre,
                unit: png::Unit::Meter,
            }));
        }
        let mut writer = encoder.write_header()?;
        writer.write_image_data(rgb)?;
    }
    Ok(out)
}

/// A summary of `gates` × `classes` cells with long, realistic labels and varied rates (some not
/// applicable), for checking that charts stay readable at the sizes later studies reach.
#[doc(hidden)]
pub fn sample_summary(gates: usize, classes: usize) -> Summary {
    use driftlab_record::{rate, Cell, GateInfo};
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

#[cfg(test)]
mod print_tests;
