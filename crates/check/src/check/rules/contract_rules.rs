//! The rules of the contract beyond tools, as data. Each reports one [`ContractChangeKind`] of
//! the shared contract diff (`diff::contract`) with its own id, severity and source.

use super::table::{Reported, TableRule};
use crate::check::{Comparison, Finding, Severity};
use driftlab_diff::diff::contract::ContractChangeKind as K;

/// A rule that reports one kind of change of the contract beyond tools.
pub type ContractRule = TableRule<K>;

impl Reported for K {
    const HEAVY: bool = false;

    fn era(rule: &ContractRule) -> &'static str {
        match rule.source {
            CACHING => "2026-07-28",
            _ => "all",
        }
    }
    fn part(rule: &ContractRule) -> &'static str {
        match rule.source {
            PROMPTS => "prompts",
            RESOURCES => "resources",
            CACHING => "all",
            _ if rule.id.starts_with("contract-") => "all",
            _ => "server",
        }
    }
    fn check(rule: &ContractRule, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        for change in comparison
            .contract_changes()
            .iter()
            .filter(|c| c.kind == rule.change)
        {
            let mut finding = comparison.finding(rule, || {
                let pointer = change
                    .new_pointer
                    .clone()
                    .or_else(|| change.old_pointer.clone());
                (None, pointer.unwrap_or_default(), change.message.clone())
            });
            if !finding.message.is_empty() {
                finding.old_pointer = change.old_pointer.clone();
                finding.old = change.old.clone();
                finding.new = change.new.clone();
                finding.subject = Some(change.subject.clone());
            }
            out.push(finding);
        }
    }
}

use Severity::{Breaking, Compatible, Info, Unknown, Warning};

const PROMPTS: &str = "MCP server/prompts: prompts/list, Prompt {name, title, description, arguments}, PromptArgument {name, description, required}; prompts/get names a prompt and passes its arguments";
const RESOURCES: &str = "MCP server/resources: resources/list Resource {uri, name, title, description, mimeType}, resources/templates/list ResourceTemplate {uriTemplate (RFC 6570), ...}; resources/read takes a uri";
const LIFECYCLE: &str = "MCP lifecycle: InitializeResult (2024-11-05 … 2025-11-25) and DiscoverResult (2026-07-28) {capabilities, serverInfo, instructions}; instructions \"can be used by clients to improve the LLM's understanding\" (e.g. in a system prompt)";
const CACHING: &str = "MCP 2026-07-28 CacheableResult: ttlMs (how long a client may keep the result) and cacheScope (public: any cache may serve it across authorization contexts; private: only within one)";
const CAPABILITIES: &str = "MCP ServerCapabilities: tools/prompts/resources {listChanged}, resources {subscribe}, logging, completions, experimental, extensions; a client must not use a feature the server did not declare";

macro_rules! contract_rule {
    ($added_in:literal, $id:literal, $severity:expr, $change:ident, $source:expr, $summary:literal) => {
        ContractRule {
            added_in: $added_in,
            id: $id,
            severity: $severity,
            change: K::$change,
            summary: $summary,
            source: $source,
        }
    };
}

