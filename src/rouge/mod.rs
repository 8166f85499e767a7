//! ROUGE co-occurrence statistics: n-grams, LCS (sentence level, bit-parallel),
//! union LCS over sentences (summary level), weighted LCS and skip-bigrams.
//!
//! A document is a list of sentences of token ids plus a flat token list (the
//! tokens that n-grams and skip-bigrams are counted over, and that clip the
//! union-LCS hits). Every kernel returns, for one hypothesis/reference pair,
//! `[hits, hypothesis count, reference count]` as `f64` (weighted LCS hits are
//! fractional). Precision, recall and F are computed in Python.

pub mod py;
pub mod text;

use crate::rouge::text::RougeTokenizer;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// A tokenized text: flat tokens (what n-grams and skip-bigrams are counted
/// over, and what clips the union-LCS hits) and its sentences (for summary-level LCS).
#[derive(Clone, Debug, Default)]
pub struct Doc {
    pub flat: Vec<u32>,
    /// The sentences' tokens, concatenated (unused when `sents_are_flat`).
    sent_tokens: Vec<u32>,
    /// End offset of each sentence in the sentence tokens.
    sent_ends: Vec<usize>,
    /// The sentences are `flat` cut at `sent_ends` (the text path: no copy).
    sents_are_flat: bool,
}

impl Doc {
    /// A document whose flat tokens are its sentences concatenated.
    pub fn from_sentences(sents: Vec<Vec<u32>>) -> Doc {
        let mut doc = Doc {
            sents_are_flat: true,
            ..Doc::default()
        };
        for sentence in sents {
            doc.flat.extend_from_slice(&sentence);
            doc.sent_ends.push(doc.flat.len());
        }
        doc
    }

    /// A document with separate sentence and flat token lists.
    pub fn new(sents: Vec<Vec<u32>>, flat: Vec<u32>) -> Doc {
        let mut doc = Doc {
            flat,
            ..Doc::default()
        };
        for sentence in sents {
            doc.sent_tokens.extend_from_slice(&sentence);
            doc.sent_ends.push(doc.sent_tokens.len());
        }
        doc
    }

    /// Empties the document for reuse (text path: sentences are cut from `flat`).
    fn clear(&mut self) {
        self.flat.clear();
        self.sent_tokens.clear();
        self.sent_ends.clear();
        self.sents_are_flat = true;
    }

    /// Text path: ends the current sentence (sentences without tokens are not kept:
    /// they add nothing to any statistic).
    fn end_sentence(&mut self) {
        let end = self.flat.len();
        if end > self.sent_ends.last().copied().unwrap_or(0) {
            self.sent_ends.push(end);
        }
    }

    fn sent_data(&self) -> &[u32] {
        if self.sents_are_flat {
            &self.flat
        } else {
            &self.sent_tokens
        }
    }

    /// The sentences, in order.
    pub fn sents(&self) -> impl Iterator<Item = &[u32]> + Clone {
        let data = self.sent_data();
        let mut start = 0;
        self.sent_ends.iter().map(move |&end| {
            let s = &data[start..end];
            start = end;
            s
        })
    }

    /// Number of sentence tokens.
    pub fn sent_len(&self) -> usize {
        self.sent_ends.last().copied().unwrap_or(0)
    }

    /// One sentence equal to the flat tokens (union LCS = LCS, clipping never bites).
    fn single_flat_sentence(&self) -> bool {
        self.sent_ends.len() == 1 && (self.sents_are_flat || self.sent_tokens == self.flat)
    }
}

/// Which unigrams ROUGE-SU adds to the skip-bigrams.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unigrams {
    /// ROUGE-S: none.
    None,
    /// Every token (Lin 2004's begin-of-sentence marker).
    All,
    /// Every token but the last (what ROUGE-1.5.5.pl counts).
    AllButLast,
}

/// One ROUGE statistic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// ROUGE-N over the flat tokens.
    Ngram(usize),
    /// LCS of the flat token sequences.
    Lcs,
    /// Union LCS of every reference sentence against all hypothesis sentences,
    /// hits clipped by the flat unigram counts (rouge-score's Lsum, ROUGE-1.5.5's L).
    LcsSummary,
    /// Weighted LCS of the flat sequences (Lin 2004): hits are the DP value.
    Wlcs(f64),
    /// ROUGE-1.5.5's ROUGE-W: union weighted LCS over sentences, hits summed
    /// over runs of consecutive model positions; the reference count is the sum
    /// of the weighted sentence lengths.
    WlcsSummaryPerl(f64),
    /// Skip-bigrams with at most `max_gap` tokens in between (`None`: no limit).
    Skip {
        max_gap: Option<usize>,
        unigrams: Unigrams,
    },
}

impl Kind {
    /// Parses the kernel codes used by the Python layer: `n`, `l`, `lsum`,
    /// `w`, `wperl`, `s`, `su`, `superl` with their numeric parameter
    /// (n, weight, or maximum gap with a negative value meaning no limit).
    pub fn from_code(code: &str, param: f64) -> Option<Kind> {
        let gap = if param < 0.0 {
            None
        } else {
            Some(param as usize)
        };
        Some(match code {
            "n" if param >= 1.0 => Kind::Ngram(param as usize),
            "l" => Kind::Lcs,
            "lsum" => Kind::LcsSummary,
            "w" if param > 0.0 => Kind::Wlcs(param),
            "wperl" if param > 0.0 => Kind::WlcsSummaryPerl(param),
            "s" => Kind::Skip {
                max_gap: gap,
                unigrams: Unigrams::None,
            },
            "su" => Kind::Skip {
                max_gap: gap,
                unigrams: Unigrams::All,
            },
            "superl" => Kind::Skip {
                max_gap: gap,
                unigrams: Unigrams::AllButLast,
            },
            _ => return None,
        })
    }
}

/// Number of equal elements of two sorted lists, counted with multiplicity (clipped matches).
fn sorted_matches<T: Ord>(a: &[T], b: &[T]) -> u64 {
    let (mut i, mut j, mut hits) = (0, 0, 0u64);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                hits += 1;
                i += 1;
                j += 1;
            }
        }
    }
    hits
}

fn packed_ngrams(tokens: &[u32], n: usize) -> Vec<u64> {
    let mut keys: Vec<u64> = if n == 1 {
        tokens.iter().map(|&t| t as u64).collect()
    } else {
        tokens
            .windows(2)
            .map(|w| ((w[0] as u64) << 32) | w[1] as u64)
            .collect()
    };
    keys.sort_unstable();
    keys
}

/// Clipped n-gram matches of two token sequences.
pub fn ngram_hits(hyp: &[u32], reference: &[u32], n: usize) -> u64 {
    if n == 0 || hyp.len() < n || reference.len() < n {
        return 0;
    }
    if n <= 2 {
        return sorted_matches(&packed_ngrams(hyp, n), &packed_ngrams(reference, n));
    }
    let mut a: Vec<&[u32]> = hyp.windows(n).collect();
    let mut b: Vec<&[u32]> = reference.windows(n).collect();
    a.sort_unstable();
    b.sort_unstable();
    sorted_matches(&a, &b)
}

fn ngram_total(len: usize, n: usize) -> usize {
    (len + 1).saturating_sub(n)
}

/// Tokens of `a` occurring at least this often get a precomputed match mask; rarer ones
/// have theirs set and cleared per use (memory stays linear in the lengths).
const DENSE_MASK_MIN: u32 = 64;

/// One row of Hyyrö's bit-parallel LCS: `v` updated with the match mask `pm`.
fn hyyro_step(v: &mut [u64], pm: &[u64]) {
    let mut carry = false;
    for (vk, &mk) in v.iter_mut().zip(pm) {
        let u = *vk & mk;
        let (sum, c1) = vk.overflowing_add(u);
        let (sum, c2) = sum.overflowing_add(carry as u64);
        carry = c1 || c2;
        *vk = sum | (*vk & !mk);
    }
}

