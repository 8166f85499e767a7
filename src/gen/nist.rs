//! NIST exactly as NLTK's `corpus_nist` / `sentence_nist` (issue 26): the rows of
//! `nlpeval.metrics.nltk_lexical.nist.nist_schema`.
//!
//! Pass 1 counts every reference n-gram of the corpus once (one id per distinct
//! n-gram, with its prefix's id) and gives each its information weight
//! `log(prefix count / count, 2)`. Pass 2 scores each segment: per order and
//! reference, the clipped overlap's weights summed in the hypothesis's
//! first-occurrence order (NLTK's `Counter &`), and the reference with the largest
//! `(precision, information, hypothesis n-grams, length)` kept; once with the
//! corpus's weights and once with the segment's own references' (`sentence_nist`).

use super::ngrams::{count_orders, GramCounter, LocalIds, NO_PREFIX};
use crate::common::parallel::{install, PARALLEL_MIN_SEGMENTS};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Row width for orders `1..=n`: hyp_len, 5 blocks of `n`, nrefs_min, nrefs_max.
pub fn width(n: usize) -> usize {
    3 + 5 * n
}

/// `math.log(numerator / denominator, 2)` as CPython computes it.
fn log2_ratio(numerator: i64, denominator: i64) -> f64 {
    (numerator as f64 / denominator as f64).ln() / 2f64.ln()
}

const ABSENT: u32 = u32::MAX;

/// The references' n-grams of the whole corpus (pass 1).
struct Corpus {
    words: Vec<u32>,
    /// per order: the n-gram id at each position of every reference (flat, reference after reference)
    positions: Vec<Vec<u32>>,
    /// per order: where each reference's positions start
    starts: Vec<Vec<usize>>,
    grams: Vec<GramCounter<1>>,
    weights: Vec<Vec<f64>>,
}

fn corpus<'a>(refs: &[Vec<&'a str>], n: usize, ids: &mut LocalIds<'a>) -> Corpus {
    let mut grams: Vec<GramCounter<1>> = (0..n).map(|_| GramCounter::default()).collect();
    let mut positions: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut starts: Vec<Vec<usize>> = vec![Vec::with_capacity(refs.len() + 1); n];
    let (mut seq, mut scratch) = (Vec::new(), Vec::new());
    let mut total_words = 0i64;
    for reference in refs {
        seq.clear();
        seq.extend(reference.iter().map(|w| ids.id(w)));
        total_words += seq.len() as i64;
        for (k, at) in starts.iter_mut().enumerate() {
            at.push(positions[k].len());
        }
        count_orders(&mut grams, &seq, 0, &mut scratch, |k, _, id| {
            positions[k].push(id)
        });
    }
    for (k, at) in starts.iter_mut().enumerate() {
        at.push(positions[k].len());
    }
    let mut weights = Vec::with_capacity(n);
    for k in 0..n {
        let w: Vec<f64> = grams[k]
            .counts()
            .iter()
            .zip(grams[k].prefixes())
            .map(|(&[freq], &prefix)| {
                let numerator = if prefix == NO_PREFIX {
                    total_words
                } else {
                    grams[k - 1].counts()[prefix as usize][0]
                };
                log2_ratio(numerator, freq)
            })
            .collect();
        weights.push(w);
    }
    Corpus {
        words: Vec::new(),
        positions,
        starts,
        grams,
        weights,
    }
}

/// One segment's scratch space.
#[derive(Default)]
struct Workspace {
    /// per order: the hypothesis's distinct reference n-grams (first-occurrence order) and counts
    hyp: Vec<Vec<(u32, i64)>>,
    at: FxHashMap<u32, usize>,
    gids: Vec<u32>,
    /// per order: the segment's reference counts of each n-gram id (sentence weights)
    seg_freq: Vec<FxHashMap<u32, i64>>,
    ref_count: FxHashMap<u32, i64>,
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
    /// The hypothesis's n-grams that some reference of the corpus has, per order.
    fn hypothesis(&mut self, corpus: &Corpus, hyp: &[u32], n: usize) {
        self.hyp.resize_with(n, Vec::new);
        self.gids.clear();
        self.gids.extend_from_slice(hyp);
        for k in 0..n {
            self.hyp[k].clear();
            self.at.clear();
            let count = hyp.len().saturating_sub(k);
            for i in 0..count {
                let prefix = if k == 0 { NO_PREFIX } else { self.gids[i] };
                let last = hyp[i + k];
                let id = if (k > 0 && prefix == ABSENT) || last == ABSENT {
                    ABSENT
                } else {
                    corpus.grams[k].get(prefix, last).unwrap_or(ABSENT)
                };
                self.gids[i] = id;
                if id != ABSENT {
                    let next = self.hyp[k].len();
                    let slot = *self.at.entry(id).or_insert(next);
                    if slot == next {
                        self.hyp[k].push((id, 0));
                    }
                    self.hyp[k][slot].1 += 1;
                }
            }
            self.gids.truncate(count);
        }
    }

