//! Text to token ids: the per-thread vocabulary (lowercasing, tokenising and stemming each distinct
//! token once), the ASCII fast path, texts numbered densely per segment, and the interner.

use super::*;

/// Per-thread vocabulary of the text path: lowercased token -> id, with the stem id
/// of every token computed once (vocabularies repeat, stemming is the costly part).
#[derive(Default)]
pub(super) struct Vocab {
    /// Tokens of at most 15 bytes, packed with their length (see [`short_key`]).
    short: FxHashMap<u128, u32>,
    /// Longer tokens.
    long: FxHashMap<Box<[u8]>, u32>,
    /// The token of each id (for stemming).
    tokens: Vec<u8>,
    token_ends: Vec<usize>,
    /// Stem id of each token id (`u32::MAX`: not stemmed yet).
    stem_ids: Vec<u32>,
    pub(super) stems: FxHashMap<Box<str>, u32>,
    /// The text being read, lowercased (see [`fill_doc_ascii`]).
    word: Vec<u8>,
}

/// A token of at most 15 bytes as one integer: its bytes, zero padded, and its length in the
/// last byte (so that distinct tokens get distinct keys whatever bytes they hold).
pub(super) fn short_key(token: &[u8]) -> Option<u128> {
    /// Up to 8 bytes, little endian, built in registers (a copy through memory would stall
    /// the 16-byte load that follows it).
    pub(super) fn load(bytes: &[u8]) -> u64 {
        bytes
            .iter()
            .enumerate()
            .fold(0u64, |v, (i, &b)| v | (b as u64) << (8 * i))
    }
    let len = token.len();
    if len > 15 {
        return None;
    }
    let (lo, hi) = if len <= 8 {
        (load(token), 0)
    } else {
        (load(&token[..8]), load(&token[8..]))
    };
    Some((lo as u128) | ((hi | (len as u64) << 56) as u128) << 64)
}

/// The bytes of a [`short_key`] (its first `len` bytes are the token) and `len`.
pub(super) fn short_key_bytes(key: u128) -> ([u8; 16], usize) {
    let bytes = key.to_le_bytes();
    (bytes, bytes[15] as usize)
}

impl Vocab {
    /// Called before each segment: bounds the vocabulary.
    pub(super) fn start_segment(&mut self) {
        if self.stem_ids.len() + self.stems.len() > 1 << 21 {
            self.short.clear();
            self.long.clear();
            self.tokens.clear();
            self.token_ends.clear();
            self.stem_ids.clear();
            self.stems.clear();
        }
    }

    /// Id of a token (of its stem with `stem`).
    pub(super) fn id(&mut self, token: &[u8], stem: bool) -> u32 {
        if let Some(key) = short_key(token) {
            return self.short_id(key, stem);
        }
        let next = self.stem_ids.len() as u32;
        let plain = match self.long.get(token) {
            Some(&id) => id,
            None => {
                self.long.insert(token.into(), next);
                self.add_token(token);
                next
            }
        };
        self.final_id(plain, stem)
    }

    /// Id of the token of at most 15 bytes whose [`short_key`] is `key` (of its stem with `stem`).
    #[inline]
    pub(super) fn short_id(&mut self, key: u128, stem: bool) -> u32 {
        let plain = match self.short.get(&key) {
            Some(&id) => id,
            None => self.add_short(key),
        };
        self.final_id(plain, stem)
    }

    /// Records a new token of at most 15 bytes and returns its plain id.
    #[cold]
    pub(super) fn add_short(&mut self, key: u128) -> u32 {
        let next = self.stem_ids.len() as u32;
        self.short.insert(key, next);
        let (bytes, len) = short_key_bytes(key);
        self.add_token(&bytes[..len]);
        next
    }

    /// Records a new token (its plain id is the next one).
    pub(super) fn add_token(&mut self, token: &[u8]) {
        self.stem_ids.push(u32::MAX);
        self.tokens.extend_from_slice(token);
        self.token_ends.push(self.tokens.len());
    }

    /// The id returned for plain id `plain`: itself, or its stem's id with `stem`.
    #[inline]
    pub(super) fn final_id(&mut self, plain: u32, stem: bool) -> u32 {
        if !stem {
            return plain;
        }
        let known = self.stem_ids[plain as usize];
        if known != u32::MAX {
            return known;
        }
        self.stem_new(plain)
    }

    /// Stems a token seen for the first time.
    #[cold]
    pub(super) fn stem_new(&mut self, plain: u32) -> u32 {
        let word = std::str::from_utf8(self.token(plain))
            .expect("tokens are cut from str at char boundaries");
        let stemmed = crate::rouge::text::stem_token(word);
        let next = self.stems.len() as u32;
        let id = *self.stems.entry(stemmed.into_boxed_str()).or_insert(next);
        self.stem_ids[plain as usize] = id;
        id
    }

