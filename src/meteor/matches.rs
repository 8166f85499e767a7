//! The candidate matches between a hypothesis (line 1) and a reference (line 2),
//! module by module, as METEOR's aligner lists them: per reference position, the
//! modules in the order given, and within a module the hypothesis positions in
//! ascending order (paraphrases in table order).
//!
//! A one-word module (exact, stem, synonym) finds the same hypothesis positions
//! for every occurrence of a reference word type, so its matches are kept once
//! per type, as one list shared by all the positions of that type; only the
//! multi-word paraphrase matches are kept per position. A long document with a
//! thousand "the" on each side thus stores one list of a thousand positions, not
//! a million matches.

use rustc_hash::FxHashMap;

use super::align::{Lexicon, Match, Module};
use super::paraphrase::Table;

/// No list: the module finds nothing at this reference position.
const NONE: u32 = u32::MAX;

/// Where one module's matches at each reference position come from.
enum Source<'a> {
    /// Per reference position, the id of its list of hypothesis positions, or `NONE`.
    Words { lists: Vec<u32>, group: u32 },
    /// Paraphrase matches, listed when asked for (see [`Phrases`]).
    Phrases(Box<Phrases<'a>>),
}

/// The paraphrase module's matches. Their number can grow with the product of
/// the two lengths (a word repeated on both sides, with a one-word paraphrase),
/// so they are counted up front and kept per reference position only while
/// there are at most [`KEEP_PHRASE_MATCHES`]; beyond that they are listed
/// position by position when asked for, never all kept at once.
struct Phrases<'a> {
    table: &'a Table,
    module: u8,
    line1: Vec<i32>,
    line2: Vec<i32>,
    starts1: PhraseStarts,
    /// Hypothesis phrases by the first word of their one-word paraphrase, and by
    /// the first two words of a longer one: [`Listed`] in METEOR's order
    /// (position, length, table order).
    /// (Only phrases whose paraphrase occurs somewhere in the reference.)
    by_word: Index<i32, Listed>,
    by_pair: Index<(i32, i32), Listed>,
    /// How many matches start at each reference position.
    starting: Vec<u32>,
    /// Group ids by (reference length, hypothesis length).
    groups: FxHashMap<(u32, u32), u32>,
    /// The matches with their groups, by reference position (`kept_at[j]..kept_at[j + 1]`),
    /// when there are few enough to keep.
    kept: Option<Kept>,
}

/// Matches with their groups, and where each reference position's start in them.
type Kept = (Vec<(Match, u32)>, Vec<u32>);

/// At most this many paraphrase matches of a pair are kept listed (24 bytes each).
const KEEP_PHRASE_MATCHES: usize = 1 << 20;

#[cfg(not(test))]
fn keep_limit() -> usize {
    KEEP_PHRASE_MATCHES
}

#[cfg(test)]
thread_local! {
    /// Tests lower the limit to check that listing on demand finds the same matches.
    pub(super) static KEEP_LIMIT: std::cell::Cell<usize> = const { std::cell::Cell::new(KEEP_PHRASE_MATCHES) };
}

#[cfg(test)]
fn keep_limit() -> usize {
    KEEP_LIMIT.with(std::cell::Cell::get)
}

/// A hypothesis phrase with a paraphrase: its order among all of them, position,
/// length, record and group.
#[derive(Clone, Copy)]
struct Listed {
    order: u32,
    at: u32,
    len: u32,
    record: u32,
    group: u32,
}

/// All candidate matches of a sentence pair.
pub struct Candidates<'a> {
    sources: Vec<Source<'a>>,
    /// Lists of hypothesis positions, ascending, shared by one-word modules:
    /// list `l` is `positions[spans[l].0..spans[l].1]`.
    positions: Vec<u32>,
    spans: Vec<(u32, u32)>,
    /// Per (module, reference length, hypothesis length), its group id.
    groups: Vec<(u8, u32, u32)>,
    /// How many candidate matches cover each hypothesis word.
    pub cov1: Vec<u32>,
    /// How many candidate matches cover each reference word.
    pub cov2: Vec<u32>,
}

