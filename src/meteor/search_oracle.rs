//! The aligner against a literal reading of METEOR 1.5's `Aligner`: every match
//! found by trying every word pair and every table record, every partial
//! alignment a full copy, every candidate listed and the list stably sorted and
//! cut to the beam. Random sentence pairs over a small vocabulary (stems,
//! synonyms, paraphrases, repeated words), both short and over 128 words, module
//! sets in several orders and beams from 1 to 40 must give identical counts.

use super::align::{align, Counts, Lexicon, Match, Module};
use super::java::string_hash;
use super::paraphrase::Table;
use super::search::State;
use super::snowball::stem;

#[derive(Clone)]
struct Partial {
    state: State,
    used1: Vec<bool>,
    chosen: Vec<Option<Match>>,
}

fn phrase(table: &Table, record: usize) -> (Vec<i32>, Vec<i32>) {
    let (reference, paraphrase) = table.phrases(record);
    let words = |p: &[u32]| -> Vec<i32> { p.iter().map(|&w| w as i32).collect() };
    (words(reference), words(paraphrase))
}

fn occurs(line: &[i32], at: usize, words: &[i32]) -> bool {
    at + words.len() <= line.len() && line[at..at + words.len()] == *words
}

/// Paraphrase matches in METEOR's order: reference phrases (by position, then
/// length, then table order) with their paraphrases in the hypothesis, then the
/// same from the hypothesis side.
fn phrase_matches(table: &Table, line1: &[i32], line2: &[i32], module: u8) -> Vec<Match> {
    let mut out = Vec::new();
    let longest = (0..table.len())
        .map(|r| table.phrases(r).0.len())
        .max()
        .unwrap_or(0);
    for (from, to, swap) in [(line2, line1, false), (line1, line2, true)] {
        for a in 0..from.len() {
            for len in 1..=longest {
                for record in 0..table.len() {
                    let (source, target) = phrase(table, record);
                    if source.len() != len || !occurs(from, a, &source) {
                        continue;
                    }
                    for b in (0..to.len()).filter(|&b| occurs(to, b, &target)) {
                        let (a, b, la, lb) = (a as u32, b as u32, len as u32, target.len() as u32);
                        out.push(if swap {
                            Match {
                                start: b,
                                len: lb,
                                mstart: a,
                                mlen: la,
                                module,
                            }
                        } else {
                            Match {
                                start: a,
                                len: la,
                                mstart: b,
                                mlen: lb,
                                module,
                            }
                        });
                    }
                }
            }
        }
    }
    out
}

