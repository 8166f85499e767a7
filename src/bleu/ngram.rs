//! Word n-gram sufficient statistics for BLEU-style metrics.
//!
//! For every segment the kernel returns one row of integers:
//! `[hyp_len, closest_ref_len, shortest_ref_len, correct_1..=N, total_1..=N]`
//! where `correct_n` is the clipped n-gram match count (each hypothesis n-gram
//! counted at most as often as it occurs in the reference that has most of it)
//! and `total_n` the number of hypothesis n-grams. Formulas live in Python.

use crate::common::slots::SlotTable;
use crate::text::{self, Tokenizer};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::hash::Hash;

/// Number of leading length columns in a statistics row.
pub const LENGTH_COLUMNS: usize = 3;

/// Width of a statistics row for `max_order`.
pub fn row_width(max_order: usize) -> usize {
    LENGTH_COLUMNS + 2 * max_order
}

fn count_ngrams<T: Hash + Eq>(tokens: &[T], max_order: usize) -> FxHashMap<&[T], i64> {
    let mut counts: FxHashMap<&[T], i64> = FxHashMap::default();
    for n in 1..=max_order.min(tokens.len()) {
        for window in tokens.windows(n) {
            *counts.entry(window).or_insert(0) += 1;
        }
    }
    counts
}

/// sacreBLEU's closest reference length: smallest |ref - hyp|, ties to the shorter.
pub fn closest_length(hyp_len: usize, ref_lens: impl IntoIterator<Item = usize>) -> usize {
    ref_lens
        .into_iter()
        .min_by_key(|&len| (len.abs_diff(hyp_len), len))
        .unwrap_or(0)
}

/// Id of a reference token that the hypothesis does not contain.
const UNKNOWN: u32 = u32::MAX;

/// n-grams of up to four tokens from a vocabulary below 65,535 packed into one
/// `u64` (16 bits a token, id + 1, so shorter n-grams keep zero lanes): hashing
/// one integer instead of a slice roughly halves the counting time.
#[cfg(test)]
fn packed_key(window: &[u32]) -> u64 {
    window.iter().enumerate().fold(0u64, |key, (lane, &id)| {
        key | ((u64::from(id) + 1) << (16 * lane))
    })
}

fn packed_order(key: &u64) -> usize {
    (64 - key.leading_zeros() as usize).div_ceil(16)
}

/// A reusable table of packed n-gram keys (see [`packed_key`]) for the clipped
/// counts of one segment at a time: hypothesis count, best reference count so
/// far, count in the current reference (the table: [`SlotTable`]).
#[derive(Default)]
pub struct PackedTable {
    table: SlotTable<Slot>,
    /// Bitsets over lane ids: in some reference / in the hypothesis.
    in_ref: Vec<u64>,
    in_hyp: Vec<u64>,
}

/// Words of a bitset over every lane id (`0..65535`).
const BITSET_WORDS: usize = 1 << 10;

fn bit_set(bits: &mut [u64], id: u32) {
    bits[(id >> 6) as usize] |= 1 << (id & 63);
}

fn bit_clear(bits: &mut [u64], id: u32) {
    bits[(id >> 6) as usize] &= !(1 << (id & 63));
}

fn bit_get(bits: &[u64], id: u32) -> bool {
    id != UNKNOWN && bits[(id >> 6) as usize] & (1 << (id & 63)) != 0
}

/// The counts of one n-gram of a [`PackedTable`].
#[derive(Clone, Copy, Default)]
struct Slot {
    hyp: i64,
    best: i64,
    current: i64,
}

impl PackedTable {
    #[inline]
    fn add_hyp(&mut self, key: u64) {
        self.table.entry(key).hyp += 1;
    }

    #[inline]
    fn add_ref(&mut self, key: u64) {
        if let Some(entry) = self.table.get_mut(key) {
            entry.current += 1;
        }
    }

    fn end_ref(&mut self) {
        self.table.for_each_used(|_, entry| {
            entry.best = entry.best.max(entry.current);
            entry.current = 0;
        });
    }

