//! Grouped bar chart: one group per mutation class (plus all classes together), one bar per gate,
//! bar height = detected / total, each bar labelled with its count.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{self, FONT};
use super::{render_both, Figure, PlotError};
use crate::record::Summary;

pub const FILE_STEM: &str = "detection-chart";

/// One bar: label text and height.
struct Bar {
    count: String,
    rate: Option<f64>,
}

pub fn render(summary: &Summary) -> Result<Figure, PlotError> {
    let groups = groups(summary);
    let width = (1600).max(220 + groups.len() as u32 * (40 + 46 * summary.gates.len() as u32));
    render_both(
        FILE_STEM,
        (width, 900),
        &|root| draw(root, summary, &groups),
        &|root| draw(root, summary, &groups),
    )
}

/// (group label, one bar per gate): every class, then "all classes".
fn groups(summary: &Summary) -> Vec<(String, Vec<Bar>)> {
    let mut out: Vec<(String, Vec<Bar>)> = summary
        .mutations
        .iter()
        .map(|m| {
            let bars = summary
                .gates
                .iter()
                .map(|g| match summary.cell(&g.id, m) {
                    Some(c) => Bar {
                        count: format!("{}/{}", c.detected, c.total),
                        rate: c.rate,
                    },
                    None => Bar {
                        count: "-".into(),
                        rate: None,
                    },
                })
                .collect();
            (m.clone(), bars)
        })
        .collect();
    let totals = summary
        .gates
        .iter()
        .map(|g| match summary.total(&g.id) {
            Some(t) => Bar {
                count: format!("{}/{}", t.detected, t.total),
                rate: t.rate,
            },
            None => Bar {
                count: "-".into(),
                rate: None,
            },
        })
        .collect();
    out.push(("all classes".into(), totals));
    out
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    summary: &Summary,
    groups: &[(String, Vec<Bar>)],
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let (width, _) = root.dim_in_pixel();
    let title = format!(
        "Detection of injected contract changes by gate: {}",
        summary.study
    );
    root.draw(&Text::new(
        title,
        (width as i32 / 2, 18),
        (FONT, 30, FontStyle::Bold)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))
    .map_err(err)?;
    let legend_bottom = draw_legend(root, summary, 70)?;
    let (_, body) = root.split_vertically(legend_bottom + 10);

    let n_gates = summary.gates.len().max(1);
    let mut chart = ChartBuilder::on(&body)
        .margin_left(20)
        .margin_right(30)
        .margin_bottom(10)
        .x_label_area_size(110)
        .y_label_area_size(100)
        .build_cartesian_2d(0f64..groups.len() as f64, 0f64..1.12)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(6)
        .y_label_formatter(&|v| style::percent(Some(*v)))
        .y_desc("Share of injected changes detected")
        .x_desc("Mutation class")
        .axis_desc_style((FONT, 22))
        .label_style((FONT, 20))
        .light_line_style(TRANSPARENT)
        .bold_line_style(style::GRID)
        .draw()
        .map_err(err)?;

    let slot = 0.76 / n_gates as f64;
    let bar_px = (chart.backend_coord(&(slot, 0.0)).0 - chart.backend_coord(&(0.0, 0.0)).0).max(1);
    for (g, gate) in summary.gates.iter().enumerate() {
        let colour = style::series_colour(g);
        let rects = groups.iter().enumerate().filter_map(|(i, (_, bars))| {
            let rate = bars[g].rate?;
            let x0 = i as f64 + 0.12 + g as f64 * slot;
            Some(Rectangle::new(
                [(x0, 0.0), (x0 + slot * 0.9, rate)],
                colour.filled(),
            ))
        });
        chart
            .draw_series(rects)
            .map_err(err)?
            .label(gate.id.as_str());
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
            ))
            .map_err(err)?;
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
            ))
            .map_err(err)?;
        }
    }
    Ok(())
}

/// Draws "■ gate" entries left to right from `top`, wrapping; returns the bottom pixel row.
fn draw_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    summary: &Summary,
    top: i32,
) -> Result<u32, String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let font = (FONT, 22).into_font().color(&BLACK);
    let (width, _) = root.dim_in_pixel();
    let (mut x, mut y) = (120, top);
    for (g, gate) in summary.gates.iter().enumerate() {
        let label = format!("gate: {}", gate.id);
        let (w, _) = root.estimate_text_size(&label, &font).map_err(err)?;
        let entry = 30 + w as i32 + 40;
        if x + entry > width as i32 - 20 && x > 120 {
            x = 120;
            y += 34;
        }
        root.draw(&Rectangle::new(
            [(x, y + 3), (x + 22, y + 25)],
            style::series_colour(g).filled(),
        ))
        .map_err(err)?;
        root.draw(&Text::new(
            label,
            (x + 30, y + 2),
            font.pos(Pos::new(HPos::Left, VPos::Top)),
        ))
        .map_err(err)?;
        x += entry;
    }
    Ok((y + 30) as u32)
}
