//! Where the detection chart's parts go, on screen (pixels, as it always was) and in print
//! (points, no text under the least print size, labels rotated where they do not fit across).

use super::{print_label_lines, Chart};
use crate::plot::legend::{self, Entry, LegendStyle};
use crate::plot::style;
use crate::plot::{Medium, PRINT_MIN_SIZE};

/// Text sizes and spacing of one medium.
pub(super) struct Sizes {
    pub print: bool,
    pub title: f64,
    pub title_top: i32,
    pub title_line: i32,
    pub subtitle: f64,
    pub subtitle_line: i32,
    /// Between the subtitle and the legend.
    pub legend_gap: i32,
    pub legend: LegendStyle,
    /// Between the legend and the plot.
    pub body_gap: i32,
    /// Left, right and bottom.
    pub margins: (u32, u32, u32),
    pub y_label_area: u32,
    pub axis: f64,
    pub tick: f64,
    pub group_label: f64,
    pub group_gap: i32,
    pub group_line: i32,
}

const SCREEN: Sizes = Sizes {
    print: false,
    title: 30.0,
    title_top: 14,
    title_line: 40,
    subtitle: 22.0,
    subtitle_line: 28,
    legend_gap: 14,
    legend: LegendStyle {
        size: 22.0,
        left: 120,
        right: 20,
        swatch: 22,
        swatch_inset: 3,
        swatch_gap: 30,
        entry_gap: 40,
        row: 30,
        step: 34,
        line: 26,
        hatch: crate::plot::fill::Density::SCREEN,
    },
    body_gap: 10,
    margins: (20, 30, 10),
    y_label_area: 100,
    axis: 22.0,
    tick: 20.0,
    group_label: 20.0,
    group_gap: 10,
    group_line: 24,
};

const PRINT: Sizes = Sizes {
    print: true,
    title: 11.0,
    title_top: 4,
    title_line: 14,
    subtitle: PRINT_MIN_SIZE,
    subtitle_line: 11,
    legend_gap: 5,
    legend: LegendStyle::PRINT,
    body_gap: 4,
    margins: (4, 8, 4),
    y_label_area: 46,
    axis: PRINT_MIN_SIZE,
    tick: PRINT_MIN_SIZE,
    group_label: PRINT_MIN_SIZE,
    group_gap: 4,
    group_line: 11,
};

/// The height of a print chart's plotting area, in points.
const PRINT_PLOT_HEIGHT: u32 = 150;

pub(super) struct Layout {
    pub sizes: Sizes,
    pub width: u32,
    pub height: u32,
    pub title: Vec<String>,
    pub subtitle: Vec<String>,
    pub subtitle_top: i32,
    pub legend: Vec<Entry>,
    pub legend_bottom: i32,
    pub x_label_area: u32,
}

impl Layout {
    pub fn new(chart: &Chart, medium: Medium) -> Layout {
        let (sizes, width) = match medium.print() {
            None => {
                let bars = chart.groups.len() * chart.series.len();
                let width = (1600)
                    .max(220 + chart.groups.len() as u32 * 40 + bars as u32 * 46)
                    .min(super::MAX_WIDTH);
                (SCREEN, width)
            }
            Some(print) => (PRINT, print.width.points()),
        };
        // A long title wraps rather than running off the fixed canvas.
        let room = width.saturating_sub(if sizes.print { 12 } else { 80 });
        let title = style::wrap_words(chart.title, sizes.title, true, room);
        let subtitle = style::wrap_words(&chart.subtitle, sizes.subtitle, false, room);
        let subtitle_top = sizes.title_top + sizes.title_line * title.len() as i32;
        let legend_top =
            subtitle_top + sizes.subtitle_line * subtitle.len() as i32 + sizes.legend_gap;
        let (legend, legend_bottom) =
            legend::layout(&chart.series, legend_top, width, &sizes.legend);
        let (x_label_area, height) = match sizes.print {
            false => (110, 900),
            true => {
                let area = print_x_label_area(chart, width, &sizes);
                let top = (legend_bottom + sizes.body_gap) as u32;
                (area, top + PRINT_PLOT_HEIGHT + area + sizes.margins.2)
            }
        };
        Layout {
            sizes,
            width,
            height,
            title,
            subtitle,
            subtitle_top,
            legend,
            legend_bottom,
            x_label_area,
        }
    }
}

/// Room under a print chart's axis for its group labels (across in up to two lines, or
/// rotated) and the axis description.
fn print_x_label_area(chart: &Chart, width: u32, sizes: &Sizes) -> u32 {
    let (left, right, _) = sizes.margins;
    let plot = width.saturating_sub(left + right + sizes.y_label_area);
    let group_px = plot / chart.groups.len().max(1) as u32;
    let mut lines = 1;
    let mut rotated = 0;
    for (label, _) in &chart.groups {
        match print_label_lines(label, group_px, sizes.group_label) {
            Some(across) => lines = lines.max(across.len() as u32),
            None => rotated = rotated.max(style::text_width(label, sizes.group_label, false)),
        }
    }
    let labels = (lines * sizes.group_line as u32 + sizes.group_gap as u32).max(rotated + 8);
    labels + sizes.axis as u32 + 6
}
