//! GLEU (Google-BLEU) exactly as NLTK's `corpus_gleu` (issue 26): per segment,
//! the `(tp, n_all)` of the reference with the highest `tp / n_all` (the first on
//! ties; references with `n_all == 0` skipped).
//!
//! The hypothesis's n-grams (orders `min_len..=max_len` together, NLTK's
//! `everygrams`) are counted once per segment; each reference is counted into
//! the same table on its own side, so `tp` (the clipped overlap) is one pass
//! over the table's entries.

use super::ngrams::{count_orders, GramCounter, LocalIds, NO_PREFIX};
use crate::common::parallel::{install, PARALLEL_MIN_SEGMENTS};
use rayon::prelude::*;

const ABSENT: u32 = u32::MAX;

#[derive(Default)]
struct Workspace<'a> {
    ids: LocalIds<'a>,
    hyp: Vec<u32>,
    scratch: Vec<u32>,
    grams: Vec<GramCounter<1>>,
    /// per order and hypothesis n-gram id: its count in the current reference
    ref_hits: Vec<Vec<i64>>,
}

/// Number of n-grams of orders `min_len..=max_len` of a sequence of `len` words.
fn everygrams(len: usize, min_len: usize, max_len: usize) -> i64 {
    (min_len..=max_len)
        .map(|k| (len + 1).saturating_sub(k) as i64)
        .sum()
}

impl<'a> Workspace<'a> {
    /// Counts the reference's n-grams that the hypothesis has (look-ups only) into `ref_hits`.
    fn reference_hits(&mut self, reference: &[&str], max_len: usize) {
        self.scratch.clear();
        self.scratch
            .extend(reference.iter().map(|w| self.ids.get(w).unwrap_or(ABSENT)));
        let words: Vec<u32> = self.scratch.clone();
        for k in 0..max_len {
            self.ref_hits[k].clear();
            self.ref_hits[k].resize(self.grams[k].len(), 0);
        }
        for k in 0..max_len {
            let count = words.len().saturating_sub(k);
            if count == 0 {
                break;
            }
            for i in 0..count {
                let prefix = if k == 0 { NO_PREFIX } else { self.scratch[i] };
                let last = words[i + k];
                let id = if (k > 0 && prefix == ABSENT) || last == ABSENT {
                    ABSENT
                } else {
                    self.grams[k].get(prefix, last).unwrap_or(ABSENT)
                };
                self.scratch[i] = id;
                if id != ABSENT {
                    self.ref_hits[k][id as usize] += 1;
                }
            }
            self.scratch.truncate(count);
        }
    }

