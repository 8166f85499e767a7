//! chrF / chrF++ sufficient statistics, as sacreBLEU's `CHRF` computes them.
//!
//! A statistics row holds, for every character order `1..=char_order` and then
//! every word order `1..=word_order`, the triple `[hyp_count, ref_count,
//! match_count]`. Character n-grams run over Unicode code points of the segment
//! with Python whitespace removed (unless `whitespace` is set); word n-grams run
//! over `str.split()` words with sacreBLEU's punctuation separation. As in
//! sacreBLEU, `hyp_count` is reported as 0 for an order the reference has no
//! n-grams of, and with several references the row of the reference with the
//! best sentence F-score is kept (the first one on ties). The F-score formula is
//! reproduced operation by operation so that this choice is identical.

pub mod py;
pub mod refs;
pub mod sorted;

use crate::text::is_py_space;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Parent of order-1 n-grams (character trie; also the per-segment tables).
const ROOT: u32 = u32::MAX;
/// Parent of order-1 character n-grams in the pairwise tables.
const CHAR_ROOT: u32 = ROOT;
/// Parent of order-1 n-grams in the word trie (pairwise tables share one map).
const WORD_ROOT: u32 = u32::MAX - 1;
/// An n-gram (or word) the hypothesis does not have.
const UNKNOWN: u32 = u32::MAX - 2;

/// sacreBLEU's `CHRF._PUNCTS` (Python's `string.punctuation`).
fn is_chrf_punct(c: char) -> bool {
    c.is_ascii_punctuation()
}

/// The chrF options that shape a statistics row and the reference choice.
#[derive(Clone, Copy, Debug)]
pub struct ChrfConfig {
    /// Largest character n-gram order.
    pub char_order: usize,
    /// Largest word n-gram order (2 for chrF++).
    pub word_order: usize,
    /// Keep whitespace in character n-grams.
    pub whitespace: bool,
    /// `beta ** 2`, as Python computes it.
    pub factor: f64,
    /// chrF++.py-style epsilon smoothing instead of the effective order.
    pub eps_smoothing: bool,
}

impl ChrfConfig {
    /// Number of orders (character then word).
    pub fn orders(&self) -> usize {
        self.char_order + self.word_order
    }

    /// Width of a statistics row.
    pub fn row_width(&self) -> usize {
        3 * self.orders()
    }
}

/// Code points of a segment as chrF sees them.
fn char_symbols(text: &str, whitespace: bool) -> Vec<u32> {
    text.chars()
        .filter(|&c| whitespace || !is_py_space(c))
        .map(|c| c as u32)
        .collect()
}

/// Calls `f` on each word of Python's `str.split()`, scanning bytes: only
/// the lead bytes of U+0085, U+00A0, U+1680 and U+2000–U+3000 start a
/// non-ASCII character that may be whitespace, so the others are skipped
/// undecoded (a word boundary is always a character boundary).
fn for_each_py_word<'t>(text: &'t str, mut f: impl FnMut(&'t str)) {
    let bytes = text.as_bytes();
    let mut start = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let mut width = 1;
        let space = if b < 0x80 {
            matches!(b, b'\t'..=b'\r' | 0x1c..=0x1f | b' ')
        } else if matches!(b, 0xC2 | 0xE1 | 0xE2 | 0xE3) {
            let c = text[i..].chars().next().expect("a character starts here");
            width = c.len_utf8();
            is_py_space(c)
        } else {
            false
        };
        if space {
            if let Some(s) = start.take() {
                f(&text[s..i]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
        i += width;
    }
    if let Some(s) = start {
        f(&text[s..]);
    }
}

/// Calls `f` on each of sacreBLEU's `CHRF._remove_punctuation` words: the
/// words of `str.split()`, with one trailing (or else one leading) ASCII
/// punctuation mark split off words longer than one character.
pub(crate) fn for_each_chrf_word<'t>(text: &'t str, mut f: impl FnMut(&'t str)) {
    for_each_py_word(text, |word| {
        let bytes = word.as_bytes();
        // a word longer than one character: more than one byte, or one multi-byte character
        let long = bytes.len() > 4 || word.chars().nth(1).is_some();
        if long && is_chrf_punct(char::from(bytes[bytes.len() - 1])) {
            f(&word[..word.len() - 1]);
            f(&word[word.len() - 1..]);
        } else if long && is_chrf_punct(char::from(bytes[0])) {
            f(&word[..1]);
            f(&word[1..]);
        } else {
            f(word);
        }
    });
}

/// sacreBLEU's `CHRF._remove_punctuation`: words of `str.split()`, with one
/// trailing (or else one leading) ASCII punctuation mark split off words longer
/// than one character.
pub fn chrf_words(text: &str) -> Vec<&str> {
    let mut words = Vec::new();
    for_each_chrf_word(text, |word| words.push(word));
    words
}

fn trie_key(parent: u32, symbol: u32) -> u64 {
    (u64::from(parent) << 32) | u64::from(symbol)
}

/// Number of n-grams of order `n` in a sequence of `len` symbols.
pub(crate) fn ngram_total(len: usize, n: usize) -> i64 {
    (len + 1).saturating_sub(n) as i64
}

/// One reference's statistics row `[hyp, ref, match]` per order into `candidate`, from
/// the matches per order and the `[hyp chars, ref chars, hyp words, ref words]` lengths.
pub(crate) fn fill_candidate(
    candidate: &mut [i64],
    matches: &[i64],
    lengths: [usize; 4],
    cfg: &ChrfConfig,
) {
    let [hyp_chars, ref_chars, hyp_words, ref_words] = lengths;
    for o in 0..cfg.orders() {
        let (n, hyp_len, ref_len) = if o < cfg.char_order {
            (o + 1, hyp_chars, ref_chars)
        } else {
            (o + 1 - cfg.char_order, hyp_words, ref_words)
        };
        let ref_total = ngram_total(ref_len, n);
        // sacreBLEU counts no hypothesis n-grams when the reference has none
        candidate[3 * o] = if ref_total > 0 {
            ngram_total(hyp_len, n)
        } else {
            0
        };
        candidate[3 * o + 1] = ref_total;
        candidate[3 * o + 2] = matches[o];
    }
}

/// Copies `candidate` into `row` when its F-score beats `best` (the first of equal
/// references wins, as in sacreBLEU).
pub(crate) fn keep_if_best(candidate: &[i64], cfg: &ChrfConfig, best: &mut f64, row: &mut [i64]) {
    let f = f_score(candidate, cfg.factor, cfg.eps_smoothing);
    if f > *best {
        *best = f;
        row.copy_from_slice(candidate);
    }
}

/// An open-addressing map from `(prefix id, symbol)` keys to n-gram ids,
/// reused across segments: a generation stamp marks the live slots, so starting
/// a new segment costs nothing and the table stays warm in the cache.
#[derive(Default)]
struct KeyTable {
    /// `(key, id, generation)` per slot
    slots: Vec<(u64, u32, u32)>,
    generation: u32,
    shift: u32,
}

impl KeyTable {
    /// Forgets every key and makes room for at least `entries` keys.
    fn reset(&mut self, entries: usize) {
        let wanted = (2 * entries).next_power_of_two().max(16);
        if wanted > self.slots.len() || self.generation == u32::MAX {
            self.slots = vec![(0, 0, 0); wanted.max(self.slots.len())];
            self.shift = 64 - self.slots.len().trailing_zeros();
            self.generation = 0;
        }
        self.generation += 1;
    }

    fn slot(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    fn get(&self, key: u64) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut i = self.slot(key);
        loop {
            let (k, id, generation) = self.slots[i];
            if generation != self.generation {
                return None;
            }
            if k == key {
                return Some(id);
            }
            i = (i + 1) & mask;
        }
    }

    /// The id of `key`, inserting `next` if it is new (returns `(id, inserted)`).
    fn get_or_insert(&mut self, key: u64, next: u32) -> (u32, bool) {
        let mask = self.slots.len() - 1;
        let mut i = self.slot(key);
        loop {
            let (k, id, generation) = self.slots[i];
            if generation != self.generation {
                self.slots[i] = (key, next, self.generation);
                return (next, true);
            }
            if k == key {
                return (id, false);
            }
            i = (i + 1) & mask;
        }
    }
}

/// Buffers one worker reuses from segment to segment.
#[derive(Default)]
struct Scratch {
    table: KeyTable,
    counts: Vec<i64>,
    order_start: Vec<usize>,
    seen: Vec<i64>,
    prefix: Vec<u32>,
}

/// The n-grams (orders `1..=max_order`) of one hypothesis symbol sequence.
///
/// Each n-gram gets an id through a trie keyed by `(id of its prefix, last
/// symbol)`, so extending all n-grams by one order costs one hash look-up per
/// position. Ids of one order are contiguous. The tables live in [`Scratch`].
struct HypNgrams<'s> {
    scratch: &'s mut Scratch,
    len: usize,
}

impl<'s> HypNgrams<'s> {
    fn new(scratch: &'s mut Scratch, symbols: &[u32], max_order: usize) -> Self {
        scratch.table.reset(symbols.len() * max_order);
        scratch.counts.clear();
        scratch.order_start.clear();
        scratch.order_start.push(0);
        scratch.prefix.clear();
        scratch.prefix.resize(symbols.len(), ROOT);
        for n in 1..=max_order {
            for i in 0..(symbols.len() + 1).saturating_sub(n) {
                let key = trie_key(scratch.prefix[i], symbols[i + n - 1]);
                let next = scratch.counts.len() as u32;
                let (id, inserted) = scratch.table.get_or_insert(key, next);
                if inserted {
                    scratch.counts.push(0);
                }
                scratch.counts[id as usize] += 1;
                scratch.prefix[i] = id;
            }
            scratch.order_start.push(scratch.counts.len());
        }
        HypNgrams {
            scratch,
            len: symbols.len(),
        }
    }

    /// Writes `[hyp, ref, match]` per order of a reference into `out`
    /// (`3 * max_order` values).
    fn match_stats(&mut self, symbols: &[u32], out: &mut [i64]) {
        let s = &mut *self.scratch;
        s.seen.clear();
        s.seen.resize(s.counts.len(), 0);
        s.prefix.clear();
        s.prefix.resize(symbols.len(), ROOT);
        for n in 1..s.order_start.len() {
            let ref_total = ngram_total(symbols.len(), n);
            for i in 0..ref_total as usize {
                if s.prefix[i] == UNKNOWN {
                    continue;
                }
                match s.table.get(trie_key(s.prefix[i], symbols[i + n - 1])) {
                    Some(id) => {
                        s.seen[id as usize] += 1;
                        s.prefix[i] = id;
                    }
                    None => s.prefix[i] = UNKNOWN,
                }
            }
            let range = s.order_start[n - 1]..s.order_start[n];
            let matches: i64 = s.counts[range.clone()]
                .iter()
                .zip(&s.seen[range])
                .map(|(&h, &r)| h.min(r))
                .sum();
            let row = &mut out[3 * (n - 1)..3 * n];
            // sacreBLEU counts no hypothesis n-grams when the reference has none
            row[0] = if ref_total > 0 {
                ngram_total(self.len, n)
            } else {
                0
            };
            row[1] = ref_total;
            row[2] = matches;
        }
    }
}

/// Word ids over the hypothesis vocabulary (unknown words map to [`UNKNOWN`]).
struct Vocabulary<'a> {
    ids: FxHashMap<&'a str, u32>,
}

