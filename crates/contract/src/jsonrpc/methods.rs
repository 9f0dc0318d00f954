//! Every method name the MCP specification defines, in any published revision (from the
//! `method` constants of `schema.json` for 2024-11-05 … 2026-07-28).

/// Methods sent as requests (they expect an answer, so they carry an id).
pub(crate) const REQUESTS: &[&str] = &[
    "completion/complete",
    "elicitation/create",
    "initialize",
    "logging/setLevel",
    "ping",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/read",
    "resources/subscribe",
    "resources/templates/list",
    "resources/unsubscribe",
    "roots/list",
    "sampling/createMessage",
    "server/discover",
    "subscriptions/listen",
    "tasks/cancel",
    "tasks/get",
    "tasks/list",
    "tasks/result",
    "tools/call",
    "tools/list",
];

/// Methods sent as notifications (no id, no answer).
pub(crate) const NOTIFICATIONS: &[&str] = &[
    "notifications/cancelled",
    "notifications/elicitation/complete",
    "notifications/initialized",
    "notifications/message",
    "notifications/progress",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
    "notifications/roots/list_changed",
    "notifications/subscriptions/acknowledged",
    "notifications/tasks/status",
    "notifications/tools/list_changed",
];

/// The spec's spelling of `method` when `method` differs from it only in ASCII case or in
/// surrounding whitespace (a server that normalises would run it as that method).
pub(crate) fn near_spelling(method: &str) -> Option<&'static str> {
    let folded = method.trim().to_ascii_lowercase();
    REQUESTS
        .iter()
        .chain(NOTIFICATIONS)
        .find(|known| known.to_ascii_lowercase() == folded && **known != method)
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_unique_and_disjoint() {
        for list in [REQUESTS, NOTIFICATIONS] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
        assert!(REQUESTS.iter().all(|m| !m.starts_with("notifications/")));
        assert!(NOTIFICATIONS
            .iter()
            .all(|m| m.starts_with("notifications/")));
    }

    #[test]
    fn near_spellings_are_found() {
        assert_eq!(near_spelling("Tools/Call"), Some("tools/call"));
        assert_eq!(near_spelling("tools/call "), Some("tools/call"));
        assert_eq!(near_spelling("\ttools/call"), Some("tools/call"));
        assert_eq!(
            near_spelling("Notifications/Initialized"),
            Some("notifications/initialized")
        );
        assert_eq!(near_spelling("tools/call"), None);
        assert_eq!(near_spelling("custom/thing"), None);
    }
}
