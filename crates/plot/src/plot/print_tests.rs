//! The print presets, measured from what they render: every text in a print SVG is at least
//! 7 pt at the preset's width, horizontal text stays on the canvas, and the PNG is as many
//! pixels as the width at its dpi, with the dpi recorded.

use super::contract_chart::{render_stacked, ContractRow, SEGMENTS};
use super::*;
use driftlab_record::{ClassLabel, Summary};

/// A text element of an SVG: font size, anchor x, anchor kind, rotated or not, content.
struct SvgText {
    size: f64,
    x: f64,
    anchor: String,
    rotated: bool,
    content: String,
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let end = tag[start..].find('"')? + start;
    Some(tag[start..end].to_string())
}

fn texts(svg: &str) -> Vec<SvgText> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find("<text ") {
        let tag_end = start + rest[start..].find('>').unwrap();
        let close = tag_end + rest[tag_end..].find("</text>").unwrap();
        let tag = &rest[start..tag_end];
        out.push(SvgText {
            size: attribute(tag, "font-size").unwrap().parse().unwrap(),
            x: attribute(tag, "x").unwrap().parse().unwrap(),
            anchor: attribute(tag, "text-anchor").unwrap_or_default(),
            rotated: tag.contains("transform=\"rotate"),
            content: super::svg_font::unescape(rest[tag_end + 1..close].trim()),
        });
        rest = &rest[close..];
    }
    out
}

/// Points per SVG unit: the width in inches × 72 over the viewBox width.
fn points_per_unit(svg: &str) -> f64 {
    let tag = &svg[..svg.find('>').unwrap()];
    let inches: f64 = attribute(tag, "width")
        .unwrap()
        .strip_suffix("in")
        .expect("a print SVG's width is in inches")
        .parse()
        .unwrap();
    let view_box = attribute(tag, "viewBox").unwrap();
    let view_width: f64 = view_box.split(' ').nth(2).unwrap().parse().unwrap();
    inches * 72.0 / view_width
}

fn assert_printable(figure: &Figure, width: PrintWidth) {
    let name = format!("{}-{width}", figure.stem);
    let scale = points_per_unit(&figure.svg);
    assert!((scale * f64::from(figure.width) - width.inches() * 72.0).abs() < 1e-6);
    let texts = texts(&figure.svg);
    assert!(texts.len() > 5, "{name}: {} texts", texts.len());
    for text in &texts {
        let points = text.size * scale;
        assert!(
            points >= PRINT_MIN_PT,
            "{name}: {:?} is {points:.2} pt",
            text.content
        );
        if text.rotated {
            continue;
        }
        // plotters writes font-size = size / 1.24; the PNG sets text at `size`, a little wider.
        let wide = f64::from(style::text_width(&text.content, text.size * 1.24, false));
        let (left, right) = match text.anchor.as_str() {
            "middle" => (text.x - wide / 2.0, text.x + wide / 2.0),
            "end" => (text.x - wide, text.x),
            _ => (text.x, text.x + wide),
        };
        assert!(
            left >= -1.0 && right <= f64::from(figure.width) + 1.0,
            "{name}: {:?} runs off the canvas ({left:.0}..{right:.0} of {})",
            text.content,
            figure.width
        );
    }
    let decoder = png::Decoder::new(&figure.png[..]);
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    let Medium::Print(print) = figure.medium else {
        panic!("{name} is not a print figure")
    };
    let pixels = (width.inches() * f64::from(print.dpi)).round() as u32;
    assert_eq!(info.width, pixels, "{name}");
    let dims = info.pixel_dims.expect("a print PNG records its dpi");
    assert_eq!(dims.unit, png::Unit::Meter);
    assert_eq!(dims.xppu, (f64::from(print.dpi) / 0.0254).round() as u32);
}