    /// The token of a plain id.
    pub(super) fn token(&self, id: u32) -> &[u8] {
        let id = id as usize;
        let start = if id == 0 { 0 } else { self.token_ends[id - 1] };
        &self.tokens[start..self.token_ends[id]]
    }
}

/// A byte as the ASCII tokenizer keeps it: `[a-z0-9]` as is, `[A-Z]` lowercased, every other
/// byte 0 (a separator). Arithmetic, so that a text is mapped 16 bytes at a time.
#[inline(always)]
pub(super) fn lowered(b: u8) -> u8 {
    let l = b | 0x20;
    let letter = l.wrapping_sub(b'a') < 26;
    let digit = b.wrapping_sub(b'0') < 10;
    (if letter { l } else { 0 }) | (if digit { b } else { 0 })
}

/// A mask with the high bit of each zero byte of `x` set; its lowest set bit is exact (the
/// bits above it may be spurious), which is all that finding a token's end needs.
#[inline(always)]
pub(super) fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080
}

/// The low `len` bytes (0 to 7) of a little-endian word.
#[inline(always)]
pub(super) fn low_bytes(x: u64, len: usize) -> u64 {
    x & ((1u64 << (8 * len)) - 1)
}

/// [`fill_doc`] of ASCII text: the text is lowercased into a buffer (separators 0) in one pass,
/// then each token is read 8 bytes at a time: its end is the first zero byte, and its bytes
/// are its [`short_key`] directly (tokens of 16 bytes or more take the general lookup).
pub(super) fn fill_doc_ascii(
    vocab: &mut Vocab,
    doc: &mut Doc,
    bytes: &[u8],
    stem: bool,
    split_lines: bool,
) {
    let n = bytes.len();
    let mut low = std::mem::take(&mut vocab.word);
    // zero padding: the 8-byte reads of a token's first 16 bytes stay inside
    low.clear();
    low.resize(n + 16, 0);
    for (out, &b) in low.iter_mut().zip(bytes) {
        *out = lowered(b);
    }
    let word = |i: usize| u64::from_le_bytes(low[i..i + 8].try_into().expect("8 bytes"));
    let key =
        |lo: u64, hi: u64, len: usize| (lo as u128) | ((hi | (len as u64) << 56) as u128) << 64;
    let mut i = 0;
    while i < n {
        if low[i] == 0 {
            if bytes[i] == b'\n' && split_lines {
                doc.end_sentence();
            }
            i += 1;
            continue;
        }
        let w0 = word(i);
        let z0 = zero_bytes(w0);
        let id = if z0 != 0 {
            let len = (z0.trailing_zeros() / 8) as usize;
            i += len;
            vocab.short_id(key(low_bytes(w0, len), 0, len), stem)
        } else {
            let w1 = word(i + 8);
            // 8 when the second word has no zero byte (trailing_zeros of 0 is 64)
            let extra = (zero_bytes(w1).trailing_zeros() / 8) as usize;
            if extra < 8 {
                let len = 8 + extra;
                i += len;
                vocab.short_id(key(w0, low_bytes(w1, extra), len), stem)
            } else {
                let start = i;
                i += 16;
                while low[i] != 0 {
                    i += 1;
                }
                vocab.id(&low[start..i], stem)
            }
        };
        doc.flat.push(id);
    }
    doc.end_sentence();
    vocab.word = low;
}

/// Tokenizes `text` into `doc` (sentences: its lines when `split_lines`). ASCII text is
/// read in one pass without intermediate strings (both tokenizers agree on ASCII: lowercase,
/// every byte outside `[a-z0-9]` separates); other text goes through [`RougeTokenizer::prepare`].
pub(super) fn fill_doc(
    vocab: &mut Vocab,
    doc: &mut Doc,
    text: &str,
    tok: RougeTokenizer,
    stem: bool,
    split_lines: bool,
) {
    doc.clear();
    if text.is_ascii() {
        fill_doc_ascii(vocab, doc, text.as_bytes(), stem, split_lines);
        return;
    }
    let mut piece = |piece: &str, doc: &mut Doc| {
        let prepared = tok.prepare(piece);
        for token in prepared.split(' ').filter(|t| !t.is_empty()) {
            let id = vocab.id(token.as_bytes(), stem);
            doc.flat.push(id);
        }
        doc.end_sentence();
    };
    if split_lines {
        for line in text.split('\n').filter(|line| !line.is_empty()) {
            piece(line, doc);
        }
    } else {
        piece(text, doc);
    }
}

/// Texts in one buffer (the inputs of one call, copied out of Python once).
#[derive(Clone, Debug, Default)]
pub struct Texts {
    buf: String,
    ends: Vec<usize>,
}