/// Values by key: `(key, value)` pairs sorted by key, values in insertion order
/// within a key (one allocation, where a map of lists would make one per key).
struct Index<K, V> {
    pairs: Vec<(K, V)>,
}

impl<K: Ord + Copy, V: Copy> Index<K, V> {
    fn new(mut pairs: Vec<(K, V)>) -> Index<K, V> {
        pairs.sort_by_key(|p| p.0);
        Index { pairs }
    }

    /// The values of `key`, in insertion order.
    #[inline]
    fn get(&self, key: K) -> impl Iterator<Item = &V> + '_ {
        let from = self.pairs.partition_point(|p| p.0 < key);
        let to = from + self.pairs[from..].partition_point(|p| p.0 == key);
        self.pairs[from..to].iter().map(|p| &p.1)
    }
}

/// The positions of each key in `keys`, ascending.
fn positions_by<K: Ord + Copy>(keys: impl Iterator<Item = K>) -> Index<K, u32> {
    Index::new(keys.enumerate().map(|(i, k)| (k, i as u32)).collect())
}

/// The id of group `key` in `groups`, added if new.
fn group_in(groups: &mut Vec<(u8, u32, u32)>, key: (u8, u32, u32)) -> u32 {
    let g = groups.iter().position(|&c| c == key).unwrap_or_else(|| {
        groups.push(key);
        groups.len() - 1
    });
    g as u32
}

/// Where the phrases of a line start, found by their first one or two words.
struct PhraseStarts {
    by_word: Index<i32, u32>,
    by_pair: Index<(i32, i32), u32>,
    /// A filter of the line's words (bit `word % 4096`): most phrases looked for
    /// start with a word the line does not have.
    words: Box<[u64; 64]>,
}

impl PhraseStarts {
    fn new(line: &[i32]) -> PhraseStarts {
        let mut words = Box::new([0u64; 64]);
        for &w in line {
            let bit = (w as u32) & 4095;
            words[(bit >> 6) as usize] |= 1 << (bit & 63);
        }
        PhraseStarts {
            by_word: positions_by(line.iter().copied()),
            by_pair: positions_by(line.windows(2).map(|w| (w[0], w[1]))),
            words,
        }
    }

    /// Whether the line may have `word` (false: it has not).
    #[inline]
    fn may_have(&self, word: u32) -> bool {
        let bit = word & 4095;
        self.words[(bit >> 6) as usize] & (1 << (bit & 63)) != 0
    }

    /// The positions of `line` where `words` occurs, ascending.
    fn of<'a>(&'a self, line: &'a [i32], words: &'a [u32]) -> impl Iterator<Item = u32> + 'a {
        let id = |w: u32| i32::try_from(w).unwrap_or(-1);
        let (one, two) = match words {
            [] => (None, None),
            [w, ..] if !self.may_have(*w) => (None, None),
            [w] => (Some(self.by_word.get(id(*w))), None),
            [w0, w1, ..] => (None, Some(self.by_pair.get((id(*w0), id(*w1))))),
        };
        one.into_iter()
            .flatten()
            .chain(two.into_iter().flatten())
            .copied()
            .filter(move |&at| PhraseStarts::occurs(line, at as usize, words))
    }

    /// Whether `words` occurs in `line` at `at`.
    fn occurs(line: &[i32], at: usize, words: &[u32]) -> bool {
        at + words.len() <= line.len()
            && words
                .iter()
                .zip(&line[at..])
                .all(|(&w, &l)| i64::from(w) == i64::from(l))
    }
}

