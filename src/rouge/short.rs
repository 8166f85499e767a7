//! The short path of the usual segment: tokens numbered densely, unigram and bigram hits counted in
//! direct tables, and the LCS of a short hypothesis from per-token match masks, in one pass per reference.

use super::*;

/// Largest table of dense n-gram keys counted directly (64 KB of counts per table).
pub(super) const DENSE_NGRAM_KEYS: usize = 1 << 14;

/// Number of dense keys of the n-grams of `n_ids` token ids (`n_ids^n`), when their counts
/// fit a direct table (unigrams always do: at most one entry per distinct token).
pub(super) fn dense_space(n_ids: usize, n: usize) -> Option<usize> {
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
pub(super) fn for_dense_keys(tokens: &[u32], n: usize, n_ids: usize, mut f: impl FnMut(usize)) {
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
pub(super) fn dense_hits(
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

/// Distinct tokens of a segment below which [`short_segment_rows`] applies (its bigram
/// tables have `SHORT_IDS^2` entries).
pub(super) const SHORT_IDS: usize = 128;

/// A statistic [`short_segment_rows`] computes.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum ShortKind {
    Unigram,
    Bigram,
    Lcs,
    LcsSummary,
}

/// The kinds of a call when each is a unigram, bigram, LCS or summary LCS count (at most 8).
#[derive(Clone, Copy)]
pub(super) struct ShortPlan {
    kinds: [ShortKind; 8],
    len: usize,
    unigrams: bool,
    bigrams: bool,
    lcs: bool,
    summary: bool,
}

impl ShortPlan {
    pub(super) fn of(kinds: &[Kind]) -> Option<ShortPlan> {
        if kinds.is_empty() || kinds.len() > 8 {
            return None;
        }
        let mut plan = ShortPlan {
            kinds: [ShortKind::Unigram; 8],
            len: kinds.len(),
            unigrams: false,
            bigrams: false,
            lcs: false,
            summary: false,
        };
        for (slot, &kind) in plan.kinds.iter_mut().zip(kinds) {
            *slot = match kind {
                Kind::Ngram(1) => ShortKind::Unigram,
                Kind::Ngram(2) => ShortKind::Bigram,
                Kind::Lcs => ShortKind::Lcs,
                Kind::LcsSummary => ShortKind::LcsSummary,
                _ => return None,
            };
        }
        let kinds = &plan.kinds[..plan.len];
        plan.unigrams = kinds.contains(&ShortKind::Unigram);
        plan.bigrams = kinds.contains(&ShortKind::Bigram);
        plan.summary = kinds.contains(&ShortKind::LcsSummary);
        plan.lcs = plan.summary || kinds.contains(&ShortKind::Lcs);
        Some(plan)
    }
}

/// A document the short path reads: empty, or one sentence equal to its flat tokens.
pub(super) fn one_sentence(doc: &Doc) -> bool {
    (doc.flat.is_empty() && doc.sent_len() == 0) || doc.single_flat_sentence()
}

/// [`segment_rows`] for a short segment (ROUGE-1/2/L/Lsum of headlines and summaries, the usual
/// case): a hypothesis of at most 64 tokens, fewer than [`SHORT_IDS`] distinct tokens, one sentence
/// per document when the summary LCS is asked for, and no pair above `max_cells`. Then one pass
/// over each reference counts its clipped unigram and bigram hits in direct tables and runs the
/// bit-parallel LCS against the hypothesis's token masks; the rows are exactly those of the general
/// path. Returns false (nothing written) for any other segment.
pub(super) fn short_segment_rows(
    hyp: &Doc,
    refs: &[Doc],
    plan: &ShortPlan,
    max_cells: u64,
    n_ids: usize,
    ks: &mut KernelScratch,
    out: &mut [f64],
) -> bool {
    let hl = hyp.flat.len();
    if hl > 64 || n_ids > SHORT_IDS {
        return false;
    }
    if plan.lcs {
        for reference in refs {
            if (hl as u64) * (reference.flat.len() as u64) > max_cells {
                return false;
            }
        }
    }
    if plan.summary && !(one_sentence(hyp) && refs.iter().all(one_sentence)) {
        return false;
    }
    if ks.dirty {
        ks.zero_tables();
    }
    ks.dirty = true;
    if ks.short_hyp1.len() < SHORT_IDS {
        ks.short_hyp1.resize(SHORT_IDS, 0);
        ks.short_ref1.resize(SHORT_IDS, 0);
        ks.short_hyp2.resize(SHORT_IDS * SHORT_IDS, 0);
        ks.short_ref2.resize(SHORT_IDS * SHORT_IDS, 0);
    }
    if ks.peq.len() < SHORT_IDS {
        ks.peq.resize(SHORT_IDS, 0);
    }
    let (h1, r1) = (
        &mut ks.short_hyp1[..SHORT_IDS],
        &mut ks.short_ref1[..SHORT_IDS],
    );
    let (h2, r2) = (
        &mut ks.short_hyp2[..SHORT_IDS * SHORT_IDS],
        &mut ks.short_ref2[..SHORT_IDS * SHORT_IDS],
    );
    let peq = &mut ks.peq[..SHORT_IDS];
    let bigram = |a: u32, b: u32| a as usize * SHORT_IDS + b as usize;
    let mut prev = u32::MAX;
    for (pos, &t) in hyp.flat.iter().enumerate() {
        h1[t as usize] += 1;
        if prev != u32::MAX {
            h2[bigram(prev, t)] += 1;
        }
        prev = t;
        peq[t as usize] |= 1u64 << pos;
    }
    let live = if hl == 64 { u64::MAX } else { (1u64 << hl) - 1 };
    let width = plan.len * 3;
    for (reference, row) in refs.iter().zip(out.chunks_exact_mut(width)) {
        let rl = reference.flat.len();
        let (mut hits1, mut hits2) = (0u64, 0u64);
        let mut v = u64::MAX;
        let mut prev = u32::MAX;
        for &t in &reference.flat {
            if plan.unigrams {
                let seen = &mut r1[t as usize];
                *seen += 1;
                hits1 += (*seen <= h1[t as usize]) as u64;
            }
            if plan.bigrams && prev != u32::MAX {
                let key = bigram(prev, t);
                let seen = &mut r2[key];
                *seen += 1;
                hits2 += (*seen <= h2[key]) as u64;
            }
            prev = t;
            if plan.lcs {
                let mask = peq[t as usize];
                v = v.wrapping_add(v & mask) | (v & !mask);
            }
        }
        clear_counts(&reference.flat, r1, r2, bigram);
        let lcs = (!v & live).count_ones() as f64;
        for (kind, cell) in plan.kinds[..plan.len].iter().zip(row.chunks_exact_mut(3)) {
            let stats = match kind {
                ShortKind::Unigram => [hits1 as f64, hl as f64, rl as f64],
                ShortKind::Bigram => [
                    hits2 as f64,
                    ngram_total(hl, 2) as f64,
                    ngram_total(rl, 2) as f64,
                ],
                ShortKind::Lcs => [lcs, hl as f64, rl as f64],
                ShortKind::LcsSummary => [lcs, hl as f64, reference.sent_len() as f64],
            };
            cell[0] = stats[0];
            cell[1] = stats[1];
            cell[2] = stats[2];
        }
    }
    clear_counts(&hyp.flat, h1, h2, bigram);
    clear_masks(&hyp.flat, peq);
    ks.dirty = false;
    true
}

/// Zeroes the unigram counts (`ones`) and bigram counts (`twos`, keyed by `bigram`) that `tokens`
/// set, so the tables are clean for the next side.
fn clear_counts<C: Copy + Default>(
    tokens: &[u32],
    ones: &mut [C],
    twos: &mut [C],
    bigram: impl Fn(u32, u32) -> usize,
) {
    let mut prev = u32::MAX;
    for &t in tokens {
        ones[t as usize] = C::default();
        if prev != u32::MAX {
            twos[bigram(prev, t)] = C::default();
        }
        prev = t;
    }
}

/// Sets the match mask of every token of `short` (at most 64 tokens) in `peq`.
pub(super) fn set_masks(short: &[u32], peq: &mut [u64]) {
    for (pos, &t) in short.iter().enumerate() {
        peq[t as usize] |= 1u64 << pos;
    }
}

/// Clears what [`set_masks`] set.
pub(super) fn clear_masks(short: &[u32], peq: &mut [u64]) {
    for &t in short {
        peq[t as usize] = 0;
    }
}

/// LCS length of a sequence of `short_len` (1 to 64) tokens whose masks are in `peq`, and
/// `other`: Hyyrö's bit-parallel row update as [`lcs_length_short`], with the mask of a
/// token read from the table instead of a scan of the short sequence.
pub(super) fn lcs_with_masks(short_len: usize, peq: &[u64], other: &[u32]) -> u64 {
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