    /// Packed keys of every n-gram (orders 1..=max_order) of `ids` whose ids
    /// are all in `bits` (`UNKNOWN` never is).
    #[inline]
    fn for_each_key(ids: &[u32], bits: &[u64], max_order: usize, mut visit: impl FnMut(u64)) {
        for start in 0..ids.len() {
            let mut key = 0u64;
            for (lane, &id) in ids[start..ids.len().min(start + max_order)]
                .iter()
                .enumerate()
            {
                if !bit_get(bits, id) {
                    break;
                }
                key |= (u64::from(id) + 1) << (16 * lane);
                visit(key);
            }
        }
    }

    /// Clipped counts as [`clipped_counts`] with packed keys (`max_order <= 4`,
    /// every id below 65,535 or `UNKNOWN`). The number of hypothesis n-grams of
    /// each order follows from its length, so only n-grams made of ids that occur
    /// in some reference are counted in the hypothesis, and only those made of
    /// hypothesis ids in a reference.
    pub fn clipped_counts<R: AsRef<[u32]>>(
        &mut self,
        hyp_ids: &[u32],
        ref_ids: &[R],
        max_order: usize,
        correct: &mut [i64],
        total: &mut [i64],
    ) {
        if self.in_ref.is_empty() {
            self.in_ref = vec![0; BITSET_WORDS];
            self.in_hyp = vec![0; BITSET_WORDS];
        }
        for reference in ref_ids {
            for &id in reference.as_ref() {
                if id != UNKNOWN {
                    bit_set(&mut self.in_ref, id);
                }
            }
        }
        for &id in hyp_ids {
            bit_set(&mut self.in_hyp, id);
        }
        self.table.reset(hyp_ids.len() * max_order);
        let (in_ref, in_hyp) = (
            std::mem::take(&mut self.in_ref),
            std::mem::take(&mut self.in_hyp),
        );
        Self::for_each_key(hyp_ids, &in_ref, max_order, |key| self.add_hyp(key));
        for reference in ref_ids {
            Self::for_each_key(reference.as_ref(), &in_hyp, max_order, |key| {
                self.add_ref(key)
            });
            self.end_ref();
        }
        (self.in_ref, self.in_hyp) = (in_ref, in_hyp);
        for reference in ref_ids {
            for &id in reference.as_ref() {
                if id != UNKNOWN {
                    bit_clear(&mut self.in_ref, id);
                }
            }
        }
        for &id in hyp_ids {
            bit_clear(&mut self.in_hyp, id);
        }
        correct.fill(0);
        for (order, slot) in total.iter_mut().enumerate() {
            *slot = hyp_ids.len().saturating_sub(order) as i64;
        }
        self.table.for_each_used(|key, entry| {
            let order = packed_order(&key) - 1;
            correct[order] += entry.hyp.min(entry.best);
        });
    }
}

/// Clipped counts of hypothesis n-grams against the best reference count,
/// keyed by `key_of(window)`. Writes `correct` and `total` per order.
fn clipped_counts<'a, K: Hash + Eq>(
    hyp_ids: &'a [u32],
    ref_ids: &'a [Vec<u32>],
    max_order: usize,
    key_of: impl Fn(&'a [u32]) -> K,
    order_of: impl Fn(&K) -> usize,
    correct: &mut [i64],
    total: &mut [i64],
) {
    // n-gram -> (hypothesis count, best reference count, count in the current reference)
    let mut table: FxHashMap<K, (i64, i64, i64)> =
        FxHashMap::with_capacity_and_hasher(hyp_ids.len() * max_order, Default::default());
    for n in 1..=max_order.min(hyp_ids.len()) {
        for window in hyp_ids.windows(n) {
            table.entry(key_of(window)).or_insert((0, 0, 0)).0 += 1;
        }
    }
    for reference in ref_ids {
        for n in 1..=max_order.min(reference.len()) {
            for window in reference.windows(n) {
                if window.contains(&UNKNOWN) {
                    continue;
                }
                if let Some(entry) = table.get_mut(&key_of(window)) {
                    entry.2 += 1;
                }
            }
        }
        for entry in table.values_mut() {
            entry.1 = entry.1.max(entry.2);
            entry.2 = 0;
        }
    }
    correct.fill(0);
    total.fill(0);
    for (key, (hyp_count, ref_count, _)) in &table {
        let order = order_of(key) - 1;
        total[order] += hyp_count;
        correct[order] += (*hyp_count).min(*ref_count);
    }
}

