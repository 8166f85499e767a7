//! ROUGE co-occurrence statistics: n-grams, LCS (sentence level, bit-parallel),
//! union LCS over sentences (summary level), weighted LCS and skip-bigrams.
//!
//! A document is a list of sentences of token ids plus a flat token list (the
//! tokens that n-grams and skip-bigrams are counted over, and that clip the
//! union-LCS hits). Every kernel returns, for one hypothesis/reference pair,
//! `[hits, hypothesis count, reference count]` as `f64` (weighted LCS hits are
//! fractional). Precision, recall and F are computed in Python.

mod lcs;
pub mod py;
mod short;
pub mod text;
mod tokens;

use lcs::*;
use short::*;
pub use tokens::*;

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
    /// [`short_segment_rows`]: unigram and bigram counts of the hypothesis and of one
    /// reference (dense keys below [`SHORT_IDS`] and its square); all zero between segments.
    short_hyp1: Vec<u32>,
    short_ref1: Vec<u32>,
    short_hyp2: Vec<u32>,
    short_ref2: Vec<u32>,
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
        for table in [
            &mut self.short_hyp1,
            &mut self.short_ref1,
            &mut self.short_hyp2,
            &mut self.short_ref2,
        ] {
            table.fill(0);
        }
    }
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
    // the short path refuses a pair above the bound itself (leaving it to the guard below)
    if let Some(plan) = ShortPlan::of(kinds) {
        if short_segment_rows(hyp, refs, &plan, max_cells, n_ids, ks, out) {
            return Ok(());
        }
    }
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
        let long_kinds = vec![
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
        // the short path's kinds (ROUGE-1/2/L/Lsum) in two orders
        let short_kinds = vec![Kind::Ngram(1), Kind::Ngram(2), Kind::Lcs, Kind::LcsSummary];
        let short_again = vec![Kind::LcsSummary, Kind::Ngram(2), Kind::Ngram(2), Kind::Lcs];
        let mut state = 7u64;
        let mut ks = KernelScratch::default();
        let lengths = [0usize, 1, 2, 5, 63, 64, 65, 140];
        for kinds in [&long_kinds, &short_kinds, &short_again] {
            for vocab in [1u64, 3, 40, 300] {
                for &hl in &lengths {
                    for &rl in &lengths {
                        for split in [false, true] {
                            let hyp_tokens = random_tokens(&mut state, hl, vocab);
                            let hyp = if split && hl > 4 {
                                Doc::from_sentences(vec![
                                    hyp_tokens[..hl / 2].to_vec(),
                                    hyp_tokens[hl / 2..].to_vec(),
                                ])
                            } else {
                                Doc::from_sentences(vec![hyp_tokens])
                            };
                            let refs: Vec<Doc> = (0..1 + (hl + rl) % 3)
                                .map(|_| {
                                    Doc::from_sentences(vec![random_tokens(&mut state, rl, vocab)])
                                })
                                .collect();
                            let n_ids = id_count(&hyp, &refs);
                            let mut out = vec![0.0; refs.len() * kinds.len() * 3];
                            segment_rows(&hyp, &refs, kinds, u64::MAX, n_ids, &mut ks, &mut out)
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
                            for table in [
                                &ks.short_hyp1,
                                &ks.short_ref1,
                                &ks.short_hyp2,
                                &ks.short_ref2,
                            ] {
                                assert!(table.iter().all(|&c| c == 0));
                            }
                        }
                    }
                }
            }
        }
    }

    /// A pair above the bound is refused on the short path's kinds too.
    #[test]
    fn the_short_path_leaves_a_refused_pair_to_the_guard() {
        let hyp = Doc::from_sentences(vec![vec![0, 1, 2]]);
        let refs = vec![Doc::from_sentences(vec![vec![1, 2]])];
        let kinds = [Kind::Ngram(1), Kind::Lcs];
        let mut out = vec![0.0; 6];
        let mut ks = KernelScratch::default();
        assert_eq!(
            segment_rows(&hyp, &refs, &kinds, 5, 3, &mut ks, &mut out),
            Err((0, 6))
        );
        assert!(segment_rows(&hyp, &refs, &kinds, 6, 3, &mut ks, &mut out).is_ok());
        assert_eq!(out, [2.0, 3.0, 2.0, 2.0, 3.0, 2.0]);
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
    fn byte_lowering_and_zero_detection_are_exact() {
        for b in 0..=255u8 {
            let want = if b.is_ascii_alphanumeric() {
                b.to_ascii_lowercase()
            } else {
                0
            };
            assert_eq!(lowered(b), want, "{b}");
        }
        let mut state = 3u64;
        for _ in 0..10_000 {
            let bytes: Vec<u8> = random_tokens(&mut state, 8, 4)
                .into_iter()
                .map(|t| if t == 0 { 0 } else { 0x30 + t as u8 })
                .collect();
            let x = u64::from_le_bytes(bytes.clone().try_into().expect("8 bytes"));
            let first = bytes.iter().position(|&b| b == 0).unwrap_or(8);
            assert_eq!(
                (zero_bytes(x).trailing_zeros() / 8) as usize,
                first,
                "{bytes:?}"
            );
        }
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
