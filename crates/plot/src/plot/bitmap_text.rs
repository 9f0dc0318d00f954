//! PNG text drawn glyph by glyph at its true position. plotters' own ab_glyph text drops each
//! glyph's left side bearing and rounds the pen to whole pixels, which spaces digits unevenly
//! ("240/2 40"); this backend wraps the bitmap backend and draws text itself, keeping plotters'
//! layout box and anchors so every label stays where the drawing code put it.

use ab_glyph::{point, Font, ScaleFont};
use plotters::backend::BitMapBackend;
use plotters::style::FontStyle;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

use super::style;

/// A bitmap backend whose text is placed with sub-pixel pen positions and side bearings.
pub(crate) struct TextBackend<'a>(pub BitMapBackend<'a>);

type Error<'a> = DrawingErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>;

impl<'a> DrawingBackend for TextBackend<'a> {
    type ErrorType = <BitMapBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), Error<'a>> {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), Error<'a>> {
        self.0.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Error<'a>> {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.0.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Error<'a>> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), Error<'a>> {
        self.0.blit_bitmap(pos, size, src)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), Error<'a>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let Some(font) = style::font(matches!(style.style(), FontStyle::Bold)) else {
            return self.0.draw_text(text, style, pos);
        };
        // The same box and anchor arithmetic as plotters' default, so placement is unchanged.
        let ((min_x, min_y), (max_x, max_y)) = style
            .layout_box(text)
            .map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let (width, height) = (max_x - min_x, max_y - min_y);
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let transform = style.transform();
        let (w, h) = self.get_size();
        let size = style.size() as f32;
        let scale = font.as_scaled(size).scale();
        let mut result = Ok(());
        for (id, pen) in style::glyph_run(font, size, text).0 {
            // Baseline half the size below the box's top, as plotters places it.
            let glyph = id.with_scale_and_position(scale, point(pen, size / 2.0));
            let Some(outline) = font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outline.px_bounds();
            outline.draw(|x, y, coverage| {
                let gx = bounds.min.x as i32 + x as i32;
                let gy = bounds.min.y as i32 + y as i32;
                let (tx, ty) = transform.transform(gx + dx - min_x, gy + dy - min_y);
                let (px, py) = (pos.0 + tx, pos.1 + ty);
                if result.is_ok() && px >= 0 && py >= 0 && (px as u32) < w && (py as u32) < h {
                    result = self.0.draw_pixel((px, py), color.mix(f64::from(coverage)));
                }
            });
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;

    /// The first pixel column with ink when `text` is drawn left-aligned at x = 0.
    fn first_ink_column(text: &str, size: u32) -> Option<u32> {
        super::super::style::register_fonts().unwrap();
        let (w, h) = (400u32, 200u32);
        let mut pixels = vec![255u8; (w * h * 3) as usize];
        {
            let root =
                TextBackend(BitMapBackend::with_buffer(&mut pixels, (w, h))).into_drawing_area();
            let font = (super::super::style::FONT, size).into_font().color(&BLACK);
            root.draw_text(text, &font, (0, 40)).unwrap();
            root.present().unwrap();
        }
        (0..w).find(|&x| (0..h).any(|y| pixels[((y * w + x) * 3) as usize] < 128))
    }

    #[test]
    fn glyphs_keep_their_left_side_bearing() {
        let regular = style::font(false).unwrap();
        let scaled = regular.as_scaled(100.0);
        let bearing = scaled.h_side_bearing(scaled.glyph_id('1'));
        // '1' starts well right of its pen position; plotters' own text drew it at the pen.
        assert!(bearing > 8.0, "{bearing}");
        let ink = first_ink_column("1", 100).unwrap() as f32;
        assert!(
            (ink - bearing).abs() <= 1.0,
            "ink at {ink}, bearing {bearing}"
        );
    }
}
