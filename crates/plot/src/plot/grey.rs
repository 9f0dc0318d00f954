//! A figure as a grey printer prints it: its PNG turned to CIE lightness (L*), and its legend's
//! swatches read back from those pixels, so a test can tell whether every series still parts
//! from every other without its hue.

use plotters::style::RGBColor;

use super::fill::{lightness, MIN_STEP};
use super::Swatch;

/// The least share of two swatches' pixels (of those not blank in both) whose lightness differs
/// by [`MIN_STEP`] or more, for the two to tell apart: a solid step of 20 L* differs in every
/// pixel, a hatch against a solid of one grey in about a third.
pub(crate) const MIN_PARTING: f64 = 0.2;

/// A page's white, within this many L*, counts as blank.
const BLANK: f64 = 3.0;

/// One swatch in grey: its label and its pixels' lightness, row by row.
struct GreySwatch<'a> {
    label: &'a str,
    pixels: Vec<f64>,
}

/// [`check_pixels`] on the figure's PNG, as a reader's file would be checked.
#[cfg(test)]
pub(crate) fn check(figure: &super::Figure) -> Result<(), String> {
    let decoder = png::Decoder::new(&figure.png[..]);
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let mut buffer = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut buffer).map_err(|e| e.to_string())?;
    if frame.color_type != png::ColorType::Rgb || frame.bit_depth != png::BitDepth::Eight {
        return Err(format!("{}: the PNG is not 8-bit RGB", figure.stem));
    }
    let image = Image {
        rgb: &buffer,
        width: frame.width as usize,
        height: frame.height as usize,
        per_unit: f64::from(frame.width) / f64::from(figure.width),
    };
    check_pixels(figure.stem, &image, &figure.key)
}

/// An RGB image and how many of its pixels make a canvas unit (1 on screen, dpi / 72 in print).
pub(crate) struct Image<'a> {
    pub rgb: &'a [u8],
    pub width: usize,
    pub height: usize,
    pub per_unit: f64,
}

/// Whether every pair of `key`'s swatches parts in grey in `image`, and every swatch from the
/// white page (by half a step); the first that does not, as an error naming both.
pub(crate) fn check_pixels(stem: &str, image: &Image<'_>, key: &[Swatch]) -> Result<(), String> {
    let swatches = read_swatches(stem, image, key)?;
    for (i, a) in swatches.iter().enumerate() {
        let page = GreySwatch {
            label: "the white page",
            pixels: vec![100.0; a.pixels.len()],
        };
        let on_page = parting(a, &page, MIN_STEP / 2.0);
        if on_page < MIN_PARTING {
            return Err(format!(
                "{stem}: {:?} is {:.0}% apart from the white page in grey",
                a.label,
                on_page * 100.0
            ));
        }
        for b in &swatches[i + 1..] {
            let share = parting(a, b, MIN_STEP);
            if share < MIN_PARTING {
                return Err(format!(
                    "{stem}: {:?} and {:?} print alike in grey: {:.0}% of their pixels differ by {MIN_STEP} L* or more (mean L* {:.0} and {:.0})",
                    a.label,
                    b.label,
                    share * 100.0,
                    mean(&a.pixels),
                    mean(&b.pixels)
                ));
            }
        }
    }
    Ok(())
}

fn mean(pixels: &[f64]) -> f64 {
    pixels.iter().sum::<f64>() / pixels.len().max(1) as f64
}

/// The share of pixels, among those not blank in both swatches, whose lightness differs by at
/// least `step`.
fn parting(a: &GreySwatch<'_>, b: &GreySwatch<'_>, step: f64) -> f64 {
    let (mut inked, mut apart) = (0usize, 0usize);
    for (&x, &y) in a.pixels.iter().zip(&b.pixels) {
        if x >= 100.0 - BLANK && y >= 100.0 - BLANK {
            continue;
        }
        inked += 1;
        if (x - y).abs() >= step {
            apart += 1;
        }
    }
    match inked {
        0 => 0.0,
        _ => apart as f64 / inked as f64,
    }
}