fn naive_align(
    hyp: &[u32],
    reference: &[u32],
    modules: &[Module],
    beam: usize,
    lex: &Lexicon,
) -> Vec<Option<Match>> {
    let (n, m) = (hyp.len(), reference.len());
    let word = |t: u32| lex.word_hash[t as usize];
    let identical = n == m && hyp.iter().zip(reference).all(|(&a, &b)| word(a) == word(b));
    let used_modules = if identical {
        modules.len().min(1)
    } else {
        modules.len()
    };
    let mut at: Vec<Vec<Match>> = vec![Vec::new(); m];
    for (k, module) in modules.iter().take(used_modules).enumerate() {
        let k = k as u8;
        let found: Vec<Match> = if *module == Module::Paraphrase {
            let line =
                |s: &[u32]| -> Vec<i32> { s.iter().map(|&t| lex.para_id[t as usize]).collect() };
            phrase_matches(lex.paraphrases.unwrap(), &line(hyp), &line(reference), k)
        } else {
            let mut found = Vec::new();
            for (j, &r) in reference.iter().enumerate() {
                for (i, &h) in hyp.iter().enumerate() {
                    let hit = match module {
                        Module::Exact => word(h) == word(r),
                        Module::Stem => {
                            word(h) != word(r)
                                && lex.stem_hash[h as usize] == lex.stem_hash[r as usize]
                        }
                        _ => {
                            word(h) != word(r)
                                && lex.synsets[h as usize]
                                    .iter()
                                    .any(|s| lex.synsets[r as usize].contains(s))
                        }
                    };
                    if hit {
                        found.push(Match {
                            start: j as u32,
                            len: 1,
                            mstart: i as u32,
                            mlen: 1,
                            module: k,
                        });
                    }
                }
            }
            found
        };
        for mt in found {
            at[mt.start as usize].push(mt);
        }
    }
    let covers = |mt: &Match, i: usize, ref_side: bool| {
        let (from, len) = if ref_side {
            (mt.start, mt.len)
        } else {
            (mt.mstart, mt.mlen)
        };
        (from..from + len).contains(&(i as u32))
    };
    let all: Vec<Match> = at.iter().flatten().copied().collect();
    let cov1: Vec<usize> = (0..n)
        .map(|i| all.iter().filter(|mt| covers(mt, i, false)).count())
        .collect();
    let cov2: Vec<usize> = (0..m)
        .map(|j| all.iter().filter(|mt| covers(mt, j, true)).count())
        .collect();
    let mut fixed: Vec<Option<Match>> = vec![None; m];
    let (mut fixed_ref, mut fixed_hyp) = (vec![false; m], vec![false; n]);
    for j in 0..m {
        if let [only] = at[j][..] {
            let clear2 = (only.start..only.start + only.len).all(|p| cov2[p as usize] == 1);
            let clear1 = (only.mstart..only.mstart + only.mlen).all(|p| cov1[p as usize] == 1);
            if clear1 && clear2 {
                fixed[j] = Some(only);
                (only.start..only.start + only.len).for_each(|p| fixed_ref[p as usize] = true);
                (only.mstart..only.mstart + only.mlen).for_each(|p| fixed_hyp[p as usize] = true);
            }
        }
    }
    let weight = |mt: &Match| modules[mt.module as usize].search_weight();
    let start = State::START;
    let mut paths = vec![Partial {
        state: start,
        used1: fixed_hyp.clone(),
        chosen: fixed.clone(),
    }];
    for current in 0..=m {
        let mut next: Vec<Partial> = Vec::new();
        for p in &paths {
            let mut q = p.clone();
            if current == m {
                if q.state.last_end != -1 {
                    q.state.chunks += 1;
                }
            } else if (current as u32) < q.state.idx {
            } else if fixed_ref[current] {
                let Some(fm) = fixed[q.state.idx as usize] else {
                    continue;
                };
                q.state.take(&fm, weight(&fm));
                q.state.distance += (i64::from(fm.start) - i64::from(fm.mstart)).abs();
            } else {
                for mt in &at[current] {
                    let blocked = (mt.start..mt.start + mt.len).any(|x| fixed_ref[x as usize])
                        || (mt.mstart..mt.mstart + mt.mlen).any(|x| q.used1[x as usize]);
                    if blocked {
                        continue;
                    }
                    let mut t = q.clone();
                    t.state.take(mt, weight(mt));
                    (mt.mstart..mt.mstart + mt.mlen).for_each(|x| t.used1[x as usize] = true);
                    t.chosen[current] = Some(*mt);
                    next.push(t);
                    q.state.distance += (i64::from(mt.start) - i64::from(mt.mstart)).abs();
                }
                q.state.skip();
            }
            next.push(q);
        }
        if next.is_empty() {
            next.push(paths[0].clone());
        }
        next.sort_by_key(|p| {
            let s = p.state;
            (
                -(i64::from(s.matches1) + i64::from(s.matches2)),
                s.chunks,
                s.distance,
            )
        });
        next.truncate(beam);
        paths = next;
    }
    paths.swap_remove(0).chosen
}

struct Lex {
    words: Vec<&'static str>,
    hash: Vec<i32>,
    stem: Vec<i32>,
    synsets: Vec<&'static [i32]>,
    para: Vec<i32>,
    function: Vec<bool>,
    table: Table,
}

impl Lex {
    fn new() -> Lex {
        let words = vec![
            "the", "a", "of", "cat", "cats", "feline", "sat", "sits", "on", "mat", "mats", "big",
            "large", "dog", "dogs", "house", "home", "runs", "running",
        ];
        let synset = |w: &str| -> &'static [i32] {
            match w {
                "big" | "large" => &[1],
                "house" => &[2, 3],
                "home" => &[3],
                "cat" | "feline" => &[4],
                "mat" => &[5],
                _ => &[],
            }
        };
        let table = Table::parse(
            "1\nthe cat\nthe feline\n1\nbig\nlarge\n1\nsat on\nsits on\n1\na\nthe\n1\nthe\na\n\
             1\nthe cat\na cat\n1\nhouse\nhome\n1\nthe big dog\na large dog\n1\ncat\nfeline\n1\nmat\nthe mat\n",
        )
        .unwrap();
        Lex {
            hash: words.iter().map(|w| string_hash(w)).collect(),
            stem: words.iter().map(|w| string_hash(&stem(w))).collect(),
            synsets: words.iter().map(|w| synset(w)).collect(),
            para: words
                .iter()
                .map(|w| table.lookup(w).map_or(-1, |x| x as i32))
                .collect(),
            function: words
                .iter()
                .map(|w| matches!(*w, "the" | "a" | "of" | "on"))
                .collect(),
            words,
            table,
        }
    }

    fn lexicon(&self) -> Lexicon<'_> {
        Lexicon {
            word_hash: &self.hash,
            stem_hash: &self.stem,
            synsets: &self.synsets,
            para_id: &self.para,
            is_function: &self.function,
            paraphrases: Some(&self.table),
        }
    }
}

