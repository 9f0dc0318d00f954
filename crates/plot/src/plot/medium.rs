//! What a figure is rendered for: the screen (a pixel canvas, as before) or print at a journal's
//! one-column (3.5 in) or full width (7 in). A print figure is laid out in points (1 unit =
//! 1/72 in) with no text under [`PRINT_MIN_PT`]; its SVG carries its physical size in inches and
//! its PNG is rasterised at the preset's dpi (recorded in the PNG's `pHYs` chunk).

use std::fmt;
use std::str::FromStr;

/// The smallest text a print figure may carry, in points: what journals ask for.
pub const PRINT_MIN_PT: f64 = 7.0;

/// plotters writes an SVG font-size of size / 1.24 (and ab_glyph draws a PNG em of about
/// 0.86 × size), so a text style of this size prints at ≥ 7.26 pt in both formats.
pub const PRINT_MIN_SIZE: f64 = 9.0;

/// The dpi a print preset rasterises at unless told otherwise.
pub const DEFAULT_DPI: u32 = 300;

/// A journal figure width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrintWidth {
    /// One column: 3.5 in.
    Column,
    /// The full text width: 7 in.
    Full,
}

impl PrintWidth {
    /// Every print width, narrowest first.
    pub const ALL: [PrintWidth; 2] = [PrintWidth::Column, PrintWidth::Full];

    /// How the flag and the file names spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            PrintWidth::Column => "3.5in",
            PrintWidth::Full => "7in",
        }
    }

    /// The width in inches.
    pub(crate) fn inches(self) -> f64 {
        match self {
            PrintWidth::Column => 3.5,
            PrintWidth::Full => 7.0,
        }
    }

    /// The width in points, the unit a print layout is drawn in.
    pub fn points(self) -> u32 {
        (self.inches() * 72.0) as u32
    }
}

impl fmt::Display for PrintWidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for PrintWidth {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        PrintWidth::ALL
            .into_iter()
            .find(|w| w.as_str() == s)
            .ok_or_else(|| {
                format!("{s:?}: a print width is 3.5in (one column) or 7in (full width)")
            })
    }
}

/// A print preset: a width and the dpi its PNG is rasterised at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Print {
    /// The printed width.
    pub width: PrintWidth,
    /// The PNG's resolution in dots per inch.
    pub dpi: u32,
}

/// What a figure is drawn for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Medium {
    /// A screen: the canvas in pixels.
    Screen,
    /// Print at a width: the canvas in points, the PNG rasterised at the preset's dpi.
    Print(Print),
}

impl Medium {
    /// What every figure command writes by default: the screen figure and both print presets
    /// at [`DEFAULT_DPI`].
    pub const DEFAULTS: [Medium; 3] = [
        Medium::Screen,
        Medium::Print(Print {
            width: PrintWidth::Column,
            dpi: DEFAULT_DPI,
        }),
        Medium::Print(Print {
            width: PrintWidth::Full,
            dpi: DEFAULT_DPI,
        }),
    ];

    /// The file name of a figure `stem` in this medium, without extension:
    /// `detection-matrix`, `detection-matrix-7in`.
    fn file_stem(self, stem: &str) -> String {
        match self {
            Medium::Screen => stem.to_string(),
            Medium::Print(print) => format!("{stem}-{}", print.width),
        }
    }

    /// The SVG's and the PNG's file names of a figure `stem` in this medium.
    pub fn file_names(self, stem: &str) -> [String; 2] {
        let base = self.file_stem(stem);
        [format!("{base}.svg"), format!("{base}.png")]
    }

    /// [`Medium::file_names`] of part `part` of a figure drawn in parts (`-part2`); part 0 is a
    /// figure in one piece.
    pub(crate) fn part_names(self, stem: &str, part: usize) -> [String; 2] {
        let base = match part {
            0 => self.file_stem(stem),
            _ => format!("{}-part{part}", self.file_stem(stem)),
        };
        [format!("{base}.svg"), format!("{base}.png")]
    }

    /// Whether `name` is a file figure `stem` writes in this medium, in one piece or as a part
    /// ([`Medium::part_names`]).
    pub fn names_a_file_of(self, stem: &str, name: &str) -> bool {
        let base = self.file_stem(stem);
        let Some(rest) = name.strip_suffix(".svg").or(name.strip_suffix(".png")) else {
            return false;
        };
        rest == base
            || rest
                .strip_prefix(base.as_str())
                .and_then(|rest| rest.strip_prefix("-part"))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    }

    /// The print preset, if this is one.
    pub fn print(self) -> Option<Print> {
        match self {
            Medium::Screen => None,
            Medium::Print(print) => Some(print),
        }
    }
}

/// The file names (SVG and PNG) every medium in `media` writes for figure `stem`.
pub fn file_names(stem: &str, media: &[Medium]) -> Vec<String> {
    media.iter().flat_map(|m| m.file_names(stem)).collect()
}

/// A report's sentence linking the print versions of figures `stems`.
pub fn print_links(stems: &[&str]) -> String {
    print_links_named(|print| stems.iter().flat_map(|s| print.file_names(s)).collect())
}

/// A report's sentence linking the SVGs among the files `names` gives for each print preset
/// (each width at the default dpi).
pub fn print_links_named(names: impl Fn(Medium) -> Vec<String>) -> String {
    let links = |width: PrintWidth| {
        names(Medium::Print(Print {
            width,
            dpi: DEFAULT_DPI,
        }))
        .iter()
        .filter(|name| name.ends_with(".svg"))
        .map(|svg| format!("[`{svg}`]({svg})"))
        .collect::<Vec<_>>()
        .join(", ")
    };
    format!(
        "Print versions, every text at least 7 pt at print size, each with a PNG beside it: one \
         column (3.5 in) {}; full width (7 in) {}.",
        links(PrintWidth::Column),
        links(PrintWidth::Full)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_parse_and_name_files() {
        assert_eq!("7in".parse::<PrintWidth>(), Ok(PrintWidth::Full));
        assert_eq!("3.5in".parse::<PrintWidth>(), Ok(PrintWidth::Column));
        assert!("7".parse::<PrintWidth>().unwrap_err().contains("3.5in"));
        assert_eq!(PrintWidth::Column.points(), 252);
        assert_eq!(
            file_names("m", &Medium::DEFAULTS),
            [
                "m.svg",
                "m.png",
                "m-3.5in.svg",
                "m-3.5in.png",
                "m-7in.svg",
                "m-7in.png"
            ]
        );
    }
}