/// Length of the longest common subsequence (Hyyrö's bit-parallel algorithm): time
/// O(|a| * |b| / 64), memory linear in the lengths.
pub fn lcs_length(a: &[u32], b: &[u32]) -> usize {
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    let (a, b) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let words = a.len().div_ceil(64);
    if words == 1 {
        return lcs_length_short(a, b);
    }
    // positions of every token of `a`, grouped by a dense id
    let mut slot: FxHashMap<u32, u32> = FxHashMap::default();
    let mut dense_ids = Vec::with_capacity(a.len());
    let mut counts: Vec<u32> = Vec::new();
    for token in a {
        let next = counts.len() as u32;
        let id = *slot.entry(*token).or_insert(next);
        if id == next {
            counts.push(0);
        }
        counts[id as usize] += 1;
        dense_ids.push(id);
    }
    let mut starts = Vec::with_capacity(counts.len() + 1);
    starts.push(0usize);
    for &c in &counts {
        starts.push(starts.last().copied().unwrap_or(0) + c as usize);
    }
    let mut fill = starts.clone();
    let mut positions = vec![0u32; a.len()];
    for (pos, &id) in dense_ids.iter().enumerate() {
        positions[fill[id as usize]] = pos as u32;
        fill[id as usize] += 1;
    }
    // precomputed masks of the frequent tokens
    let mut mask_of = vec![u32::MAX; counts.len()];
    let mut masks: Vec<u64> = Vec::new();
    for (id, &c) in counts.iter().enumerate() {
        if c >= DENSE_MASK_MIN {
            mask_of[id] = (masks.len() / words) as u32;
            let base = masks.len();
            masks.resize(base + words, 0);
            for &pos in &positions[starts[id]..starts[id + 1]] {
                masks[base + pos as usize / 64] |= 1u64 << (pos % 64);
            }
        }
    }
    let mut scratch = vec![0u64; words];
    let mut v = vec![u64::MAX; words];
    for token in b {
        let Some(&id) = slot.get(token) else {
            continue;
        };
        let id = id as usize;
        if mask_of[id] != u32::MAX {
            let index = mask_of[id] as usize;
            hyyro_step(&mut v, &masks[index * words..(index + 1) * words]);
        } else {
            let own = &positions[starts[id]..starts[id + 1]];
            for &pos in own {
                scratch[pos as usize / 64] |= 1u64 << (pos % 64);
            }
            hyyro_step(&mut v, &scratch);
            for &pos in own {
                scratch[pos as usize / 64] = 0;
            }
        }
    }
    let mut zeros = 0;
    for (k, vk) in v.iter().enumerate() {
        let bits = if k + 1 == words && a.len() % 64 != 0 {
            a.len() % 64
        } else {
            64
        };
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        zeros += (!vk & mask).count_ones() as usize;
    }
    zeros
}

/// [`lcs_length`] for `a` of at most 64 tokens (one machine word).
fn lcs_length_short(a: &[u32], b: &[u32]) -> usize {
    let mut v = u64::MAX;
    for token in b {
        let mut mask = 0u64;
        for (pos, t) in a.iter().enumerate() {
            if t == token {
                mask |= 1 << pos;
            }
        }
        if mask != 0 {
            let u = v & mask;
            v = v.wrapping_add(u) | (v & !mask);
        }
    }
    let live = if a.len() == 64 {
        u64::MAX
    } else {
        (1u64 << a.len()) - 1
    };
    (!v & live).count_ones() as usize
}

/// Cells of a marking table kept whole; larger tables keep checkpoint rows only.
const FULL_TABLE_CELLS: usize = 1 << 22;

/// A backtracking move.
#[derive(Clone, Copy)]
enum Move {
    Diagonal,
    Up,
    Left,
}

/// Reused rows of the marking tables.
#[derive(Default)]
pub struct MarkRows<C> {
    checkpoints: Vec<C>,
    block: Vec<C>,
}

/// Rows per recomputed block for a table of `m` rows of `width` cells: all of them when
/// the table is small, else about sqrt(m) (memory O(width * sqrt(m)), time twice the table).
fn block_rows(m: usize, width: usize) -> usize {
    if m.saturating_mul(width) <= FULL_TABLE_CELLS {
        m.max(1)
    } else {
        ((m as f64).sqrt().ceil() as usize).max(1)
    }
}

/// Marks `mask[i - 1]` for every diagonal move of the backtrack from `(m, n)` through a DP
/// table of `m + 1` rows of `n + 1` cells (row 0 and column 0 `C::default()`), where
/// `fill(i, row i - 1, row i)` computes a row and `decide(i, j, row i, row i - 1)` picks the
/// move at `(i, j)`. Only every `k`-th row is kept; blocks of `k` rows are recomputed from
/// them as the backtrack climbs, so the moves are exactly those of the whole table.
fn mark_path<C: Copy + Default>(
    m: usize,
    n: usize,
    k: usize,
    fill: impl Fn(usize, &[C], &mut [C]),
    decide: impl Fn(usize, usize, &[C], &[C]) -> Move,
    rows: &mut MarkRows<C>,
    mask: &mut [bool],
) {
    if m == 0 || n == 0 {
        return;
    }
    let width = n + 1;
    let k = k.clamp(1, m);
    let kept = (m - 1) / k + 1; // rows 0, k, 2k, ... below m
    rows.checkpoints.clear();
    rows.checkpoints.resize(kept * width, C::default());
    rows.block.clear();
    rows.block.resize((k + 1) * width, C::default());
    if kept > 1 {
        // forward pass over two rows, keeping the checkpoints
        let (prev, rest) = rows.block.split_at_mut(width);
        let cur = &mut rest[..width];
        for i in 1..=(kept - 1) * k {
            fill(i, prev, cur);
            prev.copy_from_slice(cur);
            if i % k == 0 {
                rows.checkpoints[(i / k) * width..(i / k + 1) * width].copy_from_slice(cur);
            }
        }
    }
    let (mut i, mut j) = (m, n);
    while i > 0 && j > 0 {
        let base = ((i - 1) / k) * k;
        rows.block[..width].copy_from_slice(&rows.checkpoints[(base / k) * width..][..width]);
        for r in base + 1..=i {
            let (before, after) = rows.block.split_at_mut((r - base) * width);
            fill(r, &before[(r - base - 1) * width..], &mut after[..width]);
        }
        while i > base && j > 0 {
            let row = &rows.block[(i - base) * width..][..width];
            let prev = &rows.block[(i - base - 1) * width..][..width];
            match decide(i, j, row, prev) {
                Move::Diagonal => {
                    i -= 1;
                    j -= 1;
                    mask[i] = true;
                }
                Move::Up => i -= 1,
                Move::Left => j -= 1,
            }
        }
    }
}

/// Row `i` of the LCS table of `reference` (rows) against `hyp` (columns).
fn lcs_row(reference: &[u32], hyp: &[u32], i: usize, prev: &[u32], row: &mut [u32]) {
    let token = reference[i - 1];
    row[0] = 0;
    for j in 1..row.len() {
        row[j] = if token == hyp[j - 1] {
            prev[j - 1] + 1
        } else {
            prev[j].max(row[j - 1])
        };
    }
}

/// Marks the reference positions of one LCS of `reference` and `hyp`, chosen
/// as rouge-score's `_backtrack_norec` and ROUGE-1.5.5's `markLCS` do (a match
/// goes diagonal; otherwise up unless left is strictly longer). Memory
/// O(|hyp| * sqrt(|reference|)) for large pairs (see [`mark_path`]).
fn mark_lcs(reference: &[u32], hyp: &[u32], rows: &mut MarkRows<u32>, mask: &mut [bool]) {
    let k = block_rows(reference.len(), hyp.len() + 1);
    mark_lcs_blocks(reference, hyp, k, rows, mask);
}

fn mark_lcs_blocks(
    reference: &[u32],
    hyp: &[u32],
    k: usize,
    rows: &mut MarkRows<u32>,
    mask: &mut [bool],
) {
    mark_path(
        reference.len(),
        hyp.len(),
        k,
        |i, prev, row| lcs_row(reference, hyp, i, prev, row),
        |i, j, row, prev| {
            if reference[i - 1] == hyp[j - 1] {
                Move::Diagonal
            } else if row[j - 1] > prev[j] {
                Move::Left
            } else {
                Move::Up
            }
        },
        rows,
        mask,
    );
}

/// Row `i` of the weighted-LCS tables (score, length of the run of matches ending here).
fn wlcs_row(
    reference: &[u32],
    hyp: &[u32],
    weights: &[f64],
    i: usize,
    prev: &[(f64, u32)],
    row: &mut [(f64, u32)],
) {
    let token = reference[i - 1];
    row[0] = (0.0, 0);
    for j in 1..row.len() {
        row[j] = if token == hyp[j - 1] {
            let (score, k) = prev[j - 1];
            let k = k as usize;
            // evaluated left to right as the Perl does: (c + f(k+1)) - f(k)
            (score + weights[k + 1] - weights[k], k as u32 + 1)
        } else {
            let up = prev[j].0;
            let left = row[j - 1].0;
            (if up >= left { up } else { left }, 0)
        };
    }
}

/// The same marking for the weighted LCS of ROUGE-1.5.5 (`wlcs_inner`).
fn mark_wlcs(
    reference: &[u32],
    hyp: &[u32],
    weights: &[f64],
    rows: &mut MarkRows<(f64, u32)>,
    mask: &mut [bool],
) {
    let k = block_rows(reference.len(), hyp.len() + 1);
    mark_wlcs_blocks(reference, hyp, weights, k, rows, mask);
}

