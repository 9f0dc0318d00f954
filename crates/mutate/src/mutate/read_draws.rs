//! The draws a class's `edit` makes on a surface read from bytes: each the same as its
//! counterpart on the `Value` makes for the same stream, so an edit and `apply` change the same
//! place (`tests/it/fast_paths.rs` holds every edit to it).

use super::{draw, fresh};
use driftlab_contract::rng::Stream;
use driftlab_contract::surface::{Surface, Tool};

/// [`draw_tool`](super::draw_tool)'s draw on a surface read from bytes: the same tool for the same stream.
pub(super) fn draw_read_tool<'s>(
    surface: &'s Surface,
    rng: &mut Stream,
) -> Option<(usize, Tool<'s>)> {
    if surface.is_empty() {
        return None;
    }
    let index = rng.index(surface.len());
    Some((index, surface.tool(index)?))
}

/// [`tool_sites`](super::tool_sites) on a surface read from bytes.
pub(super) fn read_tool_sites(
    surface: &Surface,
    eligible: impl Fn(&Tool<'_>) -> bool,
) -> Vec<usize> {
    (0..surface.len())
        .filter(|&i| surface.tool(i).is_some_and(|t| eligible(&t)))
        .collect()
}

/// [`draw_named_tool`](super::draw_named_tool)'s draw on a surface read from bytes: the same tool for the same stream.
pub(super) fn draw_read_named_tool<'s>(
    surface: &'s Surface,
    rng: &mut Stream,
) -> Option<(usize, &'s str)> {
    let sites: Vec<usize> = (0..surface.len())
        .filter(|&i| surface.tool(i).is_some_and(|t| t.name_str().is_some()))
        .collect();
    let index = draw(sites, rng, "").ok()?;
    Some((index, surface.tool(index)?.name_str()?))
}

/// [`fresh_tool_name`](super::fresh_tool_name) on a surface read from bytes.
pub(super) fn fresh_read_tool_name(surface: &Surface, base: &str) -> String {
    fresh(base, |n| surface.tools().any(|t| t.name_str() == Some(n)))
}
