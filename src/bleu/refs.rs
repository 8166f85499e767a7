//! BLEU statistics against prepared references (issue 13).
//!
//! Tokenising the references is most of what the text BLEU kernel does for
//! them, and it does not depend on the hypothesis. [`BleuRefs`] tokenises a
//! batch's references once into ids of one vocabulary, so that scoring many
//! systems against the same references ([`text_batch_stats_cached`] keeps them
//! in a [`RefCache`]) costs per system the hypotheses' tokenisation, one
//! vocabulary look-up per hypothesis token, and the clipped counts of
//! [`PackedTable`] (hypothesis n-grams in a small table that stays in the
//! cache, the reference ids streamed past it).
//!
//! Ids are packed 16 bits a lane, so a vocabulary of 65,534 reference tokens
//! or more (hypothesis tokens outside it share one id that no reference has)
//! is not prepared: such batches take the uncached kernel. The rows equal
//! [`crate::bleu::ngram::text_batch_stats`]'s.

use crate::bleu::ngram::{self, closest_length, row_width, PackedTable, LENGTH_COLUMNS};
use crate::common::refcache::{self, RefCache, RefsView, Vocab};
use crate::text::Tokenizer;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::borrow::Cow;

/// Largest order a packed key holds.
const MAX_ORDER: usize = 4;
/// The lane id of every hypothesis token the references lack (no reference id is).
const ABSENT: u32 = 0xFFFE;

/// The prepared references of a batch for one tokenizer.
pub struct BleuRefs {
    vocab: Vocab,
    /// Token ids (from 0) of every reference, one after the other.
    ids: Vec<u32>,
    /// End of each reference in `ids`.
    ends: Vec<usize>,
}

impl BleuRefs {
    /// Tokenises the references (in parallel from [`crate::common::parallel::PARALLEL_MIN_SEGMENTS`]
    /// references); `None` when the vocabulary does not fit the key lanes.
    pub fn prepare(refs: RefsView<'_>, tok: Tokenizer) -> Option<BleuRefs> {
        let lines = refs.refs.len();
        let chunks = if lines >= crate::common::parallel::PARALLEL_MIN_SEGMENTS {
            crate::common::parallel::current_num_threads()
                .min(lines / crate::common::parallel::PARALLEL_MIN_SEGMENTS)
        } else {
            1
        };
        BleuRefs::prepare_in_chunks(refs, tok, chunks.max(1))
    }

    /// [`BleuRefs::prepare`] with the references cut into `chunks` runs of lines,
    /// each tokenised and given local ids on its own (in parallel); the local
    /// vocabularies are then merged in order, so every token gets the id a single
    /// pass over all lines would give it (first seen, first numbered), and each
    /// run's ids are translated to those.
    fn prepare_in_chunks(refs: RefsView<'_>, tok: Tokenizer, chunks: usize) -> Option<BleuRefs> {
        crate::common::parallel::install(|| {
            let per_chunk = refs.refs.len().div_ceil(chunks).max(1);
            let lines: Vec<Vec<Cow<'_, str>>> = refs
                .refs
                .par_chunks(per_chunk)
                .map(|run| run.iter().map(|r| ngram::prepare(tok, r)).collect())
                .collect();
            let mut runs: Vec<Interned<'_>> =
                lines.par_iter().map(|run| intern(tok, run)).collect();
            let mut vocab = runs
                .first_mut()
                .map(|first| std::mem::take(&mut first.vocab))
                .unwrap_or_default();
            let mut translations = vec![Vec::new()];
            for run in runs.iter().skip(1) {
                // the run's tokens in the order of their local ids (0, 1, ...)
                let mut in_order = vec![""; run.vocab.len()];
                for (&token, &id) in &run.vocab {
                    in_order[id as usize] = token;
                }
                let translation = in_order
                    .iter()
                    .map(|&token| {
                        let next = vocab.len() as u32;
                        *vocab.entry(token).or_insert(next)
                    })
                    .collect();
                translations.push(translation);
            }
            if vocab.len() >= ABSENT as usize {
                return None;
            }
            runs.par_iter_mut()
                .zip(&translations)
                .skip(1)
                .for_each(|(run, translation)| {
                    for id in &mut run.ids {
                        *id = translation[*id as usize];
                    }
                });
            let mut ids = Vec::with_capacity(runs.iter().map(|run| run.ids.len()).sum());
            let mut ends = Vec::with_capacity(refs.refs.len());
            for run in &runs {
                let base = ids.len();
                ids.extend_from_slice(&run.ids);
                ends.extend(run.ends.iter().map(|end| base + end));
            }
            // Vocab ids start at 1 (0: absent)
            let numbered = vocab.iter().map(|(&token, &id)| (token, id + 1));
            Some(BleuRefs {
                vocab: Vocab::of(numbered),
                ids,
                ends,
            })
        })
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.vocab.bytes() + 4 * self.ids.len() + 8 * self.ends.len()
    }

