//! chrF / chrF++ matches by merging sorted n-gram keys (issue 13).
//!
//! With the references prepared once for many systems ([`crate::chrf::refs`]),
//! every symbol gets an id of one alphabet built from the references (a
//! character or word the references lack gets one shared "unknown" id). Each
//! position of a symbol sequence then has one key: the ids of the `order`
//! symbols from it packed into a `u64`, first symbol in the highest lane, so
//! that sorted keys list every n-gram's occurrences together for all orders
//! at once (those sharing their first `n` lanes form one run). The references'
//! sorted keys are made once; per hypothesis its keys are sorted (no hash
//! table, no clearing) and merged with each reference's: the clipped matches
//! of order `n` are `min(hyp, ref)` summed over the runs of equal first `n`
//! lanes.
//!
//! Positions with fewer than `order` symbols left are padded: with 0 on the
//! hypothesis side and with the largest lane value on the reference side, and
//! the unknown id is never a reference symbol, so a run holding both sides at
//! order `n` only holds real n-grams both have. The rows equal
//! [`crate::chrf::batch_stats`]'s.

use crate::chrf::{fill_candidate, for_each_chrf_word, keep_if_best, lane_bits, ChrfConfig};
use crate::common::refcache::{token_hash, Vocab};
use crate::text::is_py_space;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Largest order of either kind the sorted path handles (fixed-size run counters).
pub const MAX_ORDER: usize = 8;

/// An ASCII character chrF removes (whitespace), in the ASCII id table.
const SKIP: u32 = u32::MAX;

/// The layout of the keys of one kind (characters or words).
#[derive(Clone, Copy, Debug)]
pub struct KeyLayout {
    order: usize,
    lane: u32,
    /// The id of a symbol the references lack.
    unknown: u32,
    /// The padding of reference keys (the largest lane value).
    ref_pad: u32,
}

impl KeyLayout {
    /// The layout for `order` and an alphabet of `symbols` ids (from 1), or
    /// `None` when the orders or the alphabet do not fit the packed keys.
    fn new(order: usize, symbols: usize) -> Option<KeyLayout> {
        if order == 0 || order > MAX_ORDER {
            return None;
        }
        let lane = lane_bits(order);
        let largest = if lane >= 32 {
            u64::from(u32::MAX)
        } else {
            (1u64 << lane) - 1
        };
        // ids 1..=symbols, the unknown id, and the reference padding, all distinct
        if lane == 0 || (symbols as u64) + 1 >= largest {
            return None;
        }
        Some(KeyLayout {
            order,
            lane,
            unknown: symbols as u32 + 1,
            ref_pad: largest as u32,
        })
    }

    /// Appends the key of every position of `ids` (padded with `pad`), sorted.
    fn push_sorted_keys(&self, ids: &[u32], pad: u32, out: &mut Vec<u64>) {
        let start = out.len();
        out.resize(start + ids.len(), 0);
        self.fill_sorted_keys(ids, pad, &mut out[start..]);
    }

    /// The key of every position of `ids` (padded with `pad`) into `out`
    /// (as long as `ids`), sorted.
    fn fill_sorted_keys(&self, ids: &[u32], pad: u32, out: &mut [u64]) {
        let top = self.lane * (self.order as u32 - 1);
        let mut key = 0u64;
        for _ in 0..self.order {
            key = (key >> self.lane) | (u64::from(pad) << top);
        }
        for (slot, &id) in out.iter_mut().zip(ids).rev() {
            key = (key >> self.lane) | (u64::from(id) << top);
            *slot = key;
        }
        out.sort_unstable();
    }

    /// Adds to `matches` (one per order) the clipped matches of two sorted key lists.
    fn merge_matches(&self, hyp: &[u64], reference: &[u64], matches: &mut [i64]) {
        match self.order {
            1 => merge_runs::<1>(hyp, reference, matches),
            2 => merge_runs::<2>(hyp, reference, matches),
            3 => merge_runs::<3>(hyp, reference, matches),
            4 => merge_runs::<4>(hyp, reference, matches),
            5 => merge_runs::<5>(hyp, reference, matches),
            6 => merge_runs::<6>(hyp, reference, matches),
            7 => merge_runs::<7>(hyp, reference, matches),
            8 => merge_runs::<8>(hyp, reference, matches),
            _ => unreachable!("KeyLayout::new refuses other orders"),
        }
    }
}

