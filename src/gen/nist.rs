//! NIST exactly as NLTK's `corpus_nist` / `sentence_nist` (issue 26): the rows of
//! `nlpeval.metrics.nltk_lexical.nist.nist_schema`.
//!
//! Only n-grams of the hypotheses can match, so only they get ids: the hypotheses'
//! words are numbered (a unigram's id is its word's), then each higher-order
//! n-gram of the hypotheses gets one id from the pair (its prefix's id, its last
//! word) in one hash table. The references are looked up in it, order by order,
//! in parallel: a reference n-gram whose prefix no hypothesis has is absent
//! without a look-up. The corpus counts of those ids give the information weights
//! `log(prefix count / count, 2)` (unigrams: the total reference words) of every
//! n-gram that can match. Each segment is then scored on the thread pool from its
//! own ids: per order and reference the clipped overlap's weights summed in the
//! hypothesis's first-occurrence order (NLTK's `Counter &`), and the reference with
//! the largest `(precision, information, hypothesis n-grams, length)` kept; once
//! with the corpus's weights and once with the segment's own references'
//! (`sentence_nist`).

use super::ngrams::LocalIds;
use crate::common::parallel::{install, PARALLEL_MIN_SEGMENTS};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::sync::Mutex;

/// Row width for orders `1..=n`: hyp_len, 5 blocks of `n`, nrefs_min, nrefs_max.
pub fn width(n: usize) -> usize {
    3 + 5 * n
}

/// `math.log(numerator / denominator, 2)` as CPython computes it.
fn log2_ratio(numerator: i64, denominator: i64) -> f64 {
    if numerator == denominator {
        return 0.0; // log(1.0) is exactly 0.0
    }
    (numerator as f64 / denominator as f64).ln() / 2f64.ln()
}

const ABSENT: u32 = u32::MAX;

/// Number of n-grams of orders `1..=n` of a sequence of `len` words.
fn grams_len(len: usize, n: usize) -> usize {
    (0..n).map(|k| len.saturating_sub(k)).sum()
}

/// A sequence's n-gram ids, laid out order after order (`len - k` ids of order `k + 1`).
fn order_block(ids: &[u32], len: usize, k: usize) -> &[u32] {
    let from = grams_len(len, k);
    &ids[from..from + len.saturating_sub(k)]
}

/// Start of each sequence's n-gram ids in a flat buffer.
fn starts<T>(seqs: &[Vec<T>], n: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(seqs.len() + 1);
    out.push(0);
    for s in seqs {
        out.push(out.last().unwrap() + grams_len(s.len(), n));
    }
    out
}

/// The hypotheses' n-grams: ids of every order and each id's prefix.
struct HypGrams<'a> {
    words: LocalIds<'a>,
    /// (prefix id, last word) of orders >= 2 -> id
    table: FxHashMap<u64, u32>,
    /// the prefix id of every id ([`ABSENT`] for unigrams)
    prefix: Vec<u32>,
    /// each hypothesis's ids (see [`order_block`]), from `hyp_starts`
    ids: Vec<u32>,
    hyp_starts: Vec<usize>,
    hyp_lens: Vec<usize>,
}

fn key(prefix: u32, last: u32) -> u64 {
    (u64::from(prefix) << 32) | u64::from(last)
}

fn hypothesis_grams<'a>(hyps: &[Vec<&'a str>], n: usize) -> HypGrams<'a> {
    let mut words = LocalIds::default();
    let word_ids: Vec<Vec<u32>> = hyps
        .iter()
        .map(|h| h.iter().map(|w| words.id(w)).collect())
        .collect();
    let n_words = words.len();
    let hyp_starts = starts(hyps, n);
    let total = *hyp_starts.last().unwrap();
    let mut ids = vec![0u32; total];
    let mut table = FxHashMap::default();
    table.reserve(total.saturating_sub(word_ids.iter().map(Vec::len).sum::<usize>()));
    let mut prefix = vec![ABSENT; n_words];
    for (seq, &from) in word_ids.iter().zip(&hyp_starts) {
        let len = seq.len();
        let out = &mut ids[from..from + grams_len(len, n)];
        out[..len].copy_from_slice(seq);
        higher_orders(out, len, n, |p, last| {
            let next = prefix.len() as u32;
            let id = *table.entry(key(p, last)).or_insert(next);
            if id == next {
                prefix.push(p);
            }
            id
        });
    }
    HypGrams {
        words,
        table,
        prefix,
        ids,
        hyp_starts,
        hyp_lens: hyps.iter().map(Vec::len).collect(),
    }
}