    /// The token ids of reference `index` (of the flat reference list).
    fn reference(&self, index: usize) -> &[u32] {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        &self.ids[start..self.ends[index]]
    }
}

/// One run of reference lines with ids local to it (from 0, first seen first).
struct Interned<'a> {
    vocab: FxHashMap<&'a str, u32>,
    ids: Vec<u32>,
    /// End of each line in `ids`.
    ends: Vec<usize>,
}

fn intern<'a>(tok: Tokenizer, lines: &'a [Cow<'a, str>]) -> Interned<'a> {
    let mut run = Interned {
        vocab: FxHashMap::default(),
        ids: Vec::with_capacity(lines.iter().map(|line| line.len()).sum::<usize>() / 4),
        ends: Vec::with_capacity(lines.len()),
    };
    for line in lines {
        ngram::for_each_token(tok, line, |token| {
            let next = run.vocab.len() as u32;
            run.ids.push(*run.vocab.entry(token).or_insert(next));
        });
        run.ends.push(run.ids.len());
    }
    run
}

/// Buffers of one worker.
#[derive(Default)]
struct Scratch {
    table: PackedTable,
    hyp_ids: Vec<u32>,
}

fn segment_stats(
    scratch: &mut Scratch,
    prepared: &BleuRefs,
    refs: std::ops::Range<usize>,
    tok: Tokenizer,
    hyp: &str,
    max_order: usize,
    row: &mut [i64],
) {
    let line = ngram::prepare(tok, hyp);
    let Scratch { table, hyp_ids } = scratch;
    hyp_ids.clear();
    ngram::for_each_token(tok, &line, |token| {
        hyp_ids.push(prepared.vocab.get(token).wrapping_sub(1).min(ABSENT));
    });
    let mut ref_slices: [&[u32]; 4] = [&[]; 4];
    let many: Vec<&[u32]>;
    let ref_slices: &[&[u32]] = if refs.len() <= 4 {
        for (slot, index) in ref_slices.iter_mut().zip(refs.clone()) {
            *slot = prepared.reference(index);
        }
        &ref_slices[..refs.len()]
    } else {
        many = refs.map(|index| prepared.reference(index)).collect();
        &many
    };
    let len = hyp_ids.len();
    let lens = ref_slices.iter().map(|r| r.len());
    row[0] = len as i64;
    row[1] = closest_length(len, lens.clone()) as i64;
    row[2] = lens.min().unwrap_or(0) as i64;
    let (correct, total) = row[LENGTH_COLUMNS..].split_at_mut(max_order);
    table.clipped_counts(hyp_ids, ref_slices, max_order, correct, total);
}

/// BLEU rows of `hyps` against prepared references (`offsets`: segment `i`
/// has references `offsets[i]..offsets[i + 1]`). Row-major `(n, width)`.
pub fn text_batch_stats_prepared<H: AsRef<str> + Sync>(
    prepared: &BleuRefs,
    hyps: &[H],
    offsets: &[usize],
    tok: Tokenizer,
    max_order: usize,
) -> Vec<i64> {
    assert!((1..=MAX_ORDER).contains(&max_order));
    let width = row_width(max_order);
    let mut out = vec![0i64; hyps.len() * width];
    let one = |scratch: &mut Scratch, (index, row): (usize, &mut [i64])| {
        segment_stats(
            scratch,
            prepared,
            offsets[index]..offsets[index + 1],
            tok,
            hyps[index].as_ref(),
            max_order,
            row,
        )
    };
    crate::common::parallel::fill_rows(&mut out, width, one);
    out
}

static CACHE: RefCache<Option<BleuRefs>> = RefCache::new();

/// The cache of prepared BLEU references.
pub fn cache() -> &'static RefCache<Option<BleuRefs>> {
    &CACHE
}