/// [`KeyLayout::merge_matches`] for keys of `N` orders (lanes of
/// [`lane_bits`]`(N)` bits): one pass over both lists in key order. Each key
/// closes the runs of the orders beyond its common prefix with the previous
/// key, adding `min(hyp, ref)` of each (the counts of both sides since the run
/// began). The counters of all orders are updated at once, eight lanes wide
/// (the lanes beyond `N` are ignored), with masks instead of branches.
#[inline(always)]
fn merge_runs_body<const N: usize>(hyp: &[u64], reference: &[u64], matches: &mut [i64]) {
    const LANES: usize = 8;
    let lane = lane_bits(N);
    let unused = 64 - N as u32 * lane;
    assert!(N <= LANES && hyp.len() < u32::MAX as usize && reference.len() < u32::MAX as usize);
    let index: [u32; LANES] = [0, 1, 2, 3, 4, 5, 6, 7];
    let mut found = [0u32; LANES];
    // the counts of each side when the current run of each order began
    let mut start_h = [0u32; LANES];
    let mut start_r = [0u32; LANES];
    let (mut h, mut r) = (0u32, 0u32);
    let (mut i, mut j) = (0usize, 0usize);
    // every key's first lane holds a symbol id (not 0): the first key shares nothing with 0
    let mut prev = 0u64;
    for _ in 0..hyp.len() + reference.len() {
        // no key is u64::MAX (the reference padding is below it in the first lane)
        let a = hyp.get(i).copied().unwrap_or(u64::MAX);
        let b = reference.get(j).copied().unwrap_or(u64::MAX);
        let from_hyp = a <= b;
        let key = if from_hyp { a } else { b };
        let x = prev ^ key;
        let common = if x == 0 {
            N as u32
        } else {
            (x.leading_zeros() - unused) / lane
        };
        for n in 0..LANES {
            let close = 0u32.wrapping_sub(u32::from(index[n] >= common));
            let both = (h - start_h[n]).min(r - start_r[n]);
            found[n] += both & close;
            start_h[n] = (h & close) | (start_h[n] & !close);
            start_r[n] = (r & close) | (start_r[n] & !close);
        }
        // one side exhausted and no run open with it: nothing more matches
        if common == 0 && (i == hyp.len() || j == reference.len()) {
            break;
        }
        prev = key;
        h += u32::from(from_hyp);
        r += u32::from(!from_hyp);
        i += usize::from(from_hyp);
        j += usize::from(!from_hyp);
    }
    for n in 0..N {
        found[n] += (h - start_h[n]).min(r - start_r[n]);
        matches[n] += i64::from(found[n]);
    }
}

/// The run counters of one end of [`merge_runs_avx2`]: lane `n` of the
/// vectors is order `n + 1`.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct RunCounters {
    /// `min(hyp, ref)` of the runs closed so far.
    found: std::arch::x86_64::__m256i,
    /// The counts of each side when the open run of each order began.
    start_h: std::arch::x86_64::__m256i,
    start_r: std::arch::x86_64::__m256i,
    h: i32,
    r: i32,
    prev: u64,
}

#[cfg(target_arch = "x86_64")]
impl RunCounters {
    #[target_feature(enable = "avx2")]
    fn new() -> Self {
        use std::arch::x86_64::*;
        RunCounters {
            found: _mm256_setzero_si256(),
            start_h: _mm256_setzero_si256(),
            start_r: _mm256_setzero_si256(),
            h: 0,
            r: 0,
            // every key's first lane holds a symbol id (not 0): the first key shares nothing with 0
            prev: 0,
        }
    }