/// A reference's n-gram ids (hypothesis n-gram ids or [`ABSENT`]) into `out`.
fn reference_grams(grams: &HypGrams<'_>, reference: &[&str], n: usize, out: &mut [u32]) {
    let len = reference.len();
    for (slot, w) in out.iter_mut().zip(reference) {
        *slot = grams.words.get(w).unwrap_or(ABSENT);
    }
    higher_orders(out, len, n, |p, last| {
        if p == ABSENT || last == ABSENT {
            ABSENT
        } else {
            grams.table.get(&key(p, last)).copied().unwrap_or(ABSENT)
        }
    });
}

/// The ids of orders 2..=`n` of a sequence whose `len` word ids are `out[..len]`,
/// written after them order by order: an n-gram's id is `id_of(its prefix's id,
/// its last word's id)`, the prefix read from the order below.
#[inline]
fn higher_orders(out: &mut [u32], len: usize, n: usize, mut id_of: impl FnMut(u32, u32) -> u32) {
    let mut below = 0;
    for k in 1..n {
        let count = len.saturating_sub(k);
        if count == 0 {
            break;
        }
        let here = below + len - (k - 1);
        for i in 0..count {
            out[here + i] = id_of(out[below + i], out[i + k]);
        }
        below = here;
    }
}

/// Splits `buffer` into one slice per sequence at `starts`.
fn split_at_starts<'b>(mut buffer: &'b mut [u32], starts: &[usize]) -> Vec<&'b mut [u32]> {
    let mut out = Vec::with_capacity(starts.len().saturating_sub(1));
    for pair in starts.windows(2) {
        let (head, tail) = buffer.split_at_mut(pair[1] - pair[0]);
        out.push(head);
        buffer = tail;
    }
    out
}

/// Everything a segment's scoring reads.
struct Corpus<'c, 'a> {
    grams: &'c HypGrams<'a>,
    ref_ids: &'c [u32],
    ref_id_starts: &'c [usize],
    ref_lens: &'c [i64],
    /// the corpus information weight of every hypothesis n-gram id some reference has
    weight: &'c [f64],
    n: usize,
}

/// `log2_ratio` of small counts, computed once per process (the same values).
const SMALL: usize = 64;

fn small_logs() -> &'static [f64] {
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        (0..SMALL * SMALL)
            .map(|i| {
                let (a, b) = ((i / SMALL) as i64, (i % SMALL) as i64);
                if b == 0 {
                    0.0
                } else {
                    log2_ratio(a, b)
                }
            })
            .collect()
    })
}

/// `log2_ratio(numerator, denominator)` (`denominator > 0`), by table for small counts.
fn log2_ratio_cached(logs: &[f64], numerator: i64, denominator: i64) -> f64 {
    if (numerator as u64) < SMALL as u64 && (denominator as u64) < SMALL as u64 {
        logs[numerator as usize * SMALL + denominator as usize]
    } else {
        log2_ratio(numerator, denominator)
    }
}

/// One thread's scratch space.
struct Workspace {
    /// id -> 1 + its slot in `distinct` while a segment is scored (0: not in the hypothesis)
    slot: Vec<u32>,
    /// the hypothesis's distinct n-grams, order after order, each in first-occurrence order
    distinct: Vec<(u32, i64)>,
    order_start: Vec<usize>,
    /// per slot and reference: the reference's count
    ref_count: Vec<i64>,
    /// per slot: the count in all the segment's references
    seg_freq: Vec<i64>,
    sentence_weight: Vec<f64>,
}

impl Workspace {
    fn new(ids: usize) -> Self {
        Workspace {
            slot: vec![0; ids],
            distinct: Vec::new(),
            order_start: Vec::new(),
            ref_count: Vec::new(),
            seg_freq: Vec::new(),
            sentence_weight: Vec::new(),
        }
    }
}

/// The best reference's `(information, length)` under `max` of NLTK's tuples.
#[derive(Clone, Copy)]
struct Best {
    precision: f64,
    info: f64,
    len: i64,
}

fn better(p: f64, info: f64, len: i64, best: &Option<Best>) -> bool {
    match best {
        None => true,
        Some(b) => {
            p > b.precision
                || (p == b.precision && (info > b.info || (info == b.info && len > b.len)))
        }
    }
}

