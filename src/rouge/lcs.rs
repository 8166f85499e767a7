//! Longest common subsequences: Hyyrö's bit-parallel LCS (sentence level), the marked LCS paths
//! and their union over sentences (summary level, as ROUGE-1.5.5 and rouge-score), and the weighted LCS.

use super::*;

/// Tokens of `a` occurring at least this often get a precomputed match mask; rarer ones
/// have theirs set and cleared per use (memory stays linear in the lengths).
pub(super) const DENSE_MASK_MIN: u32 = 64;

/// One row of Hyyrö's bit-parallel LCS: `v` updated with the match mask `pm`.
pub(super) fn hyyro_step(v: &mut [u64], pm: &[u64]) {
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
pub(super) fn lcs_length_short(a: &[u32], b: &[u32]) -> usize {
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
pub(super) const FULL_TABLE_CELLS: usize = 1 << 22;

/// A backtracking move.
#[derive(Clone, Copy)]
pub(super) enum Move {
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
pub(super) fn block_rows(m: usize, width: usize) -> usize {
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
pub(super) fn mark_path<C: Copy + Default>(
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
pub(super) fn lcs_row(reference: &[u32], hyp: &[u32], i: usize, prev: &[u32], row: &mut [u32]) {
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
pub(super) fn mark_lcs(
    reference: &[u32],
    hyp: &[u32],
    rows: &mut MarkRows<u32>,
    mask: &mut [bool],
) {
    let k = block_rows(reference.len(), hyp.len() + 1);
    mark_lcs_blocks(reference, hyp, k, rows, mask);
}

pub(super) fn mark_lcs_blocks(
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
pub(super) fn wlcs_row(
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
pub(super) fn mark_wlcs(
    reference: &[u32],
    hyp: &[u32],
    weights: &[f64],
    rows: &mut MarkRows<(f64, u32)>,
    mask: &mut [bool],
) {
    let k = block_rows(reference.len(), hyp.len() + 1);
    mark_wlcs_blocks(reference, hyp, weights, k, rows, mask);
}

pub(super) fn mark_wlcs_blocks(
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
pub(super) fn wlcs_value(reference: &[u32], hyp: &[u32], weights: &[f64]) -> f64 {
    let width = hyp.len() + 1;
    let mut prev = vec![(0.0, 0u32); width];
    let mut row = vec![(0.0, 0u32); width];
    for i in 1..=reference.len() {
        wlcs_row(reference, hyp, weights, i, &prev, &mut row);
        std::mem::swap(&mut prev, &mut row);
    }
    prev[width - 1].0
}

pub(super) fn unigram_counts(tokens: &[u32]) -> FxHashMap<u32, i64> {
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

pub(super) fn clip(
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
