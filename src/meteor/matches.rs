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

use std::hash::Hash;

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
/// so they are counted up front and listed position by position when asked for,
/// never all kept at once.
struct Phrases<'a> {
    table: &'a Table,
    module: u8,
    line1: Vec<i32>,
    line2: Vec<i32>,
    starts1: PhraseStarts,
    /// Hypothesis phrases by the first word of their one-word paraphrase, and by
    /// the first two words of a longer one: [`Listed`] in METEOR's order
    /// (position, length, table order).
    by_word: FxHashMap<i32, Vec<Listed>>,
    by_pair: FxHashMap<(i32, i32), Vec<Listed>>,
    /// How many matches start at each reference position.
    starting: Vec<u32>,
    /// Group ids by (reference length, hypothesis length).
    groups: FxHashMap<(u32, u32), u32>,
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
    /// Lists of hypothesis positions, ascending, shared by one-word modules.
    lists: Vec<Vec<u32>>,
    /// Per (module, reference length, hypothesis length), its group id.
    groups: Vec<(u8, u32, u32)>,
    /// How many candidate matches cover each hypothesis word.
    pub cov1: Vec<u32>,
    /// How many candidate matches cover each reference word.
    pub cov2: Vec<u32>,
}

fn positions_by<K: Hash + Eq + Copy>(keys: impl Iterator<Item = K>) -> FxHashMap<K, Vec<u32>> {
    let mut map: FxHashMap<K, Vec<u32>> = FxHashMap::default();
    for (i, k) in keys.enumerate() {
        map.entry(k).or_default().push(i as u32);
    }
    map
}

/// Where the phrases of a line start, found by their first one or two words.
struct PhraseStarts {
    by_word: FxHashMap<i32, Vec<u32>>,
    by_pair: FxHashMap<(i32, i32), Vec<u32>>,
}

impl PhraseStarts {
    fn new(line: &[i32]) -> PhraseStarts {
        PhraseStarts {
            by_word: positions_by(line.iter().copied()),
            by_pair: positions_by(line.windows(2).map(|w| (w[0], w[1]))),
        }
    }