/// Every contract rule, in the order `driftlab rules` lists them.
pub static CONTRACT_RULES: &[ContractRule] = &[
    contract_rule!("2026-12-03", "prompt-removed", Breaking, PromptRemoved, PROMPTS, "a prompt is gone: prompts/get with its name fails"),
    contract_rule!("2026-12-03", "prompt-renamed", Breaking, PromptRenamed, PROMPTS, "a removed and an added prompt have the same arguments and description: a rename; the old name fails"),
    contract_rule!("2026-12-03", "prompt-added", Compatible, PromptAdded, PROMPTS, "a new prompt is listed"),
    contract_rule!("2026-12-03", "prompt-argument-removed", Breaking, PromptArgumentRemoved, PROMPTS, "a prompt argument is gone: clients that send it may be refused"),
    contract_rule!("2026-12-03", "prompt-required-argument-added", Breaking, PromptRequiredArgumentAdded, PROMPTS, "a prompt has a new required argument: existing calls lack it"),
    contract_rule!("2026-12-03", "prompt-optional-argument-added", Compatible, PromptOptionalArgumentAdded, PROMPTS, "a prompt has a new optional argument"),
    contract_rule!("2026-12-03", "prompt-argument-became-required", Breaking, PromptArgumentBecameRequired, PROMPTS, "an optional prompt argument became required"),
    contract_rule!("2026-12-03", "prompt-argument-became-optional", Compatible, PromptArgumentBecameOptional, PROMPTS, "a required prompt argument became optional"),
    contract_rule!("2026-12-03", "prompt-text-changed", Warning, PromptTextChanged, PROMPTS, "a prompt's or argument's description or title changed: text the model or user reads"),
    contract_rule!("2026-12-03", "resource-removed", Breaking, ResourceRemoved, RESOURCES, "a listed resource is gone (by uri)"),
    contract_rule!("2026-12-03", "resource-template-removed", Breaking, ResourceTemplateRemoved, RESOURCES, "a resource template is gone (by uriTemplate)"),
    contract_rule!("2026-12-03", "resource-uri-changed", Breaking, ResourceUriChanged, RESOURCES, "a resource's uri or a template's uriTemplate changed under the same name: clients holding the old one fail"),
    contract_rule!("2026-12-03", "resource-added", Compatible, ResourceAdded, RESOURCES, "a new resource or resource template is listed"),
    contract_rule!("2026-12-03", "resource-mime-type-changed", Warning, ResourceMimeTypeChanged, RESOURCES, "a resource's or template's mimeType changed: clients that parse by type may misread it"),
    contract_rule!("2026-12-03", "resource-text-changed", Warning, ResourceTextChanged, RESOURCES, "a resource's or template's name, title or description changed: text the model or user reads"),
    contract_rule!("2026-12-03", "contract-metadata-changed", Info, ContractMetadataChanged, "MCP Prompt, Resource, ResourceTemplate, PromptArgument: icons, annotations, size, _meta", "another field of a prompt, argument, resource or template changed (icons, annotations, size, _meta, ...)"),
    contract_rule!("2026-12-03", "instructions-changed", Warning, InstructionsChanged, LIFECYCLE, "the server's instructions changed, appeared or went away: prompt text the model reads (a word-level diff is in the message)"),
    contract_rule!("2026-12-03", "capability-removed", Breaking, CapabilityRemoved, CAPABILITIES, "the server no longer declares a capability (or an experimental/extensions entry): clients that use it fail"),
    contract_rule!("2026-12-03", "capability-flag-dropped", Warning, CapabilityFlagDropped, CAPABILITIES, "tools/prompts/resources.listChanged or resources.subscribe went from true to absent or false: a client relying on change notifications keeps stale lists"),
    contract_rule!("2026-12-03", "capability-added", Compatible, CapabilityAdded, CAPABILITIES, "the server declares a new capability"),
    contract_rule!("2026-12-03", "capability-changed", Info, CapabilityChanged, CAPABILITIES, "a declared capability's settings changed otherwise"),
    contract_rule!("2026-12-03", "cache-scope-changed", Warning, CacheScopeChanged, CACHING, "a result's cacheScope changed (2026-07-28): public lets shared caches serve it across authorization contexts"),
    contract_rule!("2026-12-03", "cache-ttl-changed", Info, CacheTtlChanged, CACHING, "a result's ttlMs changed (2026-07-28): clients refetch it on another schedule"),
    contract_rule!("2026-12-03", "contract-part-unrecorded", Unknown, PartUnrecorded, "driftlab: a gate never passes what it did not see", "the approved snapshot records a part of the contract (prompts, resources, templates, instructions and capabilities) that the candidate does not: not compared (use --scope tools to gate tools only)"),
];
