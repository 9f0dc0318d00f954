//! How a series is painted so that it reads on a grey printer too: its colour, plus a hatch
//! (on bars and swatches) or a dash (on lines) wherever that colour alone would print as nearly
//! the same grey as another series' (less than [`MIN_STEP`] L* apart).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::error::Drawn;

/// The least difference in CIE lightness (L*, 0 black to 100 white) at which two solid series
/// tell apart in grey print.
pub(crate) const MIN_STEP: f64 = 20.0;

/// A pattern over a series' colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hatch {
    /// The colour alone.
    Solid,
    /// Lines rising to the right (`/`); on a line, long dashes.
    Rising,
    /// Lines falling to the right (`\`); on a line, short dashes far apart.
    Falling,
    /// Horizontal lines; on a line, a short dash then a long one.
    Level,
}

/// The hatches, in the order series are given them.
const HATCHES: [Hatch; 4] = [Hatch::Solid, Hatch::Rising, Hatch::Falling, Hatch::Level];

/// A series' paint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fill {
    /// The series' colour.
    pub colour: RGBColor,
    /// Its pattern over the colour.
    pub hatch: Hatch,
}

/// The CIE L* of an sRGB colour: what a grey printer keeps of it.
pub fn lightness(c: RGBColor) -> f64 {
    let linear = |v: u8| {
        let v = f64::from(v) / 255.0;
        match v <= 0.04045 {
            true => v / 12.92,
            false => ((v + 0.055) / 1.055).powf(2.4),
        }
    };
    let y = 0.2126 * linear(c.0) + 0.7152 * linear(c.1) + 0.0722 * linear(c.2);
    match y > 216.0 / 24389.0 {
        true => 116.0 * y.cbrt() - 16.0,
        false => y * 24389.0 / 27.0,
    }
}

/// Each colour's fill, in order: the first hatch (solid first) under which it is at least
/// [`MIN_STEP`] L* from every earlier series with that hatch, so any two series differ in
/// lightness or in pattern. Where every hatch is taken, the one with the fewest near neighbours.
pub fn fills(colours: &[RGBColor]) -> Vec<Fill> {
    let mut out: Vec<Fill> = Vec::with_capacity(colours.len());
    for &colour in colours {
        let near = |hatch: Hatch| {
            out.iter()
                .filter(|f| f.hatch == hatch)
                .filter(|f| (lightness(f.colour) - lightness(colour)).abs() < MIN_STEP)
                .count()
        };
        let hatch = HATCHES
            .into_iter()
            .min_by_key(|&h| near(h))
            .unwrap_or(Hatch::Solid);
        out.push(Fill { colour, hatch });
    }
    out
}

/// The colour of a hatch's lines: white on a dark colour, a dark grey on a light one.
fn ink(colour: RGBColor) -> RGBColor {
    match lightness(colour) < 60.0 {
        true => WHITE,
        false => RGBColor(60, 60, 60),
    }
}

/// How dense a hatch is: lines `spacing` units apart (along an axis), `width` units wide.
#[derive(Clone, Copy)]
pub struct Density {
    /// From one line to the next, along an axis.
    pub spacing: i32,
    /// A line's width.
    pub width: u32,
}

impl Density {
    /// The unit of a dashed line's pattern: half the hatches' spacing, so a legend's line
    /// sample and the lines it names dash alike.
    pub(crate) fn dash_unit(self) -> i32 {
        self.spacing / 2
    }

    /// On screen, in pixels.
    pub(crate) const SCREEN: Density = Density {
        spacing: 12,
        width: 3,
    };
    /// In print, in points.
    pub(crate) const PRINT: Density = Density {
        spacing: 4,
        width: 1,
    };
}