    /// Counts `key` (of the hypothesis or not), closing the runs of the orders
    /// beyond its common prefix with the previous key (`index`: 0..8).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn push<const N: usize>(
        &mut self,
        key: u64,
        from_hyp: bool,
        index: std::arch::x86_64::__m256i,
    ) {
        use std::arch::x86_64::*;
        let common = common_lanes::<N>(self.prev, key);
        let close = _mm256_cmpgt_epi32(index, _mm256_set1_epi32(common as i32 - 1));
        let (hv, rv) = (_mm256_set1_epi32(self.h), _mm256_set1_epi32(self.r));
        let both = _mm256_min_epu32(
            _mm256_sub_epi32(hv, self.start_h),
            _mm256_sub_epi32(rv, self.start_r),
        );
        self.found = _mm256_add_epi32(self.found, _mm256_and_si256(both, close));
        self.start_h = _mm256_blendv_epi8(self.start_h, hv, close);
        self.start_r = _mm256_blendv_epi8(self.start_r, rv, close);
        self.prev = key;
        self.h += i32::from(from_hyp);
        self.r += i32::from(!from_hyp);
    }

    /// The counts of each side in the open run of each order.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn open(&self) -> (std::arch::x86_64::__m256i, std::arch::x86_64::__m256i) {
        use std::arch::x86_64::*;
        (
            _mm256_sub_epi32(_mm256_set1_epi32(self.h), self.start_h),
            _mm256_sub_epi32(_mm256_set1_epi32(self.r), self.start_r),
        )
    }
}

/// Lanes two keys of `N` orders share from the first (`N` when equal).
#[inline(always)]
fn common_lanes<const N: usize>(a: u64, b: u64) -> u32 {
    let lane = lane_bits(N);
    let x = a ^ b;
    if x == 0 {
        N as u32
    } else {
        (x.leading_zeros() - (64 - N as u32 * lane)) / lane
    }
}

/// [`merge_runs_body`] in AVX2, from both ends at once: the first half of
/// the merged order is walked forwards and the second half backwards (runs
/// read the same either way), two independent chains of loads and compares
/// instead of one; the runs open where the halves meet are joined up to the
/// common prefix of the two middle keys. The eight counters of each kind are
/// one vector.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn merge_runs_avx2<const N: usize>(hyp: &[u64], reference: &[u64], matches: &mut [i64]) {
    use std::arch::x86_64::*;
    assert!(N <= 8 && hyp.len() < i32::MAX as usize && reference.len() < i32::MAX as usize);
    let index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let (hl, rl) = (hyp.len(), reference.len());
    let total = hl + rl;
    let half = total / 2;
    let mut front = RunCounters::new();
    let mut back = RunCounters::new();
    // front: ties take the hypothesis first; back: the reference first (the same order reversed)
    let (mut i, mut j) = (0usize, 0usize);
    let (mut bi, mut bj) = (hl, rl);
    for step in 0..total - half {
        if step < half {
            // no key is u64::MAX (the reference padding is below it in the first lane)
            let a = hyp.get(i).copied().unwrap_or(u64::MAX);
            let b = reference.get(j).copied().unwrap_or(u64::MAX);
            let from_hyp = a <= b;
            front.push::<N>(if from_hyp { a } else { b }, from_hyp, index);
            i += usize::from(from_hyp);
            j += usize::from(!from_hyp);
        }
        // no key is 0 (its first lane holds a symbol id)
        let a = if bi > 0 { hyp[bi - 1] } else { 0 };
        let b = if bj > 0 { reference[bj - 1] } else { 0 };
        let from_hyp = a > b;
        back.push::<N>(if from_hyp { a } else { b }, from_hyp, index);
        bi -= usize::from(from_hyp);
        bj -= usize::from(!from_hyp);
    }
    // the open runs: one run where the middle keys share the order's prefix, else two
    let joined = _mm256_cmpgt_epi32(
        _mm256_set1_epi32(common_lanes::<N>(front.prev, back.prev) as i32),
        index,
    );
    let ((fh, fr), (bh, br)) = (front.open(), back.open());
    let one = _mm256_min_epu32(_mm256_add_epi32(fh, bh), _mm256_add_epi32(fr, br));
    let two = _mm256_add_epi32(_mm256_min_epu32(fh, fr), _mm256_min_epu32(bh, br));
    let open = _mm256_blendv_epi8(two, one, joined);
    let all = _mm256_add_epi32(_mm256_add_epi32(front.found, back.found), open);
    let mut out = [0u32; 8];
    // SAFETY: `out` holds 32 bytes
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), all) };
    for (m, &f) in matches.iter_mut().zip(&out[..N]) {
        *m += i64::from(f);
    }
}

/// [`merge_runs_body`] with AVX2 where the processor has it.
fn merge_runs<const N: usize>(hyp: &[u64], reference: &[u64], matches: &mut [i64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor supports AVX2 (checked just above)
        return unsafe { merge_runs_avx2::<N>(hyp, reference, matches) };
    }
    merge_runs_body::<N>(hyp, reference, matches)
}

