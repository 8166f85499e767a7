//! The METEOR 1.5 aligner (`edu.cmu.meteor.aligner.Aligner`): find the candidate
//! matches by module ([`super::matches`]), fix the unambiguous one-to-one matches,
//! then search the rest with a beam ([`super::search`]) for the alignment with
//! most (weighted) matches, fewest chunks and least distance, and count it.
//!
//! Words and stems are compared by their Java `hashCode`, as METEOR does.

use super::matches::Candidates;
use super::paraphrase::Table;
use super::search::Search;

/// A matcher module, in METEOR's numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Module {
    Exact,
    Stem,
    Synonym,
    Paraphrase,
}

impl Module {
    pub fn from_code(code: u8) -> Option<Module> {
        match code {
            0 => Some(Module::Exact),
            1 => Some(Module::Stem),
            2 => Some(Module::Synonym),
            3 => Some(Module::Paraphrase),
            _ => None,
        }
    }

    /// The weight the beam search gives this module's matches.
    pub fn search_weight(self) -> f64 {
        if self == Module::Exact {
            1.0
        } else {
            0.5
        }
    }
}

/// What the aligner knows about each word type of a batch (indexed by type id).
pub struct Lexicon<'a> {
    pub word_hash: &'a [i32],
    pub stem_hash: &'a [i32],
    pub synsets: &'a [&'a [i32]],
    pub para_id: &'a [i32],
    pub is_function: &'a [bool],
    pub paraphrases: Option<&'a Table>,
}

/// A candidate match: `start`/`len` in the reference (line 2), `mstart`/`mlen`
/// in the hypothesis (line 1), `module` its position in the module list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match {
    pub start: u32,
    pub len: u32,
    pub mstart: u32,
    pub mlen: u32,
    pub module: u8,
}

/// Sufficient statistics of one hypothesis–reference alignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts {
    pub test_len: i64,
    pub ref_len: i64,
    pub test_function: i64,
    pub ref_function: i64,
    /// Per module: test content, reference content, test function, reference function matches.
    pub modules: Vec<[i64; 4]>,
    pub chunks: i64,
}

impl Counts {
    /// The row layout returned to Python.
    pub fn row(&self) -> Vec<i64> {
        let mut row = vec![
            self.test_len,
            self.ref_len,
            self.test_function,
            self.ref_function,
        ];
        for m in &self.modules {
            row.extend_from_slice(m);
        }
        row.push(self.chunks);
        row
    }
}

/// Aligns a hypothesis (line 1) with a reference (line 2), both given as type ids.
pub fn align(
    hyp: &[u32],
    reference: &[u32],
    modules: &[Module],
    beam: usize,
    lex: &Lexicon,
) -> Counts {
    match align_bounded(hyp, reference, modules, beam, lex, u64::MAX) {
        Ok(counts) => counts,
        Err(_) => unreachable!("no candidate count exceeds u64::MAX"),
    }
}

/// [`align`], unless the pair has more than `limit` candidate matches: then
/// `Err(count)` before the search. The search's time grows with the candidate
/// count (a pair of n repeated synonyms has n * n), so the limit bounds it.
pub fn align_bounded(
    hyp: &[u32],
    reference: &[u32],
    modules: &[Module],
    beam: usize,
    lex: &Lexicon,
    limit: u64,
) -> Result<Counts, u64> {
    let (n, m) = (hyp.len(), reference.len());
    let identical = n == m
        && hyp
            .iter()
            .zip(reference)
            .all(|(&a, &b)| lex.word_hash[a as usize] == lex.word_hash[b as usize]);
    if identical && modules.first() == Some(&Module::Exact) {
        // METEOR matches identical sentences with the first module only. With
        // exact matching, its search keeps the word-for-word alignment first at
        // every step: it has the most matches, no chunk break, no distance (the
        // earlier words it passes over are its own), and the earliest creation
        // order among equals; so that alignment is the result.
        let chosen: Vec<Option<Match>> = (0..m as u32)
            .map(|j| {
                Some(Match {
                    start: j,
                    len: 1,
                    mstart: j,
                    mlen: 1,
                    module: 0,
                })
            })
            .collect();
        return Ok(counts(hyp, reference, modules.len(), &chosen, lex));
    }
    let used = if identical {
        &modules[..modules.len().min(1)]
    } else {
        modules
    };
    let candidates = Candidates::find(hyp, reference, used, lex, limit)?;

    // one-to-one matches that nothing else overlaps are fixed from the start
    let mut fixed: Vec<Option<Match>> = vec![None; m];
    let mut fixed_ref = vec![false; m];
    let mut fixed_hyp = vec![false; n];
    for (j, slot) in fixed.iter_mut().enumerate() {
        let Some(only) = candidates.only_at(j) else {
            continue;
        };
        let clear2 = (only.start..only.start + only.len).all(|p| candidates.cov2[p as usize] == 1);
        let clear1 =
            (only.mstart..only.mstart + only.mlen).all(|p| candidates.cov1[p as usize] == 1);
        if clear1 && clear2 {
            *slot = Some(only);
            for p in only.start..only.start + only.len {
                fixed_ref[p as usize] = true;
            }
            for p in only.mstart..only.mstart + only.mlen {
                fixed_hyp[p as usize] = true;
            }
        }
    }
    let weights: Vec<f64> = modules.iter().map(|md| md.search_weight()).collect();
    let chosen = Search {
        candidates: &candidates,
        fixed: &fixed,
        fixed_ref: &fixed_ref,
        fixed_hyp: &fixed_hyp,
        weights: &weights,
        beam,
    }
    .run();
    Ok(counts(hyp, reference, modules.len(), &chosen, lex))
}