fn committed(folder: &str) -> Summary {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("results")
        .join(folder)
        .join("summary.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The synthetic 15 × 25 matrix, its classes labelled in runs as a taxonomy's are.
fn labelled_sample() -> Summary {
    use driftlab_mutate::mutate::Label;
    let mut summary = sample_summary(15, 25);
    for (c, class) in summary.mutations.iter().enumerate() {
        let label = [
            Label::Breaking,
            Label::Dangerous,
            Label::Compatible,
            Label::Benign,
        ][c * 4 / 25];
        summary.labels.push(ClassLabel {
            mutation: class.clone(),
            label,
        });
    }
    summary
}

#[test]
fn every_study_figure_prints_at_7_pt_or_more_at_both_widths() {
    let summaries = [
        committed("mcp-contract-drift-2026-08-22"),
        committed("mcp-drift-taxonomy-2026-11-30"),
        committed("mcp-whole-contract-2026-12-03"),
        labelled_sample(),
    ];
    for summary in &summaries {
        for width in PrintWidth::ALL {
            for dpi in [DEFAULT_DPI, 150] {
                let medium = Medium::Print(Print { width, dpi });
                for figure in all(summary, medium).unwrap() {
                    assert_printable(&figure, width);
                }
            }
        }
    }
}

#[test]
fn a_stacked_chart_with_long_labels_prints_at_7_pt_or_more() {
    let rows: Vec<ContractRow> = (0..12)
        .map(|i| ContractRow {
            label: format!("@modelcontextprotocol__server-filesystem-with-a-long-name@2026.8.{i}"),
            counts: vec![i, 1, 2, 0, 3],
        })
        .collect();
    let title = "What each server's outputSchema does with a corrupted answer (share of its tools)";
    for width in PrintWidth::ALL {
        let medium = Medium::Print(Print {
            width,
            dpi: DEFAULT_DPI,
        });
        let figure = render_stacked(
            "stacked",
            title,
            &SEGMENTS,
            &rows,
            ("tool", "tools"),
            medium,
        )
        .unwrap();
        assert_printable(&figure, width);
    }
}

#[test]
fn the_screen_figures_keep_their_pixel_canvas() {
    let summary = committed("mcp-contract-drift-2026-08-22");
    for figure in all(&summary, Medium::Screen).unwrap() {
        assert!(figure.svg.starts_with(&format!(
            "<svg width=\"{}\" height=\"{}\"",
            figure.width, figure.height
        )));
        let info = png::Decoder::new(&figure.png[..])
            .read_info()
            .unwrap()
            .info()
            .clone();
        assert_eq!((info.width, info.height), (figure.width, figure.height));
        assert!(info.pixel_dims.is_none());
    }
}

#[test]
fn a_release_timeline_and_a_count_chart_print_at_7_pt_or_more() {
    use super::contract_chart::{render_scaled, Scale};
    use super::timeline::{Kind, Lane, Link, Mark};
    let kinds = [
        Kind {
            label: "breaking",
            colour: RGBColor(178, 34, 34),
            stroke: 4,
        },
        Kind {
            label: "unchanged",
            colour: RGBColor(200, 200, 200),
            stroke: 2,
        },
    ];
    let lanes: Vec<Lane> = (0..6)
        .map(|i| Lane {
            label: format!("npm:@modelcontextprotocol/server-sequential-thinking-{i}"),
            marks: (0..4 + i)
                .map(|v| Mark {
                    version: format!("2026.11.{v}"),
                    captured: v != 1,
                })
                .collect(),
            links: vec![Link {
                from: 0,
                to: 2,
                kind: i % 2,
            }],
        })
        .collect();
    let rows: Vec<ContractRow> = (0..8)
        .map(|i| ContractRow {
            label: format!("parameter-description-changed-{i}"),
            counts: vec![i, 1, 0, 2, 3],
        })
        .collect();
    for width in PrintWidth::ALL {
        let medium = Medium::Print(Print {
            width,
            dpi: DEFAULT_DPI,
        });
        let title = "A census of many servers: each package's releases in version order";
        let figure = timeline::render("timeline", title, &kinds, &lanes, medium).unwrap();
        assert_printable(&figure, width);
        let figure = render_scaled(
            "counts",
            title,
            &SEGMENTS,
            &rows,
            ("pair", "pairs"),
            Scale::Count,
            medium,
        )
        .unwrap();
        assert_printable(&figure, width);
    }
}
