//! Word and character edit distance with the alignment jiwer reports.
//!
//! jiwer 4 aligns with `rapidfuzz.distance.Levenshtein.opcodes(reference, hypothesis)`.
//! When several alignments have the minimal cost, the substitution/deletion/insertion
//! counts (and so MER, WIL and WIP) depend on which one is picked, so this module
//! reproduces rapidfuzz's choice exactly:
//!
//! * the common prefix and suffix are matched first;
//! * the alignment is read backwards from the end of the Levenshtein matrix
//!   (rows: hypothesis, columns: reference), preferring a deletion, then an
//!   insertion (tested on the row above), then the diagonal;
//! * when the stripped matrix is large (rapidfuzz's 1 MiB bit-matrix threshold),
//!   Hirschberg's split is used: the hypothesis is cut in half and the reference at
//!   the first column with minimal total cost, recursively, with the same threshold.
//!
//! rapidfuzz computes the matrix bit-parallel; the values it tests are those of the
//! ordinary dynamic programme computed here, so the backtrack takes the same path.

use std::hash::Hash;

use rustc_hash::FxHashMap;

use crate::text::{is_py_space, py_strip};

/// One step of an alignment of a reference with a hypothesis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Op {
    /// The reference token and the hypothesis token are equal (a hit).
    Equal = 0,
    /// The reference token is replaced by the hypothesis token.
    Substitute = 1,
    /// The reference token is missing from the hypothesis.
    Delete = 2,
    /// The hypothesis token is not in the reference.
    Insert = 3,
}

/// rapidfuzz's threshold: a bit matrix of at least 1 MiB is aligned with Hirschberg's method.
const HIRSCHBERG_BYTES: usize = 1024 * 1024;

/// Tokens of jiwer's default word transform (`wer_default`): runs of two or more
/// whitespace characters become one space (`re.sub(r"\s\s+", " ", s)`), the ends are
/// stripped, and the text is split on single spaces. A lone non-space whitespace
/// character (a tab, a no-break space) between two words therefore stays inside a token.
pub fn jiwer_words(text: &str) -> Vec<&str> {
    let text = py_strip(text);
    let mut tokens = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if !is_py_space(c) {
            continue;
        }
        let mut end = at + c.len_utf8();
        let mut run = 1;
        while let Some(&(next_at, next)) = chars.peek() {
            if !is_py_space(next) {
                break;
            }
            run += 1;
            end = next_at + next.len_utf8();
            chars.next();
        }
        if run >= 2 || c == ' ' {
            if at > start {
                tokens.push(&text[start..at]);
            }
            start = end;
        }
    }
    if start < text.len() {
        tokens.push(&text[start..]);
    }
    tokens
}

/// Tokens of jiwer's default character transform (`cer_default`): the stripped text's characters.
pub fn jiwer_chars(text: &str) -> Vec<char> {
    py_strip(text).chars().collect()
}

/// The Levenshtein matrix of `s1` (columns) and `s2` (rows), row-major (the plain
/// dynamic programme; used by the tests to check the bit-parallel version).
#[cfg(test)]
fn matrix<T: PartialEq>(s1: &[T], s2: &[T]) -> Vec<u32> {
    let width = s1.len() + 1;
    let mut d = vec![0u32; width * (s2.len() + 1)];
    for (col, cell) in d.iter_mut().take(width).enumerate() {
        *cell = col as u32;
    }
    for (row, ch2) in s2.iter().enumerate() {
        let (above, current) = d[row * width..(row + 2) * width].split_at_mut(width);
        current[0] = row as u32 + 1;
        for (col, ch1) in s1.iter().enumerate() {
            current[col + 1] = if ch1 == ch2 {
                above[col]
            } else {
                1 + above[col].min(above[col + 1]).min(current[col])
            };
        }
    }
    d
}

/// The last row of the Levenshtein matrix of `s1` (columns) and `s2` (rows), by the
/// plain dynamic programme (the tests compare [`last_row`] with it).
#[cfg(test)]
fn last_row_plain<T: PartialEq>(
    s1: impl Iterator<Item = T> + Clone,
    s2: impl Iterator<Item = T>,
    len1: usize,
) -> Vec<u32> {
    let mut row: Vec<u32> = (0..=len1 as u32).collect();
    for (index, ch2) in s2.enumerate() {
        let mut diagonal = row[0];
        row[0] = index as u32 + 1;
        for (col, ch1) in s1.clone().enumerate() {
            let above = row[col + 1];
            row[col + 1] = if ch1 == ch2 {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[col])
            };
            diagonal = above;
        }
    }
    row
}