impl Texts {
    /// Appends a text.
    pub fn push(&mut self, text: &str) {
        self.buf.push_str(text);
        self.ends.push(self.buf.len());
    }

    /// Text `i`.
    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.buf[start..self.ends[i]]
    }

    /// Number of texts.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True without texts.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

/// Renumbers the tokens of one segment densely from 0 (in order of appearance): the kernels
/// then index tables by token id. The map from vocabulary ids is a table stamped per segment,
/// so nothing is cleared between segments.
#[derive(Default)]
pub(super) struct LocalIds {
    /// Per vocabulary id: (stamp of the segment that numbered it, its number there).
    slots: Vec<(u32, u32)>,
    stamp: u32,
}

impl LocalIds {
    /// Renumbers `hyp` and `refs` (sentences cut from the flat tokens, as the text path
    /// makes them) and returns the number of distinct tokens.
    pub(super) fn number(&mut self, hyp: &mut Doc, refs: &mut [Doc]) -> usize {
        if self.stamp == u32::MAX {
            self.slots.clear();
            self.stamp = 0;
        }
        self.stamp += 1;
        let stamp = self.stamp;
        let mut next = 0u32;
        for doc in std::iter::once(hyp).chain(refs.iter_mut()) {
            debug_assert!(doc.sents_are_flat);
            for t in doc.flat.iter_mut() {
                let id = *t as usize;
                if id >= self.slots.len() {
                    self.slots.resize(id + 1, (0, 0));
                }
                let slot = &mut self.slots[id];
                if slot.0 != stamp {
                    *slot = (stamp, next);
                    next += 1;
                }
                *t = slot.1;
            }
        }
        next as usize
    }
}

/// Per-thread buffers of the text path.
#[derive(Default)]
pub(super) struct TextScratch {
    vocab: Vocab,
    local: LocalIds,
    hyp: Doc,
    refs: Vec<Doc>,
    kernels: KernelScratch,
}

thread_local! {
    static TEXT_SCRATCH: std::cell::RefCell<TextScratch> = Default::default();
}

/// Statistics of raw text: each segment is tokenized (split into sentences on
/// `'\n'` when `split_lines`), stemmed and interned, in parallel over blocks of
/// segments. Output as [`batch_stats`].
#[allow(clippy::too_many_arguments)]
pub fn text_batch_stats(
    hyps: &Texts,
    refs: &Texts,
    ref_counts: &[usize],
    tok: RougeTokenizer,
    stem: bool,
    kinds: &[Kind],
    split_lines: bool,
    max_cells: u64,
) -> Result<Vec<f64>, PairTooLarge> {
    let width = kinds.len() * 3;
    let mut first_ref = Vec::with_capacity(ref_counts.len());
    let mut total = 0;
    for &count in ref_counts {
        first_ref.push(total);
        total += count;
    }
    run_blocks(ref_counts, width, |start, end, chunk| {
        TEXT_SCRATCH.with(|cell| {
            let mut guard = cell.borrow_mut();
            let sc = &mut *guard;
            let mut offset = 0;
            for i in start..end {
                sc.vocab.start_segment();
                fill_doc(
                    &mut sc.vocab,
                    &mut sc.hyp,
                    hyps.get(i),
                    tok,
                    stem,
                    split_lines,
                );
                let k = ref_counts[i];
                if sc.refs.len() < k {
                    sc.refs.resize_with(k, Doc::default);
                }
                for (j, doc) in sc.refs[..k].iter_mut().enumerate() {
                    let text = refs.get(first_ref[i] + j);
                    fill_doc(&mut sc.vocab, doc, text, tok, stem, split_lines);
                }
                let n_ids = sc.local.number(&mut sc.hyp, &mut sc.refs[..k]);
                let rows = &mut chunk[offset..offset + k * width];
                segment_rows(
                    &sc.hyp,
                    &sc.refs[..k],
                    kinds,
                    max_cells,
                    n_ids,
                    &mut sc.kernels,
                    rows,
                )
                .map_err(|(r, cells)| PairTooLarge {
                    segment: i,
                    reference: r,
                    cells,
                    limit: max_cells,
                })?;
                offset += k * width;
            }
            Ok(())
        })
    })
}

/// Interns tokens to dense ids (shared by a hypothesis and its references).
#[derive(Default)]
pub struct Interner<K> {
    ids: FxHashMap<K, u32>,
}

impl<K: std::hash::Hash + Eq> Interner<K> {
    pub fn id(&mut self, key: K) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(key).or_insert(next)
    }

    /// Number of distinct keys seen.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True before the first key.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Every key with its id.
    pub fn iter(&self) -> impl Iterator<Item = (&K, u32)> {
        self.ids.iter().map(|(k, &v)| (k, v))
    }
}
