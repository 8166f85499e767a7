//! NLTK's METEOR (`nltk.translate.meteor_score`): greedy exact, stem and WordNet
//! synonym stages, each matching hypothesis words from the last one backwards to
//! the last still-unmatched reference word with the same key.
//!
//! Words, stems and synonyms arrive as integer ids interned by the caller; every
//! stage is a hash lookup, so a pair costs O(words + synonyms), never O(n·m).

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

/// One greedy stage over the still-unmatched positions: returns (hyp, ref) pairs.
/// Keys match themselves, or any of their `synonyms` when given.
fn greedy_stage(
    hyp_keys: &[(usize, u32)],
    ref_keys: &[(usize, u32)],
    synonyms: Option<&[&[u32]]>,
) -> Vec<(usize, usize)> {
    // reference positions grouped by key, ascending; `ends[g]` shrinks as they are taken
    let mut sorted: Vec<(u32, usize)> = ref_keys.iter().map(|&(j, k)| (k, j)).collect();
    sorted.sort_unstable();
    let mut groups: Vec<(u32, usize)> = Vec::new();
    for (g, &(k, _)) in sorted.iter().enumerate() {
        if groups.last().is_none_or(|&(key, _)| key != k) {
            groups.push((k, g));
        }
    }
    let mut ends: Vec<usize> = groups
        .iter()
        .enumerate()
        .map(|(g, _)| groups.get(g + 1).map_or(sorted.len(), |&(_, s)| s))
        .collect();
    let find = |key: u32| groups.binary_search_by_key(&key, |&(k, _)| k).ok();
    let mut out = Vec::new();
    for &(i, key) in hyp_keys.iter().rev() {
        let single = [key];
        let candidates: &[u32] = match synonyms {
            None => &single,
            Some(table) => table[key as usize],
        };
        let mut best: Option<(usize, usize)> = None;
        for &cand in candidates {
            if let Some(g) = find(cand) {
                if ends[g] > groups[g].1 {
                    let top = sorted[ends[g] - 1].1;
                    if best.is_none_or(|(_, j)| top > j) {
                        best = Some((g, top));
                    }
                }
            }
        }
        if let Some((g, j)) = best {
            ends[g] -= 1;
            out.push((i, j));
        }
    }
    out
}

fn unmatched(keys: &[(usize, u32)], used: &[bool]) -> Vec<(usize, u32)> {
    keys.iter().copied().filter(|&(p, _)| !used[p]).collect()
}

/// Aligns one pair of word-id sequences as NLTK's `_enum_align_words` does.
pub fn align(hyp: &[u32], reference: &[u32], lex: &Lexicon) -> PairCounts {
    let mut hyp_used = vec![false; hyp.len()];
    let mut ref_used = vec![false; reference.len()];
    let mut matches: Vec<(usize, usize)> = Vec::new();
    let mut record = |found: Vec<(usize, usize)>, hu: &mut Vec<bool>, ru: &mut Vec<bool>| {
        for &(i, j) in &found {
            hu[i] = true;
            ru[j] = true;
        }
        matches.extend(found);
    };

    let hyp_words: Vec<(usize, u32)> = hyp.iter().copied().enumerate().collect();
    let ref_words: Vec<(usize, u32)> = reference.iter().copied().enumerate().collect();
    let exact = greedy_stage(&hyp_words, &ref_words, None);
    record(exact, &mut hyp_used, &mut ref_used);

    let stems = |keys: Vec<(usize, u32)>| -> Vec<(usize, u32)> {
        keys.into_iter()
            .map(|(p, w)| (p, lex.stem_of[w as usize]))
            .collect()
    };
    let hyp_stems = stems(unmatched(&hyp_words, &hyp_used));
    let ref_stems = stems(unmatched(&ref_words, &ref_used));
    let stem = greedy_stage(&hyp_stems, &ref_stems, None);
    record(stem, &mut hyp_used, &mut ref_used);

    // the synonym stage sees the stems of the words still unmatched
    let hyp_left = unmatched(&hyp_stems, &hyp_used);
    let ref_left = unmatched(&ref_stems, &ref_used);
    let synonym = greedy_stage(&hyp_left, &ref_left, Some(lex.synonyms_of));
    record(synonym, &mut hyp_used, &mut ref_used);

    matches.sort_unstable();
    let chunks = if matches.is_empty() {
        1
    } else {
        1 + matches
            .windows(2)
            .filter(|w| !(w[1].0 == w[0].0 + 1 && w[1].1 == w[0].1 + 1))
            .count()
    };
    PairCounts {
        hyp_len: hyp.len(),
        ref_len: reference.len(),
        matches: matches.len(),
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
        let c = align(&[0, 1, 0], &[0, 0, 1], &lex);
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
        let c = align(&[0, 1], &[1, 2], &lex);
        assert_eq!((c.matches, c.chunks), (2, 2));
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
