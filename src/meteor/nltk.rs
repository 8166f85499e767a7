//! NLTK's METEOR (`nltk.translate.meteor_score`): greedy exact, stem and WordNet
//! synonym stages, each matching hypothesis words from the last one backwards to
//! the last still-unmatched reference word with the same key.
//!
//! Words, stems and synonyms arrive as integer ids interned by the caller. Each
//! stage follows chains of reference positions per key instead of NLTK's nested
//! scan, so a pair costs O(words + synonyms), never O(n·m).

use rustc_hash::FxHashMap;

/// The tables NLTK's matching consults, indexed by word id.
pub struct Lexicon<'a> {
    /// Porter stem id of each (lowercased) word id.
    pub stem_of: &'a [u32],
    /// Synonym ids of each stem id (lemma names of its synsets plus itself).
    pub synonyms_of: &'a [&'a [u32]],
}

/// Counts for one hypothesis–reference pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairCounts {
    pub hyp_len: usize,
    pub ref_len: usize,
    pub matches: usize,
    pub chunks: usize,
}

/// No position (end of a chain of reference positions).
const NONE: u32 = u32::MAX;

/// The key a matched reference word gets in scanning mode (no id is this large).
pub const TAKEN: u32 = u32::MAX;

/// Up to this many (hypothesis × reference) words, a stage scans like NLTK
/// (fast for sentences); beyond, it follows chains of positions (linear).
const SCAN_PAIRS: usize = 4096;

/// Buffers reused from pair to pair.
#[derive(Default)]
pub struct Scratch {
    hyp_key: Vec<u32>,
    ref_key: Vec<u32>,
    hyp_used: Vec<bool>,
    ref_used: Vec<bool>,
    matches: Vec<(usize, usize)>,
    /// key -> highest unmatched reference position with that key
    last: FxHashMap<u32, u32>,
    /// reference position -> next lower unmatched position with the same key
    below: Vec<u32>,
}

impl Scratch {
    /// One greedy stage over the unmatched positions with the current keys: each
    /// unmatched hypothesis word, from the last, takes the last unmatched
    /// reference word whose key equals its own or, given `synonyms`, one of its
    /// synonyms.
    fn stage(&mut self, synonyms: Option<&[&[u32]]>) {
        if self.hyp_key.len() * self.ref_key.len() <= SCAN_PAIRS {
            self.scan(synonyms);
        } else {
            self.chains(synonyms);
        }
    }

    fn take(&mut self, i: usize, j: usize) {
        self.ref_used[j] = true;
        self.ref_key[j] = TAKEN;
        self.hyp_used[i] = true;
        self.matches.push((i, j));
    }

    /// NLTK's nested scan (matched reference words hold the key `TAKEN`).
    fn scan(&mut self, synonyms: Option<&[&[u32]]>) {
        for i in (0..self.hyp_key.len()).rev() {
            if self.hyp_used[i] {
                continue;
            }
            let key = self.hyp_key[i];
            let single = [key];
            let candidates: &[u32] = match synonyms {
                None => &single,
                Some(table) => table[key as usize],
            };
            let mut best: Option<usize> = None;
            for &cand in candidates {
                if let Some(j) = self.ref_key.iter().rposition(|&k| k == cand) {
                    if best.is_none_or(|b| j > b) {
                        best = Some(j);
                    }
                }
            }
            if let Some(j) = best {
                self.take(i, j);
            }
        }
    }

    /// Chains of reference positions per key find the same word at once.
    fn chains(&mut self, synonyms: Option<&[&[u32]]>) {
        self.last.clear();
        self.below.clear();
        self.below.resize(self.ref_key.len(), NONE);
        for j in 0..self.ref_key.len() {
            if !self.ref_used[j] {
                self.below[j] = self.last.insert(self.ref_key[j], j as u32).unwrap_or(NONE);
            }
        }
        for i in (0..self.hyp_key.len()).rev() {
            if self.hyp_used[i] {
                continue;
            }
            let key = self.hyp_key[i];
            let single = [key];
            let candidates: &[u32] = match synonyms {
                None => &single,
                Some(table) => table[key as usize],
            };
            let mut best: Option<(u32, u32)> = None;
            for &cand in candidates {
                if let Some(&top) = self.last.get(&cand) {
                    if top != NONE && best.is_none_or(|(_, j)| top > j) {
                        best = Some((cand, top));
                    }
                }
            }
            if let Some((cand, j)) = best {
                self.last.insert(cand, self.below[j as usize]);
                self.take(i, j as usize);
            }
        }
    }
}

/// Aligns one pair of word-id sequences as NLTK's `_enum_align_words` does.
pub fn align(hyp: &[u32], reference: &[u32], lex: &Lexicon, s: &mut Scratch) -> PairCounts {
    s.hyp_key.clear();
    s.hyp_key.extend_from_slice(hyp);
    s.ref_key.clear();
    s.ref_key.extend_from_slice(reference);
    s.hyp_used.clear();
    s.hyp_used.resize(hyp.len(), false);
    s.ref_used.clear();
    s.ref_used.resize(reference.len(), false);
    s.matches.clear();
    s.stage(None);
    // the stem and synonym stages see the Porter stems of the words still unmatched
    for (k, &w) in s.hyp_key.iter_mut().zip(hyp) {
        *k = lex.stem_of[w as usize];
    }
    for (j, k) in s.ref_key.iter_mut().enumerate() {
        if !s.ref_used[j] {
            *k = lex.stem_of[reference[j] as usize];
        }
    }
    s.stage(None);
    s.stage(Some(lex.synonyms_of));

    s.matches.sort_unstable();
    let chunks = 1 + s
        .matches
        .windows(2)
        .filter(|w| !(w[1].0 == w[0].0 + 1 && w[1].1 == w[0].1 + 1))
        .count();
    PairCounts {
        hyp_len: hyp.len(),
        ref_len: reference.len(),
        matches: s.matches.len(),
        chunks,
    }
}