fn mark_wlcs_blocks(
    reference: &[u32],
    hyp: &[u32],
    weights: &[f64],
    k: usize,
    rows: &mut MarkRows<(f64, u32)>,
    mask: &mut [bool],
) {
    mark_path(
        reference.len(),
        hyp.len(),
        k,
        |i, prev, row| wlcs_row(reference, hyp, weights, i, prev, row),
        |i, j, row, prev| {
            if reference[i - 1] == hyp[j - 1] {
                Move::Diagonal
            } else if prev[j].0 >= row[j - 1].0 {
                Move::Up
            } else {
                Move::Left
            }
        },
        rows,
        mask,
    );
}

/// The weighted-LCS value of two sequences, two rows at a time (memory linear).
fn wlcs_value(reference: &[u32], hyp: &[u32], weights: &[f64]) -> f64 {
    let width = hyp.len() + 1;
    let mut prev = vec![(0.0, 0u32); width];
    let mut row = vec![(0.0, 0u32); width];
    for i in 1..=reference.len() {
        wlcs_row(reference, hyp, weights, i, &prev, &mut row);
        std::mem::swap(&mut prev, &mut row);
    }
    prev[width - 1].0
}

fn unigram_counts(tokens: &[u32]) -> FxHashMap<u32, i64> {
    let mut counts: FxHashMap<u32, i64> = FxHashMap::default();
    for &t in tokens {
        *counts.entry(t).or_insert(0) += 1;
    }
    counts
}

/// Summary-level union-LCS hits of `reference` against `hyp` (both by sentence),
/// clipped by the unigram counts of their flat tokens.
pub fn union_lcs_hits(hyp: &Doc, reference: &Doc) -> u64 {
    if hyp.single_flat_sentence() && reference.single_flat_sentence() {
        // one sentence each: the union is one LCS and clipping never bites
        return lcs_length(&reference.flat, &hyp.flat) as u64;
    }
    let mut hyp_counts = unigram_counts(&hyp.flat);
    let mut ref_counts = unigram_counts(&reference.flat);
    let mut rows = MarkRows::default();
    let mut hits = 0u64;
    let mut mask = Vec::new();
    for sentence in reference.sents() {
        mask.clear();
        mask.resize(sentence.len(), false);
        for hyp_sentence in hyp.sents() {
            mark_lcs(sentence, hyp_sentence, &mut rows, &mut mask);
        }
        for (pos, &token) in sentence.iter().enumerate() {
            if mask[pos] && clip(token, &mut hyp_counts, &mut ref_counts) {
                hits += 1;
            }
        }
    }
    hits
}

fn clip(
    token: u32,
    hyp_counts: &mut FxHashMap<u32, i64>,
    ref_counts: &mut FxHashMap<u32, i64>,
) -> bool {
    match (hyp_counts.get_mut(&token), ref_counts.get_mut(&token)) {
        (Some(h), Some(r)) if *h > 0 && *r > 0 => {
            *h -= 1;
            *r -= 1;
            true
        }
        _ => false,
    }
}

/// ROUGE-1.5.5's weighted union-LCS: (hits, sum of weighted reference sentence lengths).
pub fn union_wlcs_perl(hyp: &Doc, reference: &Doc, weights: &[f64]) -> (f64, f64) {
    let mut hyp_counts = unigram_counts(&hyp.flat);
    let mut ref_counts = unigram_counts(&reference.flat);
    let mut rows = MarkRows::default();
    let mut hits = 0.0;
    let mut base = 0.0;
    for sentence in reference.sents() {
        let len = sentence.len();
        base += weights[len];
        let mut mask = vec![false; len];
        for hyp_sentence in hyp.sents() {
            mark_wlcs(sentence, hyp_sentence, weights, &mut rows, &mut mask);
        }
        let mut run_len = 0usize;
        for pos in 0..len {
            if mask[pos] && clip(sentence[pos], &mut hyp_counts, &mut ref_counts) {
                run_len += 1;
                if (pos + 1 < len && !mask[pos + 1]) || pos + 1 == len {
                    hits += weights[run_len];
                    run_len = 0;
                }
            }
        }
    }
    (hits, base)
}

fn skip_key(a: u32, b: u32) -> u64 {
    ((a as u64) << 32) | b as u64
}

const UNIGRAM: u32 = u32::MAX;

fn skip_counts(
    tokens: &[u32],
    max_gap: Option<usize>,
    unigrams: Unigrams,
) -> (FxHashMap<u64, u32>, u64) {
    let mut counts: FxHashMap<u64, u32> = FxHashMap::default();
    let mut total = 0u64;
    let len = tokens.len();
    for i in 0..len {
        let add_unigram = match unigrams {
            Unigrams::None => false,
            Unigrams::All => true,
            Unigrams::AllButLast => i + 1 < len,
        };
        if add_unigram {
            *counts.entry(skip_key(tokens[i], UNIGRAM)).or_insert(0) += 1;
            total += 1;
        }
        let end = match max_gap {
            Some(gap) => len.min(i + gap + 2),
            None => len,
        };
        for j in (i + 1)..end {
            *counts.entry(skip_key(tokens[i], tokens[j])).or_insert(0) += 1;
            total += 1;
        }
    }
    (counts, total)
}

/// Skip-bigram (and unigram) hits with counts: (hits, hyp total, reference total).
pub fn skip_stats(
    hyp: &[u32],
    reference: &[u32],
    max_gap: Option<usize>,
    unigrams: Unigrams,
) -> (u64, u64, u64) {
    let (hyp_counts, hyp_total) = skip_counts(hyp, max_gap, unigrams);
    let (ref_counts, ref_total) = skip_counts(reference, max_gap, unigrams);
    let hits = ref_counts
        .iter()
        .map(|(key, &count)| count.min(hyp_counts.get(key).copied().unwrap_or(0)) as u64)
        .sum();
    (hits, hyp_total, ref_total)
}

/// `weights[k] = k^w` for every length up to `max_len`.
pub fn power_table(weight: f64, max_len: usize) -> Vec<f64> {
    (0..=max_len + 1).map(|k| (k as f64).powf(weight)).collect()
}

/// `[hits, hyp count, ref count]` of one pair for one statistic.
pub fn pair_stats(hyp: &Doc, reference: &Doc, kind: Kind) -> [f64; 3] {
    let (hl, rl) = (hyp.flat.len(), reference.flat.len());
    match kind {
        Kind::Ngram(n) => [
            ngram_hits(&hyp.flat, &reference.flat, n) as f64,
            ngram_total(hl, n) as f64,
            ngram_total(rl, n) as f64,
        ],
        Kind::Lcs => [
            lcs_length(&reference.flat, &hyp.flat) as f64,
            hl as f64,
            rl as f64,
        ],
        Kind::LcsSummary => {
            let ref_len = reference.sent_len();
            [
                union_lcs_hits(hyp, reference) as f64,
                hl as f64,
                ref_len as f64,
            ]
        }
        Kind::Wlcs(weight) => {
            if hl == 0 || rl == 0 {
                return [0.0, hl as f64, rl as f64];
            }
            let weights = power_table(weight, hl.max(rl));
            let value = wlcs_value(&reference.flat, &hyp.flat, &weights);
            [value, hl as f64, rl as f64]
        }
        Kind::WlcsSummaryPerl(weight) => {
            let longest = hyp
                .sents()
                .chain(reference.sents())
                .map(<[u32]>::len)
                .max()
                .unwrap_or(0);
            let weights = power_table(weight, longest);
            let (hits, base) = union_wlcs_perl(hyp, reference, &weights);
            [hits, hl as f64, base]
        }
        Kind::Skip { max_gap, unigrams } => {
            let (hits, h, r) = skip_stats(&hyp.flat, &reference.flat, max_gap, unigrams);
            [hits as f64, h as f64, r as f64]
        }
    }
}

/// A pair refused by the size guard (`max_cells`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairTooLarge {
    /// Index of the segment.
    pub segment: usize,
    /// Index of the reference within the segment.
    pub reference: usize,
    /// The pair's cost in cells (see [`pair_cells`]).
    pub cells: u64,
    /// The bound in force.
    pub limit: u64,
}

