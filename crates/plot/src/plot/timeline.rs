//! Release timelines: one lane per package, its releases as dots in version order (evenly
//! spaced: the order is the version order, not publish dates), each pair of consecutive
//! releases joined by a line coloured by what the pair did. The census draws one.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::error::Drawn;
use super::fill::{self, Fill, Hatch};
use super::legend::{self, Entry, LegendStyle, Sample, Series};
use super::style;
use super::{render_both, Drawing, Figure, Medium, PlotError, Swatch, PRINT_MIN_SIZE};

/// One release on a lane: its version, and whether it gave a contract.
pub struct Mark {
    /// The release's version.
    pub version: String,
    /// Whether a contract was captured from it.
    pub captured: bool,
}

/// A line between two releases of a lane (indexes into its marks), of one kind (an index into
/// the chart's kinds).
pub struct Link {
    /// The earlier release's index in the lane's marks.
    pub from: usize,
    /// The later release's index in the lane's marks.
    pub to: usize,
    /// The link's kind: an index into the chart's kinds.
    pub kind: usize,
}

/// One package.
pub struct Lane {
    /// The package's name, as the lane's label.
    pub label: String,
    /// Its releases, oldest first.
    pub marks: Vec<Mark>,
    /// What changed between releases.
    pub links: Vec<Link>,
}

/// A kind of link: its legend text, colour and stroke width (wider for what matters more); a
/// kind whose colour prints as nearly the same grey as an earlier kind's is dashed.
pub struct Kind {
    /// The legend's text.
    pub label: &'static str,
    /// The line's colour.
    pub colour: RGBColor,
    /// The line's stroke width.
    pub stroke: u32,
}

/// A release that gave no contract is drawn in this colour.
const NO_CONTRACT: RGBColor = RGBColor(170, 170, 170);
const NO_CONTRACT_LABEL: &str = "release without a contract";

struct Sizes {
    title: f64,
    title_line: i32,
    label: f64,
    line: i32,
    /// Versions under the dots; `None` leaves them to the tables.
    version: Option<f64>,
    legend: LegendStyle,
    margin: i32,
    lane: i32,
    dot: i32,
    /// The least distance between dots: labels take the rest of the width.
    min_step: i32,
    /// Strokes are multiplied by this.
    stroke: u32,
}

const SCREEN: Sizes = Sizes {
    title: 28.0,
    title_line: 36,
    label: 16.0,
    line: 20,
    version: Some(13.0),
    legend: LegendStyle::SCREEN,
    margin: 40,
    lane: 40,
    dot: 6,
    min_step: 120,
    stroke: 2,
};

// Print lanes hold one line: a version under each dot would double the figure's height.
const PRINT: Sizes = Sizes {
    title: 11.0,
    title_line: 14,
    label: PRINT_MIN_SIZE,
    line: 11,
    version: None,
    legend: LegendStyle::PRINT,
    margin: 6,
    lane: 13,
    dot: 3,
    min_step: 16,
    stroke: 1,
};

struct Layout {
    sizes: Sizes,
    width: u32,
    height: u32,
    title: Vec<String>,
    legend: Vec<Entry>,
    /// Each kind's paint, in the kinds' order.
    fills: Vec<Fill>,
    /// Where the dots start and how far apart they are.
    left: i32,
    step: i32,
    /// The dots' radius: the style's, or less where releases crowd (at most a quarter of the
    /// step, so the links between dots stay visible at 128 releases).
    dot: i32,
    /// Each lane's top, height and label lines.
    lanes: Vec<(i32, i32, Vec<String>)>,
    show_versions: bool,
}

