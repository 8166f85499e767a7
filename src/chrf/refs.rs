//! chrF / chrF++ statistics against prepared references (issue 13).
//!
//! Decoding a reference into the code points chrF counts and splitting it
//! into words (with their string hashing) does not depend on the hypothesis.
//! [`ChrfRefs`] does it once for a batch (code points with whitespace removed
//! unless kept, word ids of one vocabulary), so that scoring many systems
//! against the same references ([`batch_stats_cached`] keeps them in a
//! [`RefCache`]) costs per system the hypotheses' own work and the clipped
//! matching. Where the orders and the references' alphabet fit, the
//! references are kept as sorted n-gram keys and each hypothesis's sorted
//! keys are merged with them ([`crate::chrf::sorted`]); otherwise the packed
//! kernel's hypothesis table stays in the cache while the prepared reference
//! ids stream past it. The best reference is chosen per segment by sentence
//! chrF as before; the rows equal [`crate::chrf::batch_stats`]'s.

use crate::chrf::sorted::{self, SortedRefs, SortedWorkspace};
use crate::chrf::{self, chrf_words, lane_bits, ChrfConfig, PreparedRef, Workspace};
use crate::common::refcache::{self, RefCache, RefsView, Vocab};
use crate::text::is_py_space;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// The prepared references of a batch for one whitespace rule (and with or
/// without words): the n-gram orders, beta and smoothing only enter the
/// matching, made per hypothesis.
pub struct ChrfRefs {
    words: Vocab,
    chars: Vec<u32>,
    char_ends: Vec<usize>,
    word_ids: Vec<u32>,
    word_ends: Vec<usize>,
    /// The references as sorted n-gram keys of `cfg`'s orders, when they fit
    /// (then the code points and word ids above are not kept).
    sorted: Option<SortedRefs>,
}

impl ChrfRefs {
    /// Decodes the references (the code points in parallel from
    /// [`crate::common::parallel::PARALLEL_MIN_SEGMENTS`] segments), numbers their words (with
    /// word orders) and makes their sorted n-gram keys of `cfg`'s orders
    /// where they fit ([`crate::chrf::sorted`]).
    pub fn prepare(refs: RefsView<'_>, cfg: &ChrfConfig) -> ChrfRefs {
        crate::common::parallel::install(|| {
            let (whitespace, with_words) = (cfg.whitespace, cfg.word_order > 0);
            let decode = |r: &&str| -> Vec<u32> {
                r.chars()
                    .filter(|&c| whitespace || !is_py_space(c))
                    .map(|c| c as u32)
                    .collect()
            };
            let decoded: Vec<Vec<u32>> =
                if refs.len() >= crate::common::parallel::PARALLEL_MIN_SEGMENTS {
                    refs.refs.par_iter().with_min_len(64).map(decode).collect()
                } else {
                    refs.refs.iter().map(decode).collect()
                };
            let mut chars = Vec::with_capacity(decoded.iter().map(Vec::len).sum());
            let mut char_ends = Vec::with_capacity(decoded.len());
            for d in &decoded {
                chars.extend_from_slice(d);
                char_ends.push(chars.len());
            }
            let mut vocab: FxHashMap<&str, u32> = FxHashMap::default();
            let mut word_ids = Vec::new();
            let mut word_ends = Vec::with_capacity(refs.refs.len());
            for r in refs.refs {
                if with_words {
                    for word in chrf_words(r) {
                        let next = vocab.len() as u32 + 1;
                        word_ids.push(*vocab.entry(word).or_insert(next));
                    }
                }
                word_ends.push(word_ids.len());
            }
            let mut prepared = ChrfRefs {
                words: Vocab::of_map(&vocab),
                chars,
                char_ends,
                word_ids,
                word_ends,
                sorted: None,
            };
            let count = refs.refs.len();
            let references: Vec<PreparedRef<'_>> =
                (0..count).map(|i| prepared.reference(i)).collect();
            let ref_chars: Vec<&[u32]> = references.iter().map(|r| r.chars).collect();
            let ref_words: Vec<&[u32]> = references.iter().map(|r| r.words).collect();
            let sorted = SortedRefs::prepare(&ref_chars, &ref_words, vocab.len(), cfg);
            if sorted.is_some() {
                prepared.sorted = sorted;
                prepared.chars = Vec::new();
                prepared.word_ids = Vec::new();
            }
            prepared
        })
    }

