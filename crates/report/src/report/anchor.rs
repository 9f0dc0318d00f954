//! The repository file a gate's findings are shown in (SARIF locations, annotations), and each
//! finding's place in it.
//!
//! A finding's pointer is into the candidate, or into the approved payload for something that is
//! gone (`old_pointer` is always into the approved one). When the anchor file is one of the two,
//! the pointer into it is used as it is; otherwise (a live candidate anchored in a snapshot of a
//! different layout, or `--anchor`) the finding's tool is looked up by name in the anchor file
//! and the path inside the tool follows it. What the anchor does not contain (an added tool, a
//! removed parameter) lands on the nearest enclosing member it does contain.

use super::region::{Locator, Place};
use driftlab_check::check::{inside_tool, Finding};
use driftlab_contract::surface::Surface;

/// Which document the anchor file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The approved payload's file.
    Approved,
    /// The candidate payload's file.
    Candidate,
    /// Neither (a different file, or the same path at another revision).
    Other,
}

/// Where findings are shown: a path relative to the repository root, and a place per finding.
#[derive(Debug, Clone)]
pub struct Anchor {
    /// Relative to the repository root, `/`-separated, percent-encoded as a URI reference.
    pub uri: String,
    /// One per finding of the outcome, in order.
    pub places: Vec<Place>,
}

/// Places every finding in the anchor text (`surface` is that text, read as a payload).
pub fn place(text: &str, side: Side, surface: &Surface, findings: &[Finding]) -> Vec<Place> {
    place_under(text, "", side, surface, findings)
}

/// [`place`] for a surface that sits at `prefix` (a JSON pointer) inside the anchor text, as a
/// server's contract sits in a lockfile.
pub fn place_under(
    text: &str,
    prefix: &str,
    side: Side,
    surface: &Surface,
    findings: &[Finding],
) -> Vec<Place> {
    let mut locator = Locator::new(text);
    let list = tools_list(surface);
    findings
        .iter()
        .map(|f| {
            let direct = match side {
                Side::Approved => f.old_pointer.clone(),
                Side::Candidate => (f.old_pointer.as_deref() != Some(f.pointer.as_str()))
                    .then(|| f.pointer.clone()),
                Side::Other => None,
            };
            let pointer = direct.unwrap_or_else(|| by_tool_name(f, surface, &list));
            locator
                .locate(&format!("{prefix}{pointer}"))
                .unwrap_or(Place {
                    pointer: String::new(),
                    exact: false,
                    start: (1, 1),
                    end: (1, 1),
                })
        })
        .collect()
}

/// The finding's pointer moved to its tool in the anchor surface, or the tools list when the
/// anchor does not list the tool.
fn by_tool_name(f: &Finding, surface: &Surface, list: &str) -> String {
    let Some(tool) = &f.tool else {
        return list.to_string();
    };
    // A rename is labelled `old -> new`: the anchor may hold either name.
    let names = std::iter::once(tool.name.as_str()).chain(tool.name.split(" -> "));
    for name in names {
        if let Some(t) = surface.tools().find(|t| t.name_str() == Some(name)) {
            return format!("{}{}", t.location(), inside_tool(&f.pointer));
        }
    }
    list.to_string()
}

/// The pointer of the surface's tools array (`/tools` when it lists none).
fn tools_list(surface: &Surface) -> String {
    match surface.tool(0) {
        Some(t) => {
            let location = t.location();
            location[..location.rfind('/').unwrap_or(0)].to_string()
        }
        None => "/tools".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlab_check::check::rules::of_kind;
    use driftlab_check::check::{run_rules, RuleKind};
    use driftlab_contract::payload::{self, Limits};

    fn surface(text: &str) -> Surface {
        payload::read_owned(text.as_bytes().to_vec(), "t.json", Limits::default()).unwrap()
    }

    const OLD: &str = "{\"tools\": [\n {\"name\": \"a\", \"inputSchema\": {\"type\": \"object\", \"properties\": {\"p\": {\"type\": \"string\"}}}},\n {\"name\": \"remove_cache\", \"inputSchema\": {\"type\": \"object\"}}\n]}\n";
    const NEW: &str = "{\"tools\": [\n {\"name\": \"fetch_weather\", \"description\": \"Weather for a city\", \"inputSchema\": {\"type\": \"object\", \"required\": [\"city\"]}},\n {\"name\": \"a\",\n  \"inputSchema\": {\"type\": \"object\", \"properties\": {\"p\": {\"type\": \"integer\"}}}}\n]}\n";

    fn findings() -> Vec<Finding> {
        let rules = of_kind(RuleKind::Diff);
        run_rules(&rules, &surface(OLD), &surface(NEW))
    }

    fn line_of(side: Side, text: &str, rule: &str) -> (usize, String) {
        let all = findings();
        let places = place(text, side, &surface(text), &all);
        let i = all.iter().position(|f| f.rule == rule).unwrap();
        (places[i].start.0, places[i].pointer.clone())
    }

    #[test]
    fn each_side_lands_on_its_own_line() {
        // In the candidate the changed type is on line 3; in the approved file on line 2.
        let narrowed = "type-changed";
        assert!(
            findings().iter().any(|f| f.rule == narrowed),
            "{:?}",
            findings()
        );
        assert_eq!(line_of(Side::Candidate, NEW, narrowed).0, 4);
        assert_eq!(line_of(Side::Approved, OLD, narrowed).0, 2);
        // Another file with the candidate's layout, found by tool name.
        assert_eq!(
            line_of(Side::Other, NEW, narrowed).1,
            "/tools/1/inputSchema/properties/p/type"
        );
    }

    #[test]
    fn what_the_anchor_lacks_lands_on_the_nearest_member() {
        let rules: Vec<_> = findings().iter().map(|f| f.rule).collect();
        assert!(
            rules.contains(&"tool-removed") && rules.contains(&"tool-added"),
            "{rules:?}"
        );
        // A removed tool, shown in the candidate file: its tools list.
        assert_eq!(line_of(Side::Candidate, NEW, "tool-removed").1, "/tools");
        assert_eq!(line_of(Side::Approved, OLD, "tool-removed").1, "/tools/1");
        // An added tool, shown in the approved file: its tools list.
        assert_eq!(line_of(Side::Approved, OLD, "tool-added").1, "/tools");
        assert_eq!(line_of(Side::Other, OLD, "tool-added").1, "/tools");
    }
}