impl Layout {
    fn new(title: &str, kinds: &[Kind], lanes: &[Lane], medium: Medium) -> Layout {
        let (sizes, width) = match medium.print() {
            None => (SCREEN, 1600),
            Some(print) => (PRINT, print.width.points()),
        };
        let room = width - 2 * sizes.margin as u32;
        let title = style::wrap_words(title, sizes.title, true, room);
        let colours: Vec<RGBColor> = kinds.iter().map(|k| k.colour).collect();
        let fills = fill::fills(&colours);
        let mut series: Vec<Series> = kinds
            .iter()
            .zip(&fills)
            .map(|(k, &fill)| Series {
                label: k.label.to_string(),
                fill,
                sample: Sample::Line(k.stroke * sizes.stroke),
            })
            .collect();
        // Named only where a lane has such a mark (a watch's lanes never do).
        if lanes.iter().any(|l| l.marks.iter().any(|m| !m.captured)) {
            series.push(Series {
                label: NO_CONTRACT_LABEL.to_string(),
                fill: Fill {
                    colour: NO_CONTRACT,
                    hatch: Hatch::Solid,
                },
                sample: Sample::Block,
            });
        }
        let legend_top =
            sizes.margin / 2 + sizes.title_line * title.len() as i32 + sizes.margin / 2;
        let (legend, legend_bottom) = legend::layout(&series, legend_top, width, &sizes.legend);
        let longest = lanes
            .iter()
            .map(|l| style::text_width(&l.label, sizes.label, false))
            .max()
            .unwrap_or(0) as i32;
        let columns = lanes
            .iter()
            .map(|l| l.marks.len())
            .max()
            .unwrap_or(1)
            .max(1) as i32;
        let label_room = longest
            .min(width as i32 - 3 * sizes.margin - columns * sizes.min_step)
            .max(width as i32 / 4);
        let left = sizes.margin + label_room + sizes.margin;
        let step = (width as i32 - left - sizes.margin) / columns;
        // Versions are shown only where every one fits between its neighbours.
        let show_versions = sizes.version.is_some_and(|size| {
            lanes
                .iter()
                .flat_map(|l| &l.marks)
                .all(|m| style::text_width(&m.version, size, false) as i32 + sizes.dot <= step)
        });
        let version_line = if show_versions { sizes.line } else { 0 };
        let mut y = legend_bottom + sizes.margin;
        let lanes = lanes
            .iter()
            .map(|l| {
                let lines = style::break_to_width(&l.label, sizes.label, label_room as u32);
                let height = (sizes.lane + version_line).max(sizes.line * lines.len() as i32 + 2);
                let lane = (y, height, lines);
                y += height;
                lane
            })
            .collect();
        Layout {
            dot: sizes.dot.min((step / 4).max(1)),
            height: (y + sizes.margin) as u32,
            sizes,
            width,
            title,
            legend,
            fills,
            left,
            step,
            lanes,
            show_versions,
        }
    }

    fn x(&self, index: usize) -> i32 {
        self.left + self.step * index as i32 + self.step / 2
    }
}

/// Draws `lanes` under `title`, their links coloured by `kinds`.
pub fn render(
    stem: &'static str,
    title: &str,
    kinds: &[Kind],
    lanes: &[Lane],
    medium: Medium,
) -> Result<Figure, PlotError> {
    let layout = Layout::new(title, kinds, lanes, medium);
    let size = (layout.width, layout.height);
    render_both(
        stem,
        medium,
        size,
        &Timeline {
            kinds,
            lanes,
            layout,
        },
    )
}

struct Timeline<'a> {
    kinds: &'a [Kind],
    lanes: &'a [Lane],
    layout: Layout,
}