/// The references of a batch as sorted keys, with the alphabets that map a
/// hypothesis onto their ids (see the module docs).
pub struct SortedRefs {
    /// Ids of ASCII characters ([`SKIP`] for whitespace chrF removes).
    ascii: [u32; 128],
    /// Ids of the other characters the references have.
    wide: FxHashMap<u32, u32>,
    chars: Option<KeyLayout>,
    words: Option<KeyLayout>,
    char_keys: Vec<u64>,
    char_ends: Vec<usize>,
    word_keys: Vec<u64>,
    word_ends: Vec<usize>,
    whitespace: bool,
}

/// The reference keys of one kind: each reference's ids turned into sorted
/// keys (in parallel for many references) in one buffer, with the ends.
fn sorted_keys(layout: Option<KeyLayout>, refs: &[&[u32]]) -> (Vec<u64>, Vec<usize>) {
    crate::common::parallel::install(|| {
        let Some(layout) = layout else {
            return (Vec::new(), Vec::new());
        };
        let mut keys = vec![0u64; refs.iter().map(|r| r.len()).sum()];
        let mut ends = Vec::with_capacity(refs.len());
        let mut parts: Vec<(&[u32], &mut [u64])> = Vec::with_capacity(refs.len());
        let mut rest = &mut keys[..];
        let mut end = 0;
        for ids in refs {
            let (part, tail) = rest.split_at_mut(ids.len());
            parts.push((ids, part));
            rest = tail;
            end += ids.len();
            ends.push(end);
        }
        parts
            .par_iter_mut()
            .with_min_len(64)
            .for_each(|(ids, out)| layout.fill_sorted_keys(ids, layout.ref_pad, out));
        (keys, ends)
    })
}

impl SortedRefs {
    /// From the references' code points (whitespace already removed unless
    /// kept) and word ids (from 1, `words` distinct), one slice of each per
    /// reference; `None` when the orders or the alphabets do not fit the keys
    /// (the caller keeps the per-hypothesis path).
    pub fn prepare(
        chars: &[&[u32]],
        word_ids: &[&[u32]],
        words: usize,
        cfg: &ChrfConfig,
    ) -> Option<SortedRefs> {
        if cfg.char_order > MAX_ORDER || cfg.word_order > MAX_ORDER {
            return None;
        }
        let mut ascii = [0u32; 128];
        if !cfg.whitespace {
            for b in 0..128u8 {
                if is_py_space(char::from(b)) {
                    ascii[usize::from(b)] = SKIP;
                }
            }
        }
        let mut wide: FxHashMap<u32, u32> = FxHashMap::default();
        let mut alphabet = 0u32;
        // the ids of all references in one buffer
        let mut ids: Vec<u32> = Vec::new();
        if cfg.char_order > 0 {
            ids.reserve(chars.iter().map(|r| r.len()).sum());
            for r in chars {
                ids.extend(r.iter().map(|&code| {
                    let slot = if code < 128 {
                        &mut ascii[code as usize]
                    } else {
                        wide.entry(code).or_insert(0)
                    };
                    if *slot == 0 {
                        alphabet += 1;
                        *slot = alphabet;
                    }
                    *slot
                }));
            }
        }
        let char_layout = KeyLayout::new(cfg.char_order, alphabet as usize);
        let word_layout = KeyLayout::new(cfg.word_order, words);
        if (cfg.char_order > 0 && char_layout.is_none())
            || (cfg.word_order > 0 && word_layout.is_none())
        {
            return None;
        }
        let mut id_slices: Vec<&[u32]> = Vec::with_capacity(chars.len());
        if cfg.char_order > 0 {
            let mut rest = &ids[..];
            for r in chars {
                let (part, tail) = rest.split_at(r.len());
                id_slices.push(part);
                rest = tail;
            }
        }
        let (char_keys, char_ends) = sorted_keys(char_layout, &id_slices);
        let (word_keys, word_ends) = sorted_keys(word_layout, word_ids);
        Some(SortedRefs {
            ascii,
            wide,
            chars: char_layout,
            words: word_layout,
            char_keys,
            char_ends,
            word_keys,
            word_ends,
            whitespace: cfg.whitespace,
        })
    }