    pub fn bytes(&self) -> usize {
        self.words.bytes()
            + 4 * (self.chars.len() + self.word_ids.len())
            + 8 * (self.char_ends.len() + self.word_ends.len())
            + self.sorted.as_ref().map_or(0, SortedRefs::bytes)
    }

    /// Reference `index` of the flat reference list.
    fn reference(&self, index: usize) -> PreparedRef<'_> {
        let (c0, w0) = if index == 0 {
            (0, 0)
        } else {
            (self.char_ends[index - 1], self.word_ends[index - 1])
        };
        PreparedRef {
            chars: &self.chars[c0..self.char_ends[index]],
            words: &self.word_ids[w0..self.word_ends[index]],
        }
    }
}

/// chrF rows of `hyps` against prepared references (`refs`: the same
/// references as text, for hypotheses the packed keys cannot hold).
/// Row-major `(n, width)`.
pub fn batch_stats_prepared<H: AsRef<str> + Sync>(
    prepared: &ChrfRefs,
    hyps: &[H],
    refs: RefsView<'_>,
    cfg: &ChrfConfig,
) -> Vec<i64> {
    let width = cfg.row_width();
    let mut out = vec![0i64; hyps.len() * width];
    if width == 0 {
        return out;
    }
    if let Some(sorted) = &prepared.sorted {
        let one = |workspace: &mut SortedWorkspace, (index, row): (usize, &mut [i64])| {
            let range = refs.offsets[index]..refs.offsets[index + 1];
            sorted::segment_stats(
                workspace,
                sorted,
                &prepared.words,
                hyps[index].as_ref(),
                range,
                cfg,
                row,
            )
        };
        crate::common::parallel::fill_rows(&mut out, width, one);
        return out;
    }
    let one = |workspace: &mut Workspace, (index, row): (usize, &mut [i64])| {
        let range = refs.offsets[index]..refs.offsets[index + 1];
        let mut few: [PreparedRef<'_>; 4] = [PreparedRef {
            chars: &[],
            words: &[],
        }; 4];
        let many: Vec<PreparedRef<'_>>;
        let seg_refs: &[PreparedRef<'_>] = if range.len() <= 4 {
            for (slot, i) in few.iter_mut().zip(range.clone()) {
                *slot = prepared.reference(i);
            }
            &few[..range.len()]
        } else {
            many = range.map(|i| prepared.reference(i)).collect();
            &many
        };
        chrf::prepared_segment_stats_with(
            workspace,
            hyps[index].as_ref(),
            seg_refs,
            &prepared.words,
            refs.segment(index),
            cfg,
            row,
        )
    };
    crate::common::parallel::fill_rows(&mut out, width, one);
    out
}

static CACHE: RefCache<ChrfRefs> = RefCache::new();

/// The cache of prepared chrF references.
pub fn cache() -> &'static RefCache<ChrfRefs> {
    &CACHE
}

/// Prepared bytes per byte of reference text, roughly (for the budget check):
/// a sorted 8-byte key per character and per word, and the cache's copy of the text.
const GROWTH: usize = 12;