/// NLTK's `single_meteor_score` from the counts, with the same operations in the
/// same order (0.0 where NLTK catches a ZeroDivisionError).
pub fn score(c: &PairCounts, alpha: f64, beta: f64, gamma: f64) -> f64 {
    if c.hyp_len == 0 || c.ref_len == 0 || c.matches == 0 {
        return 0.0;
    }
    let m = c.matches as f64;
    let precision = m / c.hyp_len as f64;
    let recall = m / c.ref_len as f64;
    let denominator = alpha * precision + (1.0 - alpha) * recall;
    if denominator == 0.0 {
        return 0.0;
    }
    let fmean = (precision * recall) / denominator;
    let frag = c.chunks as f64 / m;
    let penalty = gamma * frag.powf(beta);
    (1.0 - penalty) * fmean
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lexicon(n: usize) -> (Vec<u32>, Vec<Vec<u32>>) {
        (
            (0..n as u32).collect(),
            (0..n as u32).map(|i| vec![i]).collect(),
        )
    }

    fn slices(v: &[Vec<u32>]) -> Vec<&[u32]> {
        v.iter().map(|s| s.as_slice()).collect()
    }

    #[test]
    fn exact_matches_latest_reference_word() {
        let (stem_of, synonyms_of) = lexicon(4);
        let synonyms_of = slices(&synonyms_of);
        let lex = Lexicon {
            stem_of: &stem_of,
            synonyms_of: &synonyms_of,
        };
        // hyp: a b a ; ref: a a b
        let c = align(&[0, 1, 0], &[0, 0, 1], &lex, &mut Scratch::default());
        assert_eq!(c.matches, 3);
        // last hyp a -> ref 1, b -> ref 2, first a -> ref 0: (0,0) (1,2) (2,1)
        assert_eq!(c.chunks, 3);
    }

    #[test]
    fn stems_and_synonyms() {
        // words 0 "cats", 1 "cat", 2 "feline"; stems: 0->1, 1->1, 2->2; syn(1) = {1, 2}
        let stem_of = vec![1, 1, 2];
        let synonyms_of = vec![vec![0], vec![1, 2], vec![2]];
        let synonyms_of = slices(&synonyms_of);
        let lex = Lexicon {
            stem_of: &stem_of,
            synonyms_of: &synonyms_of,
        };
        let c = align(&[0, 1], &[1, 2], &lex, &mut Scratch::default());
        assert_eq!((c.matches, c.chunks), (2, 2));
    }

    /// NLTK's nested scan, literally.
    fn naive(hyp: &[u32], reference: &[u32], synonyms: Option<&[&[u32]]>) -> Vec<(usize, usize)> {
        let mut used = vec![false; reference.len()];
        let mut out = Vec::new();
        for (i, &key) in hyp.iter().enumerate().rev() {
            for (j, &r) in reference.iter().enumerate().rev() {
                let hit = match synonyms {
                    None => r == key,
                    Some(table) => table[key as usize].contains(&r),
                };
                if !used[j] && hit {
                    used[j] = true;
                    out.push((i, j));
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn chains_agree_with_nltk_scan() {
        let mut state = 12345u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % m) as u32
        };
        let table: Vec<Vec<u32>> = (0..8)
            .map(|k| (0..next(4)).map(|_| next(8)).chain([k]).collect())
            .collect();
        let table = slices(&table);
        let mut s = Scratch::default();
        for _ in 0..1000 {
            let hyp: Vec<u32> = (0..next(12)).map(|_| next(8)).collect();
            let reference: Vec<u32> = (0..next(12)).map(|_| next(8)).collect();
            for synonyms in [None, Some(table.as_slice())] {
                let expected = naive(&hyp, &reference, synonyms);
                for chains in [false, true] {
                    s.hyp_key = hyp.clone();
                    s.ref_key = reference.clone();
                    s.hyp_used = vec![false; hyp.len()];
                    s.ref_used = vec![false; reference.len()];
                    s.matches.clear();
                    if chains {
                        s.chains(synonyms);
                    } else {
                        s.scan(synonyms);
                    }
                    assert_eq!(s.matches, expected);
                }
            }
        }
    }

    #[test]
    fn nltk_worked_example() {
        // NLTK's docstring example aligns 12 words in 6 chunks and scores 0.6944
        let c = PairCounts {
            hyp_len: 18,
            ref_len: 16,
            matches: 12,
            chunks: 6,
        };
        assert!((score(&c, 0.9, 3.0, 0.5) - 0.6944).abs() < 5e-5);
        let none = PairCounts {
            hyp_len: 3,
            ref_len: 4,
            matches: 0,
            chunks: 1,
        };
        assert_eq!(score(&none, 0.9, 3.0, 0.5), 0.0);
    }
}
