//! `tools-reordered`: the tools are listed in another order (a non-identity permutation).

use serde_json::Value;

use super::{tools_mut, Applied, Edit, Label, MutationClass, NotApplicable, Outcome, Reach};
use driftlab_contract::rng::Stream;
use driftlab_contract::surface::Surface;

/// The `tools-reordered` class: the tools are listed in another order (a non-identity permutation).
pub(crate) struct ToolsReordered;

/// Shuffles that come out as the identity are redrawn this many times before falling back to a
/// rotation by one; with three tools the fallback has probability (1/6)^64.
const REDRAWS: usize = 64;

impl MutationClass for ToolsReordered {
    fn id(&self) -> &'static str {
        "tools-reordered"
    }
    fn summary(&self) -> &'static str {
        "the tools are listed in a uniformly drawn non-identity order"
    }
    fn label(&self) -> Label {
        Label::Dangerous
    }
    fn rationale(&self) -> &'static str {
        "nothing is removed, but clients and prompt caches that rely on a stable order (MCP 2026-07-28 asks for one) are invalidated"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let tools = tools_mut(surface)?;
        let n = tools.len();
        if n < 2 {
            return Err(NotApplicable(format!("{n} tool(s): no other order exists")));
        }
        let order = draw_order(n, rng);
        let mut taken: Vec<Option<Value>> = tools.drain(..).map(Some).collect();
        for &from in &order {
            tools.push(taken[from].take().unwrap_or(Value::Null));
        }
        Ok(applied(&order))
    }
    fn edit(&self, base: &Surface, rng: &mut Stream) -> Option<(Applied, Edit)> {
        if base.len() < 2 {
            return None;
        }
        let order = draw_order(base.len(), rng);
        Some((applied(&order), Edit::Order(order)))
    }
    fn reach(&self, applied: &Applied) -> Reach {
        // `apply` writes the order it drew into the detail ("order 2 0 1").
        let order: Option<Vec<usize>> = applied
            .detail
            .strip_prefix("order ")
            .map(|o| o.split(' ').map(str::parse).collect::<Result<_, _>>().ok())
            .unwrap_or_default();
        order.map_or(Reach::Surface, Reach::Order)
    }
}

/// A uniformly drawn non-identity order of `n >= 2` tools: position `i` gets tool `order[i]`.
fn draw_order(n: usize, rng: &mut Stream) -> Vec<usize> {
    let identity: Vec<usize> = (0..n).collect();
    let mut order = identity.clone();
    for _ in 0..REDRAWS {
        order.clone_from(&identity);
        rng.shuffle(&mut order);
        if order != identity {
            break;
        }
    }
    if order == identity {
        order.rotate_left(1);
    }
    order
}

fn applied(order: &[usize]) -> Applied {
    let mut detail = String::with_capacity(6 + 3 * order.len());
    detail.push_str("order");
    for &i in order {
        detail.push(' ');
        match u8::try_from(i) {
            // Built by hand: a study makes a detail for every candidate (see `concat`).
            Ok(digit @ 0..=9) => detail.push(char::from(b'0' + digit)),
            _ => detail.push_str(&i.to_string()),
        }
    }
    Applied {
        tool_index: None,
        detail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn never_the_identity_and_all_orders_occur() {
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..300 {
            let mut s = json!({"tools": [{"name": "a"}, {"name": "b"}, {"name": "c"}]});
            let applied = ToolsReordered
                .apply(&mut s, &mut Stream::derive(1, "t", i))
                .unwrap();
            assert_ne!(applied.detail, "order 0 1 2");
            let names: String = s["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap())
                .collect();
            assert_eq!(applied.detail.len(), "order 0 1 2".len());
            seen.insert(names);
        }
        assert_eq!(seen.len(), 5, "{seen:?}");
    }

    #[test]
    fn the_detail_lists_the_order_and_reads_back() {
        let order = [12, 0, 9, 10, 3, 1, 2, 4, 5, 6, 7, 8, 11];
        let applied = applied(&order);
        assert_eq!(applied.detail, "order 12 0 9 10 3 1 2 4 5 6 7 8 11");
        assert_eq!(ToolsReordered.reach(&applied), Reach::Order(order.to_vec()));
    }

    #[test]
    fn a_single_tool_cannot_be_reordered() {
        let mut s = json!({"tools": [{"name": "a"}]});
        assert!(ToolsReordered
            .apply(&mut s, &mut Stream::derive(1, "t", 0))
            .is_err());
    }
}
