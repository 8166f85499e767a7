//! A content-addressed cache of prepared reference statistics (issue 13).
//!
//! Scoring several systems against the same references (a WMT evaluation, a
//! checkpoint sweep, a validation set in a training loop) makes the statistics
//! kernels tokenise and decode the same references again and again. A kernel
//! prepares that hypothesis-independent part once (the references as ids of
//! one vocabulary), stores it here, and finds it again on a later call whose
//! references are *the same bytes*:
//!
//! - entries are keyed by the reference text itself, compared in full
//!   (segment structure, every reference's length and bytes: a `memcmp` at
//!   memory speed), never by object identity or a hash alone, and by a string
//!   of every option that changes the prepared statistics (kernel, tokenizer,
//!   n-gram orders...), so a mutated reference list or other options are never
//!   served another entry;
//! - references are prepared the *second* time they are seen: the first call
//!   takes the kernel's direct path (for a one-off call it is faster than
//!   preparing, measured in `benchmarks/`) and leaves only a fingerprint (a
//!   64-bit hash of the options and the reference bytes). A fingerprint only
//!   decides when to prepare, never what is served: a collision prepares early;
//!   a training loop's one-off batches never fill the cache;
//! - the cache is a small LRU bounded by a number of entries and a byte budget
//!   (what each entry holds, text copy included), see [`set_limits`];
//! - it is thread-safe: a mutex guards the list, entries are shared read-only
//!   (`Arc`), and a lookup or insertion holds the lock only to compare and
//!   reorder; the preparation itself runs outside it.
//!
//! Values are exact: the prepared path computes the same integers as the
//! uncached kernels (tested against them).

use crate::common::process_local::ProcessLocal;
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Default number of entries kept per kernel.
pub const DEFAULT_MAX_ENTRIES: usize = 8;
/// Default byte budget per kernel (256 MiB).
pub const DEFAULT_MAX_BYTES: usize = 256 << 20;
/// Batches with fewer segments are not cached: their references cost little
/// to prepare, and a training loop's ever-changing small batches would only
/// churn the cache.
pub const MIN_SEGMENTS: usize = 64;

static MAX_ENTRIES: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_ENTRIES);
static MAX_BYTES: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_BYTES);

/// Sets the bounds of every reference cache (0 entries disables caching);
/// entries beyond them are evicted on the next insertion or [`RefCache::trim`].
pub fn set_limits(max_entries: usize, max_bytes: usize) {
    MAX_ENTRIES.store(max_entries, Ordering::Relaxed);
    MAX_BYTES.store(max_bytes, Ordering::Relaxed);
}

/// The current `(max_entries, max_bytes)`.
pub fn limits() -> (usize, usize) {
    (
        MAX_ENTRIES.load(Ordering::Relaxed),
        MAX_BYTES.load(Ordering::Relaxed),
    )
}

/// The references of a batch: segment `i` has `refs[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Copy)]
pub struct RefsView<'a> {
    pub refs: &'a [&'a str],
    pub offsets: &'a [usize],
}

impl<'a> RefsView<'a> {
    /// Number of segments.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The references of segment `i`.
    pub fn segment(&self, i: usize) -> &'a [&'a str] {
        &self.refs[self.offsets[i]..self.offsets[i + 1]]
    }

    /// The references of every segment, one slice each (the uncached kernels' layout).
    pub fn segments(&self) -> Vec<&'a [&'a str]> {
        (0..self.len()).map(|i| self.segment(i)).collect()
    }

    /// Bytes of reference text.
    pub fn text_bytes(&self) -> usize {
        self.refs.iter().map(|r| r.len()).sum()
    }
}

/// A copy of a batch's reference text and structure, compared in full on lookup.
struct RefText {
    text: Box<[u8]>,
    lens: Box<[usize]>,
    offsets: Box<[usize]>,
}

impl RefText {
    fn of(view: RefsView<'_>) -> Self {
        let mut text = Vec::with_capacity(view.text_bytes());
        for r in view.refs {
            text.extend_from_slice(r.as_bytes());
        }
        RefText {
            text: text.into_boxed_slice(),
            lens: view.refs.iter().map(|r| r.len()).collect(),
            offsets: view.offsets.into(),
        }
    }

    fn bytes(&self) -> usize {
        self.text.len() + 8 * (self.lens.len() + self.offsets.len())
    }

