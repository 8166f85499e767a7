//! METEOR 1.5 paraphrase tables (`paraphrase-en.gz` and friends).
//!
//! The decompressed format is a sequence of three-line records: a probability
//! (ignored by METEOR), a reference phrase and its paraphrase, both
//! whitespace-separated words. METEOR loads every record into a transducer (a
//! trie over reference phrases); so do we, once per table, with the phrases in
//! flat integer arrays. Record order is kept, since it decides the order of
//! candidate matches.

use rustc_hash::FxHashMap;

/// Java's `StringTokenizer` delimiters.
pub fn is_java_delimiter(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{0C}')
}

/// A loaded table, in one flat byte layout that is also its on-disk cache
/// format, so that a cached table is used where it lies (memory-mapped by the
/// caller) without being deserialised or copied.
///
/// Layout (native-endian; every section starts at a multiple of 8 bytes):
/// a header of 11 `u64` (magic, format, endianness mark, the counts
/// `vocab, vocab_bytes, records, tokens, nodes, edges, emits`, and a checksum
/// of the header), then
/// `vocab_offsets: u32[vocab + 1]`, `vocab_sorted: u32[vocab]` (ids in byte
/// order of their words, for lookups), `vocab_bytes: u8[vocab_bytes]`,
/// `ref_lens: u8[records]`, `starts: u32[records + 1]` (record r's reference
/// phrase is `tokens[starts[r]..][..ref_lens[r]]`, its paraphrase the rest up
/// to `starts[r + 1]`), `tokens: u32[tokens]`, and the trie over reference
/// phrases in compressed rows: `edge_starts: u32[nodes + 1]`,
/// `edge_words: u32[edges]` (sorted within a node), `edge_children: u32[edges]`,
/// `emit_starts: u32[nodes + 1]`, `emits: u32[emits]` (records ending at a
/// node, in table order).
///
/// Opening checks the header, the counts against the byte length and the ends
/// of the offset arrays; everything else is read with bounds checks, so a
/// damaged cache can give wrong matches for the records it damages but can
/// neither crash nor hang a process.
pub struct Table {
    storage: Storage,
    counts: Counts,
    /// Each section's byte range, resolved once (a lookup reads several per record).
    sections: [(usize, usize); SECTIONS],
}

/// The bytes of a table: built in memory, or borrowed from the caller (a
/// memory-mapped cache file, kept alive by `_owner`).
pub enum Storage {
    Owned(Vec<u64>),
    Borrowed {
        ptr: *const u8,
        len: usize,
        _owner: Box<dyn std::any::Any + Send + Sync>,
    },
}

// SAFETY: the borrowed bytes are read-only and live as long as `_owner`.
unsafe impl Send for Storage {}
unsafe impl Sync for Storage {}

impl Storage {
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        match self {
            Storage::Owned(words) => {
                // SAFETY: a u64 slice viewed as bytes.
                unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), words.len() * 8) }
            }
            // SAFETY: the owner keeps `len` readable bytes at `ptr` alive.
            Storage::Borrowed { ptr, len, .. } => unsafe { std::slice::from_raw_parts(*ptr, *len) },
        }
    }

    /// The first `words` native-endian u64 words of the bytes (a cache file's
    /// header), or why they cannot be one: unaligned or too short.
    pub fn header(&self, words: usize) -> Result<Vec<u64>, &'static str> {
        let bytes = self.bytes();
        if !(bytes.as_ptr() as usize).is_multiple_of(8) {
            return Err("unaligned bytes");
        }
        if bytes.len() < words * 8 {
            return Err("too short");
        }
        Ok((0..words)
            .map(|i| u64::from_ne_bytes(bytes[i * 8..i * 8 + 8].try_into().unwrap()))
            .collect())
    }
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Table({:?})", self.counts)
    }
}