/// The horizontal differences of every row of the Levenshtein matrix, bit-parallel
/// (Hyyrö 2003, block-based, as rapidfuzz computes them): bit `col` of row `row`'s
/// `vp` (`vn`) is set when `D[row + 1][col + 1] - D[row + 1][col]` is +1 (-1).
struct BitMatrix {
    words: usize,
    vp: Vec<u64>,
    vn: Vec<u64>,
}

impl BitMatrix {
    /// Every row of the matrix (`record`), or only the last one. `s1` must not be empty.
    fn new<T: Eq + Hash + Copy>(s1: &[T], s2: &[T], record: bool) -> BitMatrix {
        let words = s1.len().div_ceil(64);
        let mut index: FxHashMap<T, usize> = FxHashMap::default();
        let mut pm: Vec<u64> = Vec::new();
        for (col, &token) in s1.iter().enumerate() {
            let next = index.len();
            let slot = *index.entry(token).or_insert(next);
            if slot == next {
                pm.extend(std::iter::repeat_n(0, words));
            }
            pm[slot * words + col / 64] |= 1 << (col % 64);
        }
        let last = 1u64 << ((s1.len() - 1) % 64);
        let mut state_vp = vec![!0u64; words];
        let mut state_vn = vec![0u64; words];
        let rows = if record { s2.len() } else { 0 };
        let mut vp = Vec::with_capacity(words * rows);
        let mut vn = Vec::with_capacity(words * rows);
        for token in s2 {
            let pattern = index
                .get(token)
                .map(|&slot| &pm[slot * words..(slot + 1) * words]);
            let (mut hp_carry, mut hn_carry) = (1u64, 0u64);
            for word in 0..words {
                let pm_j = pattern.map_or(0, |p| p[word]);
                let (old_vp, old_vn) = (state_vp[word], state_vn[word]);
                let x = pm_j | hn_carry;
                let d0 = (((x & old_vp).wrapping_add(old_vp)) ^ old_vp) | x | old_vn;
                let mut hp = old_vn | !(d0 | old_vp);
                let mut hn = d0 & old_vp;
                let (hp_in, hn_in) = (hp_carry, hn_carry);
                if word < words - 1 {
                    hp_carry = hp >> 63;
                    hn_carry = hn >> 63;
                } else {
                    hp_carry = u64::from(hp & last != 0);
                    hn_carry = u64::from(hn & last != 0);
                }
                hp = (hp << 1) | hp_in;
                hn = (hn << 1) | hn_in;
                state_vp[word] = hn | !(d0 | hp);
                state_vn[word] = hp & d0;
            }
            if record {
                vp.extend_from_slice(&state_vp);
                vn.extend_from_slice(&state_vn);
            }
        }
        if !record {
            vp = state_vp;
            vn = state_vn;
        }
        BitMatrix { words, vp, vn }
    }

    fn test(bits: &[u64], words: usize, row: usize, col: usize) -> bool {
        bits[row * words + col / 64] >> (col % 64) & 1 == 1
    }

    /// `D[row + 1][col + 1] - D[row + 1][col] == 1`
    fn vp(&self, row: usize, col: usize) -> bool {
        Self::test(&self.vp, self.words, row, col)
    }

    /// `D[row + 1][col + 1] - D[row + 1][col] == -1`
    fn vn(&self, row: usize, col: usize) -> bool {
        Self::test(&self.vn, self.words, row, col)
    }
}

/// The last row of the Levenshtein matrix of `s1` (columns) and `s2` (rows), bit-parallel.
fn last_row<T: Eq + Hash + Copy>(s1: &[T], s2: &[T]) -> Vec<u32> {
    if s1.is_empty() || s2.is_empty() {
        return (0..=s1.len() as u32)
            .map(|col| col + s2.len() as u32)
            .collect();
    }
    let m = BitMatrix::new(s1, s2, false);
    let mut row = Vec::with_capacity(s1.len() + 1);
    let mut value = s2.len() as u32;
    row.push(value);
    for col in 0..s1.len() {
        if m.vp(0, col) {
            value += 1;
        } else if m.vn(0, col) {
            value -= 1;
        }
        row.push(value);
    }
    row
}

/// rapidfuzz's `recover_alignment`, appended to `out`.
fn align_direct<T: Eq + Hash + Copy>(s1: &[T], s2: &[T], out: &mut Vec<Op>) {
    let mut reversed = Vec::with_capacity(s1.len() + s2.len());
    let (mut row, mut col) = (s2.len(), s1.len());
    if row > 0 && col > 0 {
        let m = BitMatrix::new(s1, s2, true);
        while row > 0 && col > 0 {
            if m.vp(row - 1, col - 1) {
                reversed.push(Op::Delete);
                col -= 1;
            } else {
                row -= 1;
                if row > 0 && m.vn(row - 1, col - 1) {
                    reversed.push(Op::Insert);
                } else {
                    col -= 1;
                    reversed.push(if s1[col] == s2[row] {
                        Op::Equal
                    } else {
                        Op::Substitute
                    });
                }
            }
        }
    }
    reversed.extend(std::iter::repeat_n(Op::Delete, col));
    reversed.extend(std::iter::repeat_n(Op::Insert, row));
    out.extend(reversed.into_iter().rev());
}

