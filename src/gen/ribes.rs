//! RIBES exactly as NLTK 3.10's `sentence_ribes` (issue 26): the word rank
//! alignment of each (hypothesis, reference) pair and its normalised Kendall's tau.
//!
//! A hypothesis word found once in both sentences takes its reference position;
//! otherwise its right, then left, context grows one word at a time until an
//! n-gram occurs exactly once in both. The n-grams of each length get exact ids
//! (previous length's id, next word) only when some word needs that length. A
//! context whose n-gram is absent from the reference (or that runs past the
//! sentence) stays unusable with more words, so a word with both contexts closed
//! stops early: the same alignment as NLTK's loop over every window.

use super::ngrams::{GramCounter, LocalIds, NO_PREFIX};
use crate::common::parallel::{install, PARALLEL_MIN_SEGMENTS};
use rayon::prelude::*;

const NONE: u32 = u32::MAX;

/// The n-grams of one (hypothesis, reference) pair, length by length.
#[derive(Default)]
struct Levels {
    /// per length - 1: the n-gram id at each start position of the hypothesis, of the reference
    hyp: Vec<Vec<u32>>,
    refs: Vec<Vec<u32>>,
    /// per length - 1: counts `[hypothesis, reference]` per id, and the first reference position
    grams: Vec<GramCounter<2>>,
    first: Vec<Vec<u32>>,
    built: usize,
}

impl Levels {
    fn reset(&mut self, hyp: &[u32], reference: &[u32]) {
        self.built = 0;
        self.extend(hyp, reference);
    }

    /// Builds the n-grams of length `self.built + 1`.
    fn extend(&mut self, hyp: &[u32], reference: &[u32]) {
        let k = self.built;
        if self.grams.len() <= k {
            self.grams.push(GramCounter::default());
            self.first.push(Vec::new());
            self.hyp.push(Vec::new());
            self.refs.push(Vec::new());
        }
        let grams = &mut self.grams[k];
        grams.clear();
        let first = &mut self.first[k];
        first.clear();
        for (side, seq) in [(0usize, hyp), (1, reference)] {
            let count = seq.len().saturating_sub(k);
            let mut ids = std::mem::take(if side == 0 {
                &mut self.hyp[k]
            } else {
                &mut self.refs[k]
            });
            ids.clear();
            for i in 0..count {
                let prefix = if k == 0 {
                    NO_PREFIX
                } else if side == 0 {
                    self.hyp[k - 1][i]
                } else {
                    self.refs[k - 1][i]
                };
                let id = grams.bump(prefix, seq[i + k], side);
                if id as usize == first.len() {
                    first.push(NONE);
                }
                if side == 1 && first[id as usize] == NONE {
                    first[id as usize] = i as u32;
                }
                ids.push(id);
            }
            if side == 0 {
                self.hyp[k] = ids;
            } else {
                self.refs[k] = ids;
            }
        }
        self.built = k + 1;
    }

    /// Counts `(hypothesis, reference)` and first reference position of the n-gram
    /// of `len` words starting at hypothesis position `start`.
    fn lookup(
        &mut self,
        hyp: &[u32],
        reference: &[u32],
        start: usize,
        len: usize,
    ) -> (i64, i64, u32) {
        while self.built < len {
            self.extend(hyp, reference);
        }
        let id = self.hyp[len - 1][start] as usize;
        let [in_hyp, in_ref] = self.grams[len - 1].counts()[id];
        (in_hyp, in_ref, self.first[len - 1][id])
    }
}

/// NLTK's `word_rank_alignment(reference, hypothesis)` into `worder`.
fn word_order(levels: &mut Levels, reference: &[u32], hyp: &[u32], worder: &mut Vec<u32>) {
    worder.clear();
    levels.reset(hyp, reference);
    let (hyp_len, ref_len) = (hyp.len(), reference.len());
    for i in 0..hyp_len {
        let (in_hyp, in_ref, first) = levels.lookup(hyp, reference, i, 1);
        if in_ref == 0 {
            continue;
        }
        if in_hyp == 1 && in_ref == 1 {
            worder.push(first);
            continue;
        }
        let max_window = i.max(hyp_len - i + 1).min(ref_len);
        let (mut right_open, mut left_open) = (true, true);
        for window in 1..max_window {
            if i + window < hyp_len {
                if right_open {
                    let (h, r, first) = levels.lookup(hyp, reference, i, window + 1);
                    if h == 1 && r == 1 {
                        worder.push(first);
                        break;
                    }
                    right_open = r > 0;
                }
            } else {
                right_open = false;
            }
            if window <= i {
                if left_open {
                    let (h, r, first) = levels.lookup(hyp, reference, i - window, window + 1);
                    if h == 1 && r == 1 {
                        worder.push(first + window as u32);
                        break;
                    }
                    left_open = r > 0;
                }
            } else {
                left_open = false;
            }
            if !right_open && !left_open {
                break;
            }
        }
    }
}

/// NLTK's normalised `kendall_tau` of an alignment.
fn kendall_tau(worder: &[u32]) -> f64 {
    let size = worder.len();
    if size < 2 {
        return 0.0;
    }
    let mut increasing = 0u64;
    for (j, later) in worder.iter().enumerate() {
        increasing += worder[..j]
            .iter()
            .filter(|earlier| *earlier < later)
            .count() as u64;
    }
    let possible = (size * (size - 1) / 2) as u64;
    let tau = (2 * increasing) as f64 / possible as f64 - 1.0;
    (tau + 1.0) / 2.0
}

#[derive(Default)]
struct Workspace<'a> {
    ids: LocalIds<'a>,
    hyp: Vec<u32>,
    reference: Vec<u32>,
    worder: Vec<u32>,
    levels: Levels,
}

