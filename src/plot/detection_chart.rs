//! Grouped bar chart. For a small study: one group per mutation class (plus all classes
//! together), one bar per gate, bar height = detected / total, each bar labelled with its count.
//! When gates × classes would make more than [`MAX_BARS`] bars (the taxonomy's 9 × 25 made an
//! 11,570-pixel-wide chart), one group per gate instead: for a labelled study its recall on the
//! classes it should flag and its false-positive rate on the harmless ones, else its overall
//! rate; the detection matrix carries the per-class detail.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::error::Drawn;
use super::style::{self, FONT};
use super::{render_both, Figure, PlotError};
use crate::record::Summary;

pub const FILE_STEM: &str = "detection-chart";

/// The most bars the per-class chart draws before switching to one group per gate.
pub const MAX_BARS: usize = 60;

/// The widest canvas any detection chart gets.
pub const MAX_WIDTH: u32 = 3200;

/// One bar: label text and height.
struct Bar {
    count: String,
    rate: Option<f64>,
}

/// What to draw: groups of bars along x, one bar per series in each group.
struct Chart {
    title: &'static str,
    /// The study's title, on a line of its own under the chart's.
    subtitle: String,
    x_desc: &'static str,
    y_desc: &'static str,
    /// Legend entries with their colours, in bar order.
    series: Vec<(String, RGBColor)>,
    groups: Vec<(String, Vec<Bar>)>,
}

pub fn render(summary: &Summary) -> Result<Figure, PlotError> {
    let chart = chart(summary);
    let bars = chart.groups.len() * chart.series.len();
    let width = (1600)
        .max(220 + chart.groups.len() as u32 * 40 + bars as u32 * 46)
        .min(MAX_WIDTH);
    render_both(
        FILE_STEM,
        (width, 900),
        &|root| draw(root, &chart),
        &|root| draw(root, &chart),
    )
}

fn chart(summary: &Summary) -> Chart {
    if summary.gates.len() * (summary.mutations.len() + 1) <= MAX_BARS {
        return per_class(summary);
    }
    per_gate(summary)
}

fn bar(detected: u64, total: u64, rate: Option<f64>) -> Bar {
    Bar {
        count: style::count(detected, total),
        rate,
    }
}

/// A bar labelled with its percentage: wide enough to read where counts would be tiny.
fn percent_bar(rate: Option<f64>) -> Bar {
    Bar {
        count: style::percent(rate),
        rate,
    }
}

fn missing() -> Bar {
    Bar {
        count: "-".into(),
        rate: None,
    }
}

fn per_class(summary: &Summary) -> Chart {
    let mut groups: Vec<(String, Vec<Bar>)> = summary
        .mutations
        .iter()
        .map(|m| {
            let bars = summary
                .gates
                .iter()
                .map(|g| {
                    summary
                        .cell(&g.id, m)
                        .map_or_else(missing, |c| bar(c.detected, c.total, c.rate))
                })
                .collect();
            (m.clone(), bars)
        })
        .collect();
    let totals = summary
        .gates
        .iter()
        .map(|g| {
            summary
                .total(&g.id)
                .map_or_else(missing, |t| bar(t.detected, t.total, t.rate))
        })
        .collect();
    groups.push(("all classes".into(), totals));
    Chart {
        title: "Detection of injected contract changes by gate",
        subtitle: summary.display_title().to_string(),
        x_desc: "Mutation class",
        y_desc: "Share of injected changes detected",
        series: summary
            .gates
            .iter()
            .enumerate()
            .map(|(g, gate)| {
                (
                    format!("gate: {}", style::gate_label(gate)),
                    style::series_colour(g),
                )
            })
            .collect(),
        groups,
    }
}