/// [`crate::chrf::batch_stats`] with the references prepared once they are seen
/// again and kept in the cache (see [`crate::common::refcache`]): the same rows. Small batches, more
/// than 64 orders of a kind, or references beyond the byte budget take the
/// uncached kernel.
pub fn batch_stats_cached<H: AsRef<str> + Sync>(
    hyps: &[H],
    refs: RefsView<'_>,
    cfg: &ChrfConfig,
) -> Vec<i64> {
    assert_eq!(hyps.len(), refs.len(), "one reference list per hypothesis");
    let lanes_fit = lane_bits(cfg.char_order) > 0 && lane_bits(cfg.word_order) > 0;
    if !lanes_fit || !refcache::worth_caching(refs.len(), refs.text_bytes(), GROWTH) {
        return chrf::batch_stats(hyps, &refs.segments(), cfg);
    }
    // the sorted keys depend on the orders (beta and smoothing only enter the matching)
    let options = format!(
        "chrf|space:{}|nc:{}|nw:{}",
        cfg.whitespace, cfg.char_order, cfg.word_order
    );
    let entry = CACHE.get_or_prepare(&options, refs, || {
        let prepared = ChrfRefs::prepare(refs, cfg);
        let bytes = prepared.bytes();
        (prepared, bytes)
    });
    match entry {
        Some(entry) => batch_stats_prepared(&entry.value, hyps, refs, cfg),
        None => chrf::batch_stats(hyps, &refs.segments(), cfg), // first sight: the direct kernel
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::refcache::flatten;

    fn config(char_order: usize, word_order: usize, whitespace: bool) -> ChrfConfig {
        ChrfConfig {
            char_order,
            word_order,
            whitespace,
            factor: 4.0,
            eps_smoothing: false,
        }
    }

    fn random_text(rng: &mut fastrand::Rng) -> String {
        let pieces = [
            "a", "b", "ab", "the", "cat", ".", ",a", "b!", "é", "日本", " ", "  ", "\u{3000}",
            "x-y",
        ];
        (0..rng.usize(0..25))
            .map(|_| pieces[rng.usize(0..pieces.len())])
            .collect::<Vec<_>>()
            .join(if rng.bool() { " " } else { "" })
    }

    #[test]
    fn prepared_rows_equal_the_uncached_kernel() {
        let mut rng = fastrand::Rng::with_seed(11);
        for (char_order, word_order, whitespace) in [
            (6, 0, false),
            (6, 2, false),
            (6, 2, true),
            (1, 0, false),
            (0, 3, false),
            (3, 1, true),
            (12, 2, false),
        ] {
            let mut cfg = config(char_order, word_order, whitespace);
            for eps_smoothing in [false, true] {
                cfg.eps_smoothing = eps_smoothing;
                let hyps: Vec<String> = (0..120).map(|_| random_text(&mut rng)).collect();
                let refs: Vec<Vec<String>> = (0..120)
                    .map(|_| {
                        (0..rng.usize(1..4))
                            .map(|_| random_text(&mut rng))
                            .collect()
                    })
                    .collect();
                let expected = chrf::batch_stats(&hyps, &refs, &cfg);
                let (flat, offsets) = flatten(&refs);
                let view = RefsView {
                    refs: &flat,
                    offsets: &offsets,
                };
                let prepared = ChrfRefs::prepare(view, &cfg);
                // the sorted keys up to 8 orders, the per-hypothesis tables beyond
                assert_eq!(prepared.sorted.is_some(), char_order <= 8, "{cfg:?}");
                assert_eq!(
                    batch_stats_prepared(&prepared, &hyps, view, &cfg),
                    expected,
                    "{cfg:?}"
                );
                assert_eq!(batch_stats_cached(&hyps, view, &cfg), expected, "{cfg:?}");
            }
        }
    }

    #[test]
    fn large_alphabets_fall_back_per_segment() {
        // 2,000 distinct characters in a hypothesis do not fit 10-bit lanes (char_order 6)
        let wide: String = (0..2000u32)
            .map(|i| char::from_u32(0x4e00 + i).unwrap())
            .collect();
        let hyps = vec![wide.clone(), "ab ba".into()];
        let refs = vec![
            vec![wide.chars().take(50).collect::<String>()],
            vec!["abba".to_string()],
        ];
        let cfg = config(6, 2, false);
        let (flat, offsets) = flatten(&refs);
        let view = RefsView {
            refs: &flat,
            offsets: &offsets,
        };
        let prepared = ChrfRefs::prepare(view, &cfg);
        // the references' 50 + 3 characters fit the sorted keys; the hypothesis's others are unknown
        assert!(prepared.sorted.is_some());
        assert_eq!(
            batch_stats_prepared(&prepared, &hyps, view, &cfg),
            chrf::batch_stats(&hyps, &refs, &cfg)
        );
    }

    #[test]
    fn references_beyond_the_sorted_lanes_keep_the_per_hypothesis_path() {
        // 2,000 distinct reference characters do not fit 10-bit lanes (char_order 6): the
        // references keep their code points and each hypothesis its own alphabet
        let wide: String = (0..2000u32)
            .map(|i| char::from_u32(0x4e00 + i).unwrap())
            .collect();
        let hyps = vec![
            wide.chars().rev().take(70).collect::<String>(),
            "ab ba".into(),
        ];
        let refs = vec![vec![wide.clone(), "x".into()], vec!["abba".to_string()]];
        for (char_order, word_order) in [(6, 2), (2, 0)] {
            let cfg = config(char_order, word_order, false);
            let (flat, offsets) = flatten(&refs);
            let view = RefsView {
                refs: &flat,
                offsets: &offsets,
            };
            let prepared = ChrfRefs::prepare(view, &cfg);
            // with 2 orders the lanes hold 32 bits: any alphabet fits
            assert_eq!(prepared.sorted.is_some(), char_order == 2);
            assert_eq!(
                batch_stats_prepared(&prepared, &hyps, view, &cfg),
                chrf::batch_stats(&hyps, &refs, &cfg)
            );
        }
    }
}