impl<'a> Vocabulary<'a> {
    fn of(words: &[&'a str]) -> (Self, Vec<u32>) {
        let mut ids: FxHashMap<&'a str, u32> = FxHashMap::default();
        let symbols = words
            .iter()
            .map(|w| {
                let next = ids.len() as u32;
                *ids.entry(*w).or_insert(next)
            })
            .collect();
        (Vocabulary { ids }, symbols)
    }

    fn symbols(&self, words: &[&str]) -> Vec<u32> {
        words
            .iter()
            .map(|w| self.ids.get(w).copied().unwrap_or(UNKNOWN))
            .collect()
    }
}

/// sacreBLEU's epsilon for undefined chrF precision, recall and F.
const CHRF_EPS: f64 = 1e-16;

/// chrF of `[hyp, ref, match]` triples (0–100 scale) as sacreBLEU's
/// `CHRF._compute_f_score`, with its parts: `(score, precision, recall)` averaged over
/// the effective orders, and per order the precision and recall (0 where undefined)
/// written into `precisions` and `recalls` when given.
pub fn f_score_parts(
    triples: &[i64],
    factor: f64,
    eps_smoothing: bool,
    mut per_order: Option<(&mut [f64], &mut [f64])>,
) -> (f64, f64, f64) {
    let orders = triples.len() / 3;
    let mut score = 0.0;
    let (mut sum_prec, mut sum_rec, mut effective) = (0.0, 0.0, 0.0);
    for (i, triple) in triples.chunks_exact(3).enumerate() {
        let (n_hyp, n_ref, n_match) = (triple[0], triple[1], triple[2]);
        let prec = if n_hyp > 0 {
            n_match as f64 / n_hyp as f64
        } else {
            CHRF_EPS
        };
        let rec = if n_ref > 0 {
            n_match as f64 / n_ref as f64
        } else {
            CHRF_EPS
        };
        let denom = factor * prec + rec;
        score += if denom > 0.0 {
            (1.0 + factor) * prec * rec / denom
        } else {
            CHRF_EPS
        };
        if n_hyp > 0 && n_ref > 0 {
            sum_prec += prec;
            sum_rec += rec;
            effective += 1.0;
        }
        if let Some((precisions, recalls)) = per_order.as_mut() {
            precisions[i] = if n_hyp > 0 { prec } else { 0.0 };
            recalls[i] = if n_ref > 0 { rec } else { 0.0 };
        }
    }
    let (avg_prec, avg_rec) = if effective > 0.0 {
        (sum_prec / effective, sum_rec / effective)
    } else {
        (0.0, 0.0)
    };
    let value = if eps_smoothing {
        100.0 * score / orders as f64
    } else if avg_prec + avg_rec != 0.0 {
        let f = (1.0 + factor) * avg_prec * avg_rec;
        100.0 * (f / (factor * avg_prec + avg_rec))
    } else {
        0.0
    };
    (value, avg_prec, avg_rec)
}

/// sacreBLEU's `CHRF._compute_f_score` on a statistics row (0–100 scale): the
/// score of [`f_score_parts`].
pub fn f_score(stats: &[i64], factor: f64, eps_smoothing: bool) -> f64 {
    f_score_parts(stats, factor, eps_smoothing, None).0
}

/// Statistics of one hypothesis against its references, written into `row`
/// (the best reference's row; all zeros without references).
pub fn segment_stats<R: AsRef<str>>(hyp: &str, refs: &[R], cfg: &ChrfConfig, row: &mut [i64]) {
    segment_stats_with(&mut Workspace::default(), hyp, refs, cfg, row);
}

/// Reusable buffers of one worker: character and word n-gram tables.
#[derive(Default)]
pub struct Workspace {
    chars: Scratch,
    words: Scratch,
    candidate: Vec<i64>,
    packed: PackedWorkspace,
    long: SortScratch,
}

/// Bits of one symbol in a packed key of n-grams up to `max_order` (0: too many orders).
pub(crate) fn lane_bits(max_order: usize) -> u32 {
    (64 / max_order.max(1)).min(32) as u32
}

/// One n-gram of [`PackedCounts`] (`key` 0: empty slot): its count in the
/// hypothesis and how many of those the current reference has not matched yet.
#[derive(Clone, Copy, Default)]
struct PackedSlot {
    key: u64,
    hyp: u32,
    left: u32,
}

/// The count of one symbol in the hypothesis and how many of those the
/// current reference has not matched yet.
#[derive(Clone, Copy, Default)]
struct Unigram {
    hyp: u32,
    left: u32,
}

/// The hypothesis n-grams of one segment, keyed by their symbols (ids from 1)
/// packed into a `u64`, `lane` bits each: one multiply-shift hash per n-gram,
/// no string or trie look-ups. Sized per segment and cleared with one store
/// per slot, so a worker reuses it from segment to segment.
#[derive(Default)]
struct PackedCounts {
    slots: Vec<PackedSlot>,
    /// Slots a reference lowered `left` of (restored before the next reference).
    touched: Vec<u32>,
    /// Unigram counts by symbol id (no hashing for the order every start has).
    unigrams: Vec<Unigram>,
    touched_unigrams: Vec<u32>,
    mask: usize,
    shift: u32,
}

#[inline]
fn packed_slot(key: u64, shift: u32) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
}

