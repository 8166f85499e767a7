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

/// A loaded table: vocabulary plus, per record, its reference and paraphrase phrases.
/// A loaded table: vocabulary, per record its reference and paraphrase phrases,
/// and the trie over reference phrases.
#[derive(Debug, Default, Clone)]
pub struct Table {
    pub vocab: Vec<String>,
    pub index: FxHashMap<String, u32>,
    /// All phrases' word ids back to back: record r's reference phrase, then its paraphrase.
    pub tokens: Vec<u32>,
    /// Start of each record's reference phrase in `tokens`.
    pub starts: Vec<u64>,
    pub ref_lens: Vec<u8>,
    pub par_lens: Vec<u8>,
    trie: Trie,
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

impl Table {
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
        u8::try_from(count).map_err(|_| format!("phrase of {count} words is too long"))
    }

    /// Parses decompressed table text (invalid UTF-8 is replaced, as Java's decoder does).
    pub fn parse(text: &str) -> Result<Table, String> {
        let mut table = Table::default();
        let mut lines = java_lines(text);
        while lines.next().is_some() {
            let (Some(reference), Some(paraphrase)) = (lines.next(), lines.next()) else {
                break;
            };
            table.starts.push(table.tokens.len() as u64);
            let r = table.push_phrase(reference)?;
            let p = table.push_phrase(paraphrase)?;
            table.ref_lens.push(r);
            table.par_lens.push(p);
        }
        table.trie = Trie::build(&table);
        Ok(table)
    }

    /// Rebuilds a table from its arrays (e.g. from an on-disk cache).
    pub fn from_parts(
        vocab: Vec<String>,
        tokens: Vec<u32>,
        ref_lens: Vec<u8>,
        par_lens: Vec<u8>,
        trie: Option<TrieParts>,
    ) -> Result<Table, String> {
        if ref_lens.len() != par_lens.len() {
            return Err("ref_lens and par_lens differ in length".into());
        }
        let mut starts = Vec::with_capacity(ref_lens.len());
        let mut pos = 0u64;
        for (r, p) in ref_lens.iter().zip(&par_lens) {
            starts.push(pos);
            pos += u64::from(*r) + u64::from(*p);
        }
        if pos != tokens.len() as u64 || tokens.iter().any(|&t| t as usize >= vocab.len()) {
            return Err("inconsistent paraphrase table arrays".into());
        }
        let index = vocab
            .iter()
            .enumerate()
            .map(|(i, w)| (w.clone(), i as u32))
            .collect();
        let mut table = Table {
            vocab,
            index,
            tokens,
            starts,
            ref_lens,
            par_lens,
            trie: Trie::default(),
        };
        table.trie = match trie {
            Some(parts) => Trie::from_parts(parts, table.len())?,
            None => Trie::build(&table),
        };
        Ok(table)
    }

    /// The trie as arrays (see [`TrieParts`]), for caching.
    pub fn trie_parts(&self) -> TrieParts {
        let mut edges: Vec<(u64, u32)> = self
            .trie
            .children
            .iter()
            .map(|(&(node, word), &child)| ((u64::from(node) << 32) | u64::from(word), child))
            .collect();
        edges.sort_unstable();
        TrieParts {
            edge_keys: edges.iter().map(|e| e.0).collect(),
            edge_children: edges.iter().map(|e| e.1).collect(),
            emit_starts: self.trie.emit_starts.clone(),
            emits: self.trie.emits.clone(),
        }
    }

    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    fn phrases(&self, r: usize) -> (&[u32], &[u32]) {
        let s = self.starts[r] as usize;
        let rl = self.ref_lens[r] as usize;
        let pl = self.par_lens[r] as usize;
        (&self.tokens[s..s + rl], &self.tokens[s + rl..s + rl + pl])
    }

    /// The paraphrase of record `r`.
    pub fn paraphrase(&self, r: u32) -> &[u32] {
        self.phrases(r as usize).1
    }