    fn row(
        &mut self,
        hyp: &[&'a str],
        refs: &[Vec<&'a str>],
        min_len: usize,
        max_len: usize,
    ) -> [i64; 2] {
        if min_len > max_len {
            return [0, 0];
        }
        self.ids.clear();
        self.grams.resize_with(max_len, GramCounter::default);
        self.ref_hits.resize_with(max_len, Vec::new);
        for grams in self.grams[..max_len].iter_mut() {
            grams.clear();
        }
        self.hyp.clear();
        for word in hyp {
            self.hyp.push(self.ids.id(word));
        }
        count_orders(
            &mut self.grams[..max_len],
            &self.hyp,
            0,
            &mut self.scratch,
            |_, _, _| {},
        );
        let tpfp = everygrams(hyp.len(), min_len, max_len);
        let mut best: Option<(i64, i64)> = None;
        for reference in refs {
            self.reference_hits(reference, max_len);
            let mut tp = 0i64;
            for k in min_len - 1..max_len {
                for (&[in_hyp], &in_ref) in self.grams[k].counts().iter().zip(&self.ref_hits[k]) {
                    tp += in_hyp.min(in_ref);
                }
            }
            let n_all = tpfp.max(everygrams(reference.len(), min_len, max_len));
            if n_all > 0 {
                let better = match best {
                    None => true,
                    Some((btp, ball)) => tp as f64 / n_all as f64 > btp as f64 / ball as f64,
                };
                if better {
                    best = Some((tp, n_all));
                }
            }
        }
        best.map_or([0, 0], |(tp, n_all)| [tp, n_all])
    }
}

/// Rows `(n_match, n_all)` of every segment: `hyps[i]` against `counts[i]` references of `refs` (flat).
pub fn rows<'a>(
    hyps: &[Vec<&'a str>],
    refs: &[Vec<&'a str>],
    counts: &[usize],
    min_len: usize,
    max_len: usize,
) -> Vec<i64> {
    let mut starts = Vec::with_capacity(counts.len() + 1);
    starts.push(0);
    for &c in counts {
        starts.push(starts.last().unwrap() + c);
    }
    let mut out = vec![0i64; hyps.len() * 2];
    let fill = |ws: &mut Workspace<'a>, (i, row): (usize, &mut [i64])| {
        row.copy_from_slice(&ws.row(&hyps[i], &refs[starts[i]..starts[i + 1]], min_len, max_len));
    };
    if hyps.len() >= PARALLEL_MIN_SEGMENTS {
        install(|| {
            out.par_chunks_mut(2)
                .enumerate()
                .with_min_len(16)
                .for_each_init(Workspace::default, fill)
        });
    } else {
        let mut ws = Workspace::default();
        out.chunks_mut(2)
            .enumerate()
            .for_each(|item| fill(&mut ws, item));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn everygram_list(words: &[u32], min_len: usize, max_len: usize) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        for k in min_len..=max_len {
            if words.len() >= k {
                for i in 0..=words.len() - k {
                    out.push(words[i..i + k].to_vec());
                }
            }
        }
        out
    }

    /// A literal reading of NLTK's `corpus_gleu` loop for one segment.
    fn nltk(hyp: &[u32], refs: &[Vec<u32>], min_len: usize, max_len: usize) -> [i64; 2] {
        let h = everygram_list(hyp, min_len, max_len);
        let mut best: Option<(i64, i64)> = None;
        for reference in refs {
            let r = everygram_list(reference, min_len, max_len);
            let mut distinct: Vec<&Vec<u32>> = Vec::new();
            for g in &h {
                if !distinct.contains(&g) {
                    distinct.push(g);
                }
            }
            let tp: i64 = distinct
                .iter()
                .map(|g| {
                    let a = h.iter().filter(|x| x == g).count();
                    let b = r.iter().filter(|x| x == g).count();
                    a.min(b) as i64
                })
                .sum();
            let n_all = (h.len() as i64).max(r.len() as i64);
            if n_all > 0
                && best.is_none_or(|(bt, ba)| tp as f64 / n_all as f64 > bt as f64 / ba as f64)
            {
                best = Some((tp, n_all));
            }
        }
        best.map_or([0, 0], |(a, b)| [a, b])
    }

    #[test]
    fn rows_equal_a_literal_reading_of_nltk() {
        let mut rng = fastrand::Rng::with_seed(11);
        let names = ["a", "b", "c", "é", ""];
        for _ in 0..60 {
            let (min_len, max_len) = (rng.usize(1..4), rng.usize(1..6));
            let segments = if rng.bool() { 100 } else { 3 };
            let hyps: Vec<Vec<u32>> = (0..segments)
                .map(|_| (0..rng.usize(0..12)).map(|_| rng.u32(0..4)).collect())
                .collect();
            let refs: Vec<Vec<Vec<u32>>> = (0..segments)
                .map(|_| {
                    (0..rng.usize(1..4))
                        .map(|_| (0..rng.usize(0..12)).map(|_| rng.u32(0..5)).collect())
                        .collect()
                })
                .collect();
            let words = |seq: &Vec<u32>| {
                seq.iter()
                    .map(|&t| names[t as usize])
                    .collect::<Vec<&str>>()
            };
            let hyp_words: Vec<Vec<&str>> = hyps.iter().map(words).collect();
            let ref_words: Vec<Vec<&str>> = refs.iter().flatten().map(words).collect();
            let counts: Vec<usize> = refs.iter().map(Vec::len).collect();
            let got = rows(&hyp_words, &ref_words, &counts, min_len, max_len);
            for i in 0..segments {
                assert_eq!(
                    got[2 * i..2 * i + 2],
                    nltk(&hyps[i], &refs[i], min_len, max_len)
                );
            }
        }
    }
}
