//! Whether every string one `pattern` matches, another matches too; and when not, the shortest
//! string that shows it. Each pattern becomes a DFA of the strings that contain a match (JSON
//! Schema patterns are unanchored), and the product of the two is searched breadth first for a
//! string the one accepts and the other does not. Exact, not sampled: "within" is a proof. A
//! pattern that does not translate exactly (see [`ecma`]) or whose automaton outgrows the bounds
//! below orders nothing.

mod ecma;

use std::collections::HashSet;

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::nfa::thompson;
use regex_automata::util::{primitives::StateID, start, syntax};
use regex_automata::{Anchored, MatchKind};

/// Patterns longer than this are not compiled.
const MAX_PATTERN: usize = 4096;
/// Each automaton's memory while built and once built.
const MAX_AUTOMATON_BYTES: usize = 8 << 20;
/// Pairs of states searched before giving up.
const MAX_PAIRS: usize = 50_000;

/// How the strings of one pattern lie in another's.
#[derive(Debug, PartialEq)]
pub enum Order {
    /// Every string the first matches, the second matches.
    Within,
    /// This string the first matches and the second refuses (the shortest such).
    Outside(String),
}

/// How `first`'s strings lie in `second`'s, or why that is not known.
pub fn order(first: &str, second: &str) -> Result<Order, &'static str> {
    search(&Language::of(first)?, &Language::of(second)?)
}

/// How `first`'s strings lie in `second`'s and the other way round, each pattern compiled once.
pub fn orders(first: &str, second: &str) -> Result<(Order, Order), &'static str> {
    let (a, b) = (Language::of(first)?, Language::of(second)?);
    Ok((search(&a, &b)?, search(&b, &a)?))
}

/// The product of `a` and `b`, searched breadth first for a string `a` accepts and `b` does not.
fn search(a: &Language, b: &Language) -> Result<Order, &'static str> {
    let mut seen = HashSet::from([(a.start, b.start)]);
    // Breadth first, each pair with the pair it was reached from and the byte between.
    let mut reached: Vec<(StateID, StateID, usize, u8)> = vec![(a.start, b.start, 0, 0)];
    let mut next = 0;
    while next < reached.len() {
        let (sa, sb, _, _) = reached[next];
        if a.accepts_here(sa) && !b.accepts_here(sb) {
            // Every path into an accepting state reads whole UTF-8 characters.
            return String::from_utf8(path(&reached, next))
                .map(Order::Outside)
                .map_err(|_| "the automata read a string that is not UTF-8");
        }
        for byte in byte_order() {
            let na = a.dfa.next_state(sa, byte);
            if a.dfa.is_dead_state(na) {
                continue;
            }
            let nb = b.dfa.next_state(sb, byte);
            if seen.insert((na, nb)) {
                if reached.len() >= MAX_PAIRS {
                    return Err("their automata have more than 50,000 pairs of states");
                }
                reached.push((na, nb, next, byte));
            }
        }
        next += 1;
    }
    Ok(Order::Within)
}

/// The bytes read from the start to pair `at`.
fn path(reached: &[(StateID, StateID, usize, u8)], mut at: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    while at != 0 {
        let (_, _, parent, byte) = reached[at];
        bytes.push(byte);
        at = parent;
    }
    bytes.reverse();
    bytes
}

/// Letters and digits first, then the rest of printable ASCII, then every other byte: the
/// shortest string found is also a readable one where one exists.
fn byte_order() -> impl Iterator<Item = u8> {
    let readable = (b'a'..=b'z').chain(b'0'..=b'9').chain(b'A'..=b'Z');
    let printable = (b' '..=b'~').filter(|b| !b.is_ascii_alphanumeric());
    let rest = (0..b' ').chain(0x7F..=0xFF);
    readable.chain(printable).chain(rest)
}

/// The strings that contain a match of a pattern, as a DFA read from the start of the string.
struct Language {
    dfa: dense::DFA<Vec<u32>>,
    start: StateID,
}

impl Language {
    fn of(pattern: &str) -> Result<Language, &'static str> {
        if pattern.len() > MAX_PATTERN {
            return Err("a pattern is longer than 4,096 bytes");
        }
        let inner = ecma::translate(pattern).ok_or(
            "a pattern is not ECMA-262 or uses a construct not read exactly here (a \
             backreference, lookaround, \\b, \\p{…}, an escaped letter)",
        )?;
        let whole = format!("(?s:.)*(?:{inner})(?s:.)*");
        let dfa = dense::Builder::new()
            .configure(
                dense::DFA::config()
                    .start_kind(StartKind::Anchored)
                    // Every match, so a state after the last byte accepts exactly when the
                    // whole string is in the language.
                    .match_kind(MatchKind::All)
                    .dfa_size_limit(Some(MAX_AUTOMATON_BYTES))
                    .determinize_size_limit(Some(MAX_AUTOMATON_BYTES)),
            )
            .syntax(syntax::Config::new().nest_limit(64))
            .thompson(thompson::Config::new().nfa_size_limit(Some(MAX_AUTOMATON_BYTES)))
            .build(&whole)
            .map_err(|_| "a pattern does not compile to an automaton of at most 8 MiB")?;
        let start = dfa
            .start_state(&start::Config::new().anchored(Anchored::Yes))
            .map_err(|_| "a pattern's automaton has no start")?;
        Ok(Language { dfa, start })
    }

    /// Whether the string read so far, ending here, is in the language.
    fn accepts_here(&self, state: StateID) -> bool {
        self.dfa.is_match_state(self.dfa.next_eoi_state(state))
    }
}

#[cfg(test)]
mod tests;
