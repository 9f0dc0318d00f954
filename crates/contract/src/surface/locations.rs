//! Where each tool of a surface sat in the document it was read from, as JSON pointers.
//!
//! Nearly every surface is a `{"tools":[…]}` object whose tools sit at `/tools/<i>`; those
//! pointers are not kept per tool: the first ones come from one shared table, the rest are
//! written when asked for.

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::pointer;

/// Tools at `/tools/<i>` below this index share the table's pointers.
const SHARED: usize = 256;

/// The pointer of each tool, in order.
#[derive(Debug, Clone)]
pub(crate) enum Locations {
    /// `/tools/0`, `/tools/1`, … for this many tools.
    UnderTools(usize),
    Listed(Vec<String>),
}

/// `/tools/<index>`.
fn under_tools(index: usize) -> Cow<'static, str> {
    static TABLE: OnceLock<Vec<String>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..SHARED)
            .map(|i| pointer::push_index("/tools", i))
            .collect()
    });
    match table.get(index) {
        Some(shared) => Cow::Borrowed(shared),
        None => Cow::Owned(pointer::push_index("/tools", index)),
    }
}

impl Locations {
    pub(crate) fn new() -> Locations {
        Locations::UnderTools(0)
    }

    /// Adds the pointers of `count` tools listed in the array at pointer `at`.
    pub(crate) fn push_array(&mut self, at: &str, count: usize) {
        if let Locations::UnderTools(0) = self {
            if at == "/tools" {
                *self = Locations::UnderTools(count);
                return;
            }
        }
        let listed = self.make_listed();
        listed.extend((0..count).map(|i| pointer::push_index(at, i)));
    }

    fn make_listed(&mut self) -> &mut Vec<String> {
        if let Locations::UnderTools(n) = *self {
            *self = Locations::Listed((0..n).map(|i| under_tools(i).into_owned()).collect());
        }
        match self {
            Locations::Listed(listed) => listed,
            Locations::UnderTools(_) => unreachable!("made listed above"),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Locations::UnderTools(n) => *n,
            Locations::Listed(listed) => listed.len(),
        }
    }

    /// The pointer of tool `index` (which must be below [`Locations::len`]).
    pub(crate) fn get(&self, index: usize) -> Cow<'_, str> {
        match self {
            Locations::UnderTools(n) => {
                debug_assert!(index < *n);
                under_tools(index)
            }
            Locations::Listed(listed) => Cow::Borrowed(&listed[index]),
        }
    }
}

impl From<Vec<String>> for Locations {
    fn from(listed: Vec<String>) -> Locations {
        Locations::Listed(listed)
    }
}

impl PartialEq for Locations {
    fn eq(&self, other: &Locations) -> bool {
        self.len() == other.len() && (0..self.len()).all(|i| self.get(i) == other.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(locations: &Locations) -> Vec<Cow<'_, str>> {
        (0..locations.len()).map(|i| locations.get(i)).collect()
    }

    #[test]
    fn shared_and_listed_pointers_read_the_same() {
        let mut shared = Locations::new();
        shared.push_array("/tools", 3);
        assert!(matches!(shared, Locations::UnderTools(3)));
        assert_eq!(listed(&shared), ["/tools/0", "/tools/1", "/tools/2"]);
        let spelled = Locations::from(vec![
            "/tools/0".to_string(),
            "/tools/1".to_string(),
            "/tools/2".to_string(),
        ]);
        assert_eq!(shared, spelled);
        assert_ne!(shared, Locations::from(vec!["/tools/0".to_string()]));
    }

    #[test]
    fn pages_are_spelled_out_and_long_lists_written_when_asked() {
        let mut pages = Locations::new();
        pages.push_array("/tools", 2);
        pages.push_array("/1/tools", 1);
        assert_eq!(listed(&pages), ["/tools/0", "/tools/1", "/1/tools/0"]);
        let mut wrapped = Locations::new();
        wrapped.push_array("/result/tools", 1);
        assert_eq!(listed(&wrapped), ["/result/tools/0"]);
        let mut long = Locations::new();
        long.push_array("/tools", SHARED + 1);
        assert!(matches!(long, Locations::UnderTools(_)));
        assert_eq!(long.get(SHARED), format!("/tools/{SHARED}"));
        assert!(matches!(long.get(SHARED - 1), Cow::Borrowed("/tools/255")));
        long.push_array("/1/tools", 1);
        assert_eq!(long.len(), SHARED + 2);
        assert_eq!(long.get(SHARED), format!("/tools/{SHARED}"));
        assert_eq!(long.get(SHARED + 1), "/1/tools/0");
    }
}
