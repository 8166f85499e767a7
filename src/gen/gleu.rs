//! GLEU (Google-BLEU) exactly as NLTK's `corpus_gleu` / `sentence_gleu` (issue 26):
//! per segment, the `(tp, n_all)` of the reference with the highest `tp / n_all`
//! (the first on ties; references with `n_all == 0` skipped; a segment with none
//! adds `(0, 0)`).
//!
//! The references are split on whitespace (Python's `str.split()`) and numbered
//! once per batch ([`GleuRefs`], kept in a [`RefCache`] when the same references
//! come again, as BLEU's are); each hypothesis is split, looked up and its n-grams
//! counted once per segment, in a small open-addressing table of packed keys (16
//! bits of id per word, orders up to 4; `common::slots::SlotTable`, as BLEU's
//! `PackedTable`); each reference then streams past it: an n-gram stops growing at
//! the first word the hypothesis lacks.
//! Larger orders or a vocabulary of 65,534 reference tokens or more are not handled
//! here ([`rows`] returns `None`).

use crate::common::parallel::fill_rows;
use crate::common::refcache::{self, RefCache, RefsView, Vocab};
use crate::common::slots::SlotTable;
use rustc_hash::FxHashMap;

use super::ngrams::split_words;

/// Largest order a packed key holds.
pub const MAX_ORDER: usize = 4;
/// The lane id of every hypothesis token the references lack (no reference id is).
const ABSENT: u32 = 0xFFFE;

/// A batch's references as ids of one vocabulary.
pub struct GleuRefs {
    /// token -> id + 1
    vocab: Vocab,
    ids: Vec<u32>,
    /// start of each reference in `ids` (one more than references)
    starts: Vec<usize>,
}

impl GleuRefs {
    /// `None` when the vocabulary does not fit the key lanes.
    fn prepare(refs: &[&str]) -> Option<GleuRefs> {
        let mut map: FxHashMap<&str, u32> = FxHashMap::default();
        let mut ids = Vec::with_capacity(refs.iter().map(|r| r.len()).sum::<usize>() / 5);
        let mut starts = Vec::with_capacity(refs.len() + 1);
        starts.push(0);
        for reference in refs {
            for word in split_words(reference) {
                let next = map.len() as u32;
                ids.push(*map.entry(word).or_insert(next));
            }
            starts.push(ids.len());
        }
        if map.len() >= ABSENT as usize {
            return None;
        }
        Some(GleuRefs {
            vocab: Vocab::of(map.iter().map(|(&token, &id)| (token, id + 1))),
            ids,
            starts,
        })
    }

    fn bytes(&self) -> usize {
        self.vocab.bytes() + 4 * self.ids.len() + 8 * self.starts.len()
    }

    fn reference(&self, index: usize) -> &[u32] {
        &self.ids[self.starts[index]..self.starts[index + 1]]
    }
}

static CACHE: RefCache<Option<GleuRefs>> = RefCache::new();

/// The cache of prepared GLEU references.
pub fn cache() -> &'static RefCache<Option<GleuRefs>> {
    &CACHE
}

/// Prepared bytes per byte of reference text, roughly.
const GROWTH: usize = 4;

/// Number of n-grams of orders `min_len..=max_len` of a sequence of `len` words.
fn everygrams(len: usize, min_len: usize, max_len: usize) -> i64 {
    (min_len..=max_len)
        .map(|k| (len + 1).saturating_sub(k) as i64)
        .sum()
}

/// The counts of one n-gram of a [`Scratch`] table.
#[derive(Clone, Copy, Default)]
struct Slot {
    hyp: i64,
    current: i64,
}

/// Words of a bitset over every lane id (`0..65536`).
const BITSET_WORDS: usize = 1 << 10;

/// One worker's buffers: the hypothesis's n-grams (orders `min_len..=max_len`) with
/// their counts, and a bitset of its word ids.
#[derive(Default)]
struct Scratch {
    table: SlotTable<Slot>,
    in_hyp: Vec<u64>,
    hyp_ids: Vec<u32>,
}

impl Scratch {
    fn reset(&mut self, expected: usize) {
        self.table.reset(expected);
        if self.in_hyp.is_empty() {
            self.in_hyp = vec![0; BITSET_WORDS];
        }
    }