const MAGIC: u64 = u64::from_le_bytes(*b"NLPEPARA");
/// Version of the byte layout; bump it when the layout changes.
pub const FORMAT: u64 = 1;
const ENDIAN: u64 = 0x0102_0304_0506_0708;
const HEADER_WORDS: usize = 11;
const SECTIONS: usize = 11;
/// Largest phrase, in words (METEOR's records are far shorter).
const MAX_PHRASE: usize = 255;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Counts {
    vocab: usize,
    vocab_bytes: usize,
    records: usize,
    tokens: usize,
    nodes: usize,
    edges: usize,
    emits: usize,
}

impl Counts {
    /// Byte length of each section, in layout order.
    fn section_bytes(&self) -> Option<[usize; SECTIONS]> {
        let w = |n: usize| n.checked_mul(4);
        Some([
            w(self.vocab.checked_add(1)?)?,
            w(self.vocab)?,
            self.vocab_bytes,
            self.records,
            w(self.records.checked_add(1)?)?,
            w(self.tokens)?,
            w(self.nodes.checked_add(1)?)?,
            w(self.edges)?,
            w(self.edges)?,
            w(self.nodes.checked_add(1)?)?,
            w(self.emits)?,
        ])
    }

    /// Section starts and the total length.
    fn layout(&self) -> Option<([usize; SECTIONS], usize)> {
        let mut starts = [0; SECTIONS];
        let mut pos = HEADER_WORDS * 8;
        for (start, len) in starts.iter_mut().zip(self.section_bytes()?) {
            *start = pos;
            pos = pos.checked_add(len)?.checked_add(7)? & !7;
        }
        Some((starts, pos))
    }

    fn words(&self) -> [u64; 7] {
        [
            self.vocab,
            self.vocab_bytes,
            self.records,
            self.tokens,
            self.nodes,
            self.edges,
            self.emits,
        ]
        .map(|n| n as u64)
    }
}

/// FNV-1a over the header words.
fn checksum(words: &[u64]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for w in words {
        for b in w.to_ne_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

enum Section {
    VocabOffsets,
    VocabSorted,
    VocabBytes,
    RefLens,
    Starts,
    Tokens,
    EdgeStarts,
    EdgeWords,
    EdgeChildren,
    EmitStarts,
    Emits,
}

/// Splits text into lines the way `BufferedReader.readLine` does (`\n`, `\r` or `\r\n`).
fn java_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match rest.find(['\n', '\r']) {
            None => {
                let line = rest;
                rest = "";
                Some(line)
            }
            Some(pos) => {
                let line = &rest[..pos];
                let skip = if rest[pos..].starts_with("\r\n") {
                    2
                } else {
                    1
                };
                rest = &rest[pos + skip..];
                Some(line)
            }
        }
    })
}

/// A table being parsed.
#[derive(Default)]
struct Builder {
    vocab: Vec<String>,
    index: FxHashMap<String, u32>,
    tokens: Vec<u32>,
    starts: Vec<u32>,
    ref_lens: Vec<u8>,
}

impl Builder {
    fn intern(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.index.get(word) {
            return id;
        }
        let id = self.vocab.len() as u32;
        self.vocab.push(word.to_string());
        self.index.insert(word.to_string(), id);
        id
    }

    fn push_phrase(&mut self, line: &str) -> Result<u8, String> {
        let mut count = 0usize;
        for word in line.split(is_java_delimiter).filter(|w| !w.is_empty()) {
            let id = self.intern(word);
            self.tokens.push(id);
            count += 1;
        }
        if count > MAX_PHRASE {
            return Err(format!("phrase of {count} words is too long"));
        }
        Ok(count as u8)
    }

    fn push_start(&mut self) -> Result<(), String> {
        let start = u32::try_from(self.tokens.len())
            .map_err(|_| "paraphrase table too large (over 4 billion words)".to_string())?;
        self.starts.push(start);
        Ok(())
    }