    /// Exactly the same segments, references and bytes.
    fn equals(&self, view: RefsView<'_>) -> bool {
        if *self.offsets != *view.offsets || self.lens.len() != view.refs.len() {
            return false;
        }
        let mut at = 0;
        for (&len, r) in self.lens.iter().zip(view.refs) {
            if len != r.len() || self.text[at..at + len] != *r.as_bytes() {
                return false;
            }
            at += len;
        }
        at == self.text.len()
    }

    fn same(&self, other: &RefText) -> bool {
        self.offsets == other.offsets && self.lens == other.lens && self.text == other.text
    }
}

/// One prepared reference set.
pub struct Entry<V> {
    options: String,
    text: RefText,
    /// The kernel's prepared statistics.
    pub value: V,
    bytes: usize,
}

struct State<V> {
    /// Most recently used first.
    entries: Vec<Arc<Entry<V>>>,
    /// Fingerprints of reference sets seen once and not prepared, most recent first.
    seen: Vec<u64>,
    bytes: usize,
    hits: u64,
    misses: u64,
}

/// Counters of one cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Info {
    pub entries: usize,
    pub bytes: usize,
    pub hits: u64,
    pub misses: u64,
}

/// The LRU cache of one kernel's prepared references (see the module docs).
///
/// Its state is per process: a child made by `fork` starts with an empty
/// cache instead of inheriting a lock another thread of the parent may hold.
pub struct RefCache<V> {
    state: ProcessLocal<Mutex<State<V>>>,
}

impl<V> Default for RefCache<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V> RefCache<V> {
    pub const fn new() -> Self {
        RefCache {
            state: ProcessLocal::new(Self::empty),
        }
    }

    fn empty() -> Mutex<State<V>> {
        Mutex::new(State {
            entries: Vec::new(),
            seen: Vec::new(),
            bytes: 0,
            hits: 0,
            misses: 0,
        })
    }

    /// `update(state)` under this process's lock (held only for `update`, which
    /// calls nothing outside this module).
    fn with_state<R>(&self, update: impl FnOnce(&mut State<V>) -> R) -> R {
        let state = self.state.get();
        // a panic elsewhere cannot leave the list inconsistent: every update is one step
        let mut guard = state.lock().unwrap_or_else(|poison| poison.into_inner());
        update(&mut guard)
    }

    /// The entry prepared for exactly these references and options (made most recent).
    pub fn get(&self, options: &str, refs: RefsView<'_>) -> Option<Arc<Entry<V>>> {
        self.with_state(|state| {
            let index = state
                .entries
                .iter()
                .position(|e| e.options == options && e.text.equals(refs))?;
            let entry = state.entries.remove(index);
            state.entries.insert(0, Arc::clone(&entry));
            state.hits += 1;
            Some(entry)
        })
    }

    /// Stores `value` (holding `value_bytes`) for these references and options,
    /// evicting the least recently used entries beyond the bounds; an entry
    /// larger than the whole budget is returned without being kept.
    pub fn insert(
        &self,
        options: &str,
        refs: RefsView<'_>,
        value: V,
        value_bytes: usize,
    ) -> Arc<Entry<V>> {
        let text = RefText::of(refs);
        let bytes = value_bytes + text.bytes() + options.len();
        let entry = Arc::new(Entry {
            options: options.to_owned(),
            text,
            value,
            bytes,
        });
        let (max_entries, max_bytes) = limits();
        self.with_state(|state| {
            state.misses += 1;
            if max_entries > 0 && bytes <= max_bytes {
                // another thread may have prepared the same references meanwhile
                if let Some(index) = state
                    .entries
                    .iter()
                    .position(|e| e.options == entry.options && e.text.same(&entry.text))
                {
                    let old = state.entries.remove(index);
                    state.bytes -= old.bytes;
                }
                state.bytes += bytes;
                state.entries.insert(0, Arc::clone(&entry));
            }
            while state.entries.len() > max_entries || state.bytes > max_bytes {
                let evicted = state
                    .entries
                    .pop()
                    .expect("over the bounds means not empty");
                state.bytes -= evicted.bytes;
            }
        });
        entry
    }

    /// The cached entry, or a new one from `prepare()` (`(value, bytes)`,
    /// prepared outside the lock) when these references were seen before;
    /// `None` the first time they are seen (the caller takes its direct path).
    pub fn get_or_prepare(
        &self,
        options: &str,
        refs: RefsView<'_>,
        prepare: impl FnOnce() -> (V, usize),
    ) -> Option<Arc<Entry<V>>> {
        if let Some(entry) = self.get(options, refs) {
            return Some(entry);
        }
        if self.first_sight(fingerprint(options, refs)) {
            return None;
        }
        let (value, bytes) = prepare();
        Some(self.insert(options, refs, value, bytes))
    }

