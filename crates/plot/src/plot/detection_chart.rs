//! Grouped bar chart. For a small study: one group per mutation class (plus all classes
//! together), one bar per gate, bar height = detected / total, each bar labelled with its count.
//! When gates × classes would make more than [`MAX_BARS`] bars (the taxonomy's 9 × 25 made an
//! 11,570-pixel-wide chart), one group per gate instead: for a labelled study its recall on the
//! classes it should flag and its false-positive rate on the harmless ones, else its overall
//! rate; the detection matrix carries the per-class detail. In print (`layout.rs`) the same
//! chart is laid out in points: labels that do not fit across are rotated, and bars carry
//! counts, else percentages, only where every one fits at the least print size.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::error::Drawn;
use super::fill;
use super::legend::{self, Series};
use super::style::{self, FONT};
use super::{render_both, Drawing, Figure, Medium, PlotError, Swatch, PRINT_MIN_SIZE};
use driftlab_record::Summary;

mod layout;
use layout::{Layout, Sizes};

/// The chart's file name without extension or medium.
pub const FILE_STEM: &str = "detection-chart";

/// The most bars the per-class chart draws before switching to one group per gate.
pub(crate) const MAX_BARS: usize = 60;

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
    /// Legend entries with their paint, in bar order.
    series: Vec<Series>,
    groups: Vec<(String, Vec<Bar>)>,
}

pub fn render(summary: &Summary, medium: Medium) -> Result<Figure, PlotError> {
    let chart = chart(summary);
    let layout = Layout::new(&chart, medium);
    render_both(
        FILE_STEM,
        medium,
        (layout.width, layout.height),
        &(chart, layout),
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
        series: {
            let labels: Vec<String> = summary
                .gates
                .iter()
                .map(|gate| format!("gate: {}", style::gate_label(gate)))
                .collect();
            legend::blocks(
                labels
                    .iter()
                    .enumerate()
                    .map(|(g, label)| (label.as_str(), style::series_colour(g))),
            )
        },
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
    // Blue and orange: 25 L* apart, so they part in grey print.
    let series = legend::blocks(match labelled {
        true => vec![
            (
                "caught: breaking and dangerous changes detected (recall)",
                style::PALETTE[0],
            ),
            (
                "cried wolf: compatible and benign changes flagged (false-positive rate)",
                style::PALETTE[1],
            ),
        ],
        false => vec![("all classes", style::PALETTE[0])],
    });
    Chart {
        title: "What each gate catches, and what it wrongly flags",
        subtitle: summary.display_title().to_string(),
        x_desc: "Gate (per class: see the detection matrix)",
        y_desc: "Share of changes",
        series,
        groups,
    }
}

impl Drawing for (Chart, Layout) {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        draw(root, &self.0, &self.1)
    }
    fn key(&self) -> Vec<Swatch> {
        legend::swatches(&self.1.legend, &self.1.sizes.legend)
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &Chart,
    layout: &Layout,
) -> Drawn {
    let sizes = &layout.sizes;
    let groups = &chart.groups;
    root.fill(&WHITE)?;
    let (width, _) = root.dim_in_pixel();
    for (i, line) in layout.title.iter().enumerate() {
        root.draw(&Text::new(
            line.as_str(),
            (
                width as i32 / 2,
                sizes.title_top + sizes.title_line * i as i32,
            ),
            (FONT, sizes.title, FontStyle::Bold)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Top)),
        ))?;
    }
    style::draw_muted_lines(
        root,
        &layout.subtitle,
        (width as i32 / 2, layout.subtitle_top),
        sizes.subtitle_line,
        sizes.subtitle,
        HPos::Center,
    )?;
    legend::draw(root, &layout.legend, &sizes.legend)?;
    let (_, body) = root.split_vertically(layout.legend_bottom + sizes.body_gap);

    let n_series = chart.series.len().max(1);
    let (x_desc, y_desc) = (chart.x_desc, chart.y_desc);
    let fills: Vec<fill::Fill> = chart.series.iter().map(|one| one.fill).collect();
    let (margin_left, margin_right, margin_bottom) = sizes.margins;
    let mut chart = ChartBuilder::on(&body)
        .margin_left(margin_left)
        .margin_right(margin_right)
        .margin_bottom(margin_bottom)
        .x_label_area_size(layout.x_label_area)
        .y_label_area_size(sizes.y_label_area)
        .build_cartesian_2d(0f64..groups.len() as f64, 0f64..1.12)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(6)
        .y_label_formatter(&|v| style::percent(Some(*v)))
        .y_desc(y_desc)
        .x_desc(x_desc)
        .axis_desc_style((FONT, sizes.axis))
        .label_style((FONT, sizes.tick))
        .light_line_style(TRANSPARENT)
        .bold_line_style(style::GRID)
        .draw()?;

    let slot = 0.76 / n_series as f64;
    let bar_px = (chart.backend_coord(&(slot, 0.0)).0 - chart.backend_coord(&(0.0, 0.0)).0).max(1);
    for (g, &paint) in fills.iter().enumerate() {
        for (i, (_, bars)) in groups.iter().enumerate() {
            let Some(rate) = bars.get(g).and_then(|bar| bar.rate) else {
                continue;
            };
            let x0 = i as f64 + 0.12 + g as f64 * slot;
            // On the root, in its units, so hatches are spaced as the legend's are.
            let corners = [
                chart.backend_coord(&(x0, 0.0)),
                chart.backend_coord(&(x0 + slot * 0.9, rate)),
            ];
            fill::rect(root, corners, paint, sizes.legend.hatch)?;
        }
    }
    let labels = bar_labels(groups, bar_px as u32, sizes);
    let group_px = chart.backend_coord(&(1.0, 0.0)).0 - chart.backend_coord(&(0.0, 0.0)).0;
    for (i, (label, bars)) in groups.iter().enumerate() {
        if let Some((count_size, texts)) = &labels {
            let count_font = (FONT, *count_size).into_font().color(&BLACK);
            for (g, (bar, text)) in bars.iter().zip(&texts[i]).enumerate() {
                let centre = i as f64 + 0.12 + (g as f64 + 0.45) * slot;
                let (x, y) = chart.backend_coord(&(centre, bar.rate.unwrap_or(0.0)));
                root.draw(&Text::new(
                    text.as_str(),
                    (x, y - 4),
                    count_font.pos(Pos::new(HPos::Center, VPos::Bottom)),
                ))?;
            }
        }
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
        draw_group_label(root, label, (x, y), group_px, sizes)?;
    }
    Ok(())
}

