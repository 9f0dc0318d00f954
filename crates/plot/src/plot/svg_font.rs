//! Embeds the figure's font in an SVG: a subset of DejaVu Sans (regular, and bold when used)
//! with the glyphs of its text, as `@font-face` data URLs, so the SVG renders as the PNG does on
//! machines without DejaVu Sans. Viewers that refuse embedded fonts (some sandboxed image
//! viewers) fall back to the named families, metrically close to DejaVu.

use std::collections::BTreeSet;

use base64::Engine;

use super::font_subset::subset;
use super::style::{BOLD, REGULAR};

/// The family the SVG text names first.
pub(crate) const FAMILY: &str = "DejaVu Sans";

/// The font's licence, which asks to travel with every copy of the font.
const LICENCE: &str = include_str!("../../../../assets/fonts/LICENSE-DejaVu.txt");

/// `svg` with a `<style>` of `@font-face` rules right after its opening tag.
pub(crate) fn embed(svg: &str) -> String {
    let (regular, bold) = characters(svg);
    let mut faces = String::new();
    for (chars, bytes, weight) in [(regular, REGULAR, "normal"), (bold, BOLD, "bold")] {
        if chars.is_empty() {
            continue;
        }
        let Some(font) = subset(bytes, &chars) else {
            continue;
        };
        faces.push_str(&format!(
            "@font-face{{font-family:\"{FAMILY}\";font-weight:{weight};src:url(data:font/ttf;base64,{})format(\"truetype\")}}",
            base64::engine::general_purpose::STANDARD.encode(font)
        ));
    }
    let open_end = svg
        .find("<svg")
        .and_then(|open| svg[open..].find('>').map(|end| open + end));
    let Some(open_end) = open_end.filter(|_| !faces.is_empty()) else {
        return svg.to_string();
    };
    format!(
        "{}\n<!-- Text in DejaVu Sans, subset and embedded by driftlab. Its licence:\n{}-->\n<defs><style>{faces}</style></defs>{}",
        &svg[..=open_end],
        LICENCE.replace("--", "- -"),
        &svg[open_end + 1..]
    )
}

/// The characters of the SVG's regular and bold text.
fn characters(svg: &str) -> (BTreeSet<char>, BTreeSet<char>) {
    let (mut regular, mut bold) = (BTreeSet::new(), BTreeSet::new());
    let mut rest = svg;
    while let Some(start) = rest.find("<text") {
        let Some(tag_end) = rest[start..].find('>').map(|i| start + i) else {
            break;
        };
        let Some(close) = rest[tag_end..].find("</text>").map(|i| tag_end + i) else {
            break;
        };
        let set = if rest[start..tag_end].contains("font-weight=\"bold\"") {
            &mut bold
        } else {
            &mut regular
        };
        set.extend(
            unescape(&rest[tag_end + 1..close])
                .chars()
                .filter(|c| !c.is_whitespace()),
        );
        rest = &rest[close..];
    }
    (regular, bold)
}

/// XML text with its entities decoded.
pub(super) fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let entity_end = rest[amp..].find(';').map(|i| amp + i);
        let decoded = entity_end.and_then(|end| {
            let entity = &rest[amp + 1..end];
            let code = match entity {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => entity
                    .strip_prefix("#x")
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                    .and_then(char::from_u32),
            };
            code.map(|c| (c, end))
        });
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[amp + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_are_split_by_weight_and_unescaped() {
        let svg = "<svg>\n<text a=\"1\" font-weight=\"bold\">\nAB &amp;\n</text>\n<text x=\"2\">\nb&lt;&#x263A;&#65;\n</text></svg>";
        let (regular, bold) = characters(svg);
        assert_eq!(bold, "AB&".chars().collect());
        assert_eq!(regular, "b<☺A".chars().collect());
    }

    #[test]
    fn the_style_follows_the_opening_tag_and_carries_the_licence() {
        let declared = embed("<?xml version=\"1.0\"?>\n<svg>\n<text>x</text></svg>");
        assert!(declared.starts_with("<?xml version=\"1.0\"?>\n<svg>\n<!-- Text in DejaVu Sans"));
        let svg =
            "<svg width=\"1\">\n<text font-weight=\"bold\">Hi</text>\n<text>ok</text>\n</svg>\n";
        let out = embed(svg);
        assert!(out.starts_with("<svg width=\"1\">\n<!-- Text in DejaVu Sans"));
        assert_eq!(out.matches("@font-face").count(), 2);
        assert!(out.contains("font-weight:bold;src:url(data:font/ttf;base64,"));
        assert!(out.contains("Bitstream Vera is a trademark of Bitstream, Inc."));
        assert!(out.ends_with("<text>ok</text>\n</svg>\n"));
        // Without text there is nothing to embed.
        assert_eq!(embed("<svg><rect/></svg>"), "<svg><rect/></svg>");
    }
}