    /// The trie: per node, its edges sorted by word, and the records it emits in table order.
    #[allow(clippy::type_complexity)]
    fn trie(&self) -> (Vec<u32>, Vec<u32>, Vec<u32>, Vec<u32>, Vec<u32>) {
        let records = self.ref_lens.len();
        let mut children: FxHashMap<(u32, u32), u32> = FxHashMap::default();
        let mut nodes = 1u32;
        let mut ends: Vec<u32> = Vec::with_capacity(records);
        for r in 0..records {
            let s = self.starts[r] as usize;
            let mut node = 0u32;
            for &word in &self.tokens[s..s + self.ref_lens[r] as usize] {
                node = *children.entry((node, word)).or_insert_with(|| {
                    nodes += 1;
                    nodes - 1
                });
            }
            ends.push(node);
        }
        let mut edges: Vec<((u32, u32), u32)> = children.into_iter().collect();
        edges.sort_unstable();
        let mut edge_starts = vec![0u32; nodes as usize + 1];
        for &((node, _), _) in &edges {
            edge_starts[node as usize + 1] += 1;
        }
        for n in 0..nodes as usize {
            edge_starts[n + 1] += edge_starts[n];
        }
        let edge_words = edges.iter().map(|e| e.0 .1).collect();
        let edge_children = edges.iter().map(|e| e.1).collect();
        // group records by their end node, keeping table order (a counting sort)
        let mut emit_starts = vec![0u32; nodes as usize + 1];
        for &node in &ends {
            emit_starts[node as usize + 1] += 1;
        }
        for n in 0..nodes as usize {
            emit_starts[n + 1] += emit_starts[n];
        }
        let mut fill = emit_starts.clone();
        let mut emits = vec![0u32; ends.len()];
        for (r, &node) in ends.iter().enumerate() {
            emits[fill[node as usize] as usize] = r as u32;
            fill[node as usize] += 1;
        }
        (edge_starts, edge_words, edge_children, emit_starts, emits)
    }

    /// The table in its byte layout.
    fn finish(mut self) -> Result<Table, String> {
        self.push_start()?;
        let (edge_starts, edge_words, edge_children, emit_starts, emits) = self.trie();
        let mut vocab_offsets = Vec::with_capacity(self.vocab.len() + 1);
        let mut vocab_bytes = Vec::new();
        vocab_offsets.push(0u32);
        for word in &self.vocab {
            vocab_bytes.extend_from_slice(word.as_bytes());
            vocab_offsets.push(
                u32::try_from(vocab_bytes.len()).map_err(|_| "vocabulary too large".to_string())?,
            );
        }
        let mut vocab_sorted: Vec<u32> = (0..self.vocab.len() as u32).collect();
        vocab_sorted.sort_unstable_by(|&a, &b| self.vocab[a as usize].cmp(&self.vocab[b as usize]));
        let counts = Counts {
            vocab: self.vocab.len(),
            vocab_bytes: vocab_bytes.len(),
            records: self.ref_lens.len(),
            tokens: self.tokens.len(),
            nodes: edge_starts.len() - 1,
            edges: edge_words.len(),
            emits: emits.len(),
        };
        let (starts, total) = counts.layout().ok_or("paraphrase table too large")?;
        let mut buffer = vec![0u64; total / 8];
        {
            // SAFETY: the u64 buffer viewed as bytes.
            let bytes =
                unsafe { std::slice::from_raw_parts_mut(buffer.as_mut_ptr().cast::<u8>(), total) };
            let mut header = vec![MAGIC, FORMAT, ENDIAN];
            header.extend(counts.words());
            header.push(checksum(&header));
            for (i, w) in header.iter().enumerate() {
                bytes[i * 8..i * 8 + 8].copy_from_slice(&w.to_ne_bytes());
            }
            let u32s = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_ne_bytes()).collect() };
            let parts: [Vec<u8>; SECTIONS] = [
                u32s(&vocab_offsets),
                u32s(&vocab_sorted),
                vocab_bytes,
                self.ref_lens,
                u32s(&self.starts),
                u32s(&self.tokens),
                u32s(&edge_starts),
                u32s(&edge_words),
                u32s(&edge_children),
                u32s(&emit_starts),
                u32s(&emits),
            ];
            for (start, part) in starts.iter().zip(&parts) {
                bytes[*start..*start + part.len()].copy_from_slice(part);
            }
        }
        Table::from_storage(Storage::Owned(buffer))
    }
}

