//! A backend that draws a layout made in points onto a bitmap of `k` pixels per point, so a
//! print figure's drawing code is the same for its SVG (1 unit = 1 pt) and its PNG at any dpi:
//! coordinates, stroke widths and text sizes are multiplied by `k` on the way through.

use plotters::style::{FontDesc, TextStyle};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

/// `inner`, seen by the drawing code as a canvas of `size` points.
pub(crate) struct Scaled<B> {
    pub inner: B,
    pub size: (u32, u32),
    /// Pixels per point.
    pub k: f64,
}

/// A stroke of `width` pixels in `color`.
struct Stroke {
    color: BackendColor,
    width: u32,
}

impl BackendStyle for Stroke {
    fn color(&self) -> BackendColor {
        self.color
    }

    fn stroke_width(&self) -> u32 {
        self.width
    }
}

type Error<B> = DrawingErrorKind<<B as DrawingBackend>::ErrorType>;

impl<B: DrawingBackend> Scaled<B> {
    fn at(&self, (x, y): BackendCoord) -> BackendCoord {
        (
            (f64::from(x) * self.k).round() as i32,
            (f64::from(y) * self.k).round() as i32,
        )
    }

    fn stroke<S: BackendStyle>(&self, style: &S) -> Stroke {
        Stroke {
            color: style.color(),
            width: ((f64::from(style.stroke_width()) * self.k).round() as u32).max(1),
        }
    }
}

impl<B: DrawingBackend> DrawingBackend for Scaled<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<(), Error<B>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), Error<B>> {
        self.inner.present()
    }

    /// One point is a `k` × `k` square of pixels.
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Error<B>> {
        let (x0, y0) = self.at(point);
        let (x1, y1) = self.at((point.0 + 1, point.1 + 1));
        let fill = Stroke { color, width: 1 };
        self.inner
            .draw_rect((x0, y0), (x1 - 1, y1 - 1), &fill, true)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), Error<B>> {
        let stroke = self.stroke(style);
        let (from, to) = (self.at(from), self.at(to));
        self.inner.draw_line(from, to, &stroke)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Error<B>> {
        let stroke = self.stroke(style);
        let (a, b) = (self.at(upper_left), self.at(bottom_right));
        self.inner.draw_rect(a, b, &stroke, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), Error<B>> {
        let stroke = self.stroke(style);
        let path: Vec<BackendCoord> = path.into_iter().map(|p| self.at(p)).collect();
        self.inner.draw_path(path, &stroke)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), Error<B>> {
        let stroke = self.stroke(style);
        let radius = (f64::from(radius) * self.k).round() as u32;
        let center = self.at(center);
        self.inner.draw_circle(center, radius, &stroke, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), Error<B>> {
        let stroke = self.stroke(style);
        let vert: Vec<BackendCoord> = vert.into_iter().map(|p| self.at(p)).collect();
        self.inner.fill_polygon(vert, &stroke)
    }

    /// The same text at `k` times its size, laid out afresh so anchors stay exact.
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), Error<B>> {
        let font = FontDesc::new(style.family(), style.size() * self.k, style.style())
            .transform(style.transform());
        let scaled = TextStyle {
            font,
            color: style.color(),
            pos: style.anchor(),
        };
        let pos = self.at(pos);
        self.inner.draw_text(text, &scaled, pos)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), Error<B>> {
        // No figure blits; a bitmap keeps its pixels, placed where its point lands.
        let pos = self.at(pos);
        self.inner.blit_bitmap(pos, size, src)
    }
}