/// The super-linear work of one pair for one statistic, in cells: the product of the
/// token counts for the LCS-based statistics (dynamic-programming cells), the number of
/// skip-bigrams times [`SKIP_BIGRAM_CELLS`] for skip-bigrams without a gap limit; 0 for
/// linear statistics.
pub fn pair_cells(kind: Kind, hyp: &Doc, reference: &Doc) -> u64 {
    let (h, r) = (hyp.flat.len() as u64, reference.flat.len() as u64);
    match kind {
        Kind::Ngram(_)
        | Kind::Skip {
            max_gap: Some(_), ..
        } => 0,
        Kind::Skip { max_gap: None, .. } => (h.saturating_mul(h) / 2)
            .saturating_add(r.saturating_mul(r) / 2)
            .saturating_mul(SKIP_BIGRAM_CELLS),
        Kind::Lcs | Kind::Wlcs(_) => h.saturating_mul(r),
        Kind::LcsSummary | Kind::WlcsSummaryPerl(_) => {
            (hyp.sent_len() as u64).saturating_mul(reference.sent_len() as u64)
        }
    }
}

/// Cells charged per skip-bigram: each is a hash-table entry (tens of bytes, tens of
/// nanoseconds), not a DP cell.
pub const SKIP_BIGRAM_CELLS: u64 = 256;

/// Reused buffers of the kernels (one set per thread).
#[derive(Default)]
struct KernelScratch {
    /// Sorted packed n-grams of the hypothesis, by kind index.
    hyp_keys: Vec<Vec<u64>>,
    ref_keys: Vec<u64>,
    /// Hypothesis n-gram counts indexed by the n-gram's dense key, by kind index (see
    /// [`dense_space`]); all zero between segments.
    hyp_counts: Vec<Vec<u32>>,
    /// One reference's n-gram counts, the same way; all zero between references.
    ref_counts: Vec<u32>,
    /// Match masks of a sequence of at most 64 tokens, indexed by token id; all zero
    /// between uses.
    peq: Vec<u64>,
    /// Set while the tables above may hold counts (a panic mid-segment leaves it set and
    /// the next segment zeroes them whole).
    dirty: bool,
}

impl KernelScratch {
    fn zero_tables(&mut self) {
        for table in self.hyp_counts.iter_mut() {
            table.fill(0);
        }
        self.ref_counts.fill(0);
        self.peq.fill(0);
    }
}

/// Largest table of dense n-gram keys counted directly (64 KB of counts per table).
const DENSE_NGRAM_KEYS: usize = 1 << 14;

/// Number of dense keys of the n-grams of `n_ids` token ids (`n_ids^n`), when their counts
/// fit a direct table (unigrams always do: at most one entry per distinct token).
fn dense_space(n_ids: usize, n: usize) -> Option<usize> {
    if n == 1 {
        return Some(n_ids.max(1));
    }
    let mut space = 1usize;
    for _ in 0..n {
        space = space.checked_mul(n_ids)?;
        if space > DENSE_NGRAM_KEYS {
            return None;
        }
    }
    Some(space.max(1))
}

/// Calls `f` with the dense key of each n-gram of `tokens` (ids below `n_ids`): the n-gram
/// read as a number in base `n_ids` (unigrams and bigrams without a loop per n-gram).
#[inline(always)]
fn for_dense_keys(tokens: &[u32], n: usize, n_ids: usize, mut f: impl FnMut(usize)) {
    match n {
        1 => tokens.iter().for_each(|&t| f(t as usize)),
        2 => {
            if let Some((&first, rest)) = tokens.split_first() {
                let mut prev = first as usize;
                for &t in rest {
                    f(prev * n_ids + t as usize);
                    prev = t as usize;
                }
            }
        }
        _ => {
            for w in tokens.windows(n) {
                f(w.iter().fold(0usize, |key, &t| key * n_ids + t as usize));
            }
        }
    }
}

/// Clipped matches of a reference's n-grams against the hypothesis counts `hyp_counts`
/// (`ref_counts` all zero before and after): sum over n-grams of min(hyp, ref count).
fn dense_hits(
    reference: &[u32],
    n: usize,
    n_ids: usize,
    hyp_counts: &[u32],
    ref_counts: &mut [u32],
) -> u64 {
    let mut hits = 0u64;
    for_dense_keys(reference, n, n_ids, |key| {
        let seen = &mut ref_counts[key];
        *seen += 1;
        hits += (*seen <= hyp_counts[key]) as u64;
    });
    for_dense_keys(reference, n, n_ids, |key| ref_counts[key] = 0);
    hits
}

/// Sets the match mask of every token of `short` (at most 64 tokens) in `peq`.
fn set_masks(short: &[u32], peq: &mut [u64]) {
    for (pos, &t) in short.iter().enumerate() {
        peq[t as usize] |= 1u64 << pos;
    }
}

/// Clears what [`set_masks`] set.
fn clear_masks(short: &[u32], peq: &mut [u64]) {
    for &t in short {
        peq[t as usize] = 0;
    }
}

/// LCS length of a sequence of `short_len` (1 to 64) tokens whose masks are in `peq`, and
/// `other`: Hyyrö's bit-parallel row update as [`lcs_length_short`], with the mask of a
/// token read from the table instead of a scan of the short sequence.
fn lcs_with_masks(short_len: usize, peq: &[u64], other: &[u32]) -> u64 {
    let mut v = u64::MAX;
    for &t in other {
        let mask = peq[t as usize];
        let u = v & mask;
        v = v.wrapping_add(u) | (v & !mask);
    }
    let live = if short_len == 64 {
        u64::MAX
    } else {
        (1u64 << short_len) - 1
    };
    (!v & live).count_ones() as u64
}

/// One more than the largest token id of a segment.
fn id_count(hyp: &Doc, refs: &[Doc]) -> usize {
    let mut max = 0u32;
    for doc in std::iter::once(hyp).chain(refs) {
        for &t in doc.flat.iter().chain(doc.sent_data()) {
            max = max.max(t);
        }
    }
    max as usize + 1
}

/// Bits per token id that pack every id below `n_ids`.
fn id_bits(n_ids: usize) -> u32 {
    let max = n_ids.saturating_sub(1) as u32;
    (32 - max.leading_zeros()).max(1)
}

/// The n-grams of `tokens` packed `bits` per id into sorted integer keys (`n * bits <= 64`).
fn packed_keys(tokens: &[u32], n: usize, bits: u32, out: &mut Vec<u64>) {
    out.clear();
    if n == 1 {
        out.extend(tokens.iter().map(|&t| t as u64));
    } else if tokens.len() >= n {
        out.extend(
            tokens
                .windows(n)
                .map(|w| w.iter().fold(0u64, |key, &t| (key << bits) | t as u64)),
        );
    }
    out.sort_unstable();
}

/// How one kind's rows of a segment are computed.
#[derive(Clone, Copy)]
enum NgramPlan {
    /// Counts in direct tables indexed by dense keys.
    Dense,
    /// Sorted packed keys.
    Packed,
    /// Neither (n-grams too long to pack): [`pair_stats`].
    General,
}

