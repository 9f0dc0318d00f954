//! What a report says about the policy's waivers: those past their `until` day (their findings
//! count again) and those no finding matches any more (safe to delete).

use super::escape::visible;
use driftlab_check::verdict::Outcome;

/// Every expired and stale waiver, a line each, for the text report.
pub fn listing(outcome: &Outcome) -> String {
    let mut out = String::new();
    if !outcome.expired.is_empty() {
        out.push_str(&format!(
            "\n{} waiver(s) expired; their findings count again:\n",
            outcome.expired.len()
        ));
        for w in &outcome.expired {
            let until = w.until.as_deref().unwrap_or_default();
            out.push_str(&format!(
                "  {} until {until}: {}\n",
                w.fingerprint,
                visible(&w.reason)
            ));
        }
    }
    if !outcome.stale.is_empty() {
        out.push_str(&format!(
            "\n{} stale waiver(s): no finding has their fingerprint any more; delete them from the policy:\n",
            outcome.stale.len()
        ));
        for w in &outcome.stale {
            out.push_str(&format!("  {}: {}\n", w.fingerprint, visible(&w.reason)));
        }
    }
    out
}

/// The counts only, for the bounded Markdown report.
pub fn summary(outcome: &Outcome) -> String {
    let mut out = String::new();
    if !outcome.expired.is_empty() {
        out.push_str(&format!(
            "\n{} waiver(s) expired: their findings count again.\n",
            outcome.expired.len()
        ));
    }
    if !outcome.stale.is_empty() {
        out.push_str(&format!(
            "\n{} stale waiver(s): no finding has their fingerprint any more.\n",
            outcome.stale.len()
        ));
    }
    out
}