    #[inline]
    fn has(&self, id: u32) -> bool {
        self.in_hyp[(id >> 6) as usize] & (1 << (id & 63)) != 0
    }

    /// Counts the hypothesis's n-grams (those made of reference words only: no other can match).
    fn count_hypothesis(&mut self, min_len: usize, max_len: usize) {
        let ids = std::mem::take(&mut self.hyp_ids);
        self.reset(ids.len() * (max_len + 1 - min_len));
        for &id in &ids {
            self.in_hyp[(id >> 6) as usize] |= 1 << (id & 63);
        }
        for start in 0..ids.len() {
            let mut key = 0u64;
            for (lane, &id) in ids[start..ids.len().min(start + max_len)]
                .iter()
                .enumerate()
            {
                if id == ABSENT {
                    break;
                }
                key |= (u64::from(id) + 1) << (16 * lane);
                if lane + 1 >= min_len {
                    self.table.entry(key).hyp += 1;
                }
            }
        }
        self.hyp_ids = ids;
    }

    /// NLTK's `tp`: the clipped overlap of the hypothesis and `reference`.
    fn overlap(&mut self, reference: &[u32], min_len: usize, max_len: usize) -> i64 {
        for start in 0..reference.len() {
            let mut key = 0u64;
            for (lane, &id) in reference[start..reference.len().min(start + max_len)]
                .iter()
                .enumerate()
            {
                if !self.has(id) {
                    break;
                }
                key |= (u64::from(id) + 1) << (16 * lane);
                if lane + 1 >= min_len {
                    if let Some(entry) = self.table.get_mut(key) {
                        entry.current += 1;
                    }
                }
            }
        }
        let mut tp = 0;
        self.table.for_each_used(|_, entry| {
            tp += entry.hyp.min(entry.current);
            entry.current = 0;
        });
        tp
    }

    fn clear_bits(&mut self) {
        for &id in &self.hyp_ids {
            self.in_hyp[(id >> 6) as usize] = 0;
        }
    }
}

fn segment(
    scratch: &mut Scratch,
    prepared: &GleuRefs,
    hyp: &str,
    refs: std::ops::Range<usize>,
    (min_len, max_len): (usize, usize),
    row: &mut [i64],
) {
    scratch.hyp_ids.clear();
    scratch.hyp_ids.extend(
        split_words(hyp)
            .into_iter()
            .map(|word| prepared.vocab.get(word).wrapping_sub(1).min(ABSENT)),
    );
    let tpfp = everygrams(scratch.hyp_ids.len(), min_len, max_len);
    scratch.count_hypothesis(min_len, max_len);
    let mut best: Option<(i64, i64)> = None;
    for index in refs {
        let reference = prepared.reference(index);
        let n_all = tpfp.max(everygrams(reference.len(), min_len, max_len));
        if n_all == 0 {
            continue;
        }
        let tp = scratch.overlap(reference, min_len, max_len);
        let better = match best {
            None => true,
            Some((btp, ball)) => tp as f64 / n_all as f64 > btp as f64 / ball as f64,
        };
        if better {
            best = Some((tp, n_all));
        }
    }
    scratch.clear_bits();
    let (tp, n_all) = best.unwrap_or((0, 0));
    row[0] = tp;
    row[1] = n_all;
}