    /// Records `print` as seen and returns true, or forgets it and returns
    /// false when it was seen already (a miss either way). At most
    /// [`SEEN_PER_ENTRY`] fingerprints per entry bound are kept.
    fn first_sight(&self, print: u64) -> bool {
        let keep = limits().0.saturating_mul(SEEN_PER_ENTRY);
        self.with_state(|state| {
            if let Some(index) = state.seen.iter().position(|&seen| seen == print) {
                state.seen.remove(index); // the insertion that follows counts this miss
                return false;
            }
            state.misses += 1;
            state.seen.insert(0, print);
            state.seen.truncate(keep);
            true
        })
    }

    /// Evicts the least recently used entries beyond the current bounds.
    pub fn trim(&self) {
        let (max_entries, max_bytes) = limits();
        self.with_state(|state| {
            while state.entries.len() > max_entries || state.bytes > max_bytes {
                let evicted = state
                    .entries
                    .pop()
                    .expect("over the bounds means not empty");
                state.bytes -= evicted.bytes;
            }
        })
    }

    /// Drops every entry and fingerprint and zeroes the counters.
    pub fn clear(&self) {
        self.with_state(|state| {
            state.entries.clear();
            state.seen.clear();
            state.bytes = 0;
            state.hits = 0;
            state.misses = 0;
        })
    }

    pub fn info(&self) -> Info {
        self.with_state(|state| Info {
            entries: state.entries.len(),
            bytes: state.bytes,
            hits: state.hits,
            misses: state.misses,
        })
    }
}

/// What the crate-wide functions (`refcache_info`, `refcache_clear`,
/// `refcache_limits`) do to every cache, whatever it holds.
pub trait Managed {
    fn info(&self) -> Info;
    fn clear(&self);
    fn trim(&self);
}

impl<V> Managed for RefCache<V> {
    fn info(&self) -> Info {
        RefCache::info(self)
    }

    fn clear(&self) {
        RefCache::clear(self)
    }

    fn trim(&self) {
        RefCache::trim(self)
    }
}

/// Fingerprints of once-seen reference sets kept per entry of the bound
/// (a loop over more distinct sets than that prepares none of them).
const SEEN_PER_ENTRY: usize = 4;

/// A 64-bit hash of `options` and the references (structure and bytes).
fn fingerprint(options: &str, refs: RefsView<'_>) -> u64 {
    use std::hash::Hasher;
    let mut hasher = FxBuildHasher.build_hasher();
    hasher.write(options.as_bytes());
    for &offset in refs.offsets {
        hasher.write_usize(offset);
    }
    for r in refs.refs {
        hasher.write_usize(r.len());
        hasher.write(r.as_bytes());
    }
    hasher.finish()
}

/// Whether a batch of `segments` segments and `text_bytes` bytes of
/// references is worth preparing for the cache (`growth`: the kernel's bytes
/// of prepared statistics per byte of text, an estimate).
pub fn worth_caching(segments: usize, text_bytes: usize, growth: usize) -> bool {
    let (max_entries, max_bytes) = limits();
    max_entries > 0 && segments >= MIN_SEGMENTS && text_bytes.saturating_mul(growth) <= max_bytes
}

/// The hash of a token, as [`Vocab`] stores it.
#[inline]
pub fn token_hash(token: &[u8]) -> u64 {
    FxBuildHasher.hash_one(token)
}

#[inline]
fn slot_of(hash: u64, shift: u32) -> usize {
    (hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
}

fn capacity_for(entries: usize) -> (usize, u32) {
    // a load factor of at most 3/4 (at least 3/8)
    let capacity = (entries + entries / 3 + 1).next_power_of_two().max(8);
    (capacity, 64 - capacity.trailing_zeros())
}

/// `a == b` for slices of one length, without a `memcmp` call for the short
/// ones (most tokens): two overlapping word loads.
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    debug_assert_eq!(n, b.len());
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().unwrap());
    let half = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().unwrap());
    match n {
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        0..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        _ => a == b,
    }
}

/// One token of a [`Vocab`] (`id` 0: empty slot): 16 bytes, four to a cache line.
#[derive(Clone, Copy, Default)]
struct VocabSlot {
    /// The high half of the token's hash (the low half chose the slot).
    tag: u32,
    id: u32,
    start: u32,
    len: u32,
}

#[inline]
fn tag_of(hash: u64) -> u32 {
    (hash >> 32) as u32
}

/// The tokens of one segment's references with their ids (from 1): an
/// open-addressing table of token hashes, each token's bytes compared on a hit.
#[derive(Default)]
pub struct Vocab {
    slots: Box<[VocabSlot]>,
    text: Box<[u8]>,
    shift: u32,
    len: usize,
}