/// Statistics of one hypothesis against its references, written into `row`.
///
/// Tokens are interned to ids over the hypothesis vocabulary; reference n-grams
/// containing a token the hypothesis lacks can never match and are skipped, and
/// each reference is counted only over the hypothesis n-grams.
pub fn segment_stats<T: Hash + Eq, R: AsRef<[T]>>(
    hyp: &[T],
    refs: &[R],
    max_order: usize,
    row: &mut [i64],
) {
    segment_stats_with(&mut PackedTable::default(), hyp, refs, max_order, row);
}

/// [`segment_stats`] with the buffers of `table`.
pub fn segment_stats_with<T: Hash + Eq, R: AsRef<[T]>>(
    table: &mut PackedTable,
    hyp: &[T],
    refs: &[R],
    max_order: usize,
    row: &mut [i64],
) {
    let mut vocab: FxHashMap<&T, u32> =
        FxHashMap::with_capacity_and_hasher(hyp.len(), Default::default());
    let hyp_ids: Vec<u32> = hyp
        .iter()
        .map(|token| {
            let next = vocab.len() as u32;
            *vocab.entry(token).or_insert(next)
        })
        .collect();
    let ref_ids: Vec<Vec<u32>> = refs
        .iter()
        .map(|reference| {
            reference
                .as_ref()
                .iter()
                .map(|token| vocab.get(token).copied().unwrap_or(UNKNOWN))
                .collect()
        })
        .collect();
    let ref_lens = refs.iter().map(|r| r.as_ref().len());
    row[0] = hyp.len() as i64;
    row[1] = closest_length(hyp.len(), ref_lens.clone()) as i64;
    row[2] = ref_lens.min().unwrap_or(0) as i64;
    let (correct, total) = row[LENGTH_COLUMNS..].split_at_mut(max_order);
    if max_order <= 4 && vocab.len() < 0xFFFF {
        table.clipped_counts(&hyp_ids, &ref_ids, max_order, correct, total);
    } else {
        clipped_counts(
            &hyp_ids,
            &ref_ids,
            max_order,
            |w| w,
            |w: &&[u32]| w.len(),
            correct,
            total,
        );
    }
}

/// Statistics for a batch; `refs[i]` holds the references of segment `i`.
/// Returns a row-major `(n, row_width)` buffer. Runs in parallel.
pub fn batch_stats<T, H, R>(hyps: &[H], refs: &[Vec<R>], max_order: usize) -> Vec<i64>
where
    T: Hash + Eq + Sync,
    H: AsRef<[T]> + Sync,
    R: AsRef<[T]> + Sync,
{
    crate::common::parallel::install(|| {
        let width = row_width(max_order);
        let mut out = vec![0i64; hyps.len() * width];
        out.par_chunks_mut(width.max(1))
            .zip(hyps.par_iter().zip(refs.par_iter()))
            .for_each_init(PackedTable::default, |table, (row, (hyp, seg_refs))| {
                segment_stats_with(table, hyp.as_ref(), seg_refs.as_slice(), max_order, row)
            });
        out
    })
}

/// Reusable buffers of one worker for the statistics of text segments.
#[derive(Default)]
pub struct TextWorkspace {
    table: PackedTable,
    hyp_ids: Vec<u32>,
    ref_ids: Vec<u32>,
    ref_ends: Vec<usize>,
}

/// Calls `visit` with every token of `line` (from [`prepare`]) as `tok` splits it.
pub(crate) fn for_each_token<'a>(tok: Tokenizer, line: &'a str, visit: impl FnMut(&'a str)) {
    match tok {
        Tokenizer::Mteval13a => text::scan_13a(line, visit),
        _ => text::py_split(line).for_each(visit),
    }
}

