//! WordNet's lemma index (`index.{noun,verb,adj,adv}`) as a sorted string table
//! in one flat byte layout, which is also its on-disk cache format: a cached
//! index is memory-mapped and used where it lies, without being parsed.
//!
//! Layout (native-endian; sections start at multiples of 8 bytes): a header of
//! 7 `u64` (magic, format, endianness mark, `entries`, `key_bytes`,
//! `value_bytes`, checksum of the header), then `key_offsets: u32[entries + 1]`,
//! `value_offsets: u32[entries + 1]`, `keys: u8[key_bytes]`,
//! `values: u8[value_bytes]`, keys in byte order. A value is a lemma's packed
//! entries, `"pos offset offset ...|pos ..."`. Reads are bounds-checked: a
//! damaged body can give wrong entries but neither crash nor hang.

use super::paraphrase::Storage;

const MAGIC: u64 = u64::from_le_bytes(*b"NLPEWNIX");
/// Version of the byte layout; bump it when the layout changes.
pub const FORMAT: u64 = 1;
const ENDIAN: u64 = 0x0102_0304_0506_0708;
const HEADER_WORDS: usize = 7;

/// METEOR 1.5's suffix rules (`SynonymDictionary.morph`), tried in this order.
const METEOR_SUFFIXES: [(&str, &str); 20] = [
    ("s", ""),
    ("ses", "s"),
    ("xes", "x"),
    ("zes", "z"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("men", "man"),
    ("ies", "y"),
    ("s", ""),
    ("ies", "y"),
    ("es", "e"),
    ("es", ""),
    ("ed", "e"),
    ("ed", ""),
    ("ing", "e"),
    ("ing", ""),
    ("er", ""),
    ("est", ""),
    ("er", "e"),
    ("est", "e"),
];

fn checksum(words: &[u64]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for w in words {
        for b in w.to_ne_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

fn pad8(n: usize) -> Option<usize> {
    Some(n.checked_add(7)? & !7)
}

/// Section starts (key offsets, value offsets, keys, values) and total length.
fn layout(entries: usize, key_bytes: usize, value_bytes: usize) -> Option<([usize; 4], usize)> {
    let offsets = pad8(entries.checked_add(1)?.checked_mul(4)?)?;
    let a = HEADER_WORDS * 8;
    let b = a.checked_add(offsets)?;
    let c = b.checked_add(offsets)?;
    let d = c.checked_add(pad8(key_bytes)?)?;
    Some(([a, b, c, d], d.checked_add(pad8(value_bytes)?)?))
}

/// A sorted string table over its bytes.
pub struct StrTable {
    storage: Storage,
    entries: usize,
    sections: [usize; 4],
    key_bytes: usize,
    value_bytes: usize,
}

impl StrTable {
    /// Builds the table of `pairs` (a later duplicate key is dropped).
    pub fn build(mut pairs: Vec<(String, String)>) -> Result<StrTable, String> {
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        pairs.dedup_by(|b, a| a.0 == b.0);
        let key_bytes: usize = pairs.iter().map(|p| p.0.len()).sum();
        let value_bytes: usize = pairs.iter().map(|p| p.1.len()).sum();
        if key_bytes.max(value_bytes) >= u32::MAX as usize {
            return Err("index too large".into());
        }
        let (sections, total) =
            layout(pairs.len(), key_bytes, value_bytes).ok_or("index too large")?;
        let mut buffer = vec![0u64; total / 8];
        {
            // SAFETY: the u64 buffer viewed as bytes.
            let bytes =
                unsafe { std::slice::from_raw_parts_mut(buffer.as_mut_ptr().cast::<u8>(), total) };
            let mut header = vec![
                MAGIC,
                FORMAT,
                ENDIAN,
                pairs.len() as u64,
                key_bytes as u64,
                value_bytes as u64,
            ];
            header.push(checksum(&header));
            for (i, w) in header.iter().enumerate() {
                bytes[i * 8..i * 8 + 8].copy_from_slice(&w.to_ne_bytes());
            }
            let (mut kpos, mut vpos) = (0usize, 0usize);
            for (i, (k, v)) in pairs.iter().enumerate() {
                bytes[sections[2] + kpos..][..k.len()].copy_from_slice(k.as_bytes());
                bytes[sections[3] + vpos..][..v.len()].copy_from_slice(v.as_bytes());
                kpos += k.len();
                vpos += v.len();
                let put = |bytes: &mut [u8], section: usize, at: usize, x: usize| {
                    bytes[section + 4 * at..][..4].copy_from_slice(&(x as u32).to_ne_bytes())
                };
                put(bytes, sections[0], i + 1, kpos);
                put(bytes, sections[1], i + 1, vpos);
            }
        }
        StrTable::from_storage(Storage::Owned(buffer))
    }

    /// A table over bytes in its layout, checked (header, length, ends of the offsets).
    pub fn from_storage(storage: Storage) -> Result<StrTable, String> {
        let bad = |what: &str| Err(format!("not a WordNet index cache: {what}"));
        let header = match storage.header(HEADER_WORDS) {
            Ok(header) => header,
            Err(what) => return bad(what),
        };
        let bytes = storage.bytes();
        if header[0] != MAGIC || header[1] != FORMAT || header[2] != ENDIAN {
            return bad("wrong magic number, version or byte order");
        }
        if header[6] != checksum(&header[..6]) {
            return bad("damaged header");
        }
        let n = |i: usize| usize::try_from(header[i]).ok();
        let (Some(entries), Some(key_bytes), Some(value_bytes)) = (n(3), n(4), n(5)) else {
            return bad("counts out of range");
        };
        let Some((sections, total)) = layout(entries, key_bytes, value_bytes) else {
            return bad("counts out of range");
        };
        if total != bytes.len() {
            return bad("length does not match its counts (truncated?)");
        }
        let table = StrTable {
            storage,
            entries,
            sections,
            key_bytes,
            value_bytes,
        };
        let (k, v) = (table.offsets(0), table.offsets(1));
        if k.first() != Some(&0)
            || v.first() != Some(&0)
            || k.last().map(|&x| x as usize) != Some(key_bytes)
            || v.last().map(|&x| x as usize) != Some(value_bytes)
        {
            return bad("inconsistent offsets");
        }
        Ok(table)
    }

    pub fn bytes(&self) -> &[u8] {
        self.storage.bytes()
    }

    fn offsets(&self, which: usize) -> &[u32] {
        let start = self.sections[which];
        let bytes = &self.bytes()[start..start + 4 * (self.entries + 1)];
        // SAFETY: 8-aligned section of whole u32s; any bit pattern is a u32.
        unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<u32>(), self.entries + 1) }
    }

    pub fn item(&self, which: usize, i: usize) -> &[u8] {
        let offsets = self.offsets(which);
        let (len, start) = if which == 0 {
            (self.key_bytes, self.sections[2])
        } else {
            (self.value_bytes, self.sections[3])
        };
        let blob = &self.bytes()[start..start + len];
        match (offsets.get(i), offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => blob.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    pub fn len(&self) -> usize {
        self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&str> {
        let (mut lo, mut hi) = (0usize, self.entries);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.item(0, mid).cmp(key.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    return std::str::from_utf8(self.item(1, mid)).ok();
                }
            }
        }
        None
    }

    /// Every synset offset of `lemma`'s entries, all parts of speech together.
    fn push_offsets(&self, lemma: &str, out: &mut Vec<i32>) {
        if let Some(packed) = self.get(lemma) {
            for part in packed.split('|') {
                out.extend(
                    part.split(' ')
                        .skip(1)
                        .filter_map(|o| o.parse::<i32>().ok()),
                );
            }
        }
    }

    /// METEOR 1.5's `morph`: the first suffix-stripped form WordNet knows, or `""`.
    pub fn meteor_morph<'w>(&self, word: &'w str) -> std::borrow::Cow<'w, str> {
        if word.ends_with("ss") || word.encode_utf16().nth(2).is_none() {
            return word.into();
        }
        for (suffix, replacement) in METEOR_SUFFIXES {
            if let Some(stem) = word.strip_suffix(suffix) {
                let candidate = format!("{stem}{replacement}");
                if self.get(&candidate).is_some() {
                    return candidate.into();
                }
            }
        }
        "".into()
    }

    /// Synset offsets METEOR 1.5 associates with `word`: its own, and its
    /// exception-list base forms' when it has some, else its `morph` form's
    /// (sorted, distinct).
    pub fn meteor_synsets(&self, word: &str, bases: Option<&[String]>) -> Vec<i32> {
        let bases: Option<Vec<&str>> = bases.map(|b| b.iter().map(String::as_str).collect());
        self.meteor_synsets_ref(word, bases.as_deref())
    }

    /// [`StrTable::meteor_synsets`] with borrowed base forms.
    pub fn meteor_synsets_ref(&self, word: &str, bases: Option<&[&str]>) -> Vec<i32> {
        let mut out = Vec::new();
        self.push_offsets(word, &mut out);
        match bases {
            Some(bases) => bases.iter().for_each(|b| self.push_offsets(b, &mut out)),
            None => self.push_offsets(&self.meteor_morph(word), &mut out),
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Python's `str.isspace` (Rust's whitespace and the separators U+001C to U+001F).
fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// A line boundary of Python's `str.splitlines` (`\r\n` is two boundaries
/// around an empty line here, which adds nothing).
fn is_python_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r'
            | '\u{0b}'
            | '\u{0c}'
            | '\u{1c}'
            | '\u{1d}'
            | '\u{1e}'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// Base forms by inflected form from the text of exception lists: every line's
/// first term gets its other terms (the union over all lines), sorted and distinct.
pub fn exception_bases(texts: &[String]) -> rustc_hash::FxHashMap<&str, Vec<&str>> {
    let mut bases: rustc_hash::FxHashMap<&str, Vec<&str>> = rustc_hash::FxHashMap::default();
    for text in texts {
        for line in text.split(is_python_line_break) {
            let mut terms = line.split(is_python_space).filter(|t| !t.is_empty());
            if let Some(first) = terms.next() {
                bases.entry(first).or_default().extend(terms);
            }
        }
    }
    for list in bases.values_mut() {
        list.sort_unstable();
        list.dedup();
    }
    bases
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> StrTable {
        let pairs = [
            ("dog", "n 10 20|v 30"),
            ("cat", "n 40"),
            ("run", "v 50|n 60"),
            ("ox", "n 70"),
            ("dogs", "n 80"),
        ];
        StrTable::build(
            pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        )
        .unwrap()
    }

    #[test]
    fn lookups_and_meteor_synsets() {
        let t = index();
        assert_eq!(t.len(), 5);
        assert_eq!(t.get("dog"), Some("n 10 20|v 30"));
        assert_eq!(t.get("do"), None);
        assert_eq!(t.get("zebra"), None);
        assert_eq!(t.meteor_morph("cats"), "cat");
        assert_eq!(t.meteor_morph("running"), ""); // "runn", "runne": unknown
        assert_eq!(t.meteor_morph("ox"), "ox");
        assert_eq!(t.meteor_synsets("dogs", None), vec![10, 20, 30, 80]);
        let bases = ["run".to_string()];
        assert_eq!(t.meteor_synsets("ran", Some(&bases)), vec![50, 60]);
    }

    #[test]
    fn damaged_bytes_are_refused_or_harmless() {
        let t = index();
        let bytes = t.bytes().to_vec();
        let words = |b: &[u8]| -> Vec<u64> {
            b.chunks(8)
                .map(|c| u64::from_ne_bytes(c.try_into().unwrap()))
                .collect()
        };
        assert!(StrTable::from_storage(Storage::Owned(words(&bytes[..bytes.len() - 8]))).is_err());
        for at in 0..HEADER_WORDS * 8 {
            let mut b = bytes.clone();
            b[at] ^= 0x10;
            assert!(StrTable::from_storage(Storage::Owned(words(&b))).is_err());
        }
        for at in HEADER_WORDS * 8..bytes.len() {
            let mut b = bytes.clone();
            b[at] = 0xff;
            if let Ok(d) = StrTable::from_storage(Storage::Owned(words(&b))) {
                for w in ["dog", "cats", "running", "zz", ""] {
                    let _ = d.meteor_synsets(w, None);
                }
            }
        }
    }
}