impl<'a> Candidates<'a> {
    /// Finds the matches of every module given, or `Err(count)` as soon as
    /// more than `limit` candidate matches (hypothesis-reference pairs,
    /// counted once per reference position) are found after a module.
    pub fn find(
        hyp: &[u32],
        reference: &[u32],
        modules: &[Module],
        lex: &Lexicon<'a>,
        limit: u64,
    ) -> Result<Candidates<'a>, u64> {
        let mut found = Candidates {
            sources: Vec::new(),
            positions: Vec::new(),
            spans: Vec::new(),
            groups: Vec::new(),
            cov1: vec![0; hyp.len()],
            cov2: vec![0; reference.len()],
        };
        let hash_of = |i: u32| lex.word_hash[hyp[i as usize] as usize];
        for (k, module) in modules.iter().enumerate() {
            let k = k as u8;
            let source = match module {
                Module::Exact => {
                    let by_word = positions_by(hyp.iter().map(|&t| lex.word_hash[t as usize]));
                    found.word_source(k, reference, |r, list| {
                        list.extend(by_word.get(lex.word_hash[r as usize]));
                    })
                }
                Module::Stem => {
                    let by_stem = positions_by(hyp.iter().map(|&t| lex.stem_hash[t as usize]));
                    found.word_source(k, reference, |r, list| {
                        let word = lex.word_hash[r as usize];
                        let stem = lex.stem_hash[r as usize];
                        list.extend(by_stem.get(stem).copied().filter(|&i| hash_of(i) != word));
                    })
                }
                Module::Synonym => {
                    let mut pairs: Vec<(i32, u32)> = Vec::new();
                    for (i, &t) in hyp.iter().enumerate() {
                        pairs.extend(lex.synsets[t as usize].iter().map(|&s| (s, i as u32)));
                    }
                    let by_synset = Index::new(pairs);
                    found.word_source(k, reference, |r, list| {
                        let word = lex.word_hash[r as usize];
                        for &s in lex.synsets[r as usize] {
                            list.extend(by_synset.get(s).copied().filter(|&i| hash_of(i) != word));
                        }
                        list.sort_unstable();
                        list.dedup();
                    })
                }
                Module::Paraphrase => match lex.paraphrases {
                    Some(table) => found.phrase_source(k, hyp, reference, table, lex.para_id),
                    None => Source::Words {
                        lists: vec![NONE; reference.len()],
                        group: found.group(k, 1, 1),
                    },
                },
            };
            found.sources.push(source);
            let count = found.count();
            if count > limit {
                return Err(count);
            }
        }
        Ok(found)
    }

    /// How many candidate matches there are: the sum of the reference coverage.
    pub fn count(&self) -> u64 {
        self.cov2.iter().map(|&c| u64::from(c)).sum()
    }

    /// The group of matches of one module and the given lengths.
    fn group(&mut self, module: u8, len: u32, mlen: u32) -> u32 {
        group_in(&mut self.groups, (module, len, mlen))
    }

    /// How many groups there are: a group's matches share a module and lengths.
    pub fn n_groups(&self) -> usize {
        self.groups.len()
    }

    /// A one-word module's source: `list_for` runs once per reference word
    /// type, filling an empty list with its hypothesis positions (ascending).
    fn word_source(
        &mut self,
        module: u8,
        reference: &[u32],
        mut list_for: impl FnMut(u32, &mut Vec<u32>),
    ) -> Source<'a> {
        let first = self.spans.len();
        let mut id_of: FxHashMap<u32, u32> = FxHashMap::default();
        let mut uses: Vec<u32> = Vec::new();
        let mut lists = Vec::with_capacity(reference.len());
        let mut list: Vec<u32> = Vec::new();
        for &r in reference {
            let id = *id_of.entry(r).or_insert_with(|| {
                list.clear();
                list_for(r, &mut list);
                if list.is_empty() {
                    NONE
                } else {
                    let from = self.positions.len() as u32;
                    self.positions.extend_from_slice(&list);
                    self.spans.push((from, self.positions.len() as u32));
                    uses.push(0);
                    (self.spans.len() - 1) as u32
                }
            });
            if id != NONE {
                uses[id as usize - first] += 1;
            }
            lists.push(id);
        }
        // coverage: a list counts once per reference position that has it
        for (offset, &times) in uses.iter().enumerate() {
            let (from, to) = self.spans[first + offset];
            for &i in &self.positions[from as usize..to as usize] {
                self.cov1[i as usize] += times;
            }
        }
        for (j, &id) in lists.iter().enumerate() {
            if id != NONE {
                self.cov2[j] += self.list(id as usize).len() as u32;
            }
        }
        Source::Words {
            lists,
            group: self.group(module, 1, 1),
        }
    }

    /// One-word list `l`: hypothesis positions, ascending.
    #[inline]
    fn list(&self, l: usize) -> &[u32] {
        let (from, to) = self.spans[l];
        &self.positions[from as usize..to as usize]
    }

    /// The paraphrase module's source: phrase pairs of the table found on both
    /// sides, first paraphrases of reference phrases, then of hypothesis phrases.
    /// Indexes the hypothesis phrases, then lists the matches per position once
    /// (counting coverage, and keeping them when there are few enough).
    fn phrase_source(
        &mut self,
        module: u8,
        hyp: &[u32],
        reference: &[u32],
        table: &'a Table,
        para_id: &[i32],
    ) -> Source<'a> {
        let line1: Vec<i32> = hyp.iter().map(|&t| para_id[t as usize]).collect();
        let line2: Vec<i32> = reference.iter().map(|&t| para_id[t as usize]).collect();
        // (group ids only name groups: the search orders groups by first appearance)
        let mut groups: FxHashMap<(u32, u32), u32> = FxHashMap::default();
        let mut by_word: Vec<(i32, Listed)> = Vec::new();
        let mut by_pair: Vec<((i32, i32), Listed)> = Vec::new();
        let mut order = 0u32;
        // a hypothesis phrase whose paraphrase is nowhere in the reference matches nothing
        let starts2 = PhraseStarts::new(&line2);
        for i in 0..line1.len() {
            table.for_each_path(&line1, i, |mlen, e| {
                let words = table.paraphrase(e);
                order += 1;
                if starts2.of(&line2, words).next().is_none() {
                    return;
                }
                let (len, mlen) = (words.len() as u32, mlen as u32);
                let id = |w: u32| i32::try_from(w).unwrap_or(-1);
                let group = *groups
                    .entry((len, mlen))
                    .or_insert_with(|| self.group(module, len, mlen));
                let listed = Listed {
                    order,
                    at: i as u32,
                    len: mlen,
                    record: e,
                    group,
                };
                match words {
                    [w] => by_word.push((id(*w), listed)),
                    [w0, w1, ..] => by_pair.push(((id(*w0), id(*w1)), listed)),
                    [] => {}
                }
            });
        }
        let mut phrases = Phrases {
            table,
            module,
            starts1: PhraseStarts::new(&line1),
            line1,
            line2,
            by_word: Index::new(by_word),
            by_pair: Index::new(by_pair),
            starting: Vec::new(),
            groups: FxHashMap::default(),
            kept: None,
        };
        let mut starting = vec![0u32; phrases.line2.len()];
        let mut kept: Vec<(Match, u32)> = Vec::new();
        let mut kept_at: Vec<u32> = Vec::with_capacity(phrases.line2.len() + 1);
        let mut keep = true;
        let limit = keep_limit();
        let (cov1, cov2, all_groups) = (&mut self.cov1, &mut self.cov2, &mut self.groups);
        for (j, here) in starting.iter_mut().enumerate() {
            if keep {
                kept_at.push(kept.len() as u32);
            }
            let mut group_of = |len: u32, mlen: u32| {
                *groups
                    .entry((len, mlen))
                    .or_insert_with(|| group_in(all_groups, (module, len, mlen)))
            };
            let mut seen = |m: Match, group: u32| {
                for p in m.mstart..m.mstart + m.mlen {
                    cov1[p as usize] += 1;
                }
                for p in m.start..m.start + m.len {
                    cov2[p as usize] += 1;
                }
                *here += 1;
                if keep {
                    if kept.len() < limit {
                        kept.push((m, group));
                    } else {
                        keep = false;
                        kept = Vec::new();
                    }
                }
            };
            phrases.list_at(j, &mut group_of, &mut seen);
        }
        if keep {
            kept_at.push(kept.len() as u32);
            phrases.kept = Some((kept, kept_at));
        }
        phrases.starting = starting;
        phrases.groups = groups;
        Source::Phrases(Box::new(phrases))
    }

    /// Calls `f(match, group)` for every match starting at reference position `j`, in order.
    #[inline]
    pub fn for_each_at(&self, j: usize, mut f: impl FnMut(Match, u32)) {
        for (k, source) in self.sources.iter().enumerate() {
            match source {
                Source::Words { lists, group } => {
                    if lists[j] == NONE {
                        continue;
                    }
                    for &i in self.list(lists[j] as usize) {
                        let m = Match {
                            start: j as u32,
                            len: 1,
                            mstart: i,
                            mlen: 1,
                            module: k as u8,
                        };
                        f(m, *group);
                    }
                }
                Source::Phrases(phrases) => phrases.for_each_at(j, &mut f),
            }
        }
    }

    /// The only match starting at reference position `j`, if there is exactly one.
    pub fn only_at(&self, j: usize) -> Option<Match> {
        let mut count = 0usize;
        let mut only = None;
        for source in &self.sources {
            count += match source {
                Source::Words { lists, .. } if lists[j] != NONE => {
                    self.list(lists[j] as usize).len()
                }
                Source::Words { .. } => 0,
                Source::Phrases(phrases) => phrases.starting[j] as usize,
            };
            if count > 1 {
                return None;
            }
        }
        if count == 1 {
            self.for_each_at(j, |m, _| only = Some(m));
        }
        only
    }
}