/// Rows `[hits, hyp count, ref count]` of one segment (every reference, every kind) into
/// `out`. Token ids must be below `n_ids` (the text path numbers each segment's tokens
/// densely, so short segments count n-grams in direct tables and take LCS masks from one
/// lookup per token). The hypothesis n-grams are counted or packed once for all
/// references, and the LCS of a pair is computed once for ROUGE-L and a one-sentence
/// ROUGE-Lsum. `Err((reference, cells))` when a pair exceeds `max_cells` (checked before
/// any work).
fn segment_rows(
    hyp: &Doc,
    refs: &[Doc],
    kinds: &[Kind],
    max_cells: u64,
    n_ids: usize,
    ks: &mut KernelScratch,
    out: &mut [f64],
) -> Result<(), (usize, u64)> {
    for (r, reference) in refs.iter().enumerate() {
        for &kind in kinds {
            let cells = pair_cells(kind, hyp, reference);
            if cells > max_cells {
                return Err((r, cells));
            }
        }
    }
    let width = kinds.len() * 3;
    if width == 0 {
        return Ok(());
    }
    if ks.dirty {
        ks.zero_tables();
    }
    ks.dirty = true;
    let bits = id_bits(n_ids);
    if ks.hyp_keys.len() < kinds.len() {
        ks.hyp_keys.resize_with(kinds.len(), Vec::new);
        ks.hyp_counts.resize_with(kinds.len(), Vec::new);
    }
    let hl = hyp.flat.len();
    let mut plans = [NgramPlan::General; 8];
    for (k, &kind) in kinds.iter().enumerate() {
        let Kind::Ngram(n) = kind else { continue };
        let plan = match dense_space(n_ids, n) {
            Some(space) => {
                let table = &mut ks.hyp_counts[k];
                if table.len() < space {
                    table.resize(space, 0);
                }
                if ks.ref_counts.len() < space {
                    ks.ref_counts.resize(space, 0);
                }
                for_dense_keys(&hyp.flat, n, n_ids, |key| table[key] += 1);
                NgramPlan::Dense
            }
            None if n as u64 * bits as u64 <= 64 => {
                packed_keys(&hyp.flat, n, bits, &mut ks.hyp_keys[k]);
                NgramPlan::Packed
            }
            None => NgramPlan::General,
        };
        if k < plans.len() {
            plans[k] = plan;
        }
    }
    let wants_lcs = kinds
        .iter()
        .any(|k| matches!(k, Kind::Lcs | Kind::LcsSummary));
    // masks of the hypothesis when it fits one machine word (set once for all references)
    let hyp_masks = wants_lcs && (1..=64).contains(&hl);
    if wants_lcs && ks.peq.len() < n_ids {
        ks.peq.resize(n_ids, 0);
    }
    if hyp_masks {
        set_masks(&hyp.flat, &mut ks.peq);
    }
    for (reference, row) in refs.iter().zip(out.chunks_mut(width)) {
        let rl = reference.flat.len();
        let mut lcs: Option<u64> = None;
        let mut pair_lcs = |ks: &mut KernelScratch| -> u64 {
            *lcs.get_or_insert_with(|| {
                if hl == 0 || rl == 0 {
                    0
                } else if hyp_masks {
                    lcs_with_masks(hl, &ks.peq, &reference.flat)
                } else if rl <= 64 {
                    set_masks(&reference.flat, &mut ks.peq);
                    let v = lcs_with_masks(rl, &ks.peq, &hyp.flat);
                    clear_masks(&reference.flat, &mut ks.peq);
                    v
                } else {
                    lcs_length(&reference.flat, &hyp.flat) as u64
                }
            })
        };
        for (k, (&kind, cell)) in kinds.iter().zip(row.chunks_mut(3)).enumerate() {
            let plan = plans.get(k).copied();
            let stats = match (kind, plan) {
                (Kind::Ngram(n), Some(NgramPlan::Dense)) => {
                    let hits = if hl < n || rl < n {
                        0
                    } else {
                        dense_hits(
                            &reference.flat,
                            n,
                            n_ids,
                            &ks.hyp_counts[k],
                            &mut ks.ref_counts,
                        )
                    };
                    [
                        hits as f64,
                        ngram_total(hl, n) as f64,
                        ngram_total(rl, n) as f64,
                    ]
                }
                (Kind::Ngram(n), Some(NgramPlan::Packed)) => {
                    let hits = if hl < n || rl < n {
                        0
                    } else {
                        packed_keys(&reference.flat, n, bits, &mut ks.ref_keys);
                        sorted_matches(&ks.hyp_keys[k], &ks.ref_keys)
                    };
                    [
                        hits as f64,
                        ngram_total(hl, n) as f64,
                        ngram_total(rl, n) as f64,
                    ]
                }
                (Kind::Lcs, _) => {
                    let v = pair_lcs(ks);
                    [v as f64, hl as f64, rl as f64]
                }
                (Kind::LcsSummary, _)
                    if hyp.single_flat_sentence() && reference.single_flat_sentence() =>
                {
                    let v = pair_lcs(ks);
                    [v as f64, hl as f64, reference.sent_len() as f64]
                }
                _ => pair_stats(hyp, reference, kind),
            };
            // three stores (`copy_from_slice` calls memcpy for 24 bytes)
            cell[0] = stats[0];
            cell[1] = stats[1];
            cell[2] = stats[2];
        }
    }
    // leave the tables zero
    if hyp_masks {
        clear_masks(&hyp.flat, &mut ks.peq);
    }
    for (k, plan) in plans.iter().enumerate().take(kinds.len()) {
        if let (NgramPlan::Dense, Kind::Ngram(n)) = (plan, kinds[k]) {
            let table = &mut ks.hyp_counts[k];
            for_dense_keys(&hyp.flat, n, n_ids, |key| table[key] = 0);
        }
    }
    ks.dirty = false;
    Ok(())
}

/// Segments per parallel job: enough jobs to balance the threads, few enough that
/// each amortises its scheduling.
fn block_size(n: usize) -> usize {
    if n < crate::common::parallel::PARALLEL_MIN_SEGMENTS {
        return n.max(1);
    }
    (n / (crate::common::parallel::current_num_threads() * 8)).clamp(1, 256)
}

/// Runs `job(first segment, end, output rows)` over blocks of segments (in parallel for
/// large batches) and returns the error of the first refused pair, if any.
fn run_blocks<F>(ref_counts: &[usize], width: usize, job: F) -> Result<Vec<f64>, PairTooLarge>
where
    F: Fn(usize, usize, &mut [f64]) -> Result<(), PairTooLarge> + Sync,
{
    let n = ref_counts.len();
    let mut out = vec![0.0; ref_counts.iter().sum::<usize>() * width];
    let block = block_size(n);
    let mut jobs: Vec<(usize, usize, &mut [f64])> = Vec::with_capacity(n.div_ceil(block));
    let mut rest = out.as_mut_slice();
    let mut start = 0;
    while start < n {
        let end = (start + block).min(n);
        let pairs: usize = ref_counts[start..end].iter().sum();
        let (head, tail) = rest.split_at_mut(pairs * width);
        jobs.push((start, end, head));
        rest = tail;
        start = end;
    }
    let first_error = if n >= crate::common::parallel::PARALLEL_MIN_SEGMENTS {
        crate::common::parallel::install(|| {
            jobs.into_par_iter()
                .filter_map(|(s, e, chunk)| job(s, e, chunk).err())
                .min_by_key(|err| (err.segment, err.reference))
        })
    } else {
        jobs.into_iter()
            .filter_map(|(s, e, chunk)| job(s, e, chunk).err())
            .next()
    };
    match first_error {
        Some(err) => Err(err),
        None => Ok(out),
    }
}

/// Statistics of a batch: `segments[i] = (hyp, refs)`; the output is row-major
/// `(total pairs, kinds, 3)`, the pairs of each segment in reference order.
pub fn batch_stats(
    segments: &[(Doc, Vec<Doc>)],
    kinds: &[Kind],
    max_cells: u64,
) -> Result<Vec<f64>, PairTooLarge> {
    let width = kinds.len() * 3;
    let counts: Vec<usize> = segments.iter().map(|(_, refs)| refs.len()).collect();
    run_blocks(&counts, width, |start, end, chunk| {
        let mut ks = KernelScratch::default();
        let mut offset = 0;
        for (i, (hyp, refs)) in segments.iter().enumerate().take(end).skip(start) {
            let rows = &mut chunk[offset..offset + refs.len() * width];
            let n_ids = id_count(hyp, refs);
            segment_rows(hyp, refs, kinds, max_cells, n_ids, &mut ks, rows).map_err(
                |(r, cells)| PairTooLarge {
                    segment: i,
                    reference: r,
                    cells,
                    limit: max_cells,
                },
            )?;
            offset += refs.len() * width;
        }
        Ok(())
    })
}

/// Per-thread vocabulary of the text path: lowercased token -> id, with the stem id
/// of every token computed once (vocabularies repeat, stemming is the costly part).
#[derive(Default)]
struct Vocab {
    /// Tokens of at most 15 bytes, packed with their length (see [`short_key`]).
    short: FxHashMap<u128, u32>,
    /// Longer tokens.
    long: FxHashMap<Box<[u8]>, u32>,
    /// The token of each id (for stemming).
    tokens: Vec<u8>,
    token_ends: Vec<usize>,
    /// Stem id of each token id (`u32::MAX`: not stemmed yet).
    stem_ids: Vec<u32>,
    stems: FxHashMap<Box<str>, u32>,
    /// The token being read.
    word: Vec<u8>,
}

/// A token of at most 15 bytes as one integer: its bytes, zero padded, and its length in the
/// last byte (so that distinct tokens get distinct keys whatever bytes they hold).
fn short_key(token: &[u8]) -> Option<u128> {
    /// Up to 8 bytes, little endian, built in registers (a copy through memory would stall
    /// the 16-byte load that follows it).
    fn load(bytes: &[u8]) -> u64 {
        bytes
            .iter()
            .enumerate()
            .fold(0u64, |v, (i, &b)| v | (b as u64) << (8 * i))
    }
    let len = token.len();
    if len > 15 {
        return None;
    }
    let (lo, hi) = if len <= 8 {
        (load(token), 0)
    } else {
        (load(&token[..8]), load(&token[8..]))
    };
    Some((lo as u128) | ((hi | (len as u64) << 56) as u128) << 64)
}

/// The bytes of a [`short_key`] (its first `len` bytes are the token) and `len`.
fn short_key_bytes(key: u128) -> ([u8; 16], usize) {
    let bytes = key.to_le_bytes();
    (bytes, bytes[15] as usize)
}