impl PackedCounts {
    /// Counts the n-grams (orders `1..=max_order`) of `ids` (all in `1..=symbols`).
    fn count_hyp(&mut self, ids: &[u32], symbols: usize, lane: u32, max_order: usize) {
        self.unigrams.clear();
        self.unigrams.resize(symbols + 1, Unigram::default());
        // at most `len * (max_order - 1)` distinct n-grams in the table (unigrams are
        // counted by id): a load factor of at most 1/4 (short probes pay more than the
        // larger clear: 1/2 and 2/3 measured 13% and 30% slower on WMT17)
        let most = ids.len() * max_order.saturating_sub(1);
        let capacity = (4 * most).next_power_of_two().max(16);
        if self.slots.len() < capacity {
            self.slots.resize(capacity, PackedSlot::default());
        }
        // one store per slot (a memset) costs less than remembering the slots filled
        self.slots[..capacity].fill(PackedSlot::default());
        self.mask = capacity - 1;
        self.shift = 64 - capacity.trailing_zeros();
        let (mask, shift) = (self.mask, self.shift);
        let slots = &mut self.slots[..capacity];
        let unigrams = &mut self.unigrams;
        if max_order == 0 {
            return;
        }
        for start in 0..ids.len() {
            let unigram = &mut unigrams[ids[start] as usize];
            unigram.hyp += 1;
            unigram.left += 1;
            let mut key = u64::from(ids[start]);
            let mut offset = lane;
            for &id in &ids[start + 1..ids.len().min(start + max_order)] {
                key |= u64::from(id) << offset;
                offset += lane;
                let mut slot = packed_slot(key, shift);
                loop {
                    let entry = &mut slots[slot];
                    if entry.key == key {
                        entry.hyp += 1;
                        entry.left += 1;
                        break;
                    }
                    if entry.key == 0 {
                        *entry = PackedSlot {
                            key,
                            hyp: 1,
                            left: 1,
                        };
                        break;
                    }
                    slot = (slot + 1) & mask;
                }
            }
        }
    }

    /// Adds the clipped matches per order of a reference (`ids`, 0 for a
    /// symbol the hypothesis lacks) to `matches`. An n-gram absent from the
    /// hypothesis ends the longer ones from the same start, which contain it.
    /// With `restore` the counts are left as they were for another reference
    /// (else the last reference spends them).
    fn match_ref(
        &mut self,
        ids: &[u32],
        lane: u32,
        max_order: usize,
        matches: &mut [i64],
        restore: bool,
    ) {
        if restore {
            self.match_counts::<true>(ids, lane, max_order, matches);
        } else {
            self.match_counts::<false>(ids, lane, max_order, matches);
        }
    }

    /// [`Self::match_ref`]: each reference n-gram found takes one of the
    /// hypothesis's `left` (a match while any is left: `min(hyp, ref)` in all).
    fn match_counts<const RESTORE: bool>(
        &mut self,
        ids: &[u32],
        lane: u32,
        max_order: usize,
        matches: &mut [i64],
    ) {
        if max_order == 0 {
            return;
        }
        let (mask, shift) = (self.mask, self.shift);
        let slots = &mut self.slots[..=mask];
        let touched = &mut self.touched;
        let unigrams = &mut self.unigrams;
        let touched_unigrams = &mut self.touched_unigrams;
        for start in 0..ids.len() {
            let first = ids[start];
            // a reference symbol other than 0 occurs in the hypothesis
            if first == 0 {
                continue;
            }
            let unigram = &mut unigrams[first as usize];
            if unigram.left > 0 {
                if RESTORE && unigram.left == unigram.hyp {
                    touched_unigrams.push(first);
                }
                unigram.left -= 1;
                matches[0] += 1;
            }
            let mut key = u64::from(first);
            let mut offset = lane;
            for (n, &id) in ids[start + 1..ids.len().min(start + max_order)]
                .iter()
                .enumerate()
            {
                if id == 0 {
                    break;
                }
                key |= u64::from(id) << offset;
                offset += lane;
                let mut slot = packed_slot(key, shift);
                let entry = loop {
                    let entry = &slots[slot];
                    if entry.key == key || entry.key == 0 {
                        break &mut slots[slot];
                    }
                    slot = (slot + 1) & mask;
                };
                if entry.key == 0 {
                    break;
                }
                if entry.left > 0 {
                    if RESTORE && entry.left == entry.hyp {
                        touched.push(slot as u32);
                    }
                    entry.left -= 1;
                    matches[n + 1] += 1;
                }
            }
        }
        if RESTORE {
            for &slot in touched.iter() {
                let entry = &mut slots[slot as usize];
                entry.left = entry.hyp;
            }
            touched.clear();
            for &id in touched_unigrams.iter() {
                let unigram = &mut unigrams[id as usize];
                unigram.left = unigram.hyp;
            }
            touched_unigrams.clear();
        }
    }
}

/// An ASCII character chrF removes, in [`PackedWorkspace`]'s character table.
const SKIP: u32 = u32::MAX;

/// The ASCII characters Python's `str.split()` treats as whitespace.
const ASCII_PY_SPACES: &[u8] = b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f ";

/// Buffers of the packed path: symbol ids and counts for characters and words.
#[derive(Default)]
struct PackedWorkspace {
    ascii: Vec<u32>,
    wide: FxHashMap<u32, u32>,
    alphabet: u32,
    hyp_chars: Vec<u32>,
    ref_chars: Vec<u32>,
    hyp_words: Vec<u32>,
    ref_words: Vec<u32>,
    chars: PackedCounts,
    words: PackedCounts,
    matches: Vec<i64>,
    /// Global word id (0: none of the references has the word) -> `(stamp,
    /// hypothesis id)`, live while `stamp` is the segment's: one array load per
    /// word instead of a hash look-up.
    word_local: Vec<(u32, u32)>,
    stamp: u32,
}

/// One reference prepared once for many hypotheses (see [`crate::chrf::refs`]):
/// its code points (whitespace removed unless kept) and its words' ids in the
/// batch's word vocabulary (from 1).
#[derive(Clone, Copy)]
pub struct PreparedRef<'a> {
    pub chars: &'a [u32],
    pub words: &'a [u32],
}

