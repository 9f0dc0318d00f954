//! 2026-07-28 caching hints: how long a client may keep a result (`ttlMs`) and whether a shared
//! cache may serve it across authorization contexts (`cacheScope`).

use serde_json::Value;

use super::{quoted, ContractChange, ContractChangeKind as K};
use driftlab_contract::pointer::push;
use driftlab_contract::surface::contract::{capture_field, ServerContract};

pub(super) fn compare(old: &ServerContract, new: &ServerContract, out: &mut Vec<ContractChange>) {
    let (Some(old_hints), Some(new_hints)) = (&old.cache_hints, &new.cache_hints) else {
        return;
    };
    for (method, before) in old_hints {
        let Some(after) = new_hints.get(method) else {
            continue;
        };
        for (member, kind) in [
            ("cacheScope", K::CacheScopeChanged),
            ("ttlMs", K::CacheTtlChanged),
        ] {
            let (a, b) = (before.get(member), after.get(member));
            if a == b {
                continue;
            }
            let why = match (member, b.and_then(Value::as_str)) {
                ("cacheScope", Some("public")) => {
                    ": shared caches (gateways, proxies) may now serve it across authorization contexts"
                }
                ("cacheScope", _) => ": shared caches must stop serving it across authorization contexts",
                _ => ": clients refetch it on another schedule",
            };
            out.push(
                ContractChange::new(
                    kind,
                    format!("{method} {member}"),
                    format!("the {} result's {member} changed{why}", quoted(method)),
                )
                .at(
                    Some(&pointer(old, method, member)),
                    Some(&pointer(new, method, member)),
                )
                .values(a, b),
            );
        }
    }
}

/// Where a method's hint sits: in a capture, in the result itself (`/toolsList/ttlMs`; the first
/// page's object for a paginated list); in a snapshot, under `cacheHints`.
fn pointer(contract: &ServerContract, method: &str, member: &str) -> String {
    let result = match contract.from_capture {
        false => push(&push("", "cacheHints"), method),
        true => push("", capture_field(method)),
    };
    push(&result, member)
}