/// Rows `(n_match, n_all)` of every segment (row-major, 2 per segment): `hyps[i]`
/// against `refs.segment(i)`, both split on whitespace; `None` when `max_len > 4` or
/// the references' vocabulary is too large for packed keys (the caller takes its
/// general path). `min_len > max_len` gives zeros, as NLTK's empty `everygrams`.
pub fn rows(hyps: &[&str], refs: RefsView<'_>, min_len: usize, max_len: usize) -> Option<Vec<i64>> {
    assert_eq!(hyps.len(), refs.len(), "one reference list per hypothesis");
    assert!(min_len >= 1, "min_len must be positive");
    if max_len > MAX_ORDER {
        return None;
    }
    let mut out = vec![0i64; hyps.len() * 2];
    if min_len > max_len {
        return Some(out);
    }
    let mut run = |prepared: &GleuRefs| {
        fill_rows(&mut out, 2, |scratch: &mut Scratch, (i, row)| {
            let span = refs.offsets[i]..refs.offsets[i + 1];
            segment(scratch, prepared, hyps[i], span, (min_len, max_len), row)
        })
    };
    let cached = if refcache::worth_caching(refs.len(), refs.text_bytes(), GROWTH) {
        CACHE.get_or_prepare("gleu|split", refs, || {
            let prepared = GleuRefs::prepare(refs.refs);
            let bytes = prepared.as_ref().map_or(0, GleuRefs::bytes);
            (prepared, bytes)
        })
    } else {
        None
    };
    match cached {
        Some(entry) => run(entry.value.as_ref()?),
        None => run(&GleuRefs::prepare(refs.refs)?),
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A literal reading of NLTK's `corpus_gleu` loop: `(n_match, n_all)` per segment.
    fn nltk(hyp: &[&str], refs: &[Vec<&str>], min_len: usize, max_len: usize) -> (i64, i64) {
        let grams = |words: &[&str]| {
            let mut out: HashMap<Vec<String>, i64> = HashMap::new();
            for k in min_len..=max_len {
                for w in words.windows(k) {
                    *out.entry(w.iter().map(|s| s.to_string()).collect())
                        .or_insert(0) += 1;
                }
            }
            out
        };
        let h = grams(hyp);
        let tpfp: i64 = h.values().sum();
        let mut counts = Vec::new();
        for reference in refs {
            let r = grams(reference);
            let tpfn: i64 = r.values().sum();
            let tp: i64 = r
                .iter()
                .map(|(g, c)| (*c).min(h.get(g).copied().unwrap_or(0)))
                .sum();
            let n_all = tpfp.max(tpfn);
            if n_all > 0 {
                counts.push((tp, n_all));
            }
        }
        let mut best: Option<(i64, i64)> = None;
        for (tp, n_all) in counts {
            if best.is_none_or(|(btp, ball)| tp as f64 / n_all as f64 > btp as f64 / ball as f64) {
                best = Some((tp, n_all));
            }
        }
        best.unwrap_or((0, 0))
    }

    fn random_line(rng: &mut fastrand::Rng) -> String {
        const WORDS: [&str; 7] = ["a", "b", "c", "é", "the", ".", "\u{3000}"];
        (0..rng.usize(0..16))
            .map(|_| WORDS[rng.usize(0..WORDS.len())])
            .collect::<Vec<_>>()
            .join(if rng.bool() { " " } else { " \t" })
    }

    #[test]
    fn rows_equal_a_literal_reading_of_nltk() {
        let mut rng = fastrand::Rng::with_seed(11);
        for round in 0..40 {
            let segments = if round % 4 == 0 {
                130
            } else {
                1 + rng.usize(0..6)
            };
            let hyps: Vec<String> = (0..segments).map(|_| random_line(&mut rng)).collect();
            let counts: Vec<usize> = (0..segments).map(|_| 1 + rng.usize(0..3)).collect();
            let refs: Vec<String> = counts
                .iter()
                .flat_map(|&c| (0..c).map(|_| random_line(&mut rng)).collect::<Vec<_>>())
                .collect();
            let mut offsets = vec![0];
            for c in &counts {
                offsets.push(offsets.last().unwrap() + c);
            }
            let hyp_strs: Vec<&str> = hyps.iter().map(String::as_str).collect();
            let ref_strs: Vec<&str> = refs.iter().map(String::as_str).collect();
            let view = RefsView {
                refs: &ref_strs,
                offsets: &offsets,
            };
            let (min_len, max_len) = (1 + rng.usize(0..3), 1 + rng.usize(0..4));
            // three calls: the direct path, preparing for the cache, the cached entry
            for _ in 0..3 {
                let got = rows(&hyp_strs, view, min_len, max_len).unwrap();
                for i in 0..segments {
                    let hyp: Vec<&str> = crate::text::py_split(&hyps[i]).collect();
                    let seg: Vec<Vec<&str>> = (offsets[i]..offsets[i + 1])
                        .map(|r| crate::text::py_split(&refs[r]).collect())
                        .collect();
                    let (tp, n_all) = nltk(&hyp, &seg, min_len, max_len);
                    assert_eq!((got[2 * i], got[2 * i + 1]), (tp, n_all), "segment {i}");
                }
            }
        }
        let view = RefsView {
            refs: &["a"],
            offsets: &[0, 1],
        };
        assert!(rows(&["a"], view, 1, 5).is_none());
    }
}