impl Table {
    /// Parses decompressed table text (invalid UTF-8 is replaced, as Java's decoder does).
    pub fn parse(text: &str) -> Result<Table, String> {
        let mut table = Builder::default();
        let mut lines = java_lines(text);
        while lines.next().is_some() {
            let (Some(reference), Some(paraphrase)) = (lines.next(), lines.next()) else {
                break;
            };
            table.push_start()?;
            let r = table.push_phrase(reference)?;
            table.push_phrase(paraphrase)?;
            table.ref_lens.push(r);
        }
        table.finish()
    }

    /// A table over bytes in its layout (built by [`Table::parse`], read from a
    /// cache file), checked as described on [`Table`].
    pub fn from_storage(storage: Storage) -> Result<Table, String> {
        let bad = |what: &str| Err(format!("not a paraphrase table cache: {what}"));
        let header = match storage.header(HEADER_WORDS) {
            Ok(header) => header,
            Err(what) => return bad(what),
        };
        let bytes = storage.bytes();
        if header[0] != MAGIC {
            return bad("wrong magic number");
        }
        if header[1] != FORMAT {
            return bad("another format version");
        }
        if header[2] != ENDIAN {
            return bad("another byte order");
        }
        if header[HEADER_WORDS - 1] != checksum(&header[..HEADER_WORDS - 1]) {
            return bad("damaged header");
        }
        let n = |i: usize| usize::try_from(header[3 + i]).ok();
        let counts = match (n(0), n(1), n(2), n(3), n(4), n(5), n(6)) {
            (
                Some(vocab),
                Some(vocab_bytes),
                Some(records),
                Some(tokens),
                Some(nodes),
                Some(edges),
                Some(emits),
            ) => Counts {
                vocab,
                vocab_bytes,
                records,
                tokens,
                nodes,
                edges,
                emits,
            },
            _ => return bad("counts out of range"),
        };
        match counts.layout() {
            Some((_, total)) if total == bytes.len() => {}
            _ => return bad("length does not match its counts (truncated?)"),
        }
        if counts.nodes == 0 {
            return bad("no trie root");
        }
        let starts = counts.layout().unwrap().0;
        let lens = counts.section_bytes().unwrap();
        let sections = std::array::from_fn(|i| (starts[i], starts[i] + lens[i]));
        let table = Table {
            storage,
            counts,
            sections,
        };
        let last = |s: &[u32]| s.last().map(|&x| x as usize);
        if table.u32s(Section::VocabOffsets).first() != Some(&0)
            || last(table.u32s(Section::VocabOffsets)) != Some(counts.vocab_bytes)
            || last(table.u32s(Section::Starts)) != Some(counts.tokens)
            || last(table.u32s(Section::EdgeStarts)) != Some(counts.edges)
            || last(table.u32s(Section::EmitStarts)) != Some(counts.emits)
        {
            return bad("inconsistent offsets");
        }
        Ok(table)
    }

    /// The table's bytes (its cache file's content).
    pub fn bytes(&self) -> &[u8] {
        self.storage.bytes()
    }

    #[inline]
    fn section(&self, s: Section) -> &[u8] {
        let (from, to) = self.sections[s as usize];
        &self.bytes()[from..to]
    }