impl Phrases<'_> {
    /// Calls `f(match, group)` for every paraphrase match starting at reference position `j`.
    fn for_each_at(&self, j: usize, f: &mut impl FnMut(Match, u32)) {
        if let Some((kept, at)) = &self.kept {
            for &(m, group) in &kept[at[j] as usize..at[j + 1] as usize] {
                f(m, group);
            }
        } else {
            self.list_at(j, &mut |len, mlen| self.groups[&(len, mlen)], f);
        }
    }

    /// Lists the paraphrase matches starting at reference position `j` in
    /// METEOR's order, with the group `group_of(len, mlen)` of each.
    fn list_at(
        &self,
        j: usize,
        group_of: &mut impl FnMut(u32, u32) -> u32,
        f: &mut impl FnMut(Match, u32),
    ) {
        let table = self.table;
        let module = self.module;
        table.for_each_path(&self.line2, j, |len, e| {
            let words = table.paraphrase(e);
            let (len, mlen) = (len as u32, words.len() as u32);
            for i in self.starts1.of(&self.line1, words) {
                let m = Match {
                    start: j as u32,
                    len,
                    mstart: i,
                    mlen,
                    module,
                };
                f(m, group_of(len, mlen));
            }
        });
        // hypothesis phrases whose paraphrase occurs here, in their order
        let here = self.line2[j];
        let mut one = self.by_word.get(here).copied().peekable();
        let mut two = self
            .line2
            .get(j + 1)
            .map(|&next| self.by_pair.get((here, next)).copied().peekable());
        loop {
            let first_one = match (one.peek(), two.as_mut().and_then(|t| t.peek())) {
                (None, None) => break,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some(a), Some(b)) => a.order < b.order,
            };
            let listed = if first_one {
                one.next()
            } else {
                two.as_mut().and_then(|t| t.next())
            }
            .expect("peeked");
            let words = table.paraphrase(listed.record);
            if PhraseStarts::occurs(&self.line2, j, words) {
                let m = Match {
                    start: j as u32,
                    len: words.len() as u32,
                    mstart: listed.at,
                    mlen: listed.len,
                    module,
                };
                f(m, listed.group);
            }
        }
    }
}
