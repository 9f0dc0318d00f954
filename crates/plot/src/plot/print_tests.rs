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

/// Every study figure, in every medium, read back in grey from its PNG: each legend's swatches
/// part (render_both refuses a figure whose do not, so this is the same check on the file).
#[test]
fn every_study_figure_reads_in_grey() {
    let summaries = [
        committed("mcp-contract-drift-2026-08-22"),
        committed("mcp-drift-taxonomy-2026-11-30"),
        committed("mcp-whole-contract-2026-12-03"),
        labelled_sample(),
    ];
    let mut media = vec![Medium::Screen];
    media.extend(PrintWidth::ALL.map(|width| {
        Medium::Print(Print {
            width,
            dpi: DEFAULT_DPI,
        })
    }));
    for summary in &summaries {
        for &medium in &media {
            for figure in all(summary, medium).unwrap() {
                grey::check(&figure).unwrap();
                // The chart has a legend; the matrix labels every cell instead.
                assert_eq!(figure.key.is_empty(), figure.stem == DETECTION_MATRIX);
            }
        }
    }
    let rows: Vec<ContractRow> = (0..4)
        .map(|i| ContractRow {
            label: format!("server-{i}"),
            counts: vec![1, 1, 1, 1, 1],
        })
        .collect();
    for &medium in &media {
        let figure = render_stacked("s", "t", &SEGMENTS, &rows, ("tool", "tools"), medium).unwrap();
        assert_eq!(figure.key.len(), SEGMENTS.len());
        grey::check(&figure).unwrap();
    }
}

/// docs/study.md gives the print sizes a reader can check in the files: the title's and the
/// least text's, in points.
#[test]
fn the_print_sizes_in_the_docs_are_the_files() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/study.md"))
        .unwrap();
    let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    let stated = |before: &str| -> String {
        let at = doc
            .find(before)
            .unwrap_or_else(|| panic!("{before:?} in docs/study.md"));
        let rest = &doc[at + before.len()..];
        rest[..rest.find(" pt").unwrap()].to_string()
    };
    let (title, least) = (stated("a title of "), stated("every other text at least "));
    let summary = committed("mcp-drift-taxonomy-2026-11-30");
    for width in PrintWidth::ALL {
        let medium = Medium::Print(Print {
            width,
            dpi: DEFAULT_DPI,
        });
        for figure in all(&summary, medium).unwrap() {
            let scale = points_per_unit(&figure.svg);
            let points: Vec<f64> = texts(&figure.svg).iter().map(|t| t.size * scale).collect();
            let largest = points.iter().copied().fold(0.0, f64::max);
            let smallest = points.iter().copied().fold(f64::MAX, f64::min);
            assert_eq!(format!("{largest:.2}"), title, "{}", figure.stem);
            assert_eq!(format!("{smallest:.2}"), least, "{}", figure.stem);
        }
    }
}

/// Four kinds of link in one grey: dashed apart, and the timeline's legend reads back in grey
/// at every medium (render_both refuses it otherwise).
#[test]
fn links_of_one_grey_part_by_their_dashes() {
    use super::timeline::{Kind, Lane, Link, Mark};
    let kinds: Vec<Kind> = ["a", "b", "c", "d"]
        .into_iter()
        .map(|label| Kind {
            label,
            colour: RGBColor(112, 112, 112),
            stroke: 2,
        })
        .collect();
    let lanes = vec![Lane {
        label: "npm:one".into(),
        marks: (0..5)
            .map(|v| Mark {
                version: format!("1.0.{v}"),
                captured: true,
            })
            .collect(),
        links: (0..4)
            .map(|kind| Link {
                from: kind,
                to: kind + 1,
                kind,
            })
            .collect(),
    }];
    for medium in [Medium::Screen]
        .into_iter()
        .chain(PrintWidth::ALL.map(|width| {
            Medium::Print(Print {
                width,
                dpi: DEFAULT_DPI,
            })
        }))
    {
        let figure = timeline::render("t", "t", &kinds, &lanes, medium).unwrap();
        assert_eq!(figure.key.len(), 4);
        grey::check(&figure).unwrap();
    }
}

/// A matrix taller than a column page is drawn in parts no taller than one, which between them
/// hold every class once; a short one stays whole.
#[test]
fn a_tall_matrix_splits_into_parts_that_fit_a_column_page() {
    let tall = committed("mcp-drift-taxonomy-2026-11-30");
    let short = committed("mcp-contract-drift-2026-08-22");
    for width in PrintWidth::ALL {
        let medium = Medium::Print(Print {
            width,
            dpi: DEFAULT_DPI,
        });
        let parts = detection_matrix::render(&tall, medium).unwrap();
        assert!(parts.len() >= 2, "{width}: {} part", parts.len());
        let mut seen = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            assert!(
                part.height <= detection_matrix::print::MAX_HEIGHT,
                "{width}"
            );
            assert_eq!(part.part, Some((i + 1, parts.len())));
            let texts = texts(&part.svg);
            let words: Vec<&str> = texts.iter().map(|t| t.content.as_str()).collect();
            let title = format!("(part {} of {})", i + 1, parts.len());
            assert!(words.join(" ").contains(&title), "{width}: {title}");
            seen.extend(
                texts
                    .into_iter()
                    .map(|t| t.content)
                    .filter(|c| tall.mutations.contains(c)),
            );
        }
        seen.sort();
        let mut classes = tall.mutations.clone();
        classes.sort();
        assert_eq!(seen, classes, "{width}: every class once");
        let names: Vec<String> = parts.iter().flat_map(|p| p.files().map(|f| f.0)).collect();
        assert!(names.contains(&format!("detection-matrix-{width}-part2.svg")));
        assert_eq!(
            study_file_names(&tall, &[medium]),
            [file_names(DETECTION_CHART, &[medium]), names.clone()].concat()
        );
        let whole = detection_matrix::render(&short, medium).unwrap();
        assert_eq!((whole.len(), whole[0].part), (1, None));
    }
}