    /// The positions of `line` where `words` occurs, ascending.
    fn of<'a>(&'a self, line: &'a [i32], words: &'a [u32]) -> impl Iterator<Item = u32> + 'a {
        let id = |w: u32| i32::try_from(w).unwrap_or(-1);
        let starts = match words {
            [] => None,
            [w] => self.by_word.get(&id(*w)),
            [w0, w1, ..] => self.by_pair.get(&(id(*w0), id(*w1))),
        };
        starts
            .into_iter()
            .flatten()
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
            lists: Vec::new(),
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
                    found.word_source(k, reference, |r| {
                        by_word
                            .get(&lex.word_hash[r as usize])
                            .cloned()
                            .unwrap_or_default()
                    })
                }
                Module::Stem => {
                    let by_stem = positions_by(hyp.iter().map(|&t| lex.stem_hash[t as usize]));
                    found.word_source(k, reference, |r| {
                        let word = lex.word_hash[r as usize];
                        by_stem
                            .get(&lex.stem_hash[r as usize])
                            .map(|list| list.iter().copied().filter(|&i| hash_of(i) != word))
                            .into_iter()
                            .flatten()
                            .collect()
                    })
                }
                Module::Synonym => {
                    let mut by_synset: FxHashMap<i32, Vec<u32>> = FxHashMap::default();
                    for (i, &t) in hyp.iter().enumerate() {
                        for &s in lex.synsets[t as usize] {
                            by_synset.entry(s).or_default().push(i as u32);
                        }
                    }
                    found.word_source(k, reference, |r| {
                        let word = lex.word_hash[r as usize];
                        let mut list: Vec<u32> = lex.synsets[r as usize]
                            .iter()
                            .filter_map(|s| by_synset.get(s))
                            .flatten()
                            .copied()
                            .filter(|&i| hash_of(i) != word)
                            .collect();
                        list.sort_unstable();
                        list.dedup();
                        list
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
        let key = (module, len, mlen);
        let g = self
            .groups
            .iter()
            .position(|&c| c == key)
            .unwrap_or_else(|| {
                self.groups.push(key);
                self.groups.len() - 1
            });
        g as u32
    }

    /// How many groups there are: a group's matches share a module and lengths.
    pub fn n_groups(&self) -> usize {
        self.groups.len()
    }

    /// A one-word module's source: `list_for` runs once per reference word type.
    fn word_source(
        &mut self,
        module: u8,
        reference: &[u32],
        mut list_for: impl FnMut(u32) -> Vec<u32>,
    ) -> Source<'a> {
        let first = self.lists.len();
        let mut id_of: FxHashMap<u32, u32> = FxHashMap::default();
        let mut uses: Vec<u32> = Vec::new();
        let mut lists = Vec::with_capacity(reference.len());
        for &r in reference {
            let id = *id_of.entry(r).or_insert_with(|| {
                let list = list_for(r);
                if list.is_empty() {
                    NONE
                } else {
                    self.lists.push(list);
                    uses.push(0);
                    (self.lists.len() - 1) as u32
                }
            });
            if id != NONE {
                uses[id as usize - first] += 1;
            }
            lists.push(id);
        }
        // coverage: a list counts once per reference position that has it
        for (offset, &times) in uses.iter().enumerate() {
            for &i in &self.lists[first + offset] {
                self.cov1[i as usize] += times;
            }
        }
        for (j, &id) in lists.iter().enumerate() {
            if id != NONE {
                self.cov2[j] += self.lists[id as usize].len() as u32;
            }
        }
        Source::Words {
            lists,
            group: self.group(module, 1, 1),
        }
    }

    /// The paraphrase module's source: phrase pairs of the table found on both
    /// sides, first paraphrases of reference phrases, then of hypothesis phrases.
    /// Indexes the hypothesis phrases, then counts coverage and matches per
    /// position with the same listing the search uses ([`Phrases::for_each_at`]).
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
        let mut groups: FxHashMap<(u32, u32), u32> = FxHashMap::default();
        for j in 0..line2.len() {
            table.for_each_path(&line2, j, |len, e| {
                let (len, mlen) = (len as u32, table.paraphrase(e).len() as u32);
                groups
                    .entry((len, mlen))
                    .or_insert_with(|| self.group(module, len, mlen));
            });
        }
        let mut by_word: FxHashMap<i32, Vec<Listed>> = FxHashMap::default();
        let mut by_pair: FxHashMap<(i32, i32), Vec<Listed>> = FxHashMap::default();
        let mut order = 0u32;
        for i in 0..line1.len() {
            table.for_each_path(&line1, i, |mlen, e| {
                let words = table.paraphrase(e);
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
                order += 1;
                match words {
                    [w] => by_word.entry(id(*w)).or_default().push(listed),
                    [w0, w1, ..] => by_pair.entry((id(*w0), id(*w1))).or_default().push(listed),
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
            by_word,
            by_pair,
            starting: Vec::new(),
            groups,
        };
        let mut starting = vec![0u32; phrases.line2.len()];
        for (j, here) in starting.iter_mut().enumerate() {
            phrases.for_each_at(j, &mut |m, _| {
                for p in m.mstart..m.mstart + m.mlen {
                    self.cov1[p as usize] += 1;
                }
                for p in m.start..m.start + m.len {
                    self.cov2[p as usize] += 1;
                }
                *here += 1;
            });
        }
        phrases.starting = starting;
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
                    for &i in &self.lists[lists[j] as usize] {
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
                    self.lists[lists[j] as usize].len()
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
        let table = self.table;
        let module = self.module;
        table.for_each_path(&self.line2, j, |len, e| {
            let words = table.paraphrase(e);
            let (len, mlen) = (len as u32, words.len() as u32);
            let group = self.groups[&(len, mlen)];
            for i in self.starts1.of(&self.line1, words) {
                let m = Match {
                    start: j as u32,
                    len,
                    mstart: i,
                    mlen,
                    module,
                };
                f(m, group);
            }
        });
        // hypothesis phrases whose paraphrase occurs here, in their order
        let here = self.line2[j];
        let one = self.by_word.get(&here).map_or(&[][..], Vec::as_slice);
        let two = match self.line2.get(j + 1) {
            Some(&next) => self
                .by_pair
                .get(&(here, next))
                .map_or(&[][..], Vec::as_slice),
            None => &[],
        };
        let (mut a, mut b) = (0, 0);
        while a < one.len() || b < two.len() {
            let listed = if b == two.len() || (a < one.len() && one[a].order < two[b].order) {
                a += 1;
                one[a - 1]
            } else {
                b += 1;
                two[b - 1]
            };
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