    /// `getPaths`: calls `f(phrase length, record)` for every reference phrase
    /// starting at `words[start]`, shortest first, in table order within a
    /// length. Words unknown to the table are negative and end the walk.
    pub fn for_each_path(&self, words: &[i32], start: usize, mut f: impl FnMut(usize, u32)) {
        let mut node = 0u32;
        for (offset, &word) in words[start..].iter().enumerate() {
            let Ok(word) = u32::try_from(word) else {
                break;
            };
            match self.trie.children.get(&(node, word)) {
                None => break,
                Some(&child) => node = child,
            }
            let from = self.trie.emit_starts[node as usize] as usize;
            let to = self.trie.emit_starts[node as usize + 1] as usize;
            for &r in &self.trie.emits[from..to] {
                f(offset + 1, r);
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

/// A trie as flat arrays: edges `(node << 32 | word) -> child`, and the
/// records each node emits (`emits[emit_starts[n]..emit_starts[n + 1]]`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrieParts {
    pub edge_keys: Vec<u64>,
    pub edge_children: Vec<u32>,
    pub emit_starts: Vec<u32>,
    pub emits: Vec<u32>,
}

/// METEOR's `ParaphraseTransducer`: a trie over reference phrases whose nodes
/// emit records in table order.
#[derive(Debug, Default, Clone)]
struct Trie {
    /// `(node, word) -> child`; the root is node 0.
    children: FxHashMap<(u32, u32), u32>,
    /// Records emitted by node n: `emits[emit_starts[n]..emit_starts[n + 1]]`.
    emit_starts: Vec<u32>,
    emits: Vec<u32>,
}

impl Trie {
    /// A trie from its arrays, checked so that a damaged cache cannot mislead lookups.
    fn from_parts(parts: TrieParts, records: usize) -> Result<Trie, String> {
        let bad = || Err("inconsistent paraphrase trie arrays".to_string());
        let nodes = parts.emit_starts.len().saturating_sub(1);
        if parts.edge_keys.len() != parts.edge_children.len()
            || parts.emit_starts.first() != Some(&0)
            || parts.emit_starts.last().map(|&e| e as usize) != Some(parts.emits.len())
            || parts.emit_starts.windows(2).any(|w| w[0] > w[1])
            || parts.emits.iter().any(|&r| r as usize >= records)
            || parts
                .edge_children
                .iter()
                .any(|&c| c == 0 || c as usize >= nodes)
            || parts.edge_keys.iter().any(|&k| (k >> 32) as usize >= nodes)
        {
            return bad();
        }
        let children = parts
            .edge_keys
            .iter()
            .zip(&parts.edge_children)
            .map(|(&k, &c)| (((k >> 32) as u32, k as u32), c))
            .collect();
        Ok(Trie {
            children,
            emit_starts: parts.emit_starts,
            emits: parts.emits,
        })
    }

    fn build(table: &Table) -> Trie {
        let mut children: FxHashMap<(u32, u32), u32> = FxHashMap::default();
        let mut nodes = 1u32;
        let mut ends: Vec<u32> = Vec::with_capacity(table.len());
        for r in 0..table.len() {
            let mut node = 0u32;
            for &word in table.phrases(r).0 {
                node = *children.entry((node, word)).or_insert_with(|| {
                    nodes += 1;
                    nodes - 1
                });
            }
            ends.push(node);
        }
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
        Trie {
            children,
            emit_starts,
            emits,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str =
        "0.5\nthe cat\nthe feline\n0.2\nthe\na\n0.1\nthe cat\nthis cat\n0.3\ndog\nhound\n";

    #[test]
    fn parses_records() {
        let t = Table::parse(TEXT).unwrap();
        assert_eq!(t.len(), 4);
        assert_eq!(t.vocab[..4], ["the", "cat", "feline", "a"]);
        let again = Table::from_parts(
            t.vocab.clone(),
            t.tokens.clone(),
            t.ref_lens.clone(),
            t.par_lens.clone(),
            None,
        )
        .unwrap();
        assert_eq!(again.starts, t.starts);
        let cached = Table::from_parts(
            t.vocab.clone(),
            t.tokens.clone(),
            t.ref_lens.clone(),
            t.par_lens.clone(),
            Some(t.trie_parts()),
        )
        .unwrap();
        let (the, cat) = (t.index["the"] as i32, t.index["cat"] as i32);
        assert_eq!(cached.paths(&[the, cat], 0), t.paths(&[the, cat], 0));
        assert_eq!(cached.paths(&[the, cat], 0).len(), 3);
        let mut broken = t.trie_parts();
        broken.emits[0] = 99;
        assert!(Table::from_parts(
            t.vocab.clone(),
            t.tokens.clone(),
            t.ref_lens.clone(),
            t.par_lens.clone(),
            Some(broken)
        )
        .is_err());
    }

    #[test]
    fn trie_paths_in_table_order() {
        let t = Table::parse(TEXT).unwrap();
        let id = |w: &str| t.index[w];
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