    pub fn bytes(&self) -> usize {
        8 * (self.char_keys.len() + self.word_keys.len())
            + 8 * (self.char_ends.len() + self.word_ends.len())
            + 12 * self.wide.len()
    }

    fn keys<'s>(keys: &'s [u64], ends: &[usize], index: usize) -> &'s [u64] {
        if ends.is_empty() {
            return &[];
        }
        let start = if index == 0 { 0 } else { ends[index - 1] };
        &keys[start..ends[index]]
    }

    /// The hypothesis's character ids (the unknown id for those the references lack).
    fn hyp_char_ids(&self, hyp: &str, unknown: u32, out: &mut Vec<u32>) {
        out.clear();
        out.reserve(hyp.len());
        let bytes = hyp.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b < 0x80 {
                i += 1;
                let id = self.ascii[usize::from(b)];
                if id != SKIP {
                    out.push(if id == 0 { unknown } else { id });
                }
            } else {
                let c = hyp[i..].chars().next().expect("a character starts here");
                i += c.len_utf8();
                if !self.whitespace && is_py_space(c) {
                    continue;
                }
                out.push(self.wide.get(&(c as u32)).copied().unwrap_or(unknown));
            }
        }
    }
}

/// Buffers of the sorted path, reused from segment to segment.
#[derive(Default)]
pub struct SortedWorkspace {
    ids: Vec<u32>,
    /// The hypothesis words (byte ranges) with their hashes.
    words: Vec<(usize, usize, u64)>,
    char_keys: Vec<u64>,
    word_keys: Vec<u64>,
    matches: Vec<i64>,
    candidate: Vec<i64>,
}