/// A segment ready for [`for_each_token`]: 13a's prepared line, or the other
/// tokenizers' output.
pub(crate) fn prepare(tok: Tokenizer, segment: &str) -> Cow<'_, str> {
    match tok {
        Tokenizer::Mteval13a => text::prepare_13a(segment),
        _ => Cow::Owned(tok.tokenize_unjoined(segment)),
    }
}

/// Statistics of one text hypothesis against its references, tokenized by
/// `tok` as sacreBLEU does (`rstrip()`, then the tokenizer, then `split()`),
/// written into `row`. Equal to [`segment_stats`] on the token lists; 13a
/// tokens go straight from the scanner to ids over the hypothesis vocabulary
/// (no token strings, no rewritten line).
pub fn text_segment_stats<R: AsRef<str>>(
    workspace: &mut TextWorkspace,
    tok: Tokenizer,
    hyp: &str,
    refs: &[R],
    max_order: usize,
    row: &mut [i64],
) {
    let TextWorkspace {
        table,
        hyp_ids,
        ref_ids,
        ref_ends,
    } = workspace;
    let hyp_line = prepare(tok, hyp);
    let mut vocab: FxHashMap<&str, u32> =
        FxHashMap::with_capacity_and_hasher(hyp_line.len() / 4 + 4, Default::default());
    hyp_ids.clear();
    for_each_token(tok, &hyp_line, |token| {
        let next = vocab.len() as u32;
        hyp_ids.push(*vocab.entry(token).or_insert(next));
    });
    ref_ids.clear();
    ref_ends.clear();
    for reference in refs {
        let line = prepare(tok, reference.as_ref());
        for_each_token(tok, &line, |token| {
            ref_ids.push(vocab.get(token).copied().unwrap_or(UNKNOWN));
        });
        ref_ends.push(ref_ids.len());
    }
    let mut ref_slices: Vec<&[u32]> = Vec::with_capacity(ref_ends.len());
    let mut begin = 0;
    for &end in ref_ends.iter() {
        ref_slices.push(&ref_ids[begin..end]);
        begin = end;
    }
    let ref_lens = ref_slices.iter().map(|r| r.len());
    row[0] = hyp_ids.len() as i64;
    row[1] = closest_length(hyp_ids.len(), ref_lens.clone()) as i64;
    row[2] = ref_lens.min().unwrap_or(0) as i64;
    let (correct, total) = row[LENGTH_COLUMNS..].split_at_mut(max_order);
    if max_order <= 4 && vocab.len() < 0xFFFF {
        table.clipped_counts(hyp_ids, &ref_slices, max_order, correct, total);
    } else {
        let owned: Vec<Vec<u32>> = ref_slices.iter().map(|r| r.to_vec()).collect();
        clipped_counts(
            hyp_ids,
            &owned,
            max_order,
            |w| w,
            |w: &&[u32]| w.len(),
            correct,
            total,
        );
    }
}

/// [`text_segment_stats`] of a batch (`refs[i]`: the references of
/// hypothesis `i`): a row-major `(n, row_width)` buffer, in parallel from
/// [`crate::common::parallel::PARALLEL_MIN_SEGMENTS`] segments.
pub fn text_batch_stats<H, S, R>(
    hyps: &[H],
    refs: &[S],
    tok: Tokenizer,
    max_order: usize,
) -> Vec<i64>
where
    H: AsRef<str> + Sync,
    S: AsRef<[R]> + Sync,
    R: AsRef<str>,
{
    assert_eq!(hyps.len(), refs.len(), "one reference list per hypothesis");
    let width = row_width(max_order);
    let mut out = vec![0i64; hyps.len() * width];
    let one = |workspace: &mut TextWorkspace, (index, row): (usize, &mut [i64])| {
        text_segment_stats(
            workspace,
            tok,
            hyps[index].as_ref(),
            refs[index].as_ref(),
            max_order,
            row,
        )
    };
    crate::common::parallel::fill_rows(&mut out, width, one);
    out
}

/// Largest id (exclusive) that [`id_segment_stats`] packs directly into a key lane.
const DIRECT_ID_LIMIT: i64 = 0xFFFF;