pub(super) fn counts(
    hyp: &[u32],
    reference: &[u32],
    n_modules: usize,
    chosen: &[Option<Match>],
    lex: &Lexicon,
) -> Counts {
    let func1: Vec<bool> = hyp.iter().map(|&t| lex.is_function[t as usize]).collect();
    let func2: Vec<bool> = reference
        .iter()
        .map(|&t| lex.is_function[t as usize])
        .collect();
    let mut modules = vec![[0i64; 4]; n_modules];
    let mut chunks = 0i64;
    let mut idx = 0usize;
    let mut last_end: i64 = -1;
    while idx < chosen.len() {
        match chosen[idx] {
            None => {
                if last_end != -1 {
                    chunks += 1;
                    last_end = -1;
                }
                idx += 1;
            }
            Some(mt) => {
                let counts = &mut modules[mt.module as usize];
                for p in mt.mstart..mt.mstart + mt.mlen {
                    counts[if func1[p as usize] { 2 } else { 0 }] += 1;
                }
                for p in mt.start..mt.start + mt.len {
                    counts[if func2[p as usize] { 3 } else { 1 }] += 1;
                }
                if last_end != -1 && i64::from(mt.mstart) != last_end {
                    chunks += 1;
                }
                idx = (mt.start + mt.len) as usize;
                last_end = i64::from(mt.mstart + mt.mlen);
            }
        }
    }
    if last_end != -1 {
        chunks += 1;
    }
    Counts {
        test_len: hyp.len() as i64,
        ref_len: reference.len() as i64,
        test_function: func1.iter().filter(|&&f| f).count() as i64,
        ref_function: func2.iter().filter(|&&f| f).count() as i64,
        modules,
        chunks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Words {
        words: Vec<String>,
        hash: Vec<i32>,
        stem: Vec<i32>,
        synset_slices: Vec<&'static [i32]>,
        para: Vec<i32>,
        function: Vec<bool>,
    }

    impl Words {
        fn new(words: &[&str]) -> Words {
            let hash = words
                .iter()
                .map(|w| super::super::java::string_hash(w))
                .collect();
            let stem = words
                .iter()
                .map(|w| super::super::java::string_hash(&super::super::snowball::stem(w)))
                .collect();
            Words {
                words: words.iter().map(|w| w.to_string()).collect(),
                hash,
                stem,
                synset_slices: vec![&[]; words.len()],
                para: vec![-1; words.len()],
                function: words
                    .iter()
                    .map(|w| matches!(*w, "the" | "a" | "of"))
                    .collect(),
            }
        }

        fn ids(&self, sentence: &str) -> Vec<u32> {
            sentence
                .split(' ')
                .map(|w| self.words.iter().position(|x| x == w).unwrap() as u32)
                .collect()
        }

        fn lexicon<'a>(&'a self, table: Option<&'a Table>) -> Lexicon<'a> {
            Lexicon {
                word_hash: &self.hash,
                stem_hash: &self.stem,
                synsets: &self.synset_slices,
                para_id: &self.para,
                is_function: &self.function,
                paraphrases: table,
            }
        }
    }

    const EXACT_STEM: [Module; 2] = [Module::Exact, Module::Stem];

    #[test]
    fn identical_sentences_are_one_chunk() {
        let w = Words::new(&["the", "cat", "sat"]);
        let c = align(
            &w.ids("the cat sat"),
            &w.ids("the cat sat"),
            &EXACT_STEM,
            40,
            &w.lexicon(None),
        );
        assert_eq!(c.row(), vec![3, 3, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn stems_and_chunks() {
        let w = Words::new(&["the", "cats", "cat", "sat", "on", "mat", "a"]);
        let c = align(
            &w.ids("the cats sat on a mat"),
            &w.ids("a cat sat on the mat"),
            &EXACT_STEM,
            40,
            &w.lexicon(None),
        );
        // every word matches (cats~cat by stem); the/a swap makes four chunks:
        // [a] [cat sat on] [the] [mat] in reference order
        assert_eq!(c.modules[1], [1, 1, 0, 0]);
        assert_eq!(c.modules[0][0] + c.modules[0][2], 5);
        assert_eq!(c.chunks, 4);
    }

    #[test]
    fn repeated_words_prefer_fewer_chunks() {
        let w = Words::new(&["a", "b", "c"]);
        let c = align(
            &w.ids("a b a b c"),
            &w.ids("a b c"),
            &EXACT_STEM,
            40,
            &w.lexicon(None),
        );
        assert_eq!(c.chunks, 1);
        assert_eq!(c.modules[0][0] + c.modules[0][2], 3);
    }

    #[test]
    fn paraphrase_phrases() {
        let mut w = Words::new(&["the", "feline", "cat", "sat"]);
        let table = super::super::paraphrase::Table::parse("1\nthe cat\nthe feline\n").unwrap();
        for (i, word) in w.words.iter().enumerate() {
            w.para[i] = table.lookup(word).map_or(-1, |x| x as i32);
        }
        let modules = [Module::Exact, Module::Paraphrase];
        let c = align(
            &w.ids("the feline sat"),
            &w.ids("the cat sat"),
            &modules,
            40,
            &w.lexicon(Some(&table)),
        );
        // "the feline" ~ "the cat" ties with the exact "the" on weighted matches
        // but makes one chunk with "sat", so the paraphrase wins
        assert_eq!(c.modules, vec![[1, 1, 0, 0], [1, 1, 1, 1]]);
        assert_eq!(c.chunks, 1);
    }
}