impl Workspace {
    /// The segment's distinct hypothesis n-grams and their counts in each reference.
    fn count(
        &mut self,
        c: &Corpus<'_, '_>,
        hyp: &[u32],
        hyp_len: usize,
        refs: &std::ops::Range<usize>,
    ) {
        self.distinct.clear();
        self.order_start.clear();
        for k in 0..c.n {
            self.order_start.push(self.distinct.len());
            for &id in order_block(hyp, hyp_len, k) {
                let entry = &mut self.slot[id as usize];
                if *entry == 0 {
                    self.distinct.push((id, 0));
                    *entry = self.distinct.len() as u32;
                }
                self.distinct[*entry as usize - 1].1 += 1;
            }
        }
        self.order_start.push(self.distinct.len());
        let nrefs = refs.len();
        self.ref_count.clear();
        self.ref_count.resize(self.distinct.len() * nrefs, 0);
        self.seg_freq.clear();
        self.seg_freq.resize(self.distinct.len(), 0);
        for (j, r) in refs.clone().enumerate() {
            for &id in &c.ref_ids[c.ref_id_starts[r]..c.ref_id_starts[r + 1]] {
                if id != ABSENT {
                    let slot = self.slot[id as usize] as usize;
                    if slot != 0 {
                        self.ref_count[(slot - 1) * nrefs + j] += 1;
                        self.seg_freq[slot - 1] += 1;
                    }
                }
            }
        }
    }

    /// The sentence information weight of every distinct n-gram some reference of the segment has.
    fn weights(&mut self, c: &Corpus<'_, '_>, seg_words: i64, logs: &[f64]) {
        self.sentence_weight.clear();
        self.sentence_weight.resize(self.distinct.len(), 0.0);
        for k in 0..c.n {
            for s in self.order_start[k]..self.order_start[k + 1] {
                let freq = self.seg_freq[s];
                if freq == 0 {
                    continue;
                }
                let numerator = if k == 0 {
                    seg_words
                } else {
                    let p = c.grams.prefix[self.distinct[s].0 as usize];
                    self.seg_freq[self.slot[p as usize] as usize - 1]
                };
                self.sentence_weight[s] = log2_ratio_cached(logs, numerator, freq);
            }
        }
    }

    fn row(
        &mut self,
        c: &Corpus<'_, '_>,
        i: usize,
        refs: std::ops::Range<usize>,
        row: &mut [f64],
        logs: &[f64],
    ) {
        let n = c.n;
        let hyp = &c.grams.ids[c.grams.hyp_starts[i]..c.grams.hyp_starts[i + 1]];
        let hyp_len = c.grams.hyp_lens[i];
        self.count(c, hyp, hyp_len, &refs);
        let seg_words: i64 = refs.clone().map(|r| c.ref_lens[r]).sum();
        self.weights(c, seg_words, logs);
        let nrefs = refs.len();
        row[0] = hyp_len as f64;
        for k in 0..n {
            let den = (hyp_len as i64 - k as i64).max(0);
            let mut best: Option<Best> = None;
            let mut best_sentence: Option<Best> = None;
            for (j, r) in refs.clone().enumerate() {
                let (mut info, mut sentence_info) = (0.0f64, 0.0f64);
                for s in self.order_start[k]..self.order_start[k + 1] {
                    let clipped = self.distinct[s].1.min(self.ref_count[s * nrefs + j]);
                    if clipped > 0 {
                        info += c.weight[self.distinct[s].0 as usize] * clipped as f64;
                        sentence_info += self.sentence_weight[s] * clipped as f64;
                    }
                }
                let len = c.ref_lens[r];
                let precision = |v: f64| if den == 0 { 0.0 } else { v / den as f64 };
                if better(precision(info), info, len, &best) {
                    best = Some(Best {
                        precision: precision(info),
                        info,
                        len,
                    });
                }
                if better(precision(sentence_info), sentence_info, len, &best_sentence) {
                    best_sentence = Some(Best {
                        precision: precision(sentence_info),
                        info: sentence_info,
                        len,
                    });
                }
            }
            let (info, len) = best.map_or((0.0, -1), |b| (b.info, b.len));
            let (s_info, s_len) = best_sentence.map_or((0.0, -1), |b| (b.info, b.len));
            row[1 + k] = info;
            row[1 + n + k] = den as f64;
            row[1 + 2 * n + k] = len as f64;
            row[1 + 3 * n + k] = s_info;
            row[1 + 4 * n + k] = s_len as f64;
        }
        row[1 + 5 * n] = nrefs as f64;
        row[2 + 5 * n] = nrefs as f64;
        for &(id, _) in &self.distinct {
            self.slot[id as usize] = 0;
        }
    }
}