/// One group per gate. A labelled study with harmless classes: recall on should-flag classes
/// and false-positive rate on harmless ones (from the metrics); otherwise the overall rate.
fn per_gate(summary: &Summary) -> Chart {
    let labelled = summary.has_harmless_classes();
    let groups = summary
        .gates
        .iter()
        .map(|g| {
            let metric = summary.metrics.iter().find(|m| m.gate == g.id);
            let bars = match (labelled, metric) {
                (true, Some(m)) => vec![percent_bar(m.recall), percent_bar(m.false_positive_rate)],
                (true, None) => vec![missing(), missing()],
                (false, _) => vec![summary
                    .total(&g.id)
                    .map_or_else(missing, |t| percent_bar(t.rate))],
            };
            (style::gate_label(g), bars)
        })
        .collect();
    let series = if labelled {
        vec![
            (
                "caught: breaking and dangerous changes detected (recall)".to_string(),
                style::PALETTE[0],
            ),
            (
                "cried wolf: compatible and benign changes flagged (false-positive rate)"
                    .to_string(),
                style::PALETTE[5],
            ),
        ]
    } else {
        vec![("all classes".to_string(), style::PALETTE[0])]
    };
    Chart {
        title: "What each gate catches, and what it wrongly flags",
        subtitle: summary.display_title().to_string(),
        x_desc: "Gate (per class: see the detection matrix)",
        y_desc: "Share of changes",
        series,
        groups,
    }
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, chart: &Chart) -> Drawn {
    let groups = &chart.groups;
    root.fill(&WHITE)?;
    let (width, _) = root.dim_in_pixel();
    root.draw(&Text::new(
        chart.title,
        (width as i32 / 2, 14),
        (FONT, 30, FontStyle::Bold)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))?;
    // A long study title wraps rather than running off the fixed canvas.
    let subtitle = style::wrap_words(&chart.subtitle, 22.0, false, width.saturating_sub(80));
    style::draw_muted_lines(
        root,
        &subtitle,
        (width as i32 / 2, 54),
        28,
        22.0,
        HPos::Center,
    )?;
    let extra_lines = subtitle.len().saturating_sub(1) as i32;
    let legend_bottom = draw_legend(root, &chart.series, 96 + 28 * extra_lines)?;
    let (_, body) = root.split_vertically(legend_bottom + 10);

    let n_series = chart.series.len().max(1);
    let (x_desc, y_desc) = (chart.x_desc, chart.y_desc);
    let series_colours: Vec<RGBColor> = chart.series.iter().map(|(_, c)| *c).collect();
    let mut chart = ChartBuilder::on(&body)
        .margin_left(20)
        .margin_right(30)
        .margin_bottom(10)
        .x_label_area_size(110)
        .y_label_area_size(100)
        .build_cartesian_2d(0f64..groups.len() as f64, 0f64..1.12)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(6)
        .y_label_formatter(&|v| style::percent(Some(*v)))
        .y_desc(y_desc)
        .x_desc(x_desc)
        .axis_desc_style((FONT, 22))
        .label_style((FONT, 20))
        .light_line_style(TRANSPARENT)
        .bold_line_style(style::GRID)
        .draw()?;

    let slot = 0.76 / n_series as f64;
    let bar_px = (chart.backend_coord(&(slot, 0.0)).0 - chart.backend_coord(&(0.0, 0.0)).0).max(1);
    for (g, colour) in series_colours.iter().enumerate() {
        let rects = groups.iter().enumerate().filter_map(|(i, (_, bars))| {
            let rate = bars.get(g)?.rate?;
            let x0 = i as f64 + 0.12 + g as f64 * slot;
            Some(Rectangle::new(
                [(x0, 0.0), (x0 + slot * 0.9, rate)],
                colour.filled(),
            ))
        });
        chart.draw_series(rects)?;
    }
    // Count labels above bars, sized to the bar width so neighbours never overlap.
    let longest = groups
        .iter()
        .flat_map(|(_, bars)| bars.iter().map(|b| b.count.chars().count()))
        .max()
        .unwrap_or(1);
    let count_size = ((bar_px as f64 * 0.95) / (longest as f64 * 0.58)).clamp(9.0, 22.0);
    let count_font = (FONT, count_size).into_font().color(&BLACK);
    for (i, (label, bars)) in groups.iter().enumerate() {
        for (g, bar) in bars.iter().enumerate() {
            let centre = i as f64 + 0.12 + (g as f64 + 0.45) * slot;
            let (x, y) = chart.backend_coord(&(centre, bar.rate.unwrap_or(0.0)));
            let text = if bar.rate.is_some() {
                bar.count.clone()
            } else {
                "n/a".into()
            };
            root.draw(&Text::new(
                text,
                (x, y - 4),
                count_font.pos(Pos::new(HPos::Center, VPos::Bottom)),
            ))?;
        }
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
        let group_px = chart.backend_coord(&(1.0, 0.0)).0 - chart.backend_coord(&(0.0, 0.0)).0;
        let max_chars = ((group_px as f64) / 11.0).max(6.0) as usize;
        for (line, text) in style::wrap(label, max_chars).into_iter().enumerate() {
            root.draw(&Text::new(
                text,
                (x, y + 10 + 24 * line as i32),
                (FONT, 20)
                    .into_font()
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Center, VPos::Top)),
            ))?;
        }
    }
    Ok(())
}

/// Draws "■ series" entries left to right from `top`, wrapping; returns the bottom pixel row.
fn draw_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    series: &[(String, RGBColor)],
    top: i32,
) -> Drawn<u32> {
    let font = (FONT, 22).into_font().color(&BLACK);
    let (width, _) = root.dim_in_pixel();
    let (mut x, mut y) = (120, top);
    for (label, colour) in series {
        let (w, _) = root.estimate_text_size(label, &font)?;
        let entry = 30 + w as i32 + 40;
        if x + entry > width as i32 - 20 && x > 120 {
            x = 120;
            y += 34;
        }
        root.draw(&Rectangle::new(
            [(x, y + 3), (x + 22, y + 25)],
            colour.filled(),
        ))?;
        root.draw(&Text::new(
            label.clone(),
            (x + 30, y + 2),
            font.pos(Pos::new(HPos::Left, VPos::Top)),
        ))?;
        x += entry;
    }
    Ok((y + 30) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_study_gets_one_group_per_gate_on_a_bounded_canvas() {
        let small = super::super::sample_summary(2, 5);
        assert_eq!(chart(&small).groups.len(), 6, "per class, plus all classes");
        for (gates, classes) in [(9, 24), (15, 25), (40, 60)] {
            let summary = super::super::sample_summary(gates, classes);
            let chart = chart(&summary);
            assert_eq!(chart.groups.len(), gates);
            let figure = render(&summary).unwrap();
            assert!(
                figure.width <= MAX_WIDTH,
                "{gates} x {classes}: {}",
                figure.width
            );
            assert!(figure.height <= 900);
        }
    }

    #[test]
    fn a_long_study_title_wraps_on_the_canvas() {
        let mut summary = super::super::sample_summary(2, 5);
        summary.title = "a study title far longer than any canvas is wide ".repeat(6);
        let figure = render(&summary).unwrap();
        let lines = style::wrap_words(&summary.title, 22.0, false, figure.width - 80);
        assert!(lines.len() >= 2, "{lines:?}");
        for line in &lines {
            assert!(
                figure.svg.contains(&format!("\n{line}\n")),
                "{line:?} not drawn"
            );
            assert!(style::text_width(line, 22.0, false) <= figure.width - 80);
        }
    }
}