impl<'a> Workspace<'a> {
    /// NLTK's `sentence_ribes(references, hypothesis, alpha, beta)`.
    fn value(&mut self, hyp: &[&'a str], refs: &[Vec<&'a str>], alpha: f64, beta: f64) -> f64 {
        if refs.is_empty() || hyp.is_empty() {
            return 0.0;
        }
        self.ids.clear();
        self.hyp.clear();
        for word in hyp {
            self.hyp.push(self.ids.id(word));
        }
        let mut best = -1.0f64;
        let hyp_len = hyp.len() as f64;
        for reference in refs {
            self.reference.clear();
            for word in reference {
                self.reference.push(self.ids.id(word));
            }
            word_order(
                &mut self.levels,
                &self.reference,
                &self.hyp,
                &mut self.worder,
            );
            let nkt = kendall_tau(&self.worder);
            let bp = (1.0 - reference.len() as f64 / hyp_len).exp().min(1.0);
            let p1 = self.worder.len() as f64 / hyp_len;
            let value = nkt * p1.powf(alpha) * bp.powf(beta);
            if value > best {
                best = value;
            }
        }
        best
    }
}

/// `sentence_ribes` of every segment: `hyps[i]` against `refs[starts[i]..starts[i + 1]]`.
pub fn values<'a>(
    hyps: &[Vec<&'a str>],
    refs: &[Vec<&'a str>],
    counts: &[usize],
    alpha: f64,
    beta: f64,
) -> Vec<f64> {
    let mut starts = Vec::with_capacity(counts.len() + 1);
    starts.push(0);
    for &c in counts {
        starts.push(starts.last().unwrap() + c);
    }
    let mut out = vec![0.0f64; hyps.len()];
    let fill = |ws: &mut Workspace<'a>, (i, value): (usize, &mut f64)| {
        *value = ws.value(&hyps[i], &refs[starts[i]..starts[i + 1]], alpha, beta);
    };
    if hyps.len() >= PARALLEL_MIN_SEGMENTS {
        install(|| {
            out.par_iter_mut()
                .enumerate()
                .with_min_len(16)
                .for_each_init(Workspace::default, fill)
        });
    } else {
        let mut ws = Workspace::default();
        out.iter_mut()
            .enumerate()
            .for_each(|item| fill(&mut ws, item));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(seq: &[u32], gram: &[u32]) -> usize {
        if gram.len() > seq.len() {
            return 0;
        }
        (0..=seq.len() - gram.len())
            .filter(|&i| &seq[i..i + gram.len()] == gram)
            .count()
    }

    fn position(seq: &[u32], gram: &[u32]) -> u32 {
        (0..=seq.len() - gram.len())
            .find(|&i| &seq[i..i + gram.len()] == gram)
            .unwrap() as u32
    }

    /// A literal reading of NLTK's `word_rank_alignment` (every window, no early stop).
    fn nltk_order(reference: &[u32], hyp: &[u32]) -> Vec<u32> {
        let mut worder = Vec::new();
        let hyp_len = hyp.len();
        for (i, word) in hyp.iter().enumerate() {
            if !reference.contains(word) {
                continue;
            }
            if count(hyp, &[*word]) == 1 && count(reference, &[*word]) == 1 {
                worder.push(position(reference, &[*word]));
                continue;
            }
            let max_window = i.max(hyp_len - i + 1).min(reference.len());
            for window in 1..max_window {
                if i + window < hyp_len {
                    let gram = &hyp[i..i + window + 1];
                    if count(reference, gram) == 1 && count(hyp, gram) == 1 {
                        worder.push(position(reference, gram));
                        break;
                    }
                }
                if window <= i {
                    let gram = &hyp[i - window..i + 1];
                    if count(reference, gram) == 1 && count(hyp, gram) == 1 {
                        worder.push(position(reference, gram) + window as u32);
                        break;
                    }
                }
            }
        }
        worder
    }

    #[test]
    fn alignment_equals_a_literal_reading_of_nltk() {
        let mut rng = fastrand::Rng::with_seed(3);
        let mut levels = Levels::default();
        let mut worder = Vec::new();
        for _ in 0..3000 {
            let vocabulary = rng.u32(1..6);
            let hyp: Vec<u32> = (0..rng.usize(0..25))
                .map(|_| rng.u32(0..vocabulary))
                .collect();
            let reference: Vec<u32> = (0..rng.usize(0..25))
                .map(|_| rng.u32(0..vocabulary))
                .collect();
            word_order(&mut levels, &reference, &hyp, &mut worder);
            assert_eq!(
                worder,
                nltk_order(&reference, &hyp),
                "{reference:?} {hyp:?}"
            );
        }
    }

    #[test]
    fn papers_examples_and_kendall_tau() {
        let words = |s: &'static str| s.split(' ').collect::<Vec<&str>>();
        let hyp = words("he read the book because he was interested in world history");
        let reference = words("he was interested in world history because he read the book");
        let v = values(&[hyp], &[reference], &[1], 0.25, 0.10);
        // NLTK's docstring: kendall_tau([7, 8, 9, 10, 6, 0, 1, 2, 3, 4, 5]) == 0.382 (rounded); p1 = bp = 1
        assert_eq!(v[0], kendall_tau(&[7, 8, 9, 10, 6, 0, 1, 2, 3, 4, 5]));
        assert_eq!(kendall_tau(&[2, 1, 0, 3]), 0.5);
        assert_eq!(values(&[vec![]], &[vec!["a"]], &[1], 0.25, 0.1), vec![0.0]);
    }
}