impl PackedWorkspace {
    /// Ids (from 1) of the characters of `text` as chrF sees them; new ones
    /// are added to the alphabet when `learn`, else map to 0. An ASCII byte
    /// costs one table look-up (whitespace, when removed, is [`SKIP`] there).
    fn char_ids(&mut self, text: &str, whitespace: bool, learn: bool, hyp: bool) {
        let Self {
            ascii,
            wide,
            alphabet,
            hyp_chars,
            ref_chars,
            ..
        } = self;
        let out = if hyp { hyp_chars } else { ref_chars };
        out.clear();
        out.reserve(text.len());
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b < 0x80 {
                i += 1;
                let id = ascii[usize::from(b)];
                if id == SKIP {
                    continue;
                }
                if id != 0 || !learn {
                    out.push(id);
                    continue;
                }
                *alphabet += 1;
                ascii[usize::from(b)] = *alphabet;
                out.push(*alphabet);
            } else {
                let c = text[i..].chars().next().expect("a character starts here");
                i += c.len_utf8();
                if !whitespace && is_py_space(c) {
                    continue;
                }
                let code = c as u32;
                let id = wide.get(&code).copied().unwrap_or(0);
                if id != 0 || !learn {
                    out.push(id);
                    continue;
                }
                *alphabet += 1;
                wide.insert(code, *alphabet);
                out.push(*alphabet);
            }
        }
    }

    /// Reads the hypothesis characters into fresh character ids and returns the
    /// `(char, word)` key lanes; `None` when the orders or the hypothesis alphabet
    /// do not fit the packed keys.
    fn hypothesis_chars(&mut self, hyp: &str, cfg: &ChrfConfig) -> Option<(u32, u32)> {
        let char_lane = lane_bits(cfg.char_order);
        let word_lane = lane_bits(cfg.word_order);
        if char_lane == 0 || (cfg.word_order > 0 && word_lane == 0) {
            return None;
        }
        self.learn_hyp_chars(hyp, cfg.whitespace);
        (u64::from(self.alphabet) < 1u64 << char_lane).then_some((char_lane, word_lane))
    }

    /// Reads the hypothesis characters into fresh character ids (from 1) in `hyp_chars`.
    fn learn_hyp_chars(&mut self, hyp: &str, whitespace: bool) {
        self.ascii.clear();
        self.ascii.resize(128, 0);
        if !whitespace {
            for &b in ASCII_PY_SPACES {
                self.ascii[usize::from(b)] = SKIP;
            }
        }
        self.wide.clear();
        self.alphabet = 0;
        self.char_ids(hyp, whitespace, true, true);
    }

    /// The packed statistics of a segment into `row` (the best reference's);
    /// false, leaving `row` alone, when its symbols do not fit the key lanes.
    fn segment_stats<R: AsRef<str>>(
        &mut self,
        hyp: &str,
        refs: &[R],
        cfg: &ChrfConfig,
        candidate: &mut [i64],
        row: &mut [i64],
    ) -> bool {
        let Some((char_lane, word_lane)) = self.hypothesis_chars(hyp, cfg) else {
            return false;
        };
        let hyp_word_list = if cfg.word_order > 0 {
            chrf_words(hyp)
        } else {
            Vec::new()
        };
        let mut vocab: FxHashMap<&str, u32> =
            FxHashMap::with_capacity_and_hasher(hyp_word_list.len(), Default::default());
        self.hyp_words.clear();
        for word in &hyp_word_list {
            let next = vocab.len() as u32 + 1;
            self.hyp_words.push(*vocab.entry(word).or_insert(next));
        }
        if cfg.word_order > 0 && (vocab.len() as u64) >= 1u64 << word_lane {
            return false;
        }
        self.chars.count_hyp(
            &self.hyp_chars,
            self.alphabet as usize,
            char_lane,
            cfg.char_order,
        );
        if cfg.word_order > 0 {
            self.words
                .count_hyp(&self.hyp_words, vocab.len(), word_lane, cfg.word_order);
        }
        let (hyp_chars, hyp_words) = (self.hyp_chars.len(), self.hyp_words.len());
        let mut best = -1.0;
        row.fill(0);
        for (index, reference) in refs.iter().enumerate() {
            let reference = reference.as_ref();
            let restore = index + 1 < refs.len();
            self.matches.clear();
            self.matches.resize(cfg.orders(), 0);
            self.char_ids(reference, cfg.whitespace, false, false);
            let (char_matches, word_matches) = self.matches.split_at_mut(cfg.char_order);
            self.chars.match_ref(
                &self.ref_chars,
                char_lane,
                cfg.char_order,
                char_matches,
                restore,
            );
            let mut ref_words = 0;
            if cfg.word_order > 0 {
                self.ref_words.clear();
                self.ref_words.extend(
                    chrf_words(reference)
                        .iter()
                        .map(|w| vocab.get(w).copied().unwrap_or(0)),
                );
                ref_words = self.ref_words.len();
                self.words.match_ref(
                    &self.ref_words,
                    word_lane,
                    cfg.word_order,
                    word_matches,
                    restore,
                );
            }
            let lengths = [hyp_chars, self.ref_chars.len(), hyp_words, ref_words];
            fill_candidate(candidate, &self.matches, lengths, cfg);
            keep_if_best(candidate, cfg, &mut best, row);
        }
        true
    }
}