/// Statistics of one hypothesis of integer ids against its references, written into `row`.
///
/// Equal to [`segment_stats`] on the same ids. When `max_order <= 4` and every
/// hypothesis id is in `0..65535`, the ids are packed into n-gram keys directly
/// (no per-segment interning); reference n-grams with an id outside that range
/// cannot match and are skipped.
pub fn id_segment_stats(
    table: &mut PackedTable,
    hyp: &[i64],
    refs: &[&[i64]],
    max_order: usize,
    row: &mut [i64],
) {
    let direct = max_order <= 4 && hyp.iter().all(|&id| (0..DIRECT_ID_LIMIT).contains(&id));
    if !direct {
        segment_stats_with(table, hyp, refs, max_order, row);
        return;
    }
    let as_lane = |id: i64| {
        if (0..DIRECT_ID_LIMIT).contains(&id) {
            id as u32
        } else {
            UNKNOWN
        }
    };
    let hyp_ids: Vec<u32> = hyp.iter().map(|&id| id as u32).collect();
    let ref_ids: Vec<Vec<u32>> = refs
        .iter()
        .map(|r| r.iter().map(|&id| as_lane(id)).collect())
        .collect();
    let ref_lens = refs.iter().map(|r| r.len());
    row[0] = hyp.len() as i64;
    row[1] = closest_length(hyp.len(), ref_lens.clone()) as i64;
    row[2] = ref_lens.min().unwrap_or(0) as i64;
    let (correct, total) = row[LENGTH_COLUMNS..].split_at_mut(max_order);
    table.clipped_counts(&hyp_ids, &ref_ids, max_order, correct, total);
}

/// Statistics of id segments given as slices: `refs[offsets[i]..offsets[i + 1]]`
/// are the references of hypothesis `i`. Row-major `(n, row_width)`.
pub fn id_batch_stats(
    hyps: &[&[i64]],
    refs: &[&[i64]],
    offsets: &[usize],
    max_order: usize,
) -> Vec<i64> {
    let width = row_width(max_order).max(1);
    let mut out = vec![0i64; hyps.len() * width];
    let one = |table: &mut PackedTable, (index, row): (usize, &mut [i64])| {
        let seg_refs = &refs[offsets[index]..offsets[index + 1]];
        id_segment_stats(table, hyps[index], seg_refs, max_order, row);
    };
    crate::common::parallel::fill_rows(&mut out, width, one);
    out
}

/// Per-sentence n-gram inventory for pairwise scoring: sorted `(ngram id, count)`
/// pairs, with the order of each id kept in a shared table.
struct Inventory {
    ngrams: Vec<(u32, i64)>,
    length: usize,
}

fn build_inventories<T: Hash + Eq>(
    sentences: &[&[T]],
    max_order: usize,
    order_of_id: &mut Vec<u8>,
) -> Vec<Inventory> {
    let mut ids: FxHashMap<&[T], u32> = FxHashMap::default();
    sentences
        .iter()
        .map(|tokens| {
            let mut ngrams: Vec<(u32, i64)> = count_ngrams(tokens, max_order)
                .into_iter()
                .map(|(ngram, count)| {
                    let next_id = ids.len() as u32;
                    let id = *ids.entry(ngram).or_insert_with(|| {
                        order_of_id.push((ngram.len() - 1) as u8);
                        next_id
                    });
                    (id, count)
                })
                .collect();
            ngrams.sort_unstable_by_key(|&(id, _)| id);
            Inventory {
                ngrams,
                length: tokens.len(),
            }
        })
        .collect()
}

