//! Every random draw driftlab makes.
//!
//! The algorithms here are part of the published method (see each study's METHOD.md) and must not
//! change: results may depend only on this file, never on `rand`'s distributions, whose outputs
//! changed between rand 0.8 and 0.9.
//!
//! * A stream's 32-byte ChaCha8 key is `SHA-256("driftlab-stream-v1" ‖ seed as u64 LE ‖
//!   purpose length as u64 LE ‖ purpose bytes ‖ index as u64 LE)`; nonce / stream id 0.
//! * `next_u64` is rand_chacha's: two consecutive 32-bit output words, low word first.
//! * `below(n)` is Lemire's multiply-and-reject method (unbiased), documented on the function.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use sha2::{Digest, Sha256};

/// Human-readable name of the generator, recorded in every manifest.
pub const ALGORITHM: &str =
    "ChaCha8 (rand_chacha 0.9) keyed by SHA-256(\"driftlab-stream-v1\", seed, purpose, index); Lemire bounded draws";

const DOMAIN: &[u8] = b"driftlab-stream-v1";

/// One independent stream of random numbers. A clone draws the same numbers as the original
/// from where it was made: for trying the same draws two ways.
#[derive(Clone)]
pub struct Stream {
    rng: ChaCha8Rng,
}

impl Stream {
    /// The stream for one unit of work, e.g. `(seed, "surface", 17)`. Streams for different
    /// purposes or indices are independent, so scheduling order cannot change a draw.
    pub fn derive(seed: u64, purpose: &str, index: u64) -> Stream {
        Stream::derive_parts(seed, &[purpose], index)
    }

    /// [`Stream::derive`] with the purpose given in parts (`["mutate:", id]`): the same stream
    /// as their concatenation, without building it.
    pub fn derive_parts(seed: u64, purpose: &[&str], index: u64) -> Stream {
        let length: usize = purpose.iter().map(|part| part.len()).sum();
        let mut hash = Sha256::new();
        hash.update(DOMAIN);
        hash.update(seed.to_le_bytes());
        hash.update((length as u64).to_le_bytes());
        for part in purpose {
            hash.update(part.as_bytes());
        }
        hash.update(index.to_le_bytes());
        let key: [u8; 32] = hash.finalize().into();
        Stream {
            rng: ChaCha8Rng::from_seed(key),
        }
    }

    /// The next raw 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// A uniform integer in `0..n` (Lemire 2019): `m = x * n` as 128-bit; the result is `m >> 64`,
    /// and `x` is redrawn while `m mod 2^64 < (2^64 - n) mod n`. `n == 0` returns 0.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }

    /// A uniform index into a slice of length `len` (`below(len)`).
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// A uniform integer in `lo..=hi` (`lo + below(hi - lo + 1)`).
    pub fn range_inclusive(&mut self, lo: i64, hi: i64) -> i64 {
        let span = hi.wrapping_sub(lo) as u64;
        lo.wrapping_add(self.below(span.wrapping_add(1)) as i64)
    }

    /// True with probability `numerator / denominator` (`below(denominator) < numerator`).
    pub fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        self.below(denominator) < numerator
    }

    /// A uniform element of a non-empty slice (`items[index(len)]`).
    pub fn choose<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }

    /// Fisher–Yates, from the last position down: for `i = len-1 … 1`, swap `i` with `below(i+1)`.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.index(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Golden values: if this test fails, every published result changes. Do not update it
    /// without a new stream domain and a note in every METHOD.md.
    #[test]
    fn first_draws_are_pinned() {
        let mut s = Stream::derive(20260822, "surface", 0);
        let raw: Vec<u64> = (0..3).map(|_| s.next_u64()).collect();
        assert_eq!(raw, GOLDEN_SURFACE_0);
        let mut s = Stream::derive(20260822, "mutate:tools-reordered", 239);
        let bounded: Vec<u64> = (0..8).map(|_| s.below(6)).collect();
        assert_eq!(bounded, GOLDEN_REORDER_239);
        // The purpose in parts is the same stream as the joined purpose.
        let mut s = Stream::derive_parts(20260822, &["mutate:", "tools-reordered"], 239);
        let bounded: Vec<u64> = (0..8).map(|_| s.below(6)).collect();
        assert_eq!(bounded, GOLDEN_REORDER_239);
        let mut s = Stream::derive_parts(20260822, &["mutate:tools-", "", "reordered"], 239);
        assert_eq!(s.below(6), GOLDEN_REORDER_239[0]);
    }

    const GOLDEN_SURFACE_0: [u64; 3] = [
        12150696658800796361,
        10093471792608956816,
        8181228763625071917,
    ];
    const GOLDEN_REORDER_239: [u64; 8] = [4, 2, 3, 0, 0, 2, 0, 4];

    #[test]
    fn streams_differ_by_purpose_index_and_seed() {
        let first = |seed, purpose, index| Stream::derive(seed, purpose, index).next_u64();
        let base = first(1, "surface", 0);
        assert_ne!(base, first(2, "surface", 0));
        assert_ne!(base, first(1, "surfaces", 0));
        assert_ne!(base, first(1, "surface", 1));
        assert_eq!(base, first(1, "surface", 0));
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut s = Stream::derive(7, "test", 0);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            let v = s.below(7);
            seen[v as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800), "{seen:?}");
        assert_eq!(s.below(0), 0);
        assert_eq!(s.below(1), 0);
    }

    #[test]
    fn range_inclusive_hits_both_ends() {
        let mut s = Stream::derive(7, "test", 1);
        let draws: Vec<i64> = (0..200).map(|_| s.range_inclusive(-2, 2)).collect();
        assert!(draws.iter().all(|v| (-2..=2).contains(v)));
        assert!(draws.contains(&-2) && draws.contains(&2));
        let mut s = Stream::derive(7, "test", 2);
        let _ = s.range_inclusive(i64::MIN, i64::MAX); // full span must not overflow
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut s = Stream::derive(7, "test", 3);
        let mut v: Vec<u32> = (0..50).collect();
        s.shuffle(&mut v);
        let mut sorted = v.clone();
        sorted.sort();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_ne!(v, sorted);
    }
}