/// Prepared bytes per byte of reference text, roughly (for the budget check
/// before preparing).
const GROWTH: usize = 4;

/// [`crate::bleu::ngram::text_batch_stats`] with the references prepared once they
/// are seen again and kept in the cache (see [`crate::common::refcache`]): the same
/// rows. The first sight of a reference set, small batches,
/// `max_order > 4`, references beyond the byte budget or with too large a
/// vocabulary take the uncached kernel.
pub fn text_batch_stats_cached<H: AsRef<str> + Sync>(
    hyps: &[H],
    refs: RefsView<'_>,
    tok: Tokenizer,
    max_order: usize,
) -> Vec<i64> {
    assert_eq!(hyps.len(), refs.len(), "one reference list per hypothesis");
    if (1..=MAX_ORDER).contains(&max_order)
        && refcache::worth_caching(refs.len(), refs.text_bytes(), GROWTH)
    {
        // n-gram orders do not change the tokens: one entry serves every max_order
        let options = format!("bleu|{tok:?}");
        let entry = CACHE.get_or_prepare(&options, refs, || {
            let prepared = BleuRefs::prepare(refs, tok);
            let bytes = prepared.as_ref().map_or(0, BleuRefs::bytes);
            (prepared, bytes)
        });
        if let Some(prepared) = entry.as_ref().and_then(|entry| entry.value.as_ref()) {
            return text_batch_stats_prepared(prepared, hyps, refs.offsets, tok, max_order);
        }
    }
    ngram::text_batch_stats(hyps, &refs.segments(), tok, max_order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::refcache::flatten;

    fn random_text(rng: &mut fastrand::Rng, words: &[&str]) -> String {
        let n = rng.usize(0..30);
        (0..n)
            .map(|_| words[rng.usize(0..words.len())])
            .collect::<Vec<_>>()
            .join(if rng.bool() { " " } else { "  " })
    }

    #[test]
    fn prepared_rows_equal_the_uncached_kernel() {
        let words = [
            "a", "b", "c", "the", "cat", "1.5", "x,y", "-", "1-2", "&amp;", "é", "日本", "a.",
            "\u{a0}",
        ];
        let mut rng = fastrand::Rng::with_seed(7);
        for tok in [
            Tokenizer::Mteval13a,
            Tokenizer::International,
            Tokenizer::Character,
            Tokenizer::WhitespaceOnly,
            Tokenizer::Chinese,
        ] {
            for max_order in 1..=4 {
                let hyps: Vec<String> = (0..150).map(|_| random_text(&mut rng, &words)).collect();
                let refs: Vec<Vec<String>> = (0..150)
                    .map(|_| {
                        (0..rng.usize(1..7))
                            .map(|_| random_text(&mut rng, &words))
                            .collect()
                    })
                    .collect();
                let expected = ngram::text_batch_stats(&hyps, &refs, tok, max_order);
                let (flat, offsets) = flatten(&refs);
                let view = RefsView {
                    refs: &flat,
                    offsets: &offsets,
                };
                let prepared = BleuRefs::prepare(view, tok).unwrap();
                assert_eq!(
                    text_batch_stats_prepared(&prepared, &hyps, &offsets, tok, max_order),
                    expected,
                    "{tok:?} {max_order}"
                );
                assert_eq!(
                    text_batch_stats_cached(&hyps, view, tok, max_order),
                    expected
                );
                // a few segments: the sequential paths
                let small = RefsView {
                    refs: &flat[..offsets[3]],
                    offsets: &offsets[..4],
                };
                let prepared = BleuRefs::prepare(small, tok).unwrap();
                assert_eq!(
                    text_batch_stats_prepared(&prepared, &hyps[..3], &offsets[..4], tok, max_order),
                    expected[..3 * row_width(max_order)]
                );
            }
        }
    }

    #[test]
    fn chunked_preparation_numbers_tokens_as_one_pass_does() {
        let words = ["a", "b", "the", "cat", "1.5", "x,y", "é", "日本", "a."];
        let mut rng = fastrand::Rng::with_seed(11);
        let refs: Vec<Vec<String>> = (0..300)
            .map(|_| {
                (0..rng.usize(1..4))
                    .map(|_| random_text(&mut rng, &words))
                    .collect()
            })
            .collect();
        let (flat, offsets) = flatten(&refs);
        let view = RefsView {
            refs: &flat,
            offsets: &offsets,
        };
        for tok in [Tokenizer::Mteval13a, Tokenizer::Character] {
            let one = BleuRefs::prepare_in_chunks(view, tok, 1).unwrap();
            for chunks in [2, 3, 7, flat.len(), flat.len() + 5] {
                let many = BleuRefs::prepare_in_chunks(view, tok, chunks).unwrap();
                assert_eq!(many.ids, one.ids, "{tok:?} {chunks}");
                assert_eq!(many.ends, one.ends, "{tok:?} {chunks}");
                for token in words {
                    assert_eq!(many.vocab.get(token), one.vocab.get(token), "{token}");
                }
            }
        }
        let empty = RefsView {
            refs: &[],
            offsets: &[0],
        };
        let prepared = BleuRefs::prepare_in_chunks(empty, Tokenizer::Mteval13a, 2).unwrap();
        assert!(prepared.ids.is_empty() && prepared.ends.is_empty());
    }

    #[test]
    fn cached_calls_equal_uncached_ones_and_reuse_the_entry() {
        let refs: Vec<Vec<String>> = (0..100)
            .map(|i| vec![format!("the cat {i} sat on the mat , twice {}", i % 7)])
            .collect();
        let (flat, offsets) = flatten(&refs);
        let view = RefsView {
            refs: &flat,
            offsets: &offsets,
        };
        let _guard = refcache::TEST_LIMITS
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let before = cache().info().hits;
        for system in 0..3 {
            let hyps: Vec<String> = (0..100)
                .map(|i| format!("a cat {} sat on the mat {system}", i % 9))
                .collect();
            for max_order in [4, 2] {
                let expected =
                    ngram::text_batch_stats(&hyps, &refs, Tokenizer::Mteval13a, max_order);
                assert_eq!(
                    text_batch_stats_cached(&hyps, view, Tokenizer::Mteval13a, max_order),
                    expected
                );
            }
        }
        assert!(cache().info().hits >= before + 4);
    }

    #[test]
    fn too_large_a_vocabulary_is_not_prepared() {
        let long: String = (0..70_000).map(|i| format!("w{i} ")).collect();
        let mut hyps = vec!["w1 w2 w3 x".to_string()];
        let mut refs = vec![vec![long]];
        for i in 0..70 {
            hyps.push(format!("a b {i}"));
            refs.push(vec!["a b c".to_string()]);
        }
        let expected = ngram::text_batch_stats(&hyps, &refs, Tokenizer::WhitespaceOnly, 4);
        let (flat, offsets) = flatten(&refs);
        let view = RefsView {
            refs: &flat,
            offsets: &offsets,
        };
        assert!(BleuRefs::prepare(view, Tokenizer::WhitespaceOnly).is_none());
        for chunks in [1, 2, 5] {
            // the large line alone in its run, or merged into the others
            assert!(BleuRefs::prepare_in_chunks(view, Tokenizer::WhitespaceOnly, chunks).is_none());
        }
        assert_eq!(
            text_batch_stats_cached(&hyps, view, Tokenizer::WhitespaceOnly, 4),
            expected
        );
    }
}