/// The statistics of one hypothesis against its references (`refs`: their
/// indices in the prepared list; `vocab`: the references' word ids), written
/// into `row` as [`crate::chrf::segment_stats`] does.
pub fn segment_stats(
    ws: &mut SortedWorkspace,
    prepared: &SortedRefs,
    vocab: &Vocab,
    hyp: &str,
    refs: std::ops::Range<usize>,
    cfg: &ChrfConfig,
    row: &mut [i64],
) {
    ws.char_keys.clear();
    let mut hyp_chars = 0;
    if let Some(layout) = prepared.chars {
        prepared.hyp_char_ids(hyp, layout.unknown, &mut ws.ids);
        hyp_chars = ws.ids.len();
        layout.push_sorted_keys(&ws.ids, 0, &mut ws.char_keys);
    }
    ws.word_keys.clear();
    let mut hyp_words = 0;
    if let Some(layout) = prepared.words {
        // hash every word and prefetch its slot first: the look-ups then wait for memory once
        let words = &mut ws.words;
        words.clear();
        for_each_chrf_word(hyp, |word| {
            let hash = token_hash(word.as_bytes());
            vocab.prefetch(hash);
            let start = word.as_ptr() as usize - hyp.as_ptr() as usize;
            words.push((start, start + word.len(), hash));
        });
        ws.ids.clear();
        ws.ids.extend(ws.words.iter().map(|&(start, end, hash)| {
            let id = vocab.get_hashed(&hyp[start..end], hash);
            if id == 0 {
                layout.unknown
            } else {
                id
            }
        }));
        hyp_words = ws.ids.len();
        layout.push_sorted_keys(&ws.ids, 0, &mut ws.word_keys);
    }
    ws.candidate.clear();
    ws.candidate.resize(cfg.row_width(), 0);
    let mut best = -1.0;
    row.fill(0);
    for index in refs {
        ws.matches.clear();
        ws.matches.resize(cfg.orders(), 0);
        let (char_matches, word_matches) = ws.matches.split_at_mut(cfg.char_order);
        let ref_chars = SortedRefs::keys(&prepared.char_keys, &prepared.char_ends, index);
        if let Some(layout) = prepared.chars {
            layout.merge_matches(&ws.char_keys, ref_chars, char_matches);
        }
        let ref_words = SortedRefs::keys(&prepared.word_keys, &prepared.word_ends, index);
        if let Some(layout) = prepared.words {
            layout.merge_matches(&ws.word_keys, ref_words, word_matches);
        }
        let lengths = [hyp_chars, ref_chars.len(), hyp_words, ref_words.len()];
        fill_candidate(&mut ws.candidate, &ws.matches, lengths, cfg);
        keep_if_best(&ws.candidate, cfg, &mut best, row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_runs_count_clipped_matches_per_order() {
        // "abab" against "bab": unigrams min(2,1)+min(2,2) = 3; bigrams ab min(2,1) + ba min(1,1) = 2;
        // trigrams aba 0 + bab min(1,1) = 1
        let layout = KeyLayout::new(3, 2).unwrap();
        let (mut hyp, mut reference) = (Vec::new(), Vec::new());
        layout.push_sorted_keys(&[1, 2, 1, 2], 0, &mut hyp);
        layout.push_sorted_keys(&[2, 1, 2], layout.ref_pad, &mut reference);
        let mut matches = vec![0; 3];
        layout.merge_matches(&hyp, &reference, &mut matches);
        assert_eq!(matches, [3, 2, 1]);
        // the unknown id and the paddings never match
        let (mut hyp, mut reference) = (Vec::new(), Vec::new());
        layout.push_sorted_keys(&[layout.unknown, 1], 0, &mut hyp);
        layout.push_sorted_keys(&[1], layout.ref_pad, &mut reference);
        let mut matches = vec![0; 3];
        layout.merge_matches(&hyp, &reference, &mut matches);
        assert_eq!(matches, [1, 0, 0]);
    }

    /// Clipped matches per order counted with maps of n-grams.
    fn brute_force(hyp: &[u32], reference: &[u32], order: usize) -> Vec<i64> {
        fn counts(s: &[u32], n: usize) -> FxHashMap<&[u32], i64> {
            let mut map: FxHashMap<&[u32], i64> = FxHashMap::default();
            for gram in s.windows(n) {
                *map.entry(gram).or_insert(0) += 1;
            }
            map
        }
        (1..=order)
            .map(|n| {
                let (h, r) = (counts(hyp, n), counts(reference, n));
                h.iter()
                    .map(|(g, &c)| c.min(r.get(g).copied().unwrap_or(0)))
                    .sum()
            })
            .collect()
    }

    fn check_orders<const N: usize>(rng: &mut fastrand::Rng) {
        let symbols = rng.usize(1..6);
        let layout = KeyLayout::new(N, symbols).unwrap();
        for _ in 0..200 {
            // the hypothesis may hold the unknown id; the reference only known symbols
            let hyp: Vec<u32> = (0..rng.usize(0..30))
                .map(|_| rng.u32(1..=layout.unknown))
                .collect();
            let reference: Vec<u32> = (0..rng.usize(0..30))
                .map(|_| rng.u32(1..=symbols as u32))
                .collect();
            let (mut hyp_keys, mut ref_keys) = (Vec::new(), Vec::new());
            layout.push_sorted_keys(&hyp, 0, &mut hyp_keys);
            layout.push_sorted_keys(&reference, layout.ref_pad, &mut ref_keys);
            let expected = brute_force(&hyp, &reference, N);
            let mut portable = vec![0; N];
            merge_runs_body::<N>(&hyp_keys, &ref_keys, &mut portable);
            assert_eq!(portable, expected, "{hyp:?} {reference:?}");
            let mut dispatched = vec![0; N];
            layout.merge_matches(&hyp_keys, &ref_keys, &mut dispatched);
            assert_eq!(dispatched, expected, "{hyp:?} {reference:?}");
        }
    }

    #[test]
    fn merged_runs_equal_counted_ngrams_for_every_order() {
        // both the portable loop and the one the processor runs (AVX2 where it has it)
        let mut rng = fastrand::Rng::with_seed(5);
        check_orders::<1>(&mut rng);
        check_orders::<2>(&mut rng);
        check_orders::<3>(&mut rng);
        check_orders::<4>(&mut rng);
        check_orders::<5>(&mut rng);
        check_orders::<6>(&mut rng);
        check_orders::<7>(&mut rng);
        check_orders::<8>(&mut rng);
    }

    #[test]
    fn layouts_refuse_what_the_lanes_cannot_hold() {
        // 10-bit lanes for 6 orders: ids, the unknown id and the padding need 1,023 values at most
        assert!(KeyLayout::new(6, 1021).is_some());
        assert!(KeyLayout::new(6, 1022).is_none());
        assert!(KeyLayout::new(9, 3).is_none());
        assert!(KeyLayout::new(0, 3).is_none());
        assert!(KeyLayout::new(2, 1 << 31).is_some());
    }
}