/// Each swatch's pixels in L*, cropped to the smallest swatch's size so that any two compare
/// pixel for pixel.
fn read_swatches<'a>(
    stem: &str,
    image: &Image<'_>,
    key: &'a [Swatch],
) -> Result<Vec<GreySwatch<'a>>, String> {
    let to_pixels = |[a, b]: [(i32, i32); 2]| {
        let px = |v: i32, limit: usize| {
            ((f64::from(v) * image.per_unit).round().max(0.0) as usize).min(limit)
        };
        // One pixel in from each edge: the edges blend with what is around them.
        let (x0, x1) = (
            px(a.0, image.width) + 1,
            px(b.0, image.width).saturating_sub(1),
        );
        let (y0, y1) = (
            px(a.1, image.height) + 1,
            px(b.1, image.height).saturating_sub(1),
        );
        (x0, y0, x1.max(x0), y1.max(y0))
    };
    let boxes: Vec<_> = key.iter().map(|s| to_pixels(s.corners)).collect();
    let side_w = boxes.iter().map(|b| b.2 - b.0).min().unwrap_or(0);
    let side_h = boxes.iter().map(|b| b.3 - b.1).min().unwrap_or(0);
    if !key.is_empty() && (side_w == 0 || side_h == 0) {
        return Err(format!("{stem}: a legend swatch has no pixels"));
    }
    let at = |x: usize, y: usize| {
        let i = (y * image.width + x) * 3;
        lightness(RGBColor(image.rgb[i], image.rgb[i + 1], image.rgb[i + 2]))
    };
    Ok(key
        .iter()
        .zip(&boxes)
        .map(|(swatch, &(x0, y0, _, _))| GreySwatch {
            label: &swatch.label,
            pixels: (y0..y0 + side_h)
                .flat_map(|y| (x0..x0 + side_w).map(move |x| (x, y)))
                .map(|(x, y)| at(x, y))
                .collect(),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use plotters::prelude::*;

    use super::*;
    use crate::plot::fill::{self, Density, Fill, Hatch};

    /// Swatches of `fills` side by side on a white 22-pixel-high strip, drawn as charts draw them.
    fn strip(fills: &[Fill]) -> (Vec<u8>, usize, Vec<Swatch>) {
        let width = 40 * fills.len() + 10;
        let mut rgb = vec![0u8; width * 40 * 3];
        let mut key = Vec::new();
        {
            let root = BitMapBackend::with_buffer(&mut rgb, (width as u32, 40)).into_drawing_area();
            root.fill(&WHITE).unwrap();
            for (i, &paint) in fills.iter().enumerate() {
                let x = 10 + 40 * i as i32;
                let corners = [(x, 9), (x + 22, 31)];
                fill::rect(&root, corners, paint, Density::SCREEN).unwrap();
                key.push(Swatch {
                    label: format!("series {i}"),
                    corners,
                });
            }
            root.present().unwrap();
        }
        (rgb, width, key)
    }

    fn check_strip(fills: &[Fill]) -> Result<(), String> {
        let (rgb, width, key) = strip(fills);
        let image = Image {
            rgb: &rgb,
            width,
            height: 40,
            per_unit: 1.0,
        };
        check_pixels("strip", &image, &key)
    }

    #[test]
    fn two_solid_colours_of_one_grey_are_caught_and_a_hatch_parts_them() {
        let solid = |colour| Fill {
            colour,
            hatch: Hatch::Solid,
        };
        // Okabe–Ito blue and vermillion: 8 L* apart.
        let (blue, vermillion) = (RGBColor(0, 114, 178), RGBColor(213, 94, 0));
        let error = check_strip(&[solid(blue), solid(vermillion)]).unwrap_err();
        assert!(
            error.contains("\"series 0\" and \"series 1\" print alike"),
            "{error}"
        );
        check_strip(&fill::fills(&[blue, vermillion])).unwrap();
        // A white swatch does not show on the page.
        let error = check_strip(&[solid(blue), solid(RGBColor(250, 250, 250))]).unwrap_err();
        assert!(error.contains("white page"), "{error}");
        // Every hatch parts from every other in one grey.
        let grey = RGBColor(112, 112, 112);
        check_strip(&fill::fills(&[grey; 4])).unwrap();
    }
}