/// Hirschberg's split: `(s1_mid, s2_mid, left_cost, right_cost)`, the first minimal column.
fn hirschberg_split<T: Eq + Hash + Copy>(s1: &[T], s2: &[T]) -> (usize, usize, usize, usize) {
    let len1 = s1.len();
    let left_size = s2.len() / 2;
    let left = last_row(s1, &s2[..left_size]);
    let (rev1, rev2): (Vec<T>, Vec<T>) = (
        s1.iter().rev().copied().collect(),
        s2[left_size..].iter().rev().copied().collect(),
    );
    let right = last_row(&rev1, &rev2);
    let mut best = (0, u32::MAX, 0);
    for (mid, &left_cost) in left.iter().enumerate() {
        let right_cost = right[len1 - mid];
        if left_cost + right_cost < best.1 {
            best = (mid, left_cost + right_cost, left_cost);
        }
    }
    let (mid, total, left_cost) = best;
    (
        mid,
        left_size,
        left_cost as usize,
        (total - left_cost) as usize,
    )
}

/// rapidfuzz's `levenshtein_align_hirschberg`, appending the operations to `out`.
fn align_into<T: Eq + Hash + Copy>(s1: &[T], s2: &[T], max: usize, out: &mut Vec<Op>) {
    let prefix = s1.iter().zip(s2).take_while(|(a, b)| a == b).count();
    let (s1, s2) = (&s1[prefix..], &s2[prefix..]);
    let suffix = s1
        .iter()
        .rev()
        .zip(s2.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (s1, s2) = (&s1[..s1.len() - suffix], &s2[..s2.len() - suffix]);
    out.extend(std::iter::repeat_n(Op::Equal, prefix));

    let max = max.min(s1.len().max(s2.len()));
    let full_band = s1.len().min(2 * max + 1);
    let matrix_bytes = 2 * full_band * s2.len() / 8;
    if matrix_bytes < HIRSCHBERG_BYTES || s1.len() < 65 || s2.len() < 10 {
        align_direct(s1, s2, out);
    } else {
        let (mid1, mid2, left_cost, right_cost) = hirschberg_split(s1, s2);
        align_into(&s1[..mid1], &s2[..mid2], left_cost, out);
        align_into(&s1[mid1..], &s2[mid2..], right_cost, out);
    }
    out.extend(std::iter::repeat_n(Op::Equal, suffix));
}

/// The alignment of `reference` with `hypothesis`, one operation per aligned position,
/// exactly as `rapidfuzz.distance.Levenshtein.editops(reference, hypothesis)` (with the hits).
pub fn align<T: Eq + Hash + Copy>(reference: &[T], hypothesis: &[T]) -> Vec<Op> {
    let mut out = Vec::with_capacity(reference.len().max(hypothesis.len()));
    align_into(
        reference,
        hypothesis,
        reference.len().max(hypothesis.len()),
        &mut out,
    );
    out
}

/// Width of a statistics row: hits, substitutions, deletions, insertions,
/// reference length, hypothesis length.
pub const ROW_WIDTH: usize = 6;

/// The statistics row of an alignment.
pub fn row(ops: &[Op]) -> [i64; ROW_WIDTH] {
    let mut counts = [0i64; 4];
    for &op in ops {
        counts[op as usize] += 1;
    }
    let [hits, subs, dels, ins] = counts;
    [hits, subs, dels, ins, hits + subs + dels, hits + subs + ins]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops_of(reference: &str, hypothesis: &str) -> String {
        let r: Vec<char> = reference.chars().collect();
        let h: Vec<char> = hypothesis.chars().collect();
        align(&r, &h)
            .iter()
            .map(|op| match op {
                Op::Equal => '=',
                Op::Substitute => 'S',
                Op::Delete => 'D',
                Op::Insert => 'I',
            })
            .collect()
    }

    #[test]
    fn words_follow_jiwer_default_transform() {
        assert_eq!(jiwer_words("  a  b c "), vec!["a", "b", "c"]);
        assert_eq!(jiwer_words("a\tb"), vec!["a\tb"]);
        assert_eq!(jiwer_words("a\t\tb \u{a0}c"), vec!["a", "b", "c"]);
        assert_eq!(jiwer_words("\ta\u{a0}b\t"), vec!["a\u{a0}b"]);
        assert!(jiwer_words(" \t ").is_empty());
        assert!(jiwer_words("").is_empty());
    }

    #[test]
    fn chars_are_stripped() {
        assert_eq!(jiwer_chars(" a b\t"), vec!['a', ' ', 'b']);
    }

    #[test]
    fn rapidfuzz_docstring_example() {
        // Levenshtein.editops("qabxcd", "abycdf"): delete s1[1], replace s1[3], insert at s1[6]
        assert_eq!(ops_of("qabxcd", "abycdf"), "D==S==I");
    }

    #[test]
    fn ties_resolve_as_rapidfuzz() {
        // expected strings computed with rapidfuzz 3.14 `Levenshtein.editops`
        assert_eq!(ops_of("ab", "ba"), "I=D");
        assert_eq!(ops_of("abcab", "bcaba"), "D====I");
        assert_eq!(ops_of("xyz", "zyx"), "S=S");
        assert_eq!(ops_of("kitten", "sitting"), "S===S=I");
        assert_eq!(ops_of("abc", "aac"), "=S=");
        assert_eq!(ops_of("", "ab"), "II");
        assert_eq!(ops_of("ab", ""), "DD");
    }

    #[test]
    fn counts_add_up() {
        let r: Vec<char> = "kitten".chars().collect();
        let h: Vec<char> = "sitting".chars().collect();
        let stats = row(&align(&r, &h));
        assert_eq!(stats, [4, 2, 0, 1, 6, 7]);
    }

    /// The backtrack on the plain dynamic programme, for comparison.
    fn align_plain(s1: &[u32], s2: &[u32]) -> Vec<Op> {
        let width = s1.len() + 1;
        let d = matrix(s1, s2);
        let at = |row: usize, col: usize| d[row * width + col];
        let mut reversed = Vec::new();
        let (mut row, mut col) = (s2.len(), s1.len());
        while row > 0 && col > 0 {
            if at(row, col) == at(row, col - 1) + 1 {
                reversed.push(Op::Delete);
                col -= 1;
            } else {
                row -= 1;
                if row > 0 && at(row, col) + 1 == at(row, col - 1) {
                    reversed.push(Op::Insert);
                } else {
                    col -= 1;
                    reversed.push(if s1[col] == s2[row] {
                        Op::Equal
                    } else {
                        Op::Substitute
                    });
                }
            }
        }
        reversed.extend(std::iter::repeat_n(Op::Delete, col));
        reversed.extend(std::iter::repeat_n(Op::Insert, row));
        reversed.reverse();
        reversed
    }

    fn pseudo_random(seed: u64) -> impl FnMut(u32) -> u32 {
        let mut state = seed;
        move |modulo| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32 % modulo
        }
    }

    #[test]
    fn bit_parallel_matrix_equals_dynamic_programme() {
        let mut next = pseudo_random(7);
        for _ in 0..400 {
            let (len1, len2, alphabet) =
                (next(200) as usize + 1, next(200) as usize + 1, next(5) + 1);
            let a: Vec<u32> = (0..len1).map(|_| next(alphabet)).collect();
            let b: Vec<u32> = (0..len2).map(|_| next(alphabet)).collect();
            let mut direct = Vec::new();
            align_direct(&a, &b, &mut direct);
            assert_eq!(direct, align_plain(&a, &b), "{a:?} {b:?}");
        }
    }

    #[test]
    fn bit_parallel_last_row_equals_dynamic_programme() {
        let mut next = pseudo_random(99);
        for _ in 0..300 {
            let (len1, len2, alphabet) = (next(150) as usize, next(150) as usize, next(4) + 1);
            let a: Vec<u32> = (0..len1).map(|_| next(alphabet)).collect();
            let b: Vec<u32> = (0..len2).map(|_| next(alphabet)).collect();
            let plain = last_row_plain(a.iter().copied(), b.iter().copied(), len1);
            assert_eq!(last_row(&a, &b), plain, "{a:?} {b:?}");
        }
    }

    #[test]
    fn hirschberg_alignment_is_optimal() {
        // 2,100 x 2,100 tokens over a tiny alphabet: the Hirschberg path, with many ties.
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32 % 3
        };
        let a: Vec<u32> = (0..2100).map(|_| next()).collect();
        let b: Vec<u32> = (0..2100).map(|_| next()).collect();
        let ops = align(&a, &b);
        let stats = row(&ops);
        let distance = *last_row_plain(a.iter().copied(), b.iter().copied(), a.len())
            .last()
            .unwrap();
        assert_eq!((stats[1] + stats[2] + stats[3]) as u32, distance);
        assert_eq!(stats[4], 2100);
        assert_eq!(stats[5], 2100);
    }
}