    fn row(
        &mut self,
        corpus: &Corpus,
        hyp: &[u32],
        refs: std::ops::Range<usize>,
        ref_lens: &[i64],
        n: usize,
        row: &mut [f64],
    ) {
        self.hypothesis(corpus, hyp, n);
        let hyp_len = hyp.len() as i64;
        self.seg_freq.resize_with(n, FxHashMap::default);
        let mut seg_words = 0i64;
        for k in 0..n {
            self.seg_freq[k].clear();
            for r in refs.clone() {
                let (from, to) = (corpus.starts[k][r], corpus.starts[k][r + 1]);
                for &id in &corpus.positions[k][from..to] {
                    *self.seg_freq[k].entry(id).or_insert(0) += 1;
                }
            }
        }
        for r in refs.clone() {
            seg_words += ref_lens[r];
        }
        row[0] = hyp_len as f64;
        for k in 0..n {
            let den = (hyp_len - k as i64).max(0);
            let mut best: Option<Best> = None;
            let mut best_sentence: Option<Best> = None;
            for r in refs.clone() {
                self.ref_count.clear();
                let (from, to) = (corpus.starts[k][r], corpus.starts[k][r + 1]);
                for &id in &corpus.positions[k][from..to] {
                    *self.ref_count.entry(id).or_insert(0) += 1;
                }
                let (mut info, mut sentence_info) = (0.0f64, 0.0f64);
                for &(id, count) in &self.hyp[k] {
                    let clipped = count.min(self.ref_count.get(&id).copied().unwrap_or(0));
                    if clipped > 0 {
                        info += corpus.weights[k][id as usize] * clipped as f64;
                        let freq = self.seg_freq[k][&id];
                        let numerator = if k == 0 {
                            seg_words
                        } else {
                            self.seg_freq[k - 1][&corpus.grams[k].prefixes()[id as usize]]
                        };
                        sentence_info += log2_ratio(numerator, freq) * clipped as f64;
                    }
                }
                let len = ref_lens[r];
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
        let nrefs = refs.len() as f64;
        row[1 + 5 * n] = nrefs;
        row[2 + 5 * n] = nrefs;
    }
}

/// The NIST rows (`width(n)` floats per segment) of `hyps` against `counts[i]`
/// references each (`refs` flat, segment by segment), orders `1..=n`.
pub fn rows(hyps: &[Vec<&str>], refs: &[Vec<&str>], counts: &[usize], n: usize) -> Vec<f64> {
    let mut ids = LocalIds::default();
    let mut corpus = corpus(refs, n, &mut ids);
    corpus.words = hyps
        .iter()
        .flat_map(|h| h.iter().map(|w| ids.get(w).unwrap_or(ABSENT)))
        .collect();
    let mut hyp_starts = Vec::with_capacity(hyps.len() + 1);
    hyp_starts.push(0);
    for h in hyps {
        hyp_starts.push(hyp_starts.last().unwrap() + h.len());
    }
    let mut ref_starts = Vec::with_capacity(counts.len() + 1);
    ref_starts.push(0);
    for &c in counts {
        ref_starts.push(ref_starts.last().unwrap() + c);
    }
    let ref_lens: Vec<i64> = refs.iter().map(|r| r.len() as i64).collect();
    let w = width(n);
    let mut out = vec![0.0f64; hyps.len() * w];
    let corpus = &corpus;
    let fill = |ws: &mut Workspace, (i, row): (usize, &mut [f64])| {
        let hyp = &corpus.words[hyp_starts[i]..hyp_starts[i + 1]];
        ws.row(
            corpus,
            hyp,
            ref_starts[i]..ref_starts[i + 1],
            &ref_lens,
            n,
            row,
        );
    };
    if hyps.len() >= PARALLEL_MIN_SEGMENTS {
        install(|| {
            out.par_chunks_mut(w)
                .enumerate()
                .with_min_len(16)
                .for_each_init(Workspace::default, fill)
        });
    } else {
        let mut ws = Workspace::default();
        out.chunks_mut(w)
            .enumerate()
            .for_each(|item| fill(&mut ws, item));
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
