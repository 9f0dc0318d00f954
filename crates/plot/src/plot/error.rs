//! Why a figure could not be drawn: the figure's name and the fault.

use plotters::prelude::DrawingAreaErrorKind;
use thiserror::Error;

/// A figure that could not be drawn, by name, and why.
#[derive(Debug, Error)]
#[error("cannot draw {figure}: {fault}")]
pub struct PlotError {
    /// The figure's file stem.
    pub figure: &'static str,
    /// What went wrong.
    pub fault: DrawFault,
}

/// Why a figure could not be drawn.
#[derive(Debug, Error)]
pub enum DrawFault {
    /// The embedded font did not load.
    #[error("the embedded DejaVu Sans font could not be loaded")]
    Font,
    /// plotters' error is generic over the backend, so its text is kept, not the value.
    #[error("{0}")]
    Drawing(String),
    /// Two series would print as the same grey (a palette bug: [`super::fill::fills`] hatches
    /// what its colours cannot part).
    #[error("{0}")]
    Grey(String),
    /// The PNG encoder failed.
    #[error(transparent)]
    Png(#[from] png::EncodingError),
}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for DrawFault {
    fn from(error: DrawingAreaErrorKind<E>) -> Self {
        DrawFault::Drawing(error.to_string())
    }
}

/// What a drawing step returns.
pub type Drawn<T = ()> = Result<T, DrawFault>;