/// A sentence over the first `vocab` words, sometimes `like` itself or a copy with edits.
fn sentence(rng: &mut fastrand::Rng, vocab: usize, len: usize, like: Option<&[u32]>) -> Vec<u32> {
    match like {
        Some(other) if rng.u8(..6) == 0 => other.to_vec(),
        Some(other) if rng.bool() => {
            let mut out = Vec::new();
            for &w in other {
                if rng.u8(..10) > 0 {
                    out.push(if rng.u8(..8) == 0 {
                        rng.u32(..vocab as u32)
                    } else {
                        w
                    });
                }
            }
            out
        }
        _ => (0..len).map(|_| rng.u32(..vocab as u32)).collect(),
    }
}

fn check(lex: &Lex, hyp: &[u32], reference: &[u32], modules: &[Module], beam: usize) {
    let lexicon = lex.lexicon();
    let chosen = naive_align(hyp, reference, modules, beam, &lexicon);
    let expected: Counts = super::align::counts(hyp, reference, modules.len(), &chosen, &lexicon);
    let got = align(hyp, reference, modules, beam, &lexicon);
    // paraphrase matches listed on demand (as beyond KEEP_PHRASE_MATCHES), from the start or midway
    for limit in [0, 2] {
        let previous = super::matches::KEEP_LIMIT.with(|k| k.replace(limit));
        let streamed = align(hyp, reference, modules, beam, &lexicon);
        super::matches::KEEP_LIMIT.with(|k| k.set(previous));
        assert_eq!(
            streamed, got,
            "paraphrase matches listed on demand, after {limit}"
        );
    }
    let show = |s: &[u32]| {
        s.iter()
            .map(|&w| lex.words[w as usize])
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(
        got,
        expected,
        "modules {modules:?}, beam {beam}\nhyp: {}\nref: {}",
        show(hyp),
        show(reference)
    );
}

const MODULE_SETS: [&[Module]; 5] = [
    &[
        Module::Exact,
        Module::Stem,
        Module::Synonym,
        Module::Paraphrase,
    ],
    &[Module::Exact, Module::Stem],
    &[Module::Paraphrase, Module::Exact],
    &[
        Module::Synonym,
        Module::Exact,
        Module::Paraphrase,
        Module::Stem,
    ],
    &[Module::Exact],
];

#[test]
fn short_sentences_match_the_literal_search() {
    let lex = Lex::new();
    let mut rng = fastrand::Rng::with_seed(11);
    for case in 0..4000 {
        let vocab = [3, 6, 19][case % 3];
        let (ref_len, hyp_len) = (rng.usize(..25), rng.usize(..25));
        let reference = sentence(&mut rng, vocab, ref_len, None);
        let hyp = sentence(&mut rng, vocab, hyp_len, Some(&reference));
        let modules = MODULE_SETS[rng.usize(..MODULE_SETS.len())];
        check(
            &lex,
            &hyp,
            &reference,
            modules,
            [1, 2, 3, 5, 40][rng.usize(..5)],
        );
    }
}

#[test]
fn long_sentences_match_the_literal_search() {
    let lex = Lex::new();
    let mut rng = fastrand::Rng::with_seed(5);
    for case in 0..40 {
        let vocab = [4, 19][case % 2];
        let (ref_len, hyp_len) = (rng.usize(120..220), rng.usize(120..220));
        let reference = sentence(&mut rng, vocab, ref_len, None);
        let hyp = sentence(&mut rng, vocab, hyp_len, Some(&reference));
        let modules = MODULE_SETS[case % MODULE_SETS.len()];
        check(&lex, &hyp, &reference, modules, [2, 10, 40][case % 3]);
    }
}