    #[inline]
    fn u32s(&self, s: Section) -> &[u32] {
        let bytes = self.section(s);
        // SAFETY: sections start at multiples of 8 from an 8-aligned base, hold
        // whole u32s, and any bit pattern is a valid u32.
        unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<u32>(), bytes.len() / 4) }
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.counts.records
    }

    pub fn is_empty(&self) -> bool {
        self.counts.records == 0
    }

    /// Number of distinct words.
    pub fn vocab_len(&self) -> usize {
        self.counts.vocab
    }

    fn word(&self, id: u32) -> &[u8] {
        let offsets = self.u32s(Section::VocabOffsets);
        let bytes = self.section(Section::VocabBytes);
        let (Some(&from), Some(&to)) = (offsets.get(id as usize), offsets.get(id as usize + 1))
        else {
            return &[];
        };
        bytes.get(from as usize..to as usize).unwrap_or(&[])
    }

    /// The table's id of `word`, if it has one.
    pub fn lookup(&self, word: &str) -> Option<u32> {
        let sorted = self.u32s(Section::VocabSorted);
        let at = sorted
            .binary_search_by(|&id| self.word(id).cmp(word.as_bytes()))
            .ok()?;
        let id = sorted[at];
        ((id as usize) < self.counts.vocab).then_some(id)
    }

    /// Record `r`'s reference phrase and paraphrase (empty when the record is damaged).
    #[inline]
    pub fn phrases(&self, r: usize) -> (&[u32], &[u32]) {
        let starts = self.u32s(Section::Starts);
        let (Some(&from), Some(&to), Some(&rl)) = (
            starts.get(r),
            starts.get(r + 1),
            self.section(Section::RefLens).get(r),
        ) else {
            return (&[], &[]);
        };
        let (from, to, mid) = (from as usize, to as usize, from as usize + rl as usize);
        match self.u32s(Section::Tokens).get(from..to) {
            Some(words) if mid <= to && to - mid <= MAX_PHRASE => words.split_at(rl as usize),
            _ => (&[], &[]),
        }
    }

    /// The paraphrase of record `r`.
    #[inline]
    pub fn paraphrase(&self, r: u32) -> &[u32] {
        self.phrases(r as usize).1
    }

    /// `getPaths`: calls `f(phrase length, record)` for every reference phrase
    /// starting at `words[start]`, shortest first, in table order within a
    /// length. Words unknown to the table are negative and end the walk.
    pub fn for_each_path(&self, words: &[i32], start: usize, mut f: impl FnMut(usize, u32)) {
        let edge_starts = self.u32s(Section::EdgeStarts);
        let edge_words = self.u32s(Section::EdgeWords);
        let edge_children = self.u32s(Section::EdgeChildren);
        let emit_starts = self.u32s(Section::EmitStarts);
        let emits = self.u32s(Section::Emits);
        let mut node = 0usize;
        for (offset, &word) in words[start..].iter().enumerate() {
            let Ok(word) = u32::try_from(word) else {
                break;
            };
            let (Some(&from), Some(&to)) = (edge_starts.get(node), edge_starts.get(node + 1))
            else {
                break;
            };
            let Some(edges) = edge_words.get(from as usize..to as usize) else {
                break;
            };
            let Ok(k) = edges.binary_search(&word) else {
                break;
            };
            match edge_children.get(from as usize + k) {
                Some(&child) if (child as usize) < self.counts.nodes => node = child as usize,
                _ => break,
            }
            let (Some(&from), Some(&to)) = (emit_starts.get(node), emit_starts.get(node + 1))
            else {
                break;
            };
            for &r in emits.get(from as usize..to as usize).unwrap_or(&[]) {
                if (r as usize) < self.counts.records {
                    f(offset + 1, r);
                }
            }
        }
    }

    /// [`Table::for_each_path`] collected.
    #[cfg(test)]
    pub fn paths(&self, words: &[i32], start: usize) -> Vec<(usize, u32)> {
        let mut out = Vec::new();
        self.for_each_path(words, start, |len, r| out.push((len, r)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str =
        "0.5\nthe cat\nthe feline\n0.2\nthe\na\n0.1\nthe cat\nthis cat\n0.3\ndog\nhound\n";

    fn copy(t: &Table) -> Table {
        let words: Vec<u64> = t
            .bytes()
            .chunks(8)
            .map(|c| u64::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        Table::from_storage(Storage::Owned(words)).unwrap()
    }

    #[test]
    fn parses_records() {
        let t = Table::parse(TEXT).unwrap();
        assert_eq!(t.len(), 4);
        assert_eq!(t.vocab_len(), 7);
        assert_eq!(
            ["the", "cat", "feline", "a"].map(|w| t.lookup(w)),
            [Some(0), Some(1), Some(2), Some(3)]
        );
        assert_eq!(t.lookup("cow"), None);
        assert_eq!(t.phrases(2), (&[0, 1][..], &[4, 1][..]));
        let again = copy(&t);
        let (the, cat) = (
            t.lookup("the").unwrap() as i32,
            t.lookup("cat").unwrap() as i32,
        );
        assert_eq!(again.paths(&[the, cat], 0), t.paths(&[the, cat], 0));
        assert_eq!(again.paths(&[the, cat], 0).len(), 3);
    }

    #[test]
    fn damaged_bytes_are_refused_or_harmless() {
        let t = Table::parse(TEXT).unwrap();
        let words = |b: &[u8]| -> Vec<u64> {
            b.chunks(8)
                .map(|c| u64::from_ne_bytes(c.try_into().unwrap()))
                .collect()
        };
        let bytes = t.bytes().to_vec();
        // truncated, wrong magic, damaged header: refused
        assert!(Table::from_storage(Storage::Owned(words(&bytes[..bytes.len() - 8]))).is_err());
        assert!(Table::from_storage(Storage::Owned(Vec::new())).is_err());
        for at in [0, 8, 16, 24, 80] {
            let mut b = bytes.clone();
            b[at] ^= 1;
            assert!(Table::from_storage(Storage::Owned(words(&b))).is_err());
        }
        // any byte of the body damaged: opens or is refused, and lookups never panic
        for at in (HEADER_WORDS * 8..bytes.len()).step_by(3) {
            for value in [0u8, 0xff, 0x7f] {
                let mut b = bytes.clone();
                b[at] = value;
                if let Ok(d) = Table::from_storage(Storage::Owned(words(&b))) {
                    for w in ["the", "cat", "dog", "x"] {
                        let _ = d.lookup(w);
                    }
                    for start in 0..3 {
                        d.for_each_path(&[0, 1, 6, -1], start, |_, r| {
                            let _ = d.paraphrase(r);
                        });
                    }
                    for r in 0..6 {
                        let _ = d.phrases(r);
                    }
                }
            }
        }
    }

    #[test]
    fn trie_paths_in_table_order() {
        let t = Table::parse(TEXT).unwrap();
        let id = |w: &str| t.lookup(w).unwrap();
        let (the, cat) = (id("the") as i32, id("cat") as i32);
        let phrases: Vec<(usize, Vec<u32>)> = t
            .paths(&[the, cat, -1], 0)
            .iter()
            .map(|&(l, r)| (l, t.paraphrase(r).to_vec()))
            .collect();
        assert_eq!(
            phrases,
            vec![
                (1, vec![id("a")]),
                (2, vec![id("the"), id("feline")]),
                (2, vec![id("this"), id("cat")]),
            ]
        );
        assert!(t.paths(&[-1, the], 0).is_empty());
        assert!(t.paths(&[cat, the], 0).is_empty());
        assert_eq!(t.paths(&[cat, the], 1).len(), 1);
    }

    #[test]
    fn java_line_breaks() {
        let lines: Vec<&str> = java_lines("a\r\nb\rc\nd").collect();
        assert_eq!(lines, ["a", "b", "c", "d"]);
    }
}