impl Vocab {
    /// Called before each segment: bounds the vocabulary.
    fn start_segment(&mut self) {
        if self.stem_ids.len() + self.stems.len() > 1 << 21 {
            self.short.clear();
            self.long.clear();
            self.tokens.clear();
            self.token_ends.clear();
            self.stem_ids.clear();
            self.stems.clear();
        }
    }

    /// Id of a token (of its stem with `stem`).
    fn id(&mut self, token: &[u8], stem: bool) -> u32 {
        if let Some(key) = short_key(token) {
            return self.short_id(key, stem);
        }
        let next = self.stem_ids.len() as u32;
        let plain = match self.long.get(token) {
            Some(&id) => id,
            None => {
                self.long.insert(token.into(), next);
                self.add_token(token);
                next
            }
        };
        self.final_id(plain, stem)
    }

    /// Id of the token of at most 15 bytes whose [`short_key`] is `key` (of its stem with `stem`).
    #[inline]
    fn short_id(&mut self, key: u128, stem: bool) -> u32 {
        let next = self.stem_ids.len() as u32;
        let plain = *self.short.entry(key).or_insert(next);
        if plain == next {
            let (bytes, len) = short_key_bytes(key);
            self.add_token(&bytes[..len]);
        }
        self.final_id(plain, stem)
    }

    /// Records a new token (its plain id is the next one).
    fn add_token(&mut self, token: &[u8]) {
        self.stem_ids.push(u32::MAX);
        self.tokens.extend_from_slice(token);
        self.token_ends.push(self.tokens.len());
    }

    /// The id returned for plain id `plain`: itself, or its stem's id with `stem`.
    #[inline]
    fn final_id(&mut self, plain: u32, stem: bool) -> u32 {
        if !stem {
            return plain;
        }
        let known = self.stem_ids[plain as usize];
        if known != u32::MAX {
            return known;
        }
        self.stem_new(plain)
    }

    /// Stems a token seen for the first time.
    #[cold]
    fn stem_new(&mut self, plain: u32) -> u32 {
        let word = std::str::from_utf8(self.token(plain))
            .expect("tokens are cut from str at char boundaries");
        let stemmed = crate::rouge::text::stem_token(word);
        let next = self.stems.len() as u32;
        let id = *self.stems.entry(stemmed.into_boxed_str()).or_insert(next);
        self.stem_ids[plain as usize] = id;
        id
    }

    /// The token of a plain id.
    fn token(&self, id: u32) -> &[u8] {
        let id = id as usize;
        let start = if id == 0 { 0 } else { self.token_ends[id - 1] };
        &self.tokens[start..self.token_ends[id]]
    }

    /// Id of the token in `self.word`.
    fn take_word(&mut self, stem: bool) -> u32 {
        let word = std::mem::take(&mut self.word);
        let id = self.id(&word, stem);
        self.word = word;
        self.word.clear();
        id
    }
}

/// Each byte as the ASCII tokenizer keeps it: `[a-z0-9]` as is, `[A-Z]` lowercased, every
/// other byte 0 (a separator).
static LOWERED: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            table[b] = c;
        } else if c.is_ascii_uppercase() {
            table[b] = c.to_ascii_lowercase();
        }
        b += 1;
    }
    table
};

/// Tokenizes `text` into `doc` (sentences: its lines when `split_lines`). ASCII text is
/// read in one pass without intermediate strings (both tokenizers agree on ASCII: lowercase,
/// every byte outside `[a-z0-9]` separates); other text goes through [`RougeTokenizer::prepare`].
fn fill_doc(
    vocab: &mut Vocab,
    doc: &mut Doc,
    text: &str,
    tok: RougeTokenizer,
    stem: bool,
    split_lines: bool,
) {
    doc.clear();
    if text.is_ascii() {
        let bytes = text.as_bytes();
        let (mut i, n) = (0, bytes.len());
        while i < n {
            if LOWERED[bytes[i] as usize] == 0 {
                if bytes[i] == b'\n' && split_lines {
                    doc.end_sentence();
                }
                i += 1;
                continue;
            }
            // the token's lowercased bytes go straight into its short key (see `short_key`)
            let start = i;
            let (mut lo, mut hi) = (0u64, 0u64);
            while i < n {
                let c = LOWERED[bytes[i] as usize];
                if c == 0 {
                    break;
                }
                let k = i - start;
                if k < 8 {
                    lo |= (c as u64) << (8 * k);
                } else if k < 15 {
                    hi |= (c as u64) << (8 * (k - 8));
                }
                i += 1;
            }
            let len = i - start;
            let id = if len <= 15 {
                let key = (lo as u128) | ((hi | (len as u64) << 56) as u128) << 64;
                vocab.short_id(key, stem)
            } else {
                vocab.word.clear();
                vocab
                    .word
                    .extend(bytes[start..i].iter().map(|&b| LOWERED[b as usize]));
                vocab.take_word(stem)
            };
            doc.flat.push(id);
        }
        doc.end_sentence();
        return;
    }
    let mut piece = |piece: &str, doc: &mut Doc| {
        let prepared = tok.prepare(piece);
        for token in prepared.split(' ').filter(|t| !t.is_empty()) {
            let id = vocab.id(token.as_bytes(), stem);
            doc.flat.push(id);
        }
        doc.end_sentence();
    };
    if split_lines {
        for line in text.split('\n').filter(|line| !line.is_empty()) {
            piece(line, doc);
        }
    } else {
        piece(text, doc);
    }
}

/// Texts in one buffer (the inputs of one call, copied out of Python once).
#[derive(Clone, Debug, Default)]
pub struct Texts {
    buf: String,
    ends: Vec<usize>,
}

impl Texts {
    /// Appends a text.
    pub fn push(&mut self, text: &str) {
        self.buf.push_str(text);
        self.ends.push(self.buf.len());
    }

    /// Text `i`.
    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.buf[start..self.ends[i]]
    }

    /// Number of texts.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True without texts.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

/// Renumbers the tokens of one segment densely from 0 (in order of appearance): the kernels
/// then index tables by token id. The map from vocabulary ids is a table stamped per segment,
/// so nothing is cleared between segments.
#[derive(Default)]
struct LocalIds {
    /// Per vocabulary id: (stamp of the segment that numbered it, its number there).
    slots: Vec<(u32, u32)>,
    stamp: u32,
}

impl LocalIds {
    /// Renumbers `hyp` and `refs` (sentences cut from the flat tokens, as the text path
    /// makes them) and returns the number of distinct tokens.
    fn number(&mut self, hyp: &mut Doc, refs: &mut [Doc]) -> usize {
        if self.stamp == u32::MAX {
            self.slots.clear();
            self.stamp = 0;
        }
        self.stamp += 1;
        let stamp = self.stamp;
        let mut next = 0u32;
        for doc in std::iter::once(hyp).chain(refs.iter_mut()) {
            debug_assert!(doc.sents_are_flat);
            for t in doc.flat.iter_mut() {
                let id = *t as usize;
                if id >= self.slots.len() {
                    self.slots.resize(id + 1, (0, 0));
                }
                let slot = &mut self.slots[id];
                if slot.0 != stamp {
                    *slot = (stamp, next);
                    next += 1;
                }
                *t = slot.1;
            }
        }
        next as usize
    }
}

/// Per-thread buffers of the text path.
#[derive(Default)]
struct TextScratch {
    vocab: Vocab,
    local: LocalIds,
    hyp: Doc,
    refs: Vec<Doc>,
    kernels: KernelScratch,
}

thread_local! {
    static TEXT_SCRATCH: std::cell::RefCell<TextScratch> = Default::default();
}

/// Statistics of raw text: each segment is tokenized (split into sentences on
/// `'\n'` when `split_lines`), stemmed and interned, in parallel over blocks of
/// segments. Output as [`batch_stats`].
#[allow(clippy::too_many_arguments)]
pub fn text_batch_stats(
    hyps: &Texts,
    refs: &Texts,
    ref_counts: &[usize],
    tok: RougeTokenizer,
    stem: bool,
    kinds: &[Kind],
    split_lines: bool,
    max_cells: u64,
) -> Result<Vec<f64>, PairTooLarge> {
    let width = kinds.len() * 3;
    let mut first_ref = Vec::with_capacity(ref_counts.len());
    let mut total = 0;
    for &count in ref_counts {
        first_ref.push(total);
        total += count;
    }
    run_blocks(ref_counts, width, |start, end, chunk| {
        TEXT_SCRATCH.with(|cell| {
            let mut guard = cell.borrow_mut();
            let sc = &mut *guard;
            let mut offset = 0;
            for i in start..end {
                sc.vocab.start_segment();
                fill_doc(
                    &mut sc.vocab,
                    &mut sc.hyp,
                    hyps.get(i),
                    tok,
                    stem,
                    split_lines,
                );
                let k = ref_counts[i];
                if sc.refs.len() < k {
                    sc.refs.resize_with(k, Doc::default);
                }
                for (j, doc) in sc.refs[..k].iter_mut().enumerate() {
                    let text = refs.get(first_ref[i] + j);
                    fill_doc(&mut sc.vocab, doc, text, tok, stem, split_lines);
                }
                let n_ids = sc.local.number(&mut sc.hyp, &mut sc.refs[..k]);
                let rows = &mut chunk[offset..offset + k * width];
                segment_rows(
                    &sc.hyp,
                    &sc.refs[..k],
                    kinds,
                    max_cells,
                    n_ids,
                    &mut sc.kernels,
                    rows,
                )
                .map_err(|(r, cells)| PairTooLarge {
                    segment: i,
                    reference: r,
                    cells,
                    limit: max_cells,
                })?;
                offset += k * width;
            }
            Ok(())
        })
    })
}