impl Drawing for Timeline<'_> {
    fn key(&self) -> Vec<Swatch> {
        legend::swatches(&self.layout.legend, &self.layout.sizes.legend)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        let l = &self.layout;
        let s = &l.sizes;
        root.fill(&WHITE)?;
        let text = style::text_style;
        for (i, line) in l.title.iter().enumerate() {
            root.draw(&Text::new(
                line.as_str(),
                (l.width as i32 / 2, s.margin / 2 + s.title_line * i as i32),
                text(s.title, true, BLACK, HPos::Center, VPos::Top),
            ))?;
        }
        legend::draw(root, &l.legend, &s.legend)?;
        for (lane, (top, height, lines)) in self.lanes.iter().zip(&l.lanes) {
            // The dots sit on the lane's label line; versions go under them.
            let version_line = if l.show_versions { s.line } else { 0 };
            let y = top + (height - version_line) / 2;
            let first = y - s.line * (lines.len() as i32 - 1) / 2;
            for (i, line) in lines.iter().enumerate() {
                root.draw(&Text::new(
                    line.as_str(),
                    (l.left - s.margin, first + s.line * i as i32),
                    text(s.label, false, BLACK, HPos::Right, VPos::Center),
                ))?;
            }
            root.draw(&PathElement::new(
                vec![(l.x(0), y), (l.x(lane.marks.len().max(1) - 1), y)],
                style::GRID,
            ))?;
            for link in &lane.links {
                let kind = &self.kinds[link.kind];
                let dash = s.legend.hatch.dash_unit();
                let (from, to) = ((l.x(link.from), y), l.x(link.to));
                fill::line(
                    root,
                    from,
                    to,
                    l.fills[link.kind],
                    kind.stroke * s.stroke,
                    dash,
                )?;
            }
            for (i, mark) in lane.marks.iter().enumerate() {
                let colour = if mark.captured { BLACK } else { NO_CONTRACT };
                // Dots too crowded to tell apart would hide the links: only the releases
                // without a contract are marked then.
                if mark.captured && l.dot < 2 {
                    continue;
                }
                root.draw(&Circle::new((l.x(i), y), l.dot, colour.filled()))?;
                if let (true, Some(size)) = (l.show_versions, s.version) {
                    root.draw(&Text::new(
                        mark.version.as_str(),
                        (l.x(i), y + l.dot + 2),
                        text(size, false, style::MUTED, HPos::Center, VPos::Top),
                    ))?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::{Print, PrintWidth, DEFAULT_DPI};

    /// 128 releases of one package, each pair breaking.
    fn long_history() -> (Vec<Kind>, Vec<Lane>) {
        let kinds = vec![Kind {
            label: "breaking",
            colour: RGBColor(178, 34, 34),
            stroke: 4,
        }];
        let lanes = vec![Lane {
            label: "npm:synthetic".into(),
            marks: (0..128)
                .map(|v| Mark {
                    version: format!("1.0.{v}"),
                    captured: true,
                })
                .collect(),
            links: (0..127)
                .map(|from| Link {
                    from,
                    to: from + 1,
                    kind: 0,
                })
                .collect(),
        }];
        (kinds, lanes)
    }

    fn radii(svg: &str) -> Vec<f64> {
        svg.split("<circle")
            .skip(1)
            .filter_map(|c| c.split("r=\"").nth(1)?.split('"').next()?.parse().ok())
            .collect()
    }

    #[test]
    fn a_long_history_keeps_its_links_visible_between_the_dots() {
        let (kinds, lanes) = long_history();
        let screen = render("t", "t", &kinds, &lanes, Medium::Screen).unwrap();
        let layout = Layout::new("t", &kinds, &lanes, Medium::Screen);
        let dots = radii(&screen.svg);
        assert_eq!(dots.len(), 128);
        // Each dot covers at most half the way to its neighbour, so each link shows.
        assert!(
            dots.iter().all(|&r| r * 4.0 <= layout.step as f64),
            "{dots:?} at a step of {}",
            layout.step
        );
        let print = Medium::Print(Print {
            width: PrintWidth::ALL[0],
            dpi: DEFAULT_DPI,
        });
        // Too crowded to tell dots apart: only the links are drawn.
        let narrow = render("t", "t", &kinds, &lanes, print).unwrap();
        assert!(radii(&narrow.svg).is_empty());
        assert!(narrow.svg.matches("<polyline").count() >= 127);
    }
}
