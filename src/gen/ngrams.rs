//! Exact n-gram counting for the generation metrics: segment-local token ids
//! and, per order, an insertion-ordered table of n-grams.
//!
//! An n-gram of order `k + 1` is the pair (id of its first `k` tokens' n-gram,
//! last token), so every n-gram gets an exact id from one hash look-up per
//! position and order, whatever its length, and its prefix's id is known (NIST's
//! information weights need it).

use rustc_hash::FxHashMap;

/// Ids of the distinct words of one segment (or corpus), from 0 in order of first sight.
#[derive(Default)]
pub struct LocalIds<'a> {
    map: FxHashMap<&'a str, u32>,
}

impl<'a> LocalIds<'a> {
    pub fn clear(&mut self) {
        self.map.clear();
    }

    /// The id of `word` (a new one on first sight).
    pub fn id(&mut self, word: &'a str) -> u32 {
        let next = self.map.len() as u32;
        *self.map.entry(word).or_insert(next)
    }

    /// The id of `word` if it was seen.
    pub fn get(&self, word: &str) -> Option<u32> {
        self.map.get(word).copied()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// The prefix id of a unigram.
pub const NO_PREFIX: u32 = u32::MAX;

/// The distinct n-grams of one order in order of first sight, each with `S` counts (one per side).
pub struct GramCounter<const S: usize> {
    map: FxHashMap<u64, u32>,
    counts: Vec<[i64; S]>,
    prefixes: Vec<u32>,
}

impl<const S: usize> Default for GramCounter<S> {
    fn default() -> Self {
        GramCounter {
            map: FxHashMap::default(),
            counts: Vec::new(),
            prefixes: Vec::new(),
        }
    }
}

impl<const S: usize> GramCounter<S> {
    pub fn clear(&mut self) {
        self.map.clear();
        self.counts.clear();
        self.prefixes.clear();
    }

    /// Counts one occurrence of the n-gram `(prefix, last)` on `side`; returns its id.
    pub fn bump(&mut self, prefix: u32, last: u32, side: usize) -> u32 {
        let next = self.counts.len() as u32;
        let key = (u64::from(prefix) << 32) | u64::from(last);
        let id = *self.map.entry(key).or_insert(next);
        if id == next {
            self.counts.push([0; S]);
            self.prefixes.push(prefix);
        }
        self.counts[id as usize][side] += 1;
        id
    }

    /// The id of the n-gram `(prefix, last)` if it was counted.
    pub fn get(&self, prefix: u32, last: u32) -> Option<u32> {
        let key = (u64::from(prefix) << 32) | u64::from(last);
        self.map.get(&key).copied()
    }

    /// Counts of every distinct n-gram, in order of first sight.
    pub fn counts(&self) -> &[[i64; S]] {
        &self.counts
    }

    /// The prefix id (an n-gram of the order below, or [`NO_PREFIX`]) of every distinct n-gram.
    pub fn prefixes(&self) -> &[u32] {
        &self.prefixes
    }

    pub fn len(&self) -> usize {
        self.counts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
}

/// Counts every n-gram of `seq` (orders `1..=grams.len()`) on `side`, order by
/// order; `ids` is scratch space. `visit(order_index, position, id)` sees each occurrence.
pub fn count_orders<const S: usize>(
    grams: &mut [GramCounter<S>],
    seq: &[u32],
    side: usize,
    ids: &mut Vec<u32>,
    mut visit: impl FnMut(usize, usize, u32),
) {
    ids.clear();
    ids.extend_from_slice(seq);
    for (k, counter) in grams.iter_mut().enumerate() {
        let n = seq.len().saturating_sub(k);
        if n == 0 {
            break;
        }
        for i in 0..n {
            let prefix = if k == 0 { NO_PREFIX } else { ids[i] };
            let id = counter.bump(prefix, seq[i + k], side);
            ids[i] = id;
            visit(k, i, id);
        }
        ids.truncate(n);
    }
}

/// Byte classes of [`split_words`]: 0 a word's byte, 1 ASCII whitespace, 2 the lead byte
/// of a character that may be whitespace (U+0085, U+00A0, U+1680, U+2000..).
const SPACE_CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 128 {
        if matches!(b, 9..=13 | 28..=32) {
            table[b] = 1;
        }
        b += 1;
    }
    table[0xC2] = 2;
    table[0xE1] = 2;
    table[0xE2] = 2;
    table[0xE3] = 2;
    table
};

/// Python's `str.split()` without arguments (as [`crate::text::py_split`]), byte by byte:
/// only the lead bytes of multi-byte whitespace are decoded.
pub fn split_words(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 5 + 1);
    let mut start = usize::MAX;
    let mut i = 0;
    while i < bytes.len() {
        let space = match SPACE_CLASS[bytes[i] as usize] {
            0 => 0,
            1 => 1,
            _ => {
                let c = text[i..].chars().next().unwrap_or(' ');
                if crate::text::is_py_space(c) {
                    c.len_utf8()
                } else {
                    0
                }
            }
        };
        if space == 0 {
            if start == usize::MAX {
                start = i;
            }
            i += 1;
        } else {
            if start != usize::MAX {
                out.push(&text[start..i]);
                start = usize::MAX;
            }
            i += space;
        }
    }
    if start != usize::MAX {
        out.push(&text[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn n_grams_get_exact_ids_with_their_prefix() {
        let mut grams: Vec<GramCounter<2>> = (0..3).map(|_| GramCounter::default()).collect();
        let mut ids = Vec::new();
        count_orders(&mut grams, &[0, 1, 0, 1], 0, &mut ids, |_, _, _| {});
        count_orders(&mut grams, &[1, 0], 1, &mut ids, |_, _, _| {});
        assert_eq!(grams[0].counts(), &[[2, 1], [2, 1]]);
        // bigrams: (0 1) twice, (1 0) once on side 0 and once on side 1
        assert_eq!(grams[1].counts(), &[[2, 0], [1, 1]]);
        assert_eq!(grams[1].prefixes(), &[0, 1]);
        // trigrams (0 1 0), (1 0 1): prefixes are the bigram ids
        assert_eq!(grams[2].counts(), &[[1, 0], [1, 0]]);
        assert_eq!(grams[2].prefixes(), &[0, 1]);
        assert_eq!(grams[2].get(1, 1), Some(1));
        assert_eq!(grams[2].get(1, 0), None);
    }

    #[test]
    fn local_ids_number_words_in_order_of_first_sight() {
        let mut ids = LocalIds::default();
        let got: Vec<u32> = ["b", "a", "b", ""].iter().map(|w| ids.id(w)).collect();
        assert_eq!(got, vec![0, 1, 0, 2]);
        assert_eq!(ids.len(), 3);
    }

    #[test]
    fn split_words_is_python_str_split() {
        let texts = [
            "",
            " ",
            "a",
            "  a  b ",
            "\ta\u{a0}b\u{3000}c\n",
            "\u{2028}x\u{85}y\u{1680}z\u{2000}w\u{200a}v\u{202f}u\u{205f}t\u{2029}",
            "\u{1c}a\u{1d}b\u{1e}c\u{1f}d\u{0b}e\u{0c}f\rg",
            "é\u{c2a0}ä ü\u{e2}",
            "\u{00c2}\u{00a1} \u{2010}\u{200b}\u{3001}x",
            "日本語 テキスト\u{3000}です",
        ];
        for text in texts {
            let want: Vec<&str> = crate::text::py_split(text).collect();
            assert_eq!(split_words(text), want, "{text:?}");
        }
        let mut rng = fastrand::Rng::with_seed(3);
        let pieces = [
            "a", "é", " ", "\t", "\u{a0}", "\u{85}", "\u{3000}", "\u{2009}", "\u{200b}",
            "\u{1680}", "\u{e1}", "\u{2028}", "x\u{1f}", "\u{c2}",
        ];
        for _ in 0..2000 {
            let text: String = (0..rng.usize(0..12))
                .map(|_| pieces[rng.usize(0..pieces.len())])
                .collect();
            let want: Vec<&str> = crate::text::py_split(&text).collect();
            assert_eq!(split_words(&text), want, "{text:?}");
        }
    }
}