/// The text over each bar, and its size: counts sized to the bar width on screen; in print at
/// the least print size, counts where every count fits its bar, else percentages where those
/// fit, else none (the figure's numbers are all in summary.csv).
fn bar_labels(
    groups: &[(String, Vec<Bar>)],
    bar_px: u32,
    sizes: &Sizes,
) -> Option<(f64, Vec<Vec<String>>)> {
    let text = |bar: &Bar, percent: bool| match (bar.rate, percent) {
        (None, _) => "n/a".to_string(),
        (Some(_), false) => bar.count.clone(),
        (Some(rate), true) => style::percent(Some(rate)),
    };
    let texts = |percent: bool| -> Vec<Vec<String>> {
        groups
            .iter()
            .map(|(_, bars)| bars.iter().map(|b| text(b, percent)).collect())
            .collect()
    };
    if !sizes.print {
        // Counts sized to the bar width so neighbours never overlap.
        let longest = groups
            .iter()
            .flat_map(|(_, bars)| bars.iter().map(|b| b.count.chars().count()))
            .max()
            .unwrap_or(1);
        let size = ((bar_px as f64 * 0.95) / (longest as f64 * 0.58)).clamp(9.0, 22.0);
        return Some((size, texts(false)));
    }
    let fits = |texts: &Vec<Vec<String>>| {
        texts
            .iter()
            .flatten()
            .all(|t| style::text_width(t, PRINT_MIN_SIZE, false) <= bar_px + bar_px / 4)
    };
    [false, true]
        .into_iter()
        .map(texts)
        .find(fits)
        .map(|texts| (PRINT_MIN_SIZE, texts))
}

/// A group's label under its bars: on screen wrapped at a hyphen by character count; in print
/// across when its lines fit the group, else rotated to read bottom to top.
fn draw_group_label<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    label: &str,
    (x, y): (i32, i32),
    group_px: i32,
    sizes: &Sizes,
) -> Drawn {
    let font = (FONT, sizes.group_label).into_font().color(&BLACK);
    let lines = match sizes.print {
        false => style::wrap(label, ((group_px as f64) / 11.0).max(6.0) as usize),
        true => match print_label_lines(label, group_px as u32, sizes.group_label) {
            Some(lines) => lines,
            None => {
                return root
                    .draw(&Text::new(
                        label.to_string(),
                        (x - sizes.group_label as i32 / 2, y + 6),
                        font.transform(FontTransform::Rotate270)
                            .pos(Pos::new(HPos::Right, VPos::Top)),
                    ))
                    .map_err(Into::into);
            }
        },
    };
    for (line, text) in lines.into_iter().enumerate() {
        root.draw(&Text::new(
            text,
            (x, y + sizes.group_gap + sizes.group_line * line as i32),
            font.pos(Pos::new(HPos::Center, VPos::Top)),
        ))?;
    }
    Ok(())
}

/// A print label's lines across its group (at most two, cut at a hyphen), if they fit.
fn print_label_lines(label: &str, room: u32, size: f64) -> Option<Vec<String>> {
    let max_chars = label.chars().count().div_ceil(2).max(1) + 1;
    [label.chars().count(), max_chars]
        .into_iter()
        .map(|max| style::wrap(label, max))
        .find(|lines| {
            lines
                .iter()
                .all(|l| style::text_width(l, size, false) <= room)
        })
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
            let figure = render(&summary, Medium::Screen).unwrap();
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
        let figure = render(&summary, Medium::Screen).unwrap();
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