impl PackedWorkspace {
    /// [`Self::segment_stats`] against prepared references (`vocab`: the
    /// batch's word ids); false, leaving `row` alone, when the hypothesis
    /// symbols do not fit the key lanes.
    fn prepared_segment_stats(
        &mut self,
        hyp: &str,
        refs: &[PreparedRef<'_>],
        vocab: &crate::common::refcache::Vocab,
        cfg: &ChrfConfig,
        candidate: &mut [i64],
        row: &mut [i64],
    ) -> bool {
        let Some((char_lane, word_lane)) = self.hypothesis_chars(hyp, cfg) else {
            return false;
        };
        // words the references lack share one id: their n-grams never match
        self.hyp_words.clear();
        let mut hyp_vocab = 0u32;
        if cfg.word_order > 0 {
            if self.word_local.len() <= vocab.len() {
                self.word_local.resize(vocab.len() + 1, (0, 0));
            }
            self.stamp = self.stamp.wrapping_add(1);
            if self.stamp == 0 {
                self.word_local.fill((0, 0));
                self.stamp = 1;
            }
            let (word_local, hyp_words, stamp) =
                (&mut self.word_local, &mut self.hyp_words, self.stamp);
            for_each_chrf_word(hyp, |word| {
                let entry = &mut word_local[vocab.get(word) as usize];
                if entry.0 != stamp {
                    hyp_vocab += 1;
                    *entry = (stamp, hyp_vocab);
                }
                hyp_words.push(entry.1);
            });
            if u64::from(hyp_vocab) >= 1u64 << word_lane {
                return false;
            }
        }
        self.chars.count_hyp(
            &self.hyp_chars,
            self.alphabet as usize,
            char_lane,
            cfg.char_order,
        );
        if cfg.word_order > 0 {
            self.words.count_hyp(
                &self.hyp_words,
                hyp_vocab as usize,
                word_lane,
                cfg.word_order,
            );
        }
        let (hyp_chars, hyp_words) = (self.hyp_chars.len(), self.hyp_words.len());
        let mut best = -1.0;
        row.fill(0);
        for (index, reference) in refs.iter().enumerate() {
            let restore = index + 1 < refs.len();
            self.matches.clear();
            self.matches.resize(cfg.orders(), 0);
            let (ascii, wide) = (&self.ascii, &self.wide);
            self.ref_chars.clear();
            self.ref_chars.extend(reference.chars.iter().map(|&code| {
                if code < 128 {
                    ascii[code as usize]
                } else {
                    wide.get(&code).copied().unwrap_or(0)
                }
            }));
            let (char_matches, word_matches) = self.matches.split_at_mut(cfg.char_order);
            self.chars.match_ref(
                &self.ref_chars,
                char_lane,
                cfg.char_order,
                char_matches,
                restore,
            );
            let ref_words = reference.words.len();
            if cfg.word_order > 0 {
                let (local, stamp) = (&self.word_local, self.stamp);
                self.ref_words.clear();
                self.ref_words.extend(reference.words.iter().map(|&g| {
                    let (seen, id) = local[g as usize];
                    if seen == stamp {
                        id
                    } else {
                        0
                    }
                }));
                self.words.match_ref(
                    &self.ref_words,
                    word_lane,
                    cfg.word_order,
                    word_matches,
                    restore,
                );
            }
            let lengths = [hyp_chars, self.ref_chars.len(), hyp_words, ref_words];
            fill_candidate(candidate, &self.matches, lengths, cfg);
            keep_if_best(candidate, cfg, &mut best, row);
        }
        true
    }
}

/// [`segment_stats`] against prepared references (`text`: the same
/// references as text, for hypotheses the packed keys cannot hold).
pub fn prepared_segment_stats_with(
    workspace: &mut Workspace,
    hyp: &str,
    refs: &[PreparedRef<'_>],
    vocab: &crate::common::refcache::Vocab,
    text: &[&str],
    cfg: &ChrfConfig,
    row: &mut [i64],
) {
    workspace.candidate.clear();
    workspace.candidate.resize(cfg.row_width(), 0);
    if is_long_line(hyp, text) {
        long_segment_stats(workspace, hyp, text, cfg, row);
        return;
    }
    if workspace
        .packed
        .prepared_segment_stats(hyp, refs, vocab, cfg, &mut workspace.candidate, row)
    {
        return;
    }
    trie_segment_stats(workspace, hyp, text, cfg, row);
}

/// [`segment_stats`] with the buffers of `workspace`.
pub fn segment_stats_with<R: AsRef<str>>(
    workspace: &mut Workspace,
    hyp: &str,
    refs: &[R],
    cfg: &ChrfConfig,
    row: &mut [i64],
) {
    workspace.candidate.clear();
    workspace.candidate.resize(cfg.row_width(), 0);
    if is_long_line(hyp, refs) {
        long_segment_stats(workspace, hyp, refs, cfg, row);
        return;
    }
    if workspace
        .packed
        .segment_stats(hyp, refs, cfg, &mut workspace.candidate, row)
    {
        return;
    }
    trie_segment_stats(workspace, hyp, refs, cfg, row);
}

/// Hypotheses of at least this many bytes take [`long_segment_stats`] (issue 28):
/// below it the hash tables of the packed and trie paths (up to ~320 bytes per
/// character: every order's n-grams at once, at a load of 1/4) stay under 10 MB.
pub(crate) const LONG_LINE_BYTES: usize = 1 << 15;

/// Whether a segment takes [`long_segment_stats`]: a hypothesis of
/// [`LONG_LINE_BYTES`] or more whose symbol positions fit `u32`.
fn is_long_line<R: AsRef<str>>(hyp: &str, refs: &[R]) -> bool {
    hyp.len() >= LONG_LINE_BYTES
        && refs
            .iter()
            .all(|r| hyp.len() + r.as_ref().len() < u32::MAX as usize)
}

/// A position whose n-gram the other side lacks (so do all its extensions).
const DEAD: u32 = u32::MAX;

/// Buffers of [`sorted_matches`].
#[derive(Default)]
struct SortScratch {
    /// Rank of the n-gram (of the current order) starting at each position.
    hyp_rank: Vec<u32>,
    ref_rank: Vec<u32>,
    /// `(key, position)`: hypothesis positions first, then the reference's.
    entries: Vec<(u64, u32)>,
    /// Word ids of the hypothesis and reference (the characters' are in `packed`).
    hyp_words: Vec<u32>,
    ref_words: Vec<u32>,
}

/// The clipped matches per order `1..=max_order` of a hypothesis and a reference
/// symbol sequence (hypothesis ids from 1; reference id 0: a symbol the hypothesis
/// lacks) added to `matches`, one order at a time: each position's n-gram of order
/// `n` is the key `(rank of its (n-1)-gram, its last symbol)`; the keys of both
/// sides are sorted together, and each run of equal keys is one n-gram, its clipped
/// matches `min(hyp, ref)` of the run, its positions' new rank the run's number
/// (or [`DEAD`] when one side lacks it). Memory: 4 bytes a position for the ranks
/// and 16 for the sort entries, whatever the orders (issue 28).
fn sorted_matches(
    hyp: &[u32],
    reference: &[u32],
    max_order: usize,
    matches: &mut [i64],
    s: &mut SortScratch,
) {
    let (h, r) = (hyp.len(), reference.len());
    let SortScratch {
        hyp_rank,
        ref_rank,
        entries,
        ..
    } = s;
    hyp_rank.clear();
    hyp_rank.resize(h, 0);
    ref_rank.clear();
    ref_rank.resize(r, 0);
    entries.clear();
    entries.reserve_exact(h + r);
    for n in 1..=max_order.min(h).min(r) {
        entries.clear();
        for (i, &prefix) in hyp_rank[..=h - n].iter().enumerate() {
            if prefix != DEAD {
                entries.push((trie_key(prefix, hyp[i + n - 1]), i as u32));
            }
        }
        for (j, prefix) in ref_rank[..=r - n].iter_mut().enumerate() {
            if *prefix == DEAD {
                continue;
            }
            let symbol = reference[j + n - 1];
            if symbol == 0 {
                *prefix = DEAD;
                continue;
            }
            entries.push((trie_key(*prefix, symbol), (h + j) as u32));
        }
        if entries.is_empty() {
            break;
        }
        entries.sort_unstable_by_key(|e| e.0);
        let mut next = 0u32;
        let mut start = 0;
        while start < entries.len() {
            let key = entries[start].0;
            let mut end = start;
            let mut in_hyp = 0i64;
            while end < entries.len() && entries[end].0 == key {
                in_hyp += i64::from((entries[end].1 as usize) < h);
                end += 1;
            }
            let in_ref = (end - start) as i64 - in_hyp;
            let rank = if in_hyp > 0 && in_ref > 0 {
                matches[n - 1] += in_hyp.min(in_ref);
                next += 1;
                next - 1
            } else {
                DEAD
            };
            for &(_, position) in &entries[start..end] {
                let p = position as usize;
                if p < h {
                    hyp_rank[p] = rank;
                } else {
                    ref_rank[p - h] = rank;
                }
            }
            start = end;
        }
    }
}

/// [`segment_stats`] for long hypotheses (see [`LONG_LINE_BYTES`]): the same row,
/// counted by [`sorted_matches`] one order at a time, so that memory is a few
/// bytes per symbol (code points: 4 each for the ids of both sides, then 20 for
/// the ranks and sort entries) instead of hash tables of every order at once.
fn long_segment_stats<R: AsRef<str>>(
    workspace: &mut Workspace,
    hyp: &str,
    refs: &[R],
    cfg: &ChrfConfig,
    row: &mut [i64],
) {
    row.fill(0);
    let Workspace {
        candidate,
        packed,
        long,
        ..
    } = workspace;
    candidate.clear();
    candidate.resize(cfg.row_width(), 0);
    packed.learn_hyp_chars(hyp, cfg.whitespace);
    let mut vocab: FxHashMap<&str, u32> = FxHashMap::default();
    long.hyp_words.clear();
    if cfg.word_order > 0 {
        let hyp_words = &mut long.hyp_words;
        for_each_chrf_word(hyp, |word| {
            let next = vocab.len() as u32 + 1;
            hyp_words.push(*vocab.entry(word).or_insert(next));
        });
    }
    let mut best = -1.0;
    let mut matches = vec![0i64; cfg.orders()];
    for reference in refs {
        let reference = reference.as_ref();
        matches.fill(0);
        let (char_matches, word_matches) = matches.split_at_mut(cfg.char_order);
        packed.char_ids(reference, cfg.whitespace, false, false);
        sorted_matches(
            &packed.hyp_chars,
            &packed.ref_chars,
            cfg.char_order,
            char_matches,
            long,
        );
        long.ref_words.clear();
        if cfg.word_order > 0 {
            let ref_words = &mut long.ref_words;
            for_each_chrf_word(reference, |word| {
                ref_words.push(vocab.get(word).copied().unwrap_or(0));
            });
            let (hyp_words, ref_words) = (
                std::mem::take(&mut long.hyp_words),
                std::mem::take(&mut long.ref_words),
            );
            sorted_matches(&hyp_words, &ref_words, cfg.word_order, word_matches, long);
            (long.hyp_words, long.ref_words) = (hyp_words, ref_words);
        }
        let lengths = [
            packed.hyp_chars.len(),
            packed.ref_chars.len(),
            long.hyp_words.len(),
            long.ref_words.len(),
        ];
        fill_candidate(candidate, &matches, lengths, cfg);
        keep_if_best(candidate, cfg, &mut best, row);
    }
    // a long line's buffers are not kept for the worker's next (short) segments
    *long = SortScratch::default();
    packed.hyp_chars = Vec::new();
    packed.ref_chars = Vec::new();
}

/// [`segment_stats`] through tries of n-gram ids: any number of orders and
/// symbols (the packed path's fallback).
fn trie_segment_stats<R: AsRef<str>>(
    workspace: &mut Workspace,
    hyp: &str,
    refs: &[R],
    cfg: &ChrfConfig,
    row: &mut [i64],
) {
    row.fill(0);
    let Workspace {
        chars,
        words,
        candidate,
        ..
    } = workspace;
    let mut hyp_chars = HypNgrams::new(chars, &char_symbols(hyp, cfg.whitespace), cfg.char_order);
    let hyp_words = if cfg.word_order > 0 {
        chrf_words(hyp)
    } else {
        Vec::new()
    };
    let (vocab, hyp_word_ids) = Vocabulary::of(&hyp_words);
    let mut hyp_word_ngrams = HypNgrams::new(words, &hyp_word_ids, cfg.word_order);
    candidate.clear();
    candidate.resize(cfg.row_width(), 0);
    let mut best = -1.0;
    for reference in refs {
        let reference = reference.as_ref();
        let (char_part, word_part) = candidate.split_at_mut(3 * cfg.char_order);
        hyp_chars.match_stats(&char_symbols(reference, cfg.whitespace), char_part);
        if cfg.word_order > 0 {
            let ref_ids = vocab.symbols(&chrf_words(reference));
            hyp_word_ngrams.match_stats(&ref_ids, word_part);
        }
        keep_if_best(candidate, cfg, &mut best, row);
    }
}

/// Statistics for a batch: a row-major `(n, row_width)` buffer, in parallel.
pub fn batch_stats<H, S, R>(hyps: &[H], refs: &[S], cfg: &ChrfConfig) -> Vec<i64>
where
    H: AsRef<str> + Sync,
    S: AsRef<[R]> + Sync,
    R: AsRef<str>,
{
    assert_eq!(hyps.len(), refs.len(), "one reference list per hypothesis");
    let width = cfg.row_width();
    let mut out = vec![0i64; hyps.len() * width];
    if width == 0 {
        return out;
    }
    crate::common::parallel::fill_rows(
        &mut out,
        width,
        |workspace: &mut Workspace, (index, row)| {
            segment_stats_with(
                workspace,
                hyps[index].as_ref(),
                refs[index].as_ref(),
                cfg,
                row,
            )
        },
    );
    out
}

/// One sentence's n-grams for pairwise scoring: sorted `(global id, count)`
/// pairs and the number of n-grams per order.
struct Inventory {
    ngrams: Vec<(u32, i64)>,
    totals: Vec<i64>,
}

/// Global interning of character and word n-grams over many sentences.
struct Interner<'a> {
    ids: FxHashMap<u64, u32>,
    order_of_id: Vec<u8>,
    words: FxHashMap<&'a str, u32>,
}

impl<'a> Interner<'a> {
    /// Appends the ids of the n-grams (orders `1..=max_order`, reported as
    /// `first_order + n - 1`) of `symbols` to `found`.
    fn intern(
        &mut self,
        symbols: &[u32],
        root: u32,
        max_order: usize,
        first_order: usize,
        found: &mut Vec<u32>,
    ) {
        let mut prefix = vec![root; symbols.len()];
        for n in 1..=max_order {
            for i in 0..(symbols.len() + 1).saturating_sub(n) {
                let key = trie_key(prefix[i], symbols[i + n - 1]);
                let order_of_id = &mut self.order_of_id;
                let id = *self.ids.entry(key).or_insert_with(|| {
                    order_of_id.push((first_order + n - 1) as u8);
                    (order_of_id.len() - 1) as u32
                });
                prefix[i] = id;
                found.push(id);
            }
        }
    }