/// `score(row)` of every hypothesis against every candidate (used as a single
/// reference), row-major `(n_hyps * n_cands)`. Each sentence's n-grams are
/// extracted once and the candidates are indexed by n-gram (a posting list of
/// `(candidate, count)` per n-gram id), so a hypothesis only visits the
/// candidates that share an n-gram with it; the `n x m` statistics are never
/// stored.
pub fn pairwise_map<T, O, F>(
    hyps: &[&[T]],
    cands: &[&[T]],
    max_order: usize,
    score: F,
) -> Result<Vec<O>, crate::common::alloc::TooLarge>
where
    T: Hash + Eq + Sync,
    O: Send + Clone + Default,
    F: Fn(&[i64]) -> O + Sync,
{
    let mut out = crate::common::alloc::filled(hyps.len(), cands.len(), O::default())?;
    crate::common::parallel::install(|| {
        let mut order_of_id = Vec::new();
        let all: Vec<&[T]> = hyps.iter().chain(cands.iter()).copied().collect();
        let inventories = build_inventories(&all, max_order, &mut order_of_id);
        let (hyp_inv, cand_inv) = inventories.split_at(hyps.len());
        let mut postings: Vec<Vec<(u32, i64)>> = vec![Vec::new(); order_of_id.len()];
        for (index, cand) in cand_inv.iter().enumerate() {
            for &(id, count) in &cand.ngrams {
                postings[id as usize].push((index as u32, count));
            }
        }
        let width = row_width(max_order);
        let n_cands = cands.len();
        if out.is_empty() {
            return Ok(out);
        }
        out.par_chunks_mut(n_cands)
            .zip(hyp_inv.par_iter())
            .for_each(|(block, hyp)| {
                let mut totals = vec![0i64; max_order];
                // matches[candidate * max_order + order]
                let mut matches = vec![0i64; n_cands * max_order];
                for &(id, count) in &hyp.ngrams {
                    let order = order_of_id[id as usize] as usize;
                    totals[order] += count;
                    for &(cand, cand_count) in &postings[id as usize] {
                        matches[cand as usize * max_order + order] += count.min(cand_count);
                    }
                }
                let mut row = vec![0i64; width];
                for (index, (slot, cand)) in block.iter_mut().zip(cand_inv.iter()).enumerate() {
                    row[0] = hyp.length as i64;
                    row[1] = cand.length as i64;
                    row[2] = cand.length as i64;
                    let (correct, total) = row[LENGTH_COLUMNS..].split_at_mut(max_order);
                    total.copy_from_slice(&totals);
                    correct.copy_from_slice(&matches[index * max_order..(index + 1) * max_order]);
                    *slot = score(&row);
                }
            });
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<&str> {
        text.split(' ').filter(|w| !w.is_empty()).collect()
    }

    #[test]
    fn clipped_counts_of_the_worked_example() {
        let hyp = words("the cat is running in the fields");
        let refs = vec![words("the cat is walking in the garden")];
        let mut row = vec![0; row_width(4)];
        segment_stats(&hyp, &refs, 4, &mut row);
        assert_eq!(row, vec![7, 7, 7, 5, 3, 1, 0, 7, 6, 5, 4]);
    }

    #[test]
    fn repeated_words_are_clipped_by_the_best_reference() {
        let hyp = words("the the the the the the the");
        let refs = vec![words("the cat is walking in the garden"), words("the cat")];
        let mut row = vec![0; row_width(2)];
        segment_stats(&hyp, &refs, 2, &mut row);
        assert_eq!(row, vec![7, 7, 2, 2, 0, 7, 6]);
    }

    #[test]
    fn closest_length_prefers_shorter_on_ties() {
        assert_eq!(closest_length(5, [3, 7, 9]), 3);
        assert_eq!(closest_length(5, [6, 4]), 4);
        assert_eq!(closest_length(0, Vec::<usize>::new()), 0);
    }

    #[test]
    fn pairwise_equals_per_pair_statistics() {
        let sentences = [
            words("a b c d a b"),
            words("a b d"),
            words(""),
            words("c d a b"),
        ];
        let refs: Vec<&[&str]> = sentences.iter().map(|s| s.as_slice()).collect();
        let matrix = pairwise_map(&refs, &refs, 3, |row| row.to_vec()).unwrap();
        let width = row_width(3);
        for (i, hyp) in sentences.iter().enumerate() {
            for (j, cand) in sentences.iter().enumerate() {
                let mut row = vec![0; width];
                segment_stats(hyp, std::slice::from_ref(cand), 3, &mut row);
                assert_eq!(matrix[i * sentences.len() + j], row);
            }
        }
    }

    #[test]
    fn packed_and_slice_keys_count_alike() {
        // more than 65,535 distinct tokens forces the slice path for the same sentence shape
        let many: Vec<u32> = (100..70_100).collect();
        let hyp: Vec<u32> = many.iter().chain([1, 2, 3, 1, 2].iter()).copied().collect();
        let refs = vec![vec![1u32, 2, 3, 9, 1, 2]];
        let mut wide = vec![0; row_width(4)];
        segment_stats(&hyp, &refs, 4, &mut wide);
        let mut narrow = vec![0; row_width(4)];
        segment_stats(&[1u32, 2, 3, 1, 2], &refs, 4, &mut narrow);
        assert_eq!(&wide[3..7], &narrow[3..7]);
        assert_eq!(packed_order(&packed_key(&[5, 6, 7])), 3);
    }

    #[test]
    fn direct_id_keys_count_like_interned_ids() {
        let hyp: Vec<i64> = vec![1, 2, 3, 7, 5, 1, 1, 0];
        let refs: Vec<Vec<i64>> = vec![vec![1, 2, 3, 4, 5, 1, 2, 70_000, 0], vec![7, 5, -3, 1, 1]];
        let slices: Vec<&[i64]> = refs.iter().map(|r| r.as_slice()).collect();
        for order in 1..=4 {
            let mut direct = vec![0; row_width(order)];
            id_segment_stats(
                &mut PackedTable::default(),
                &hyp,
                &slices,
                order,
                &mut direct,
            );
            let mut generic = vec![0; row_width(order)];
            segment_stats(&hyp, &refs, order, &mut generic);
            assert_eq!(direct, generic);
        }
        // an id outside the direct range takes the interned path
        let wide: Vec<i64> = vec![100_000, 1, 100_000, 1];
        let mut row = vec![0; row_width(2)];
        id_segment_stats(
            &mut PackedTable::default(),
            &wide,
            &[&[100_000, 1][..]],
            2,
            &mut row,
        );
        assert_eq!(row, vec![4, 2, 2, 2, 1, 4, 3]);
    }

    #[test]
    fn a_reused_table_counts_like_a_fresh_one() {
        let mut table = PackedTable::default();
        let long: Vec<u32> = (0..500).map(|i| i % 37).collect();
        let cases: Vec<(Vec<u32>, Vec<Vec<u32>>)> = vec![
            (long.clone(), vec![long[3..].to_vec()]),
            (vec![1, 2, 1, 2], vec![vec![2, 1, 2], vec![1, 2, 1, 2, 1]]),
            (vec![], vec![vec![1]]),
            (vec![5, 5, 5], vec![vec![5, UNKNOWN, 5, 5]]),
        ];
        for (hyp, refs) in &cases {
            let (mut a, mut b) = (vec![0; 4], vec![0; 4]);
            let (mut c, mut d) = (vec![0; 4], vec![0; 4]);
            table.clipped_counts(hyp, refs, 4, &mut a, &mut b);
            PackedTable::default().clipped_counts(hyp, refs, 4, &mut c, &mut d);
            assert_eq!((&a, &b), (&c, &d));
            let (mut e, mut f) = (vec![0; 4], vec![0; 4]);
            clipped_counts(hyp, refs, 4, |w| w, |w: &&[u32]| w.len(), &mut e, &mut f);
            assert_eq!((&a, &b), (&e, &f));
        }
    }

    #[test]
    fn id_batches_split_references_by_offsets() {
        let hyps: Vec<&[i64]> = vec![&[1, 2, 3], &[4, 4]];
        let refs: Vec<&[i64]> = vec![&[1, 2], &[1, 2, 3], &[4]];
        let rows = id_batch_stats(&hyps, &refs, &[0, 2, 3], 2);
        assert_eq!(rows, vec![3, 3, 2, 3, 2, 3, 2, 2, 1, 1, 1, 0, 2, 1]);
    }

    #[test]
    fn token_ids_work_like_words() {
        let hyp: Vec<i64> = vec![1, 2, 3, 7, 5, 1, 1];
        let refs = vec![vec![1i64, 2, 3, 4, 5, 1, 2]];
        let stats = batch_stats::<i64, _, _>(&[hyp], &[refs], 4);
        assert_eq!(stats, vec![7, 7, 7, 5, 3, 1, 0, 7, 6, 5, 4]);
    }
}