/// A rectangle from `a` to `b` (any two opposite corners) in `fill`; the hatch is anchored at the
/// rectangle's top-left corner, so every swatch of one fill looks the same.
pub(crate) fn rect<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    [a, b]: [(i32, i32); 2],
    fill: Fill,
    density: Density,
) -> Drawn {
    let (x0, x1) = (a.0.min(b.0), a.0.max(b.0));
    let (y0, y1) = (a.1.min(b.1), a.1.max(b.1));
    root.draw(&Rectangle::new([(x0, y0), (x1, y1)], fill.colour.filled()))?;
    let (w, h) = (x1 - x0, y1 - y0);
    let style = ink(fill.colour).stroke_width(density.width);
    let s = density.spacing.max(2);
    let segments: Vec<[(i32, i32); 2]> = match fill.hatch {
        Hatch::Solid => Vec::new(),
        // u + v = c: from where it enters the rectangle to where it leaves.
        Hatch::Rising => (1..)
            .map(|k| k * s)
            .take_while(|&c| c < w + h)
            .map(|c| {
                let (u0, u1) = ((c - h).max(0), c.min(w));
                [(x0 + u0, y0 + c - u0), (x0 + u1, y0 + c - u1)]
            })
            .collect(),
        // u - v = c.
        Hatch::Falling => (-(h / s)..=w / s)
            .map(|k| k * s)
            .filter(|&c| c > -h && c < w)
            .map(|c| {
                let (u0, u1) = (c.max(0), (c + h).min(w));
                [(x0 + u0, y0 + u0 - c), (x0 + u1, y0 + u1 - c)]
            })
            .collect(),
        // Closer than the diagonals' spacing along an axis, so as much of it is line.
        Hatch::Level => (0..)
            .map(|k| s / 2 + k * (s * 3 / 4).max(2))
            .take_while(|&v| v < h)
            .map(|v| [(x0, y0 + v), (x1, y0 + v)])
            .collect(),
    };
    for [from, to] in segments {
        root.draw(&PathElement::new(vec![from, to], style))?;
    }
    Ok(())
}

/// A horizontal line from `from` to `to_x` at `from`'s height in `fill`'s colour, `width`
/// units wide; a hatched fill draws it dashed (`unit` long dashes, dots or dash-dot), so lines
/// tell apart where their colours would not.
pub fn line<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    from: (i32, i32),
    to_x: i32,
    fill: Fill,
    width: u32,
    unit: i32,
) -> Drawn {
    let style = fill.colour.stroke_width(width);
    // The dash pattern: (on, off) lengths in units, repeated.
    let pattern: &[(i32, i32)] = match fill.hatch {
        Hatch::Solid => {
            return Ok(root.draw(&PathElement::new(vec![from, (to_x, from.1)], style))?);
        }
        // Each differs from the others and from solid in at least a quarter of a swatch's
        // length (a swatch is four units long in print, under four on screen).
        Hatch::Rising => &[(2, 1)],
        Hatch::Falling => &[(1, 2)],
        Hatch::Level => &[(1, 1), (3, 1)],
    };
    let (start, end) = (from.0.min(to_x), from.0.max(to_x));
    let mut x = start;
    'dashes: loop {
        for &(on, off) in pattern {
            if x >= end {
                break 'dashes;
            }
            let stop = (x + on * unit).min(end);
            root.draw(&PathElement::new(vec![(x, from.1), (stop, from.1)], style))?;
            x = stop + off * unit;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lightness_runs_from_black_to_white() {
        assert_eq!(lightness(BLACK), 0.0);
        assert!((lightness(WHITE) - 100.0).abs() < 1e-9);
        // The Okabe–Ito blue and vermillion print 8 L* apart: the same grey.
        let (blue, vermillion) = (RGBColor(0, 114, 178), RGBColor(213, 94, 0));
        assert!((lightness(blue) - 46.0).abs() < 0.5);
        assert!((lightness(vermillion) - lightness(blue)).abs() < MIN_STEP);
    }

    #[test]
    fn series_of_one_grey_get_different_hatches_and_distinct_greys_stay_solid() {
        let grey = RGBColor(120, 120, 120);
        let hatches: Vec<Hatch> = fills(&[grey; 4]).iter().map(|f| f.hatch).collect();
        assert_eq!(hatches, HATCHES);
        let apart = fills(&[BLACK, RGBColor(0, 114, 178), RGBColor(200, 200, 200)]);
        assert!(apart.iter().all(|f| f.hatch == Hatch::Solid));
        let close = fills(&[RGBColor(0, 114, 178), RGBColor(213, 94, 0)]);
        assert_eq!(close[1].hatch, Hatch::Rising);
    }
}
