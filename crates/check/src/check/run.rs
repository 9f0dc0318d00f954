//! Running a gate's rules over one comparison. Small surfaces run each rule in turn. A surface
//! of many tools runs them on all cores, and the rules that judge each tool alone read each
//! tool once for all of them, a chunk of tools at a time: read once per rule, the tools of a
//! 300,000-tool payload went through memory nine times.

use rayon::prelude::*;

use super::{Comparison, Finding, Rule};
use driftlab_contract::surface::Tool;

/// Surfaces with at least this many tools run their rules side by side: each rule then walks
/// tens of thousands of tools, and a thread's start costs less than one such walk.
pub const PARALLEL_TOOLS: usize = 10_000;

/// Tools judged together by the per-tool rules: their records stay in cache between rules.
pub const CHUNK: usize = 2048;

/// A rule that judges each candidate tool alone: its findings for one tool, as its `check`
/// reports them for that tool (which [`check_each_tool`] gives it).
pub trait PerTool: Sync {
    /// Adds what it finds in the candidate's `tool` to `out`.
    fn check_tool(&self, comparison: &Comparison<'_>, tool: &Tool<'_>, out: &mut Vec<Finding>);
}

/// `check` of a per-tool rule: every candidate tool, in order.
pub fn check_each_tool(rule: &dyn PerTool, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
    for tool in comparison.candidate.tools() {
        rule.check_tool(comparison, &tool, out);
    }
}

/// Runs every rule once and returns all findings, in rule order then report order (the same
/// however the rules ran).
pub fn run_rules(
    rules: &[&dyn Rule],
    approved: &driftlab_contract::surface::Surface,
    candidate: &driftlab_contract::surface::Surface,
) -> Vec<Finding> {
    let comparison = Comparison::new(approved, candidate);
    let run = |rule: &&dyn Rule| {
        let mut out = Vec::new();
        rule.check(&comparison, &mut out);
        out
    };
    if approved.len().max(candidate.len()) < PARALLEL_TOOLS {
        return rules.iter().flat_map(run).collect();
    }
    let per_tool: Vec<&dyn PerTool> = rules.iter().filter_map(|r| r.per_tool()).collect();
    let whole: Vec<&dyn Rule> = rules
        .iter()
        .copied()
        .filter(|r| r.per_tool().is_none())
        .collect();
    let (by_tool, by_whole) = rayon::join(
        || tool_by_tool(&per_tool, &comparison),
        || whole.par_iter().map(run).collect::<Vec<_>>(),
    );
    // Back in rule order.
    let (mut by_tool, mut by_whole) = (by_tool.into_iter(), by_whole.into_iter());
    rules
        .iter()
        .flat_map(|rule| match rule.per_tool() {
            Some(_) => by_tool.next(),
            None => by_whole.next(),
        })
        .flatten()
        .collect()
}

/// The findings of each per-tool rule, in tool order: chunks of tools judged side by side, each
/// tool by every rule in turn.
fn tool_by_tool(rules: &[&dyn PerTool], comparison: &Comparison<'_>) -> Vec<Vec<Finding>> {
    let tools = comparison.candidate.len();
    let empty = || {
        (0..rules.len())
            .map(|_| Vec::new())
            .collect::<Vec<Vec<Finding>>>()
    };
    let chunks: Vec<Vec<Vec<Finding>>> = (0..tools.div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let mut found = empty();
            let range = chunk * CHUNK..tools.min((chunk + 1) * CHUNK);
            for tool in range.filter_map(|i| comparison.candidate.tool(i)) {
                for (rule, out) in rules.iter().zip(&mut found) {
                    rule.check_tool(comparison, &tool, out);
                }
            }
            found
        })
        .collect();
    let mut per_rule = empty();
    for chunk in chunks {
        for (all, found) in per_rule.iter_mut().zip(chunk) {
            all.extend(found);
        }
    }
    per_rule
}