    fn inventory(&mut self, text: &'a str, cfg: &ChrfConfig) -> Inventory {
        let mut found = Vec::new();
        let chars = char_symbols(text, cfg.whitespace);
        self.intern(&chars, CHAR_ROOT, cfg.char_order, 0, &mut found);
        let mut totals: Vec<i64> = (1..=cfg.char_order)
            .map(|n| ngram_total(chars.len(), n))
            .collect();
        if cfg.word_order > 0 {
            let words = chrf_words(text);
            let word_ids: Vec<u32> = words
                .iter()
                .map(|w| {
                    let next = self.words.len() as u32;
                    *self.words.entry(*w).or_insert(next)
                })
                .collect();
            self.intern(
                &word_ids,
                WORD_ROOT,
                cfg.word_order,
                cfg.char_order,
                &mut found,
            );
            totals.extend((1..=cfg.word_order).map(|n| ngram_total(word_ids.len(), n)));
        }
        found.sort_unstable();
        let mut ngrams: Vec<(u32, i64)> = Vec::new();
        for id in found {
            match ngrams.last_mut() {
                Some((last, count)) if *last == id => *count += 1,
                _ => ngrams.push((id, 1)),
            }
        }
        Inventory { ngrams, totals }
    }
}

/// Sentence chrF (0–100) of every hypothesis against every candidate as its
/// single reference: a row-major `(n_hyps * n_cands)` buffer. Each sentence's
/// n-grams are extracted once; a pair costs one sorted merge.
pub fn pairwise_scores(
    hyps: &[String],
    cands: &[String],
    cfg: &ChrfConfig,
) -> Result<Vec<f64>, crate::common::alloc::TooLarge> {
    let mut out = crate::common::alloc::filled(hyps.len(), cands.len(), 0.0f64)?;
    crate::common::parallel::install(|| {
        let mut interner = Interner {
            ids: FxHashMap::default(),
            order_of_id: Vec::new(),
            words: FxHashMap::default(),
        };
        let inventories: Vec<Inventory> = hyps
            .iter()
            .chain(cands.iter())
            .map(|text| interner.inventory(text, cfg))
            .collect();
        let order_of_id = interner.order_of_id;
        let (hyp_inv, cand_inv) = inventories.split_at(hyps.len());
        if out.is_empty() {
            return Ok(out);
        }
        let orders = cfg.orders();
        out.par_chunks_mut(cands.len())
            .zip(hyp_inv.par_iter())
            .for_each(|(scores, hyp)| {
                let mut matches = vec![0i64; orders];
                let mut row = vec![0i64; 3 * orders];
                for (score, cand) in scores.iter_mut().zip(cand_inv) {
                    matches.fill(0);
                    let (mut i, mut j) = (0, 0);
                    while i < hyp.ngrams.len() && j < cand.ngrams.len() {
                        let (hid, hcount) = hyp.ngrams[i];
                        let (cid, ccount) = cand.ngrams[j];
                        if hid < cid {
                            i += 1;
                        } else if cid < hid {
                            j += 1;
                        } else {
                            matches[order_of_id[hid as usize] as usize] += hcount.min(ccount);
                            i += 1;
                            j += 1;
                        }
                    }
                    for o in 0..orders {
                        let ref_total = cand.totals[o];
                        row[3 * o] = if ref_total > 0 { hyp.totals[o] } else { 0 };
                        row[3 * o + 1] = ref_total;
                        row[3 * o + 2] = matches[o];
                    }
                    *score = f_score(&row, cfg.factor, cfg.eps_smoothing);
                }
            });
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(char_order: usize, word_order: usize) -> ChrfConfig {
        ChrfConfig {
            char_order,
            word_order,
            whitespace: false,
            factor: 4.0,
            eps_smoothing: false,
        }
    }

    fn stats(hyp: &str, refs: &[&str], cfg: &ChrfConfig) -> Vec<i64> {
        let mut row = vec![0; cfg.row_width()];
        segment_stats(hyp, refs, cfg, &mut row);
        row
    }

    #[test]
    fn character_counts_ignore_whitespace() {
        // "ab a" -> "aba": unigrams a,b,a; bigrams ab,ba.  "a b" -> "ab".
        let row = stats("ab a", &["a b"], &config(2, 0));
        assert_eq!(row, vec![3, 2, 2, 2, 1, 1]);
        let cfg = ChrfConfig {
            whitespace: true,
            ..config(2, 0)
        };
        // "ab a" / "a b": unigrams a,b,' ',a vs a,' ',b; bigrams ab,'b ',' a' vs 'a ',' b'
        assert_eq!(stats("ab a", &["a b"], &cfg), vec![4, 3, 3, 3, 2, 0]);
    }

    #[test]
    fn empty_reference_order_reports_no_hypothesis_ngrams() {
        assert_eq!(
            stats("abc", &["a"], &config(3, 0)),
            vec![3, 1, 1, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(stats("", &[""], &config(1, 1)), vec![0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn punctuation_is_split_like_sacrebleu() {
        assert_eq!(
            chrf_words("(hi) a, .b ! x.y"),
            vec!["(hi", ")", "a", ",", ".", "b", "!", "x.y"]
        );
        assert_eq!(chrf_words("«a» é."), vec!["«a»", "é", "."]);
        assert_eq!(
            chrf_words(".é é. . .. é\u{a0}x\u{3000}"),
            vec![".", "é", "é", ".", ".", ".", ".", "é", "x"]
        );
    }

    #[test]
    fn best_reference_wins_and_first_wins_ties() {
        let cfg = config(2, 2);
        let good = stats("the cat", &["the cat"], &cfg);
        assert_eq!(stats("the cat", &["a dog", "the cat"], &cfg), good);
        let first = stats("ab", &["ab x"], &cfg);
        assert_eq!(stats("ab", &["ab x", "x ab"], &cfg), first);
        assert_eq!(
            stats("ab", &["zz", "ab x", "ab"], &cfg),
            stats("ab", &["ab"], &cfg)
        );
    }

    #[test]
    fn f_score_matches_hand_computation() {
        // one order, P = 1/2, R = 1 -> F2 = 5 * 0.5 / (4 * 0.5 + 1) = 5/6
        let f = f_score(&[2, 1, 1], 4.0, false);
        assert!((f - 100.0 * 5.0 / 6.0).abs() < 1e-12);
        assert_eq!(f_score(&[0, 0, 0], 4.0, false), 0.0);
        let eps = f_score(&[0, 0, 0], 4.0, true);
        assert!(eps > 0.0 && eps < 1e-12);
    }

    #[test]
    fn pairwise_equals_per_pair_scores() {
        let sentences: Vec<String> = ["the cat sat.", "a cat, the mat", "", "tac eht", "(the) cat"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        for cfg in [
            config(6, 0),
            config(4, 2),
            ChrfConfig {
                eps_smoothing: true,
                ..config(3, 1)
            },
        ] {
            let matrix = pairwise_scores(&sentences, &sentences, &cfg).unwrap();
            for (i, hyp) in sentences.iter().enumerate() {
                for (j, cand) in sentences.iter().enumerate() {
                    let mut row = vec![0; cfg.row_width()];
                    segment_stats(hyp, std::slice::from_ref(cand), &cfg, &mut row);
                    let expected = f_score(&row, cfg.factor, cfg.eps_smoothing);
                    assert_eq!(
                        matrix[i * sentences.len() + j],
                        expected,
                        "{hyp:?} vs {cand:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn reused_workspace_equals_fresh_one() {
        let long: String = (0..3000)
            .map(|i| char::from(b'a' + (i * 7 % 26) as u8))
            .collect();
        let texts = ["a b", long.as_str(), "", "ab ba", long.as_str(), "x y z"];
        let cfg = config(6, 2);
        let mut workspace = Workspace::default();
        for hyp in texts {
            for reference in texts {
                let mut reused = vec![0; cfg.row_width()];
                segment_stats_with(&mut workspace, hyp, &[reference, "b a"], &cfg, &mut reused);
                assert_eq!(reused, stats(hyp, &[reference, "b a"], &cfg));
            }
        }
    }

    fn trie_stats(hyp: &str, refs: &[&str], cfg: &ChrfConfig) -> Vec<i64> {
        let mut row = vec![0; cfg.row_width()];
        let mut workspace = Workspace::default();
        workspace.candidate.resize(cfg.row_width(), 0);
        trie_segment_stats(&mut workspace, hyp, refs, cfg, &mut row);
        row
    }

    /// The row of the packed path (or the tries where the keys do not fit), whatever the length.
    fn table_stats(hyp: &str, refs: &[&str], cfg: &ChrfConfig) -> Vec<i64> {
        let mut row = vec![0; cfg.row_width()];
        let mut workspace = Workspace::default();
        let mut candidate = vec![0; cfg.row_width()];
        if !workspace
            .packed
            .segment_stats(hyp, refs, cfg, &mut candidate, &mut row)
        {
            workspace.candidate.resize(cfg.row_width(), 0);
            trie_segment_stats(&mut workspace, hyp, refs, cfg, &mut row);
        }
        row
    }

    #[test]
    fn long_lines_count_like_the_hash_tables() {
        // issue 28: long lines are counted one order at a time by sorting; the rows must be
        // those of the packed and trie paths, on long generated lines with repeated chunks
        // (long matching n-grams), small and large alphabets, several references
        let mut rng = fastrand::Rng::with_seed(28);
        let small: Vec<char> = "ab c.,!\u{a0}é".chars().collect();
        let large: Vec<char> = (0..1500u32)
            .filter_map(|i| char::from_u32(0x4e00 + i))
            .chain(" .".chars())
            .collect();
        let line = |rng: &mut fastrand::Rng, alphabet: &[char], chunks: &[String]| -> String {
            let mut text = String::new();
            while text.len() < LONG_LINE_BYTES + 5000 {
                if rng.bool() {
                    text.push_str(&chunks[rng.usize(0..chunks.len())]);
                } else {
                    for _ in 0..rng.usize(1..50) {
                        text.push(alphabet[rng.usize(0..alphabet.len())]);
                    }
                }
            }
            text
        };
        let configs = [
            config(6, 0),
            config(6, 2),
            config(0, 2),
            config(3, 4),
            ChrfConfig {
                whitespace: true,
                ..config(6, 2)
            },
        ];
        let mut workspace = Workspace::default();
        for alphabet in [&small, &large] {
            let chunks: Vec<String> = (0..20)
                .map(|_| {
                    (0..rng.usize(5..400))
                        .map(|_| alphabet[rng.usize(0..alphabet.len())])
                        .collect()
                })
                .collect();
            for _ in 0..2 {
                let hyp = line(&mut rng, alphabet, &chunks);
                let refs: Vec<String> = (0..rng.usize(1..4))
                    .map(|_| line(&mut rng, alphabet, &chunks))
                    .chain(["short ref".to_string(), String::new()])
                    .collect();
                let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
                assert!(is_long_line(&hyp, &refs));
                for cfg in &configs {
                    let mut row = vec![0; cfg.row_width()];
                    segment_stats_with(&mut workspace, &hyp, &refs, cfg, &mut row);
                    assert_eq!(row, table_stats(&hyp, &refs, cfg), "{cfg:?}");
                    // the repeated chunks match (words may not: the large alphabet has few spaces)
                    assert!(cfg.char_order == 0 || row[2] > 0);
                }
            }
        }
        // the hypothesis as its own reference: every n-gram matches
        let hyp = line(&mut rng, &small, &["abc abc".to_string()]);
        let mut row = vec![0; config(6, 2).row_width()];
        segment_stats_with(
            &mut workspace,
            &hyp,
            &[hyp.as_str()],
            &config(6, 2),
            &mut row,
        );
        for triple in row.chunks_exact(3) {
            assert!(triple[0] == triple[1] && triple[1] == triple[2] && triple[0] > 0);
        }
    }

    #[test]
    fn packed_keys_count_like_the_tries_on_random_text() {
        let alphabet: Vec<char> = "ab c.,!(\u{a0}\t\u{3000}é😀\u{1c}".chars().collect();
        let mut rng = fastrand::Rng::with_seed(6);
        let text = |rng: &mut fastrand::Rng| -> String {
            let len = rng.usize(0..40);
            (0..len)
                .map(|_| alphabet[rng.usize(0..alphabet.len())])
                .collect()
        };
        let configs = [
            config(0, 2),
            config(6, 0),
            config(6, 2),
            config(1, 1),
            config(3, 4),
            ChrfConfig {
                whitespace: true,
                ..config(6, 2)
            },
            ChrfConfig {
                eps_smoothing: true,
                ..config(4, 1)
            },
        ];
        let mut workspace = Workspace::default();
        for _ in 0..3000 {
            let hyp = text(&mut rng);
            let refs: Vec<String> = (0..rng.usize(0..4)).map(|_| text(&mut rng)).collect();
            let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
            for cfg in &configs {
                let mut row = vec![0; cfg.row_width()];
                segment_stats_with(&mut workspace, &hyp, &refs, cfg, &mut row);
                assert_eq!(
                    row,
                    trie_stats(&hyp, &refs, cfg),
                    "{hyp:?} {refs:?} {cfg:?}"
                );
            }
        }
    }

    #[test]
    fn too_many_symbols_or_orders_take_the_trie_path() {
        // 2,000 distinct characters do not fit 10-bit lanes; 70 orders no lanes at all
        let wide: String = (0..2000u32)
            .map(|i| char::from_u32(0x4e00 + i).unwrap())
            .collect();
        let shifted: String = wide.chars().skip(3).collect();
        for cfg in [config(6, 2), config(70, 0), config(2, 70)] {
            let mut workspace = Workspace::default();
            let mut candidate = vec![0; cfg.row_width()];
            let mut row = vec![0; cfg.row_width()];
            assert!(!workspace.packed.segment_stats(
                &wide,
                &[shifted.as_str()],
                &cfg,
                &mut candidate,
                &mut row
            ));
            assert_eq!(
                stats(&wide, &[shifted.as_str()], &cfg),
                trie_stats(&wide, &[shifted.as_str()], &cfg)
            );
        }
    }

    #[test]
    fn byte_scanned_words_are_python_split_words() {
        let spaces: Vec<char> = (0..0x3001u32)
            .filter_map(char::from_u32)
            .filter(|&c| is_py_space(c))
            .collect();
        let others = [
            'a', '.', 'é', '\u{85}', '\u{a1}', '\u{1681}', '\u{2010}', '\u{3001}', '日', '😀',
        ];
        let mut rng = fastrand::Rng::with_seed(3);
        for _ in 0..5000 {
            let text: String = (0..rng.usize(0..12))
                .map(|_| {
                    if rng.bool() {
                        spaces[rng.usize(0..spaces.len())]
                    } else {
                        others[rng.usize(0..others.len())]
                    }
                })
                .collect();
            let mut words = Vec::new();
            for_each_py_word(&text, |w| words.push(w));
            assert_eq!(
                words,
                crate::text::py_split(&text).collect::<Vec<_>>(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn ascii_space_table_is_python_whitespace() {
        for b in 0..128u8 {
            assert_eq!(
                ASCII_PY_SPACES.contains(&b),
                is_py_space(char::from(b)),
                "{b}"
            );
        }
    }

    #[test]
    fn several_references_match_the_same_hypothesis_counts() {
        // each reference's clipped matches start from the full hypothesis counts
        let cfg = config(3, 2);
        // the last reference (equal to the hypothesis) is the best one: it must see the
        // hypothesis counts the first two references took matches from
        let refs = ["aa aa aa", "a a", "aa aa"];
        let mut workspace = Workspace::default();
        let mut row = vec![0; cfg.row_width()];
        segment_stats_with(&mut workspace, "aa aa", &refs, &cfg, &mut row);
        assert_eq!(row, trie_stats("aa aa", &refs, &cfg));
        assert_eq!(row, stats("aa aa", &refs[2..], &cfg));
    }

    #[test]
    fn key_table_finds_what_it_stored_and_forgets_on_reset() {
        let mut table = KeyTable::default();
        table.reset(100);
        for key in 0..100u64 {
            assert_eq!(
                table.get_or_insert(key * 977, key as u32),
                (key as u32, true)
            );
        }
        assert_eq!(table.get_or_insert(5 * 977, 999), (5, false));
        assert_eq!(table.get(42 * 977), Some(42));
        assert_eq!(table.get(1), None);
        table.reset(10);
        assert_eq!(table.get(42 * 977), None);
    }

    #[test]
    fn batch_matches_segments() {
        let hyps = vec!["a b c".to_string(), "x".to_string()];
        let refs = vec![
            vec!["a c".to_string()],
            vec!["y".to_string(), "x".to_string()],
        ];
        let cfg = config(2, 1);
        let out = batch_stats(&hyps, &refs, &cfg);
        let w = cfg.row_width();
        assert_eq!(&out[..w], stats("a b c", &["a c"], &cfg).as_slice());
        assert_eq!(&out[w..], stats("x", &["y", "x"], &cfg).as_slice());
    }
}