/// Interns tokens to dense ids (shared by a hypothesis and its references).
#[derive(Default)]
pub struct Interner<K> {
    ids: FxHashMap<K, u32>,
}

impl<K: std::hash::Hash + Eq> Interner<K> {
    pub fn id(&mut self, key: K) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(key).or_insert(next)
    }

    /// Number of distinct keys seen.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True before the first key.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Every key with its id.
    pub fn iter(&self) -> impl Iterator<Item = (&K, u32)> {
        self.ids.iter().map(|(k, &v)| (k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str, interner: &mut Interner<String>) -> Vec<u32> {
        text.split_whitespace()
            .map(|w| interner.id(w.to_owned()))
            .collect()
    }

    fn naive_lcs(a: &[u32], b: &[u32]) -> usize {
        let mut t = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                t[i][j] = if a[i - 1] == b[j - 1] {
                    t[i - 1][j - 1] + 1
                } else {
                    t[i - 1][j].max(t[i][j - 1])
                };
            }
        }
        t[a.len()][b.len()]
    }

    #[test]
    fn seed_example_rouge2_and_rougel() {
        let mut it = Interner::default();
        let hyp = Doc::from_sentences(vec![ids("the big cat sitting on the rug", &mut it)]);
        let reference = Doc::from_sentences(vec![ids("the cat sits on the mat", &mut it)]);
        assert_eq!(
            pair_stats(&hyp, &reference, Kind::Ngram(2)),
            [1.0, 6.0, 5.0]
        );
        assert_eq!(pair_stats(&hyp, &reference, Kind::Lcs), [4.0, 7.0, 6.0]);
        assert_eq!(
            pair_stats(&hyp, &reference, Kind::LcsSummary),
            [4.0, 7.0, 6.0]
        );
    }

    #[test]
    fn bit_parallel_lcs_equals_the_dp_on_long_sequences() {
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % 7) as u32
        };
        for len in [1usize, 5, 63, 64, 65, 130, 300] {
            let a: Vec<u32> = (0..len).map(|_| next()).collect();
            let b: Vec<u32> = (0..len + 7).map(|_| next()).collect();
            assert_eq!(lcs_length(&a, &b), naive_lcs(&a, &b), "len {len}");
        }
    }

    #[test]
    fn union_lcs_of_the_rouge_paper_example() {
        // Lin (2004), section 3.2: r = w1..w5, c1 = w1 w2 w6 w7 w8, c2 = w1 w3 w8 w9 w5
        let r = vec![1, 2, 3, 4, 5];
        let hyp = Doc::from_sentences(vec![vec![1, 2, 6, 7, 8], vec![1, 3, 8, 9, 5]]);
        let reference = Doc::from_sentences(vec![r]);
        assert_eq!(union_lcs_hits(&hyp, &reference), 4);
    }

    #[test]
    fn skip_bigrams_respect_the_gap() {
        let hyp = [1, 2, 3];
        let (hits, h, r) = skip_stats(&hyp, &hyp, None, Unigrams::None);
        assert_eq!((hits, h, r), (3, 3, 3));
        let (_, h, _) = skip_stats(&hyp, &hyp, Some(0), Unigrams::None);
        assert_eq!(h, 2);
        let (_, h, _) = skip_stats(&hyp, &hyp, None, Unigrams::All);
        assert_eq!(h, 6);
        let (_, h, _) = skip_stats(&hyp, &hyp, None, Unigrams::AllButLast);
        assert_eq!(h, 5);
    }

    #[test]
    fn weighted_lcs_rewards_consecutive_matches() {
        let weights = power_table(2.0, 10);
        let consecutive = wlcs_value(&[1, 2, 3, 4], &[1, 2, 3, 4], &weights);
        let spread = wlcs_value(&[1, 2, 3, 4], &[1, 9, 2, 9, 3, 9, 4], &weights);
        assert_eq!(consecutive, 16.0);
        assert_eq!(spread, 4.0);
    }

    fn random_tokens(state: &mut u64, len: usize, vocab: u64) -> Vec<u32> {
        (0..len)
            .map(|_| {
                *state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((*state >> 33) % vocab) as u32
            })
            .collect()
    }

    /// The whole-table marking (what rouge-score's `_backtrack_norec` walks).
    fn full_mark_lcs(reference: &[u32], hyp: &[u32]) -> Vec<bool> {
        let (m, n) = (reference.len(), hyp.len());
        let mut t = vec![vec![0u32; n + 1]; m + 1];
        for i in 1..=m {
            for j in 1..=n {
                t[i][j] = if reference[i - 1] == hyp[j - 1] {
                    t[i - 1][j - 1] + 1
                } else {
                    t[i - 1][j].max(t[i][j - 1])
                };
            }
        }
        let mut mask = vec![false; m];
        let (mut i, mut j) = (m, n);
        while i > 0 && j > 0 {
            if reference[i - 1] == hyp[j - 1] {
                i -= 1;
                j -= 1;
                mask[i] = true;
            } else if t[i][j - 1] > t[i - 1][j] {
                j -= 1;
            } else {
                i -= 1;
            }
        }
        mask
    }

    /// ROUGE-1.5.5's whole-table weighted marking.
    fn full_mark_wlcs(reference: &[u32], hyp: &[u32], w: &[f64]) -> (Vec<bool>, f64) {
        let (m, n) = (reference.len(), hyp.len());
        let mut c = vec![vec![0.0f64; n + 1]; m + 1];
        let mut run = vec![vec![0usize; n + 1]; m + 1];
        for i in 1..=m {
            for j in 1..=n {
                if reference[i - 1] == hyp[j - 1] {
                    let k = run[i - 1][j - 1];
                    c[i][j] = c[i - 1][j - 1] + w[k + 1] - w[k];
                    run[i][j] = k + 1;
                } else {
                    c[i][j] = if c[i - 1][j] >= c[i][j - 1] {
                        c[i - 1][j]
                    } else {
                        c[i][j - 1]
                    };
                }
            }
        }
        let mut mask = vec![false; m];
        let (mut i, mut j) = (m, n);
        while i > 0 && j > 0 {
            if reference[i - 1] == hyp[j - 1] {
                i -= 1;
                j -= 1;
                mask[i] = true;
            } else if c[i - 1][j] >= c[i][j - 1] {
                i -= 1;
            } else {
                j -= 1;
            }
        }
        (mask, c[m][n])
    }

    #[test]
    fn bit_parallel_lcs_equals_the_dp_on_random_and_repeated_tokens() {
        let mut state = 7u64;
        for (len_a, len_b, vocab) in [
            (70, 90, 3),
            (200, 150, 5),
            (300, 320, 40),
            (129, 400, 2),
            (500, 450, 1000),
            (640, 700, 1),
        ] {
            let a = random_tokens(&mut state, len_a, vocab);
            let b = random_tokens(&mut state, len_b, vocab);
            assert_eq!(
                lcs_length(&a, &b),
                naive_lcs(&a, &b),
                "{len_a}x{len_b}/{vocab}"
            );
            assert_eq!(lcs_length(&b, &a), naive_lcs(&a, &b));
        }
        // one token repeated (dense masks) against a mix
        let a = vec![4u32; 300];
        let mut b = vec![4u32; 150];
        b.extend(random_tokens(&mut state, 200, 6));
        assert_eq!(lcs_length(&a, &b), naive_lcs(&a, &b));
    }

    #[test]
    fn checkpointed_marking_equals_the_whole_table() {
        let mut state = 99u64;
        for (m, n, vocab) in [
            (1, 1, 1),
            (7, 5, 2),
            (40, 33, 3),
            (120, 90, 4),
            (257, 300, 30),
        ] {
            let reference = random_tokens(&mut state, m, vocab);
            let hyp = random_tokens(&mut state, n, vocab);
            let expected = full_mark_lcs(&reference, &hyp);
            let weights = power_table(1.2, m.max(n));
            let (expected_w, value) = full_mark_wlcs(&reference, &hyp, &weights);
            assert_eq!(wlcs_value(&reference, &hyp, &weights), value);
            for k in [1, 2, 3, 7, 16, m] {
                let mut mask = vec![false; m];
                mark_lcs_blocks(&reference, &hyp, k, &mut MarkRows::default(), &mut mask);
                assert_eq!(mask, expected, "lcs {m}x{n} k={k}");
                let mut mask = vec![false; m];
                mark_wlcs_blocks(
                    &reference,
                    &hyp,
                    &weights,
                    k,
                    &mut MarkRows::default(),
                    &mut mask,
                );
                assert_eq!(mask, expected_w, "wlcs {m}x{n} k={k}");
            }
        }
    }

    #[test]
    fn large_marking_tables_keep_checkpoints_only() {
        assert_eq!(block_rows(100, 100), 100);
        assert_eq!(block_rows(16_000, 16_001), 127);
    }

    #[test]
    fn the_guard_refuses_a_pair_before_any_work() {
        let hyp = Doc::from_sentences(vec![vec![1; 300]]);
        let small = Doc::from_sentences(vec![vec![1; 3]]);
        let big = Doc::from_sentences(vec![vec![1; 400]]);
        let segments = vec![
            (hyp.clone(), vec![small.clone()]),
            (hyp.clone(), vec![small, big]),
        ];
        let err = batch_stats(&segments, &[Kind::Ngram(1), Kind::Lcs], 100_000).unwrap_err();
        assert_eq!(
            err,
            PairTooLarge {
                segment: 1,
                reference: 1,
                cells: 120_000,
                limit: 100_000
            }
        );
        // linear statistics are never refused
        assert!(batch_stats(&segments, &[Kind::Ngram(2)], 0).is_ok());
        let skip = Kind::Skip {
            max_gap: None,
            unigrams: Unigrams::None,
        };
        assert_eq!(pair_cells(skip, &hyp, &hyp), 90_000 * SKIP_BIGRAM_CELLS);
    }

    /// The kernels of one segment (dense tables, masks, packed keys) against the plain
    /// per-pair statistics, with the scratch reused across segments.
    #[test]
    fn segment_rows_equal_the_pair_statistics() {
        let kinds = [
            Kind::Ngram(1),
            Kind::Ngram(2),
            Kind::Ngram(3),
            Kind::Ngram(4),
            Kind::Lcs,
            Kind::LcsSummary,
            Kind::Skip {
                max_gap: Some(4),
                unigrams: Unigrams::All,
            },
        ];
        let mut state = 7u64;
        let mut ks = KernelScratch::default();
        let lengths = [0usize, 1, 2, 5, 63, 64, 65, 140];
        for vocab in [1u64, 3, 40, 300] {
            for &hl in &lengths {
                for &rl in &lengths {
                    let hyp_tokens = random_tokens(&mut state, hl, vocab);
                    let hyp = if hl > 4 {
                        Doc::from_sentences(vec![
                            hyp_tokens[..hl / 2].to_vec(),
                            hyp_tokens[hl / 2..].to_vec(),
                        ])
                    } else {
                        Doc::from_sentences(vec![hyp_tokens])
                    };
                    let refs: Vec<Doc> = (0..1 + (hl + rl) % 3)
                        .map(|_| Doc::from_sentences(vec![random_tokens(&mut state, rl, vocab)]))
                        .collect();
                    let n_ids = id_count(&hyp, &refs);
                    let mut out = vec![0.0; refs.len() * kinds.len() * 3];
                    segment_rows(&hyp, &refs, &kinds, u64::MAX, n_ids, &mut ks, &mut out)
                        .expect("no bound");
                    for (r, reference) in refs.iter().enumerate() {
                        for (k, &kind) in kinds.iter().enumerate() {
                            let at = (r * kinds.len() + k) * 3;
                            assert_eq!(
                                out[at..at + 3],
                                pair_stats(&hyp, reference, kind),
                                "{kind:?} vocab {vocab} lengths {hl} {rl}"
                            );
                        }
                    }
                    assert!(!ks.dirty);
                    assert!(ks.peq.iter().all(|&m| m == 0));
                    assert!(ks.ref_counts.iter().all(|&c| c == 0));
                    assert!(ks.hyp_counts.iter().flatten().all(|&c| c == 0));
                }
            }
        }
    }

    /// Tables left dirty (as a panic mid-segment would leave them) are zeroed before use.
    #[test]
    fn dirty_tables_are_zeroed_before_the_next_segment() {
        let hyp = Doc::from_sentences(vec![vec![0, 1, 2, 1]]);
        let refs = vec![Doc::from_sentences(vec![vec![1, 2, 0, 0, 1]])];
        let kinds = [Kind::Ngram(1), Kind::Ngram(2), Kind::Lcs];
        let mut clean = vec![0.0; 9];
        segment_rows(
            &hyp,
            &refs,
            &kinds,
            u64::MAX,
            3,
            &mut KernelScratch::default(),
            &mut clean,
        )
        .expect("no bound");
        let mut ks = KernelScratch::default();
        let mut out = vec![0.0; 9];
        segment_rows(&hyp, &refs, &kinds, u64::MAX, 3, &mut ks, &mut out).expect("no bound");
        for table in ks.hyp_counts.iter_mut() {
            table.iter_mut().for_each(|c| *c = 5);
        }
        ks.ref_counts.iter_mut().for_each(|c| *c = 2);
        ks.peq.iter_mut().for_each(|m| *m = u64::MAX);
        ks.dirty = true;
        segment_rows(&hyp, &refs, &kinds, u64::MAX, 3, &mut ks, &mut out).expect("no bound");
        assert_eq!(out, clean);
    }

    #[test]
    fn local_ids_number_each_segment_densely_in_order() {
        let mut local = LocalIds::default();
        let doc = |tokens: Vec<u32>| Doc::from_sentences(vec![tokens]);
        let (mut hyp, mut refs) = (doc(vec![900, 5, 900]), vec![doc(vec![7, 5]), doc(vec![])]);
        assert_eq!(local.number(&mut hyp, &mut refs), 3);
        assert_eq!(
            (hyp.flat.clone(), refs[0].flat.clone()),
            (vec![0, 1, 0], vec![2, 1])
        );
        // a later segment: earlier numbers are stale
        let (mut hyp, mut refs) = (doc(vec![7, 3]), vec![doc(vec![900])]);
        assert_eq!(local.number(&mut hyp, &mut refs), 3);
        assert_eq!((hyp.flat, refs[0].flat.clone()), (vec![0, 1], vec![2]));
    }

    #[test]
    fn short_keys_give_their_bytes_back() {
        for token in [
            &b"a"[..],
            b"abcdefgh",
            b"abcdefghi",
            b"abcdefghijklmno",
            b"0",
        ] {
            let (bytes, len) = short_key_bytes(short_key(token).expect("short"));
            assert_eq!(&bytes[..len], token);
        }
        assert_eq!(short_key(b"abcdefghijklmnop"), None);
    }

    #[test]
    fn ascii_fast_path_equals_the_tokenizer() {
        let mut vocab = Vocab::default();
        let mut doc = Doc::default();
        let texts = [
            "The CAT's 3.14 running-dogs!\nSecond LINE here\n\n...\nlast",
            "abcdefg ABCDEFGH abcdefghI ABCDEFGHIJKLMNO abcdefghijklmnoP INTERNATIONALIZATIONS x",
            "Generalization generalizations\n\nGENERALIZATION 12345678901234567",
            "İstanbul café naïve\nCats RUNNING",
            "",
        ];
        for tok in [RougeTokenizer::RougeScore, RougeTokenizer::Unicode] {
            for stem in [false, true] {
                for text in texts {
                    fill_doc(&mut vocab, &mut doc, text, tok, stem, true);
                    let lines: Vec<Vec<String>> = text
                        .split('\n')
                        .map(|line| tok.tokenize(line, stem))
                        .filter(|t| !t.is_empty())
                        .collect();
                    let got: Vec<Vec<String>> = doc
                        .sents()
                        .map(|s| {
                            s.iter()
                                .map(|&id| {
                                    if stem {
                                        let (word, _) = vocab
                                            .stems
                                            .iter()
                                            .find(|(_, &v)| v == id)
                                            .expect("stem id");
                                        word.to_string()
                                    } else {
                                        String::from_utf8(vocab.token(id).to_vec()).expect("utf-8")
                                    }
                                })
                                .collect()
                        })
                        .collect();
                    assert_eq!(got, lines, "{text:?} {tok:?} stem={stem}");
                }
            }
        }
    }
}
