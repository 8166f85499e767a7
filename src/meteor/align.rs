//! The METEOR 1.5 aligner (`edu.cmu.meteor.aligner.Aligner`): match candidates by
//! module, fix the unambiguous one-to-one matches, then a left-to-right beam search
//! over the reference for the alignment with most (weighted) matches, fewest
//! chunks and least distance.
//!
//! Behaviour kept from the Java original, on purpose:
//! * words and stems are compared by their Java `hashCode`;
//! * the search weighs exact matches 1.0 and all others 0.5, truncating the
//!   running weighted totals to integers after every match (so a one-word stem
//!   or synonym match adds nothing to them);
//! * when a path branches, the distance of each match it could take is added to
//!   the path itself, so later branches and the "skip" branch inherit it;
//! * paths are ranked by a stable sort, so ties keep their creation order.
//!
//! Unlike the original, a partial alignment is not an array copy of the whole
//! sentence: matches hang off a shared chain and the used hypothesis words are a
//! copy-on-write bit set, so a step costs O(beam × candidates), not O(beam × n).

use std::rc::Rc;
use std::sync::Arc;

use rayon::prelude::*;

use rustc_hash::FxHashMap;

use super::paraphrase::Table;

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
    fn search_weight(self) -> f64 {
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
struct Match {
    start: u32,
    len: u32,
    mstart: u32,
    mlen: u32,
    module: u8,
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

struct Stage {
    matches: Vec<Vec<Match>>,
    cov1: Vec<u32>,
    cov2: Vec<u32>,
}

impl Stage {
    fn push(&mut self, m: Match) {
        for k in 0..m.mlen {
            self.cov1[(m.mstart + k) as usize] += 1;
        }
        for k in 0..m.len {
            self.cov2[(m.start + k) as usize] += 1;
        }
        self.matches[m.start as usize].push(m);
    }
}

fn positions_by<K: std::hash::Hash + Eq + Copy>(
    keys: impl Iterator<Item = K>,
) -> FxHashMap<K, Vec<u32>> {
    let mut map: FxHashMap<K, Vec<u32>> = FxHashMap::default();
    for (i, k) in keys.enumerate() {
        map.entry(k).or_default().push(i as u32);
    }
    map
}

fn match_word(
    stage: &mut Stage,
    module: u8,
    hyp: &[u32],
    reference: &[u32],
    key: &[i32],
    lex: &Lexicon,
    differ: bool,
) {
    let by_key = positions_by(hyp.iter().map(|&t| key[t as usize]));
    for (j, &r) in reference.iter().enumerate() {
        let Some(list) = by_key.get(&key[r as usize]) else {
            continue;
        };
        for &i in list {
            if differ && lex.word_hash[hyp[i as usize] as usize] == lex.word_hash[r as usize] {
                continue;
            }
            stage.push(Match {
                start: j as u32,
                len: 1,
                mstart: i,
                mlen: 1,
                module,
            });
        }
    }
}

fn match_synonyms(stage: &mut Stage, module: u8, hyp: &[u32], reference: &[u32], lex: &Lexicon) {
    let mut by_synset: FxHashMap<i32, Vec<u32>> = FxHashMap::default();
    for (i, &t) in hyp.iter().enumerate() {
        for &s in lex.synsets[t as usize] {
            by_synset.entry(s).or_default().push(i as u32);
        }
    }
    let mut cache: FxHashMap<u32, Rc<Vec<u32>>> = FxHashMap::default();
    for (j, &r) in reference.iter().enumerate() {
        let candidates = cache
            .entry(r)
            .or_insert_with(|| {
                let mut list: Vec<u32> = lex.synsets[r as usize]
                    .iter()
                    .filter_map(|s| by_synset.get(s))
                    .flatten()
                    .copied()
                    .collect();
                list.sort_unstable();
                list.dedup();
                Rc::new(list)
            })
            .clone();
        for &i in candidates.iter() {
            if lex.word_hash[hyp[i as usize] as usize] != lex.word_hash[r as usize] {
                stage.push(Match {
                    start: j as u32,
                    len: 1,
                    mstart: i,
                    mlen: 1,
                    module,
                });
            }
        }
    }
}

fn match_paraphrases(stage: &mut Stage, module: u8, hyp: &[u32], reference: &[u32], lex: &Lexicon) {
    let Some(table) = lex.paraphrases else {
        return;
    };
    let line1: Vec<i32> = hyp.iter().map(|&t| lex.para_id[t as usize]).collect();
    let line2: Vec<i32> = reference.iter().map(|&t| lex.para_id[t as usize]).collect();
    let at1 = positions_by(line1.iter().copied());
    let at2 = positions_by(line2.iter().copied());
    let occurs = |line: &[i32], at: usize, words: &[u32]| {
        at + words.len() <= line.len()
            && words
                .iter()
                .zip(&line[at..])
                .all(|(&w, &l)| i64::from(w) == i64::from(l))
    };
    // paraphrases of reference phrases found in the hypothesis
    for j in 0..line2.len() {
        for (len, e) in table.paths(&line2, j) {
            let words = table.paraphrase(e);
            let Some(starts) = words.first().and_then(|&w| at1.get(&(w as i32))) else {
                continue;
            };
            for &i in starts {
                if occurs(&line1, i as usize, words) {
                    let m = Match {
                        start: j as u32,
                        len: len as u32,
                        mstart: i,
                        mlen: words.len() as u32,
                        module,
                    };
                    stage.push(m);
                }
            }
        }
    }
    // paraphrases of hypothesis phrases found in the reference
    for i in 0..line1.len() {
        for (len, e) in table.paths(&line1, i) {
            let words = table.paraphrase(e);
            let Some(starts) = words.first().and_then(|&w| at2.get(&(w as i32))) else {
                continue;
            };
            for &j in starts {
                if occurs(&line2, j as usize, words) {
                    let m = Match {
                        start: j,
                        len: words.len() as u32,
                        mstart: i as u32,
                        mlen: len as u32,
                        module,
                    };
                    stage.push(m);
                }
            }
        }
    }
}

/// The set of hypothesis words a partial alignment uses: a `u128` for short
/// hypotheses, else copy-on-write blocks of 4,096 bits.
#[derive(Clone)]
enum Used {
    Small(u128),
    Blocks(Vec<Arc<[u64; 64]>>),
}

impl Used {
    fn new(n: usize) -> Used {
        if n <= 128 {
            Used::Small(0)
        } else {
            Used::Blocks(
                (0..n.div_ceil(4096))
                    .map(|_| Arc::new([0u64; 64]))
                    .collect(),
            )
        }
    }

    #[inline]
    fn get(&self, i: usize) -> bool {
        match self {
            Used::Small(bits) => (bits >> i) & 1 == 1,
            Used::Blocks(blocks) => (blocks[i / 4096][(i % 4096) / 64] >> (i % 64)) & 1 == 1,
        }
    }

    fn set(&mut self, i: usize) {
        match self {
            Used::Small(bits) => *bits |= 1u128 << i,
            Used::Blocks(blocks) => {
                Arc::make_mut(&mut blocks[i / 4096])[(i % 4096) / 64] |= 1u64 << (i % 64)
            }
        }
    }

    fn any(&self, from: u32, len: u32) -> bool {
        (from..from + len).any(|i| self.get(i as usize))
    }
}

/// The ranking state of a partial alignment.
#[derive(Clone, Copy, Debug)]
struct State {
    matches1: i32,
    matches2: i32,
    chunks: i32,
    idx: u32,
    last_end: i64,
    distance: i64,
}

impl State {
    /// METEOR's `PARTIAL_COMPARE_TOTAL` as a sort key: more weighted matches,
    /// then fewer chunks, then less distance.
    fn key(&self) -> (i64, i32, i64) {
        (
            -(i64::from(self.matches1) + i64::from(self.matches2)),
            self.chunks,
            self.distance,
        )
    }

    /// Java's `int += double`: the sum is truncated back to an int.
    fn add_weighted(total: i32, words: u32, weight: f64) -> i32 {
        (f64::from(total) + f64::from(words) * weight) as i32
    }

    fn take(&mut self, m: &Match, weight: f64) {
        self.matches1 = State::add_weighted(self.matches1, m.mlen, weight);
        self.matches2 = State::add_weighted(self.matches2, m.len, weight);
        if self.last_end != -1 && i64::from(m.mstart) != self.last_end {
            self.chunks += 1;
        }
        self.idx = m.start + m.len;
        self.last_end = i64::from(m.mstart + m.mlen);
    }
}

/// A partial alignment: its state, the hypothesis words it uses and its
/// chosen (non-fixed) matches as the head of a shared chain.
#[derive(Clone)]
struct Path {
    state: State,
    used1: Used,
    chain: Option<u32>,
}

/// A candidate for the next beam: a parent path continued, or extended by a match.
#[derive(Clone, Copy)]
struct Candidate {
    state: State,
    parent: u32,
    taken: Option<Match>,
}

fn distance_of(m: &Match) -> i64 {
    (i64::from(m.start) - i64::from(m.mstart)).abs()
}

/// A candidate's rank as one comparable value: the ranking key, then its
/// creation order (a stable sort's tie-breaker).
type Rank = (u64, i64, u32);

fn rank(state: &State, index: usize) -> Rank {
    let (matches, chunks, distance) = state.key();
    // more matches first: `matches` is minus the (non-negative) weighted total
    let high = ((u64::from(u32::MAX) - (-matches) as u64) << 32) | u64::from(chunks as u32);
    (high, distance, index as u32)
}

/// Ranks the candidates like a stable sort and puts the indices of the first
/// `beam` in `order`, best first.
fn select(candidates: &[Candidate], beam: usize, ranks: &mut Vec<Rank>) {
    ranks.clear();
    ranks.extend(
        candidates
            .iter()
            .enumerate()
            .map(|(i, c)| rank(&c.state, i)),
    );
    if ranks.len() > beam {
        ranks.select_nth_unstable(beam);
        ranks.truncate(beam);
    }
    ranks.sort_unstable();
}

/// Work (paths × candidate matches) above which a search step runs in parallel.
const PARALLEL_WORK: usize = 1 << 16;

/// One step of the beam search: what every path sees at reference position `current`.
struct Step<'a> {
    current: usize,
    last: bool,
    fixed_here: bool,
    fixed: &'a [Option<Match>],
    /// The matches starting here that no fixed match blocks, their groups and distances.
    open: &'a [Match],
    groups: &'a [usize],
    distances: &'a [i64],
    weights: &'a [f64],
    beam: usize,
    n_groups: usize,
}

impl Step<'_> {
    /// Appends the candidates `path` (ranked `rank`) leads to at this step.
    fn extend(&self, path: &Path, rank: u32, out: &mut Vec<Candidate>, counts: &mut Vec<usize>) {
        let mut state = path.state;
        if self.last {
            if state.last_end != -1 {
                state.chunks += 1;
            }
        } else if (self.current as u32) < state.idx {
            // inside a match this path already took
        } else if self.fixed_here {
            let Some(fm) = self.fixed[state.idx as usize] else {
                // METEOR drops such a path (it cannot occur)
                return;
            };
            state.take(&fm, self.weights[fm.module as usize]);
            state.distance += distance_of(&fm);
        } else {
            // Branches of one group (same module and lengths, continuing the
            // chunk or not) rank in list order: equal matches and chunks,
            // growing distance. Only the first `beam` of a group can survive
            // the cut, so later ones only add their distance.
            counts.clear();
            counts.resize(2 * self.n_groups, 0);
            for (t, mt) in self.open.iter().enumerate() {
                let used = if mt.mlen == 1 {
                    path.used1.get(mt.mstart as usize)
                } else {
                    path.used1.any(mt.mstart, mt.mlen)
                };
                if used {
                    continue;
                }
                let continues = usize::from(state.last_end == i64::from(mt.mstart));
                let seen = &mut counts[2 * self.groups[t] + continues];
                if *seen < self.beam {
                    *seen += 1;
                    let mut taken = state;
                    taken.take(mt, self.weights[mt.module as usize]);
                    out.push(Candidate {
                        state: taken,
                        parent: rank,
                        taken: Some(*mt),
                    });
                }
                // METEOR adds each branch's distance to the path it branches from
                state.distance += self.distances[t];
            }
            if state.last_end != -1 {
                state.chunks += 1;
                state.last_end = -1;
            }
            state.idx += 1;
        }
        out.push(Candidate {
            state,
            parent: rank,
            taken: None,
        });
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
    let (n, m) = (hyp.len(), reference.len());
    let mut stage = Stage {
        matches: vec![Vec::new(); m],
        cov1: vec![0; n],
        cov2: vec![0; m],
    };
    let identical = n == m
        && hyp
            .iter()
            .zip(reference)
            .all(|(&a, &b)| lex.word_hash[a as usize] == lex.word_hash[b as usize]);
    let used_modules = if identical {
        modules.len().min(1)
    } else {
        modules.len()
    };
    for (k, module) in modules.iter().take(used_modules).enumerate() {
        let k = k as u8;
        match module {
            Module::Exact => match_word(&mut stage, k, hyp, reference, lex.word_hash, lex, false),
            Module::Stem => match_word(&mut stage, k, hyp, reference, lex.stem_hash, lex, true),
            Module::Synonym => match_synonyms(&mut stage, k, hyp, reference, lex),
            Module::Paraphrase => match_paraphrases(&mut stage, k, hyp, reference, lex),
        }
    }

    // one-to-one matches that nothing else overlaps are fixed from the start
    let mut fixed: Vec<Option<Match>> = vec![None; m];
    let mut fixed_used2 = vec![false; m];
    let mut start_used1 = Used::new(n);
    for (j, slot) in fixed.iter_mut().enumerate() {
        if let [only] = stage.matches[j][..] {
            let clear2 = (only.start..only.start + only.len).all(|p| stage.cov2[p as usize] == 1);
            let clear1 =
                (only.mstart..only.mstart + only.mlen).all(|p| stage.cov1[p as usize] == 1);
            if clear1 && clear2 {
                *slot = Some(only);
                for p in only.start..only.start + only.len {
                    fixed_used2[p as usize] = true;
                }
                for p in only.mstart..only.mstart + only.mlen {
                    start_used1.set(p as usize);
                }
            }
        }
    }
    let weights: Vec<f64> = modules.iter().map(|md| md.search_weight()).collect();

    let mut chain: Vec<(Match, Option<u32>)> = Vec::new();
    let start = State {
        matches1: 0,
        matches2: 0,
        chunks: 0,
        idx: 0,
        last_end: -1,
        distance: 0,
    };
    let mut paths: Vec<Path> = vec![Path {
        state: start,
        used1: start_used1,
        chain: None,
    }];
    let mut next: Vec<Candidate> = vec![Candidate {
        state: start,
        parent: 0,
        taken: None,
    }];
    // Matches over a fixed word can never be taken, and add no distance.
    // The rest, per reference position: flat arrays plus a group id per match
    // (module and lengths), for the search's inner loop.
    let fixed_used1: Vec<bool> = (0..n).map(|i| paths[0].used1.get(i)).collect();
    let mut open: Vec<Match> = Vec::new();
    let mut open_starts: Vec<usize> = Vec::with_capacity(m + 1);
    let mut combos: Vec<(u8, u32, u32)> = Vec::new();
    let mut group_of: Vec<usize> = Vec::new();
    for list in &stage.matches {
        open_starts.push(open.len());
        for mt in list {
            let blocked2 = (mt.start..mt.start + mt.len).any(|p| fixed_used2[p as usize]);
            let blocked1 = (mt.mstart..mt.mstart + mt.mlen).any(|p| fixed_used1[p as usize]);
            if blocked1 || blocked2 {
                continue;
            }
            let combo = (mt.module, mt.len, mt.mlen);
            let g = combos.iter().position(|&c| c == combo).unwrap_or_else(|| {
                combos.push(combo);
                combos.len() - 1
            });
            open.push(*mt);
            group_of.push(g);
        }
    }
    open_starts.push(open.len());
    let distances: Vec<i64> = open.iter().map(distance_of).collect();
    let mut taken_per_group: Vec<usize> = Vec::new();
    let mut ranks: Vec<Rank> = Vec::new();
    let mut ranked: Vec<Path> = Vec::new();
    for current in 0..=m {
        // the best `beam` candidates become the paths of this step, in rank order
        select(&next, beam, &mut ranks);
        ranked.clear();
        for &(_, _, i) in &ranks {
            let c = next[i as usize];
            let parent = &paths[c.parent as usize];
            let mut path = Path {
                state: c.state,
                used1: parent.used1.clone(),
                chain: parent.chain,
            };
            if let Some(mt) = c.taken {
                for q in mt.mstart..mt.mstart + mt.mlen {
                    path.used1.set(q as usize);
                }
                chain.push((mt, path.chain));
                path.chain = Some((chain.len() - 1) as u32);
            }
            ranked.push(path);
        }
        std::mem::swap(&mut paths, &mut ranked);

        next.clear();
        let here = if current < m {
            open_starts[current]..open_starts[current + 1]
        } else {
            open.len()..open.len()
        };
        let step = Step {
            current,
            last: current == m,
            fixed_here: fixed_used2.get(current).copied().unwrap_or(false),
            fixed: &fixed,
            open: &open[here.clone()],
            groups: &group_of[here.clone()],
            distances: &distances[here],
            weights: &weights,
            beam,
            n_groups: combos.len(),
        };
        // long steps (long, repetitive sentences) are shared among threads
        if step.open.len() * paths.len() >= PARALLEL_WORK {
            let parts: Vec<Vec<Candidate>> = paths
                .par_iter()
                .enumerate()
                .map(|(rank, path)| {
                    let mut out = Vec::new();
                    step.extend(path, rank as u32, &mut out, &mut Vec::new());
                    out
                })
                .collect();
            next.extend(parts.into_iter().flatten());
        } else {
            for (rank, path) in paths.iter().enumerate() {
                step.extend(path, rank as u32, &mut next, &mut taken_per_group);
            }
        }
        if next.is_empty() {
            // METEOR warns and carries its best path on unchanged
            next.push(Candidate {
                state: paths[0].state,
                parent: 0,
                taken: None,
            });
        }
    }
    select(&next, 1, &mut ranks);
    let best = &paths[next[ranks[0].2 as usize].parent as usize];

    // the final alignment: fixed matches plus the chosen chain
    let mut chosen = fixed;
    let mut link = best.chain;
    while let Some(i) = link {
        let (mt, prev) = chain[i as usize];
        chosen[mt.start as usize] = Some(mt);
        link = prev;
    }
    counts(hyp, reference, modules.len(), &chosen, lex)
}

fn counts(
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
            w.para[i] = table.index.get(word).map_or(-1, |&x| x as i32);
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

    #[test]
    fn used_bits() {
        let mut u = Used::new(5000);
        u.set(4097);
        let v = u.clone();
        u.set(3);
        assert!(u.get(4097) && u.get(3) && v.get(4097) && !v.get(3));
        assert!(u.any(4000, 100) && !u.any(4, 4000));
    }
}
