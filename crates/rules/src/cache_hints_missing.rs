//! `cache-hints-missing`: in the 2026-07-28 era every discover and list result must say how it
//! may be cached (`ttlMs`, `cacheScope`); a capture whose results lack them shows a server that
//! breaks the era's contract, and a client cannot tell how long its lists stay fresh.

use driftlab_check::check::{Comparison, Finding, Rule, RuleKind, Severity};
use driftlab_contract::pointer;
use driftlab_contract::surface::contract::capture_field;

pub(crate) struct CacheHintsMissing;

impl Rule for CacheHintsMissing {
    fn id(&self) -> &'static str {
        "cache-hints-missing"
    }
    fn added_in(&self) -> &'static str {
        "2026-12-03"
    }
    fn severity(&self) -> Severity {
        Severity::Warning
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Payload
    }
    fn summary(&self) -> &'static str {
        "a capture made in the 2026-07-28 era has a discover or list result without the ttlMs or cacheScope the era requires"
    }
    fn source(&self) -> &'static str {
        "MCP 2026-07-28 schema: DiscoverResult, ListToolsResult, ListPromptsResult, ListResourcesResult and ListResourceTemplatesResult require ttlMs and cacheScope"
    }
    fn era(&self) -> &'static str {
        "2026-07-28"
    }
    fn part(&self) -> &'static str {
        "all"
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        let Some(contract) = comparison.candidate.contract() else {
            return;
        };
        for (method, missing) in &contract.missing_cache_hints {
            let mut finding = comparison.finding(self, || {
                (
                    None,
                    pointer::push("", capture_field(method)),
                    format!(
                        "the {method} result lacks {} (required in 2026-07-28): clients cannot tell how long to keep it or whether a shared cache may serve it",
                        missing.join(" and ")
                    ),
                )
            });
            if !finding.message.is_empty() {
                finding.subject = Some(method.clone());
            }
            out.push(finding);
        }
    }
}