impl Vocab {
    /// From `(token, id)` pairs (ids distinct, from 1).
    pub fn of<'t>(tokens: impl ExactSizeIterator<Item = (&'t str, u32)>) -> Vocab {
        let (capacity, shift) = capacity_for(tokens.len());
        let mut slots = vec![VocabSlot::default(); capacity];
        let mut text = Vec::new();
        let mut len = 0;
        for (token, id) in tokens {
            let hash = token_hash(token.as_bytes());
            let mut slot = slot_of(hash, shift);
            while slots[slot].id != 0 {
                slot = (slot + 1) & (capacity - 1);
            }
            slots[slot] = VocabSlot {
                tag: tag_of(hash),
                id,
                start: text.len() as u32,
                len: token.len() as u32,
            };
            text.extend_from_slice(token.as_bytes());
            len += 1;
        }
        Vocab {
            slots: slots.into_boxed_slice(),
            text: text.into_boxed_slice(),
            shift,
            len,
        }
    }

    /// From an interning map (token -> id).
    pub fn of_map(map: &FxHashMap<&str, u32>) -> Vocab {
        Vocab::of(map.iter().map(|(t, &id)| (*t, id)))
    }

    /// The id of `token`, 0 if the references do not have it.
    #[inline]
    pub fn get(&self, token: &str) -> u32 {
        self.get_hashed(token, token_hash(token.as_bytes()))
    }

    /// Asks the processor to load the slot a token of this hash starts its
    /// search at (a batch of look-ups then waits for memory once, not once each).
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        if self.len == 0 {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot: *const VocabSlot = &self.slots[slot_of(hash, self.shift)];
            // SAFETY: a prefetch reads nothing; the address is inside `slots`
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.cast()) };
        }
    }

    /// [`Self::get`] of a token whose [`token_hash`] is `hash`.
    #[inline]
    pub fn get_hashed(&self, token: &str, hash: u64) -> u32 {
        if self.len == 0 {
            return 0;
        }
        let bytes = token.as_bytes();
        let mask = self.slots.len() - 1;
        let (mut slot, tag) = (slot_of(hash, self.shift), tag_of(hash));
        loop {
            let s = self.slots[slot];
            if s.id == 0 {
                return 0;
            }
            if s.tag == tag
                && s.len as usize == bytes.len()
                && same_bytes(
                    &self.text[s.start as usize..(s.start + s.len) as usize],
                    bytes,
                )
            {
                return s.id;
            }
            slot = (slot + 1) & mask;
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn bytes(&self) -> usize {
        std::mem::size_of_val(&*self.slots) + self.text.len()
    }
}

/// Raw parts of a flat reference list, for tests and callers holding `Vec<Vec<R>>`.
pub fn flatten<R: AsRef<str>>(refs: &[Vec<R>]) -> (Vec<&str>, Vec<usize>) {
    let mut flat = Vec::with_capacity(refs.len());
    let mut offsets = Vec::with_capacity(refs.len() + 1);
    offsets.push(0);
    for seg in refs {
        flat.extend(seg.iter().map(|r| r.as_ref()));
        offsets.push(flat.len());
    }
    (flat, offsets)
}

/// Held by tests that change the global limits or depend on them.
#[cfg(test)]
pub(crate) static TEST_LIMITS: Mutex<()> = Mutex::new(());

#[cfg(test)]
mod tests {
    use super::*;

    fn view<'a>(refs: &'a [&'a str], offsets: &'a [usize]) -> RefsView<'a> {
        RefsView { refs, offsets }
    }

    #[test]
    fn entries_are_found_by_content_and_options_only() {
        let cache: RefCache<u32> = RefCache::new();
        let (a, offsets) = (["x y", "z"], [0, 1, 2]);
        cache.insert("k", view(&a, &offsets), 7, 10);
        let copy: Vec<String> = a.iter().map(|s| s.to_string()).collect();
        let copy: Vec<&str> = copy.iter().map(|s| s.as_str()).collect();
        assert_eq!(
            cache.get("k", view(&copy, &offsets)).map(|e| e.value),
            Some(7)
        );
        assert!(cache.get("other", view(&copy, &offsets)).is_none());
        assert!(cache.get("k", view(&["x y", "Z"], &offsets)).is_none());
        // the same bytes split differently are other references
        assert!(cache.get("k", view(&["x ", "yz"], &offsets)).is_none());
        assert!(cache.get("k", view(&["x y", "z"], &[0, 2])).is_none());
        assert_eq!(cache.info().hits, 1);
    }

    #[test]
    fn references_are_prepared_the_second_time_they_are_seen() {
        let _guard = TEST_LIMITS.lock().unwrap_or_else(|p| p.into_inner());
        let cache: RefCache<u32> = RefCache::new();
        let (a, b, offsets) = (["x y", "z"], ["x y", "Z"], [0, 1, 2]);
        let mut prepared = 0;
        let mut call = |refs: &[&str], options: &str| {
            cache
                .get_or_prepare(options, view(refs, &offsets), || {
                    prepared += 1;
                    (prepared, 10)
                })
                .map(|entry| entry.value)
        };
        assert_eq!(call(&a, "k"), None); // first sight: the direct path
        assert_eq!(call(&b, "k"), None); // other bytes
        assert_eq!(call(&a, "other"), None); // other options
        assert_eq!(call(&a, "k"), Some(1)); // seen before: prepared
        assert_eq!(call(&a, "k"), Some(1)); // then found
        assert_eq!(call(&b, "k"), Some(2));
        let info = cache.info();
        assert_eq!((info.entries, info.hits, info.misses), (2, 1, 5));
        // a cleared cache forgets what it saw
        cache.clear();
        assert_eq!(call(&a, "k"), None);
        // at most SEEN_PER_ENTRY fingerprints per entry bound: older ones are forgotten
        let saved = limits();
        set_limits(1, usize::MAX);
        let others: Vec<String> = (0..SEEN_PER_ENTRY).map(|i| format!("w{i}")).collect();
        for other in &others {
            assert_eq!(call(&[other.as_str(), "z"], "k"), None);
        }
        assert_eq!(call(&a, "k"), None);
        set_limits(saved.0, saved.1);
    }

    #[test]
    fn least_recently_used_entries_are_evicted_within_the_bounds() {
        let cache: RefCache<usize> = RefCache::new();
        let texts: Vec<String> = (0..5).map(|i| format!("reference {i}")).collect();
        for (i, t) in texts.iter().enumerate() {
            cache.insert("k", view(&[t.as_str()], &[0, 1]), i, 1000);
        }
        // the default bounds keep all five
        assert_eq!(cache.info().entries, 5);
        let _guard = TEST_LIMITS.lock().unwrap_or_else(|p| p.into_inner());
        let saved = limits();
        set_limits(2, usize::MAX);
        cache.get("k", view(&[texts[0].as_str()], &[0, 1])).unwrap();
        cache.insert("k", view(&["new"], &[0, 1]), 9, 1000);
        let info = cache.info();
        assert_eq!(info.entries, 2);
        assert!(cache
            .get("k", view(&[texts[0].as_str()], &[0, 1]))
            .is_some());
        assert!(cache
            .get("k", view(&[texts[4].as_str()], &[0, 1]))
            .is_none());
        // a byte budget below one entry keeps nothing
        set_limits(8, 500);
        let entry = cache.insert("k", view(&["big"], &[0, 1]), 1, 1000);
        assert_eq!(entry.value, 1);
        assert_eq!(cache.info().entries, 0);
        set_limits(saved.0, saved.1);
    }

    #[test]
    fn vocab_finds_what_it_holds() {
        let tokens = ["a", "bb", "ccc", "é"];
        let vocab = Vocab::of(tokens.iter().enumerate().map(|(i, t)| (*t, i as u32 + 1)));
        for (i, t) in tokens.iter().enumerate() {
            assert_eq!(vocab.get(t), i as u32 + 1);
        }
        assert_eq!(vocab.get("b"), 0);
        assert_eq!(Vocab::default().get("a"), 0);
        // every length class of the comparison, and near misses in each
        let long: Vec<String> = (0..40).map(|n| "x".repeat(n) + "é").collect();
        let vocab = Vocab::of(
            long.iter()
                .enumerate()
                .map(|(i, t)| (t.as_str(), i as u32 + 1)),
        );
        for (i, t) in long.iter().enumerate() {
            assert_eq!(vocab.get(t), i as u32 + 1);
            let near = format!("{}é", "x".repeat(i).replacen('x', "y", 1));
            assert_eq!(vocab.get(&near), if i == 0 { 1 } else { 0 });
        }
        for (a, b) in [("abcdefghi", "abcdefghj"), ("abcde", "abcdf"), ("ab", "ac")] {
            assert!(
                !same_bytes(a.as_bytes(), b.as_bytes()) && same_bytes(a.as_bytes(), a.as_bytes())
            );
        }
    }
}
