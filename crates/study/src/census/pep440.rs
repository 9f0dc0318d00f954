//! PEP 440 versions, as PyPI orders them: `[N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local]`,
//! with the spec's spellings normalised (`alpha`, `beta`, `c`, `pre`, `preview`, `rev`, `r`,
//! `-N` for a post-release, separators `-_.`, a leading `v`, any case).

use std::cmp::Ordering;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pep440 {
    epoch: u64,
    release: Vec<u64>,
    /// `a` = 0, `b` = 1, `rc` = 2, with its number.
    pre: Option<(u8, u64)>,
    post: Option<u64>,
    dev: Option<u64>,
    local: Vec<Local>,
}

/// A local version label's part: numbers sort above words.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Local {
    Word(String),
    Number(u64),
}

/// A cursor over the lowercased text.
struct Cursor<'a> {
    rest: &'a str,
}

impl Cursor<'_> {
    fn number(&mut self) -> Option<u64> {
        let digits = self.rest.bytes().take_while(u8::is_ascii_digit).count();
        let (n, rest) = self.rest.split_at(digits);
        let n = n.parse().ok()?;
        self.rest = rest;
        Some(n)
    }

    fn separator(&mut self) -> bool {
        match self.rest.strip_prefix(['-', '_', '.']) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    /// The first of `words` the text continues with (after an optional separator), consumed.
    fn word(&mut self, words: &[&'static str]) -> Option<&'static str> {
        let saved = self.rest;
        self.separator();
        // Longest first, so `preview` is not read as `pre`.
        let mut sorted = words.to_vec();
        sorted.sort_by_key(|w| std::cmp::Reverse(w.len()));
        for word in sorted {
            if let Some(rest) = self.rest.strip_prefix(word) {
                self.rest = rest;
                return Some(word);
            }
        }
        self.rest = saved;
        None
    }

    /// A number after an optional separator; 0 when there is none (`1.0a` is `1.0a0`).
    fn optional_number(&mut self) -> u64 {
        let saved = self.rest;
        self.separator();
        match self.number() {
            Some(n) => n,
            None => {
                self.rest = saved;
                0
            }
        }
    }
}

impl Pep440 {
    pub fn parse(text: &str) -> Result<Pep440, String> {
        let bad = || format!("{text:?} is not a PEP 440 version");
        let lower = text.trim().to_ascii_lowercase();
        let mut c = Cursor {
            rest: lower.strip_prefix('v').unwrap_or(&lower),
        };
        let mut first = c.number().ok_or_else(bad)?;
        let epoch = match c.rest.strip_prefix('!') {
            Some(rest) => {
                c.rest = rest;
                let epoch = first;
                first = c.number().ok_or_else(bad)?;
                epoch
            }
            None => 0,
        };
        let mut release = vec![first];
        while let Some(rest) = c.rest.strip_prefix('.') {
            let saved = c.rest;
            c.rest = rest;
            match c.number() {
                Some(n) => release.push(n),
                None => {
                    c.rest = saved;
                    break;
                }
            }
        }
        let pre_words = ["a", "alpha", "b", "beta", "c", "rc", "pre", "preview"];
        let pre = c.word(&pre_words).map(|word| {
            let kind = match word {
                "a" | "alpha" => 0,
                "b" | "beta" => 1,
                _ => 2,
            };
            (kind, c.optional_number())
        });
        let post = if let Some(rest) = c
            .rest
            .strip_prefix('-')
            .filter(|r| r.starts_with(|ch: char| ch.is_ascii_digit()))
        {
            c.rest = rest;
            c.number()
        } else {
            c.word(&["post", "rev", "r"]).map(|_| c.optional_number())
        };
        let dev = c.word(&["dev"]).map(|_| c.optional_number());
        let local = match c.rest.strip_prefix('+') {
            Some(label) => {
                c.rest = "";
                let parts: Vec<Local> = label
                    .split(['-', '_', '.'])
                    .map(|part| match part.parse() {
                        Ok(n) => Ok(Local::Number(n)),
                        Err(_)
                            if !part.is_empty()
                                && part.bytes().all(|b| b.is_ascii_alphanumeric()) =>
                        {
                            Ok(Local::Word(part.to_string()))
                        }
                        Err(_) => Err(bad()),
                    })
                    .collect::<Result<_, _>>()?;
                parts
            }
            None => Vec::new(),
        };
        if !c.rest.is_empty() {
            return Err(bad());
        }
        Ok(Pep440 {
            epoch,
            release,
            pre,
            post,
            dev,
            local,
        })
    }

    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    pub(crate) fn triple(&self) -> (u64, u64, u64) {
        let at = |i: usize| self.release.get(i).copied().unwrap_or(0);
        (at(0), at(1), at(2))
    }

    pub(crate) fn is_pre_release(&self) -> bool {
        self.pre.is_some() || self.dev.is_some()
    }

    /// PEP 440's sort key: trailing zeros of the release do not count; a development release
    /// of a final version sorts before its pre-releases, a final after them; no post-release
    /// before any; no development release after any.
    fn key(&self) -> impl Ord + '_ {
        let mut release: &[u64] = &self.release;
        while let [head @ .., 0] = release {
            release = head;
        }
        let pre = match (self.pre, self.post, self.dev) {
            (None, None, Some(_)) => (0, 0, 0),
            (Some((kind, n)), _, _) => (1, kind, n),
            (None, _, _) => (2, 0, 0),
        };
        let dev = match self.dev {
            Some(n) => (0, n),
            None => (1, 0),
        };
        (self.epoch, release, pre, self.post, dev, &self.local)
    }
}

impl Ord for Pep440 {
    fn cmp(&self, other: &Pep440) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for Pep440 {
    fn partial_cmp(&self, other: &Pep440) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pep_440_order() {
        // The ordering example of PEP 440's "Summary of permitted suffixes and relative ordering".
        let ordered = [
            "1.dev0",
            "1.0.dev456",
            "1.0a1",
            "1.0a2.dev456",
            "1.0a12.dev456",
            "1.0a12",
            "1.0b1.dev456",
            "1.0b2",
            "1.0b2.post345.dev456",
            "1.0b2.post345",
            "1.0rc1.dev456",
            "1.0rc1",
            "1.0",
            "1.0+abc.5",
            "1.0+abc.7",
            "1.0+5",
            "1.0.post456.dev34",
            "1.0.post456",
            "1.0.15",
            "1.1.dev1",
        ];
        let parsed: Vec<Pep440> = ordered.iter().map(|v| Pep440::parse(v).unwrap()).collect();
        for pair in parsed.windows(2) {
            assert!(pair[0] < pair[1], "{:?} < {:?}", pair[0], pair[1]);
        }
    }

    #[test]
    fn spellings_normalise() {
        let same = |a: &str, b: &str| {
            assert_eq!(
                Pep440::parse(a).unwrap().cmp(&Pep440::parse(b).unwrap()),
                Ordering::Equal,
                "{a} = {b}"
            )
        };
        same("1.0", "1.0.0");
        same("1.0alpha1", "1.0a1");
        same("1.0-preview.2", "1.0rc2");
        same("1.0-1", "1.0.post1");
        same("V1.0.REV3", "1.0.post3");
        same("1.0a", "1.0a0");
        assert!(Pep440::parse("1.0+").is_err());
        assert!(Pep440::parse("one").is_err());
        assert!(Pep440::parse("1.0 beta").is_err());
        assert_eq!(Pep440::parse("2!1.0").unwrap().epoch(), 2);
    }
}