/// The corpus information weight of every id (0 where no reference has it).
fn corpus_weights(
    grams: &HypGrams<'_>,
    freq: &[i64],
    total_words: i64,
    parallel: bool,
) -> Vec<f64> {
    let logs = small_logs();
    let weigh = |(id, &count): (usize, &i64)| {
        if count == 0 {
            return 0.0;
        }
        let p = grams.prefix[id];
        let numerator = if p == ABSENT {
            total_words
        } else {
            freq[p as usize]
        };
        log2_ratio_cached(logs, numerator, count)
    };
    if parallel {
        install(|| {
            freq.par_iter()
                .enumerate()
                .with_min_len(4096)
                .map(weigh)
                .collect()
        })
    } else {
        freq.iter().enumerate().map(weigh).collect()
    }
}

/// The NIST rows (`width(n)` floats per segment) of `hyps` against `counts[i]`
/// references each (`refs` flat, segment by segment), orders `1..=n`.
pub fn rows(hyps: &[Vec<&str>], refs: &[Vec<&str>], counts: &[usize], n: usize) -> Vec<f64> {
    let grams = hypothesis_grams(hyps, n);
    let parallel = hyps.len() >= PARALLEL_MIN_SEGMENTS;
    let ref_id_starts = starts(refs, n);
    let mut ref_ids = vec![ABSENT; *ref_id_starts.last().unwrap()];
    {
        let slices = split_at_starts(&mut ref_ids, &ref_id_starts);
        let look_up =
            |(out, reference): (&mut [u32], &Vec<&str>)| reference_grams(&grams, reference, n, out);
        if parallel {
            install(|| {
                slices
                    .into_par_iter()
                    .zip(refs.par_iter())
                    .with_min_len(64)
                    .for_each(look_up)
            });
        } else {
            slices.into_iter().zip(refs).for_each(look_up);
        }
    }
    let mut freq = vec![0i64; grams.prefix.len()];
    for &id in &ref_ids {
        if id != ABSENT {
            freq[id as usize] += 1;
        }
    }
    let ref_lens: Vec<i64> = refs.iter().map(|r| r.len() as i64).collect();
    let weight = corpus_weights(&grams, &freq, ref_lens.iter().sum(), parallel);
    let mut seg_starts = Vec::with_capacity(counts.len() + 1);
    seg_starts.push(0);
    for &count in counts {
        seg_starts.push(seg_starts.last().unwrap() + count);
    }
    let corpus = Corpus {
        grams: &grams,
        ref_ids: &ref_ids,
        ref_id_starts: &ref_id_starts,
        ref_lens: &ref_lens,
        weight: &weight,
        n,
    };
    let w = width(n);
    let mut out = vec![0.0f64; hyps.len() * w];
    let (corpus, logs) = (&corpus, small_logs());
    let ids = grams.prefix.len();
    if parallel {
        install(|| {
            // one workspace per worker (its id -> slot array is as long as the ids)
            let spaces: Vec<Mutex<Workspace>> = (0..rayon::current_num_threads())
                .map(|_| Mutex::new(Workspace::new(ids)))
                .collect();
            out.par_chunks_mut(w)
                .enumerate()
                .with_min_len(16)
                .for_each(|(i, row)| {
                    let worker = rayon::current_thread_index().unwrap_or(0) % spaces.len();
                    let mut ws = spaces[worker].lock().unwrap_or_else(|e| e.into_inner());
                    ws.row(corpus, i, seg_starts[i]..seg_starts[i + 1], row, logs);
                })
        });
    } else {
        let mut ws = Workspace::new(ids);
        for (i, row) in out.chunks_mut(w).enumerate() {
            ws.row(corpus, i, seg_starts[i]..seg_starts[i + 1], row, logs);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    type Gram = Vec<String>;

    fn ngrams(words: &[String], k: usize) -> Vec<Gram> {
        if words.len() < k {
            return Vec::new();
        }
        (0..=words.len() - k)
            .map(|i| words[i..i + k].to_vec())
            .collect()
    }

    /// Insertion-ordered counts (Python's `Counter`).
    fn counter(items: Vec<Gram>) -> Vec<(Gram, i64)> {
        let mut out: Vec<(Gram, i64)> = Vec::new();
        for item in items {
            match out.iter_mut().find(|(g, _)| *g == item) {
                Some(entry) => entry.1 += 1,
                None => out.push((item, 1)),
            }
        }
        out
    }

    /// A literal reading of NLTK's `corpus_nist` loop: per segment and order, `(info, best ref len)`.
    fn nltk(hyps: &[Vec<String>], refs: &[Vec<Vec<String>>], n: usize) -> Vec<Vec<(f64, i64)>> {
        let mut freq: HashMap<Gram, i64> = HashMap::new();
        let mut total = 0i64;
        for segment in refs {
            for reference in segment {
                for k in 1..=n {
                    for g in ngrams(reference, k) {
                        *freq.entry(g).or_insert(0) += 1;
                    }
                }
                total += reference.len() as i64;
            }
        }
        let weight = |g: &Gram| {
            let numerator = if g.len() > 1 {
                freq[&g[..g.len() - 1].to_vec()]
            } else {
                total
            };
            (numerator as f64 / freq[g] as f64).ln() / 2f64.ln()
        };
        let mut out = Vec::new();
        for (hyp, segment) in hyps.iter().zip(refs) {
            let mut per_order = Vec::new();
            for k in 1..=n {
                let h = counter(ngrams(hyp, k));
                let den: i64 = h.iter().map(|x| x.1).sum();
                let mut best: Option<(f64, f64, i64)> = None;
                for reference in segment {
                    let r = counter(ngrams(reference, k));
                    let mut num = 0.0;
                    for (g, c) in &h {
                        let m = (*c).min(r.iter().find(|x| x.0 == *g).map_or(0, |x| x.1));
                        if m > 0 {
                            num += weight(g) * m as f64;
                        }
                    }
                    let p = if den == 0 { 0.0 } else { num / den as f64 };
                    let len = reference.len() as i64;
                    let replace = match best {
                        None => true,
                        Some((bp, bn, bl)) => {
                            p > bp || (p == bp && (num > bn || (num == bn && len > bl)))
                        }
                    };
                    if replace {
                        best = Some((p, num, len));
                    }
                }
                let (_, num, len) = best.unwrap();
                per_order.push((num, len));
            }
            out.push(per_order);
        }
        out
    }

    fn random_words(rng: &mut fastrand::Rng) -> Vec<String> {
        const WORDS: [&str; 6] = ["a", "b", "c", "é", "the", "."];
        (0..rng.usize(0..14))
            .map(|_| WORDS[rng.usize(0..WORDS.len())].to_string())
            .collect()
    }

    #[test]
    fn rows_equal_a_literal_reading_of_nltk_with_both_sets_of_weights() {
        let mut rng = fastrand::Rng::with_seed(5);
        for round in 0..30 {
            let segments = if round % 3 == 0 {
                120
            } else {
                1 + rng.usize(0..6)
            };
            let n = 1 + rng.usize(0..5);
            let hyps: Vec<Vec<String>> = (0..segments).map(|_| random_words(&mut rng)).collect();
            let refs: Vec<Vec<Vec<String>>> = (0..segments)
                .map(|_| {
                    (0..1 + rng.usize(0..3))
                        .map(|_| random_words(&mut rng))
                        .collect()
                })
                .collect();
            let hyp_strs: Vec<Vec<&str>> = hyps
                .iter()
                .map(|h| h.iter().map(String::as_str).collect())
                .collect();
            let flat: Vec<Vec<&str>> = refs
                .iter()
                .flatten()
                .map(|r| r.iter().map(String::as_str).collect())
                .collect();
            let counts: Vec<usize> = refs.iter().map(Vec::len).collect();
            let got = rows(&hyp_strs, &flat, &counts, n);
            let w = width(n);
            let corpus_want = nltk(&hyps, &refs, n);
            for (i, want) in corpus_want.iter().enumerate() {
                let row = &got[i * w..(i + 1) * w];
                assert_eq!(row[0], hyps[i].len() as f64);
                let sentence = nltk(&hyps[i..i + 1], &refs[i..i + 1], n);
                for k in 0..n {
                    assert_eq!(row[1 + k], want[k].0, "segment {i} order {k}");
                    assert_eq!(row[1 + n + k], (hyps[i].len() as f64 - k as f64).max(0.0));
                    assert_eq!(row[1 + 2 * n + k], want[k].1 as f64);
                    assert_eq!(
                        row[1 + 3 * n + k],
                        sentence[0][k].0,
                        "sentence {i} order {k}"
                    );
                    assert_eq!(row[1 + 4 * n + k], sentence[0][k].1 as f64);
                }
                assert_eq!(row[w - 1], counts[i] as f64);
            }
        }
    }
}
