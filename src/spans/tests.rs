//! The kernel against literal readings of seqeval 1.2.2's `get_entities` and conlleval.pl's
//! loop, on random label sequences (the rules written as in `rules.py`).

use super::*;
use std::collections::{BTreeMap, HashSet};

const PREFIXES: [&str; 10] = ["O", "B", "I", "E", "S", "L", "U", ".", "[", "]"];
const N: usize = PREFIXES.len() + 1;
const POOL: [&str; 16] = [
    "O", "O", "O", "B-PER", "I-PER", "B-LOC", "I-LOC", "E-LOC", "S-PER", "I-A-B", "B-A-B", "X-PER",
    ".-PER", "[-NP", "]-NP", "B",
];

fn prefix_code(prefix: &str) -> usize {
    PREFIXES
        .iter()
        .position(|&p| p == prefix)
        .unwrap_or(PREFIXES.len())
}

fn name(code: usize) -> &'static str {
    PREFIXES.get(code).copied().unwrap_or("\0other")
}

fn conlleval_label(label: &str) -> (String, String) {
    match label.split_once('-') {
        Some((prefix, kind)) => (prefix.into(), if kind == "0" { "" } else { kind }.into()),
        None => (label.into(), String::new()),
    }
}

fn lenient_label(label: &str) -> (String, String) {
    let mut chars = label.chars();
    let first = chars.next().unwrap().to_string();
    let rest = chars.as_str();
    let kind = rest.split_once('-').map_or(rest, |(_, kind)| kind);
    (first, if kind.is_empty() { "_" } else { kind }.into())
}

fn lenient_end(prev: &str, cur: &str, same: bool) -> bool {
    let pairs = [
        ("B", "B"),
        ("B", "S"),
        ("B", "O"),
        ("I", "B"),
        ("I", "S"),
        ("I", "O"),
    ];
    prev == "E"
        || prev == "S"
        || pairs.contains(&(prev, cur))
        || (prev != "O" && prev != "." && !same)
}

fn lenient_start(prev: &str, cur: &str, same: bool) -> bool {
    let pairs = [
        ("E", "E"),
        ("E", "I"),
        ("S", "E"),
        ("S", "I"),
        ("O", "E"),
        ("O", "I"),
    ];
    cur == "B" || cur == "S" || pairs.contains(&(prev, cur)) || (cur != "O" && cur != "." && !same)
}

fn conlleval_end(prev: &str, cur: &str, same: bool) -> bool {
    let pairs = [
        ("B", "B"),
        ("B", "O"),
        ("I", "B"),
        ("I", "O"),
        ("E", "E"),
        ("E", "I"),
        ("E", "O"),
    ];
    pairs.contains(&(prev, cur))
        || (prev != "O" && prev != "." && !same)
        || prev == "["
        || prev == "]"
}

fn conlleval_start(prev: &str, cur: &str, same: bool) -> bool {
    let pairs = [
        ("B", "B"),
        ("I", "B"),
        ("O", "B"),
        ("O", "I"),
        ("E", "E"),
        ("E", "I"),
        ("O", "E"),
    ];
    pairs.contains(&(prev, cur)) || (cur != "O" && cur != "." && !same) || cur == "[" || cur == "]"
}

type Rule = fn(&str, &str, bool) -> bool;

fn table(start: Rule, end: Rule) -> Vec<u8> {
    let mut out = vec![0u8; N * N * 2];
    for i in 0..N {
        for j in 0..N {
            for same in 0..2 {
                let (a, b, s) = (name(i), name(j), same == 1);
                out[(i * N + j) * 2 + same] =
                    start(a, b, s) as u8 * START | end(a, b, s) as u8 * END;
            }
        }
    }
    out
}

/// The coded layout and the rules' arrays of a corpus read with `read`.
struct Coded {
    hyp: Vec<i32>,
    reference: Vec<i32>,
    lengths: Vec<i64>,
    prefixes: Vec<i32>,
    types: Vec<i32>,
    tokens: Vec<i32>,
    names: Vec<String>,
    rank: Vec<i64>,
}

fn coded(
    hyps: &[Vec<&str>],
    refs: &[Vec<&str>],
    read: fn(&str) -> (String, String),
    start: (&str, &str),
) -> Coded {
    let mut vocab: Vec<String> = vec!["O".into(), "\0START".into()];
    let mut layout = |side: &[Vec<&str>]| {
        let mut codes = vec![1];
        for sentence in side {
            for label in sentence {
                let code = vocab.iter().position(|v| v == label).unwrap_or_else(|| {
                    vocab.push(label.to_string());
                    vocab.len() - 1
                });
                codes.push(code as i32);
            }
            codes.push(0);
        }
        codes
    };
    let (hyp, reference) = (layout(hyps), layout(refs));
    let parsed: Vec<(String, String)> = vocab
        .iter()
        .enumerate()
        .map(|(i, label)| {
            if i == 1 {
                (start.0.into(), start.1.into())
            } else {
                read(label)
            }
        })
        .collect();
    let mut names: Vec<String> = Vec::new();
    let mut canon: Vec<(String, String)> = Vec::new();
    let (mut types, mut tokens) = (vec![], vec![]);
    for pair in &parsed {
        let t = names.iter().position(|n| *n == pair.1).unwrap_or_else(|| {
            names.push(pair.1.clone());
            names.len() - 1
        });
        types.push(t as i32);
        let c = canon.iter().position(|c| c == pair).unwrap_or_else(|| {
            canon.push(pair.clone());
            canon.len() - 1
        });
        tokens.push(c as i32);
    }
    let mut sorted: Vec<usize> = (0..names.len()).collect();
    sorted.sort_by_key(|&t| names[t].clone());
    let mut rank = vec![0i64; names.len()];
    for (i, &t) in sorted.iter().enumerate() {
        rank[t] = i as i64;
    }
    Coded {
        hyp,
        reference,
        lengths: hyps.iter().map(|s| s.len() as i64).collect(),
        prefixes: parsed.iter().map(|(p, _)| prefix_code(p) as i32).collect(),
        types,
        tokens,
        names,
        rank,
    }
}

/// Totals per type name: (tp, pred, true).
fn by_name(counts: &Counts, names: &[String]) -> BTreeMap<String, [i64; 3]> {
    let k = counts.types.len();
    let mut out = BTreeMap::new();
    for (i, &t) in counts.types.iter().enumerate() {
        let sum = |table: &[i64]| table.iter().skip(i).step_by(k.max(1)).sum::<i64>();
        out.insert(
            names[t].clone(),
            [sum(&counts.tp), sum(&counts.pred), sum(&counts.truth)],
        );
    }
    out
}

/// seqeval 1.2.2's `get_entities` over the sentences joined by `O`: (type, begin, end).
fn seqeval_entities(side: &[Vec<&str>]) -> Vec<(String, usize, usize)> {
    let mut flat: Vec<&str> = side
        .iter()
        .flat_map(|s| s.iter().copied().chain(["O"]))
        .collect();
    flat.push("O");
    let (mut prev_tag, mut prev_type, mut begin) = ("O".to_string(), String::new(), 0);
    let mut chunks = vec![];
    for (i, chunk) in flat.iter().enumerate() {
        let (tag, kind) = lenient_label(chunk);
        if lenient_end(&prev_tag, &tag, prev_type == kind) {
            chunks.push((prev_type.clone(), begin, i - 1));
        }
        if lenient_start(&prev_tag, &tag, prev_type == kind) {
            begin = i;
        }
        (prev_tag, prev_type) = (tag, kind);
    }
    chunks
}

fn random_corpus(seed: u64, n: usize) -> (Vec<Vec<&'static str>>, Vec<Vec<&'static str>>) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let refs: Vec<Vec<&str>> = (0..n)
        .map(|_| {
            (0..rng.usize(0..9))
                .map(|_| POOL[rng.usize(0..POOL.len())])
                .collect()
        })
        .collect();
    let hyps = refs
        .iter()
        .map(|s| {
            s.iter()
                .map(|&l| {
                    if rng.bool() {
                        l
                    } else {
                        POOL[rng.usize(0..POOL.len())]
                    }
                })
                .collect()
        })
        .collect();
    (hyps, refs)
}

#[test]
fn lenient_counts_equal_seqeval_get_entities() {
    for seed in 0..40 {
        let (hyps, refs) = random_corpus(seed, 1 + seed as usize % 7);
        let c = coded(&hyps, &refs, lenient_label, ("O", ""));
        let table = table(lenient_start, lenient_end);
        let rules = Rules {
            prefixes: &c.prefixes,
            types: &c.types,
            tokens: None,
            table: &table,
            n_prefixes: N,
            rank: &c.rank,
        };
        let counts = count(&c.hyp, &c.reference, &c.lengths, Mode::Lenient, &rules).unwrap();
        let (pred, truth) = (seqeval_entities(&hyps), seqeval_entities(&refs));
        let truth_set: HashSet<_> = truth.iter().cloned().collect();
        let mut want: BTreeMap<String, [i64; 3]> = BTreeMap::new();
        for chunk in &pred {
            want.entry(chunk.0.clone()).or_default()[1] += 1;
            if truth_set.contains(chunk) {
                want.entry(chunk.0.clone()).or_default()[0] += 1;
            }
        }
        for chunk in &truth {
            want.entry(chunk.0.clone()).or_default()[2] += 1;
        }
        assert_eq!(by_name(&counts, &c.names), want, "seed {seed}");
        let names: Vec<&str> = counts.types.iter().map(|&t| c.names[t].as_str()).collect();
        assert!(names.windows(2).all(|w| w[0] < w[1]), "types in name order");
        let correct: Vec<i64> = hyps
            .iter()
            .zip(&refs)
            .map(|(h, r)| h.iter().zip(r).filter(|(a, b)| a == b).count() as i64)
            .collect();
        assert_eq!(counts.correct, correct);
    }
}

/// conlleval.pl's loop: (correct chunks, guessed, found) per type, and correct tags.
fn conlleval_loop(hyps: &[Vec<&str>], refs: &[Vec<&str>]) -> (BTreeMap<String, [i64; 3]>, i64) {
    let lines = hyps.iter().zip(refs).flat_map(|(h, r)| {
        h.iter()
            .zip(r.iter())
            .map(|(a, b)| (*a, *b))
            .chain([("O", "O")])
    });
    let (mut last_g, mut last_c) = (
        ("O".to_string(), String::new()),
        ("O".to_string(), String::new()),
    );
    let (mut in_correct, mut tags) = (false, 0);
    let mut out: BTreeMap<String, [i64; 3]> = BTreeMap::new();
    let mut index = 0;
    let boundaries: HashSet<usize> = {
        let mut at = 0;
        hyps.iter()
            .map(|h| {
                at += h.len() + 1;
                at - 1
            })
            .collect()
    };
    for (g, c) in lines {
        let (g, c) = (conlleval_label(g), conlleval_label(c));
        let end_c = conlleval_end(&last_c.0, &c.0, last_c.1 == c.1);
        let end_g = conlleval_end(&last_g.0, &g.0, last_g.1 == g.1);
        if in_correct {
            if end_c && end_g && last_g.1 == last_c.1 {
                in_correct = false;
                out.entry(last_c.1.clone()).or_default()[0] += 1;
            } else if end_c != end_g || g.1 != c.1 {
                in_correct = false;
            }
        }
        let start_c = conlleval_start(&last_c.0, &c.0, last_c.1 == c.1);
        let start_g = conlleval_start(&last_g.0, &g.0, last_g.1 == g.1);
        if start_c && start_g && g.1 == c.1 {
            in_correct = true;
        }
        if start_c {
            out.entry(c.1.clone()).or_default()[2] += 1;
        }
        if start_g {
            out.entry(g.1.clone()).or_default()[1] += 1;
        }
        if !boundaries.contains(&index) && g == c {
            tags += 1;
        }
        (last_g, last_c) = (g, c);
        index += 1;
    }
    if in_correct {
        out.entry(last_c.1.clone()).or_default()[0] += 1;
    }
    (out, tags)
}

#[test]
fn conlleval_counts_equal_its_loop() {
    for seed in 0..40 {
        let (hyps, refs) = random_corpus(100 + seed, 1 + seed as usize % 7);
        let c = coded(&hyps, &refs, conlleval_label, ("O", ""));
        let table = table(conlleval_start, conlleval_end);
        let rules = Rules {
            prefixes: &c.prefixes,
            types: &c.types,
            tokens: Some(&c.tokens),
            table: &table,
            n_prefixes: N,
            rank: &c.rank,
        };
        let counts = count(&c.hyp, &c.reference, &c.lengths, Mode::Conlleval, &rules).unwrap();
        let (want, tags) = conlleval_loop(&hyps, &refs);
        assert_eq!(by_name(&counts, &c.names), want, "seed {seed}");
        assert_eq!(counts.correct.iter().sum::<i64>(), tags, "seed {seed}");
    }
}

#[test]
fn refuses_layouts_that_do_not_fit() {
    let table = vec![0u8; N * N * 2];
    let (prefixes, types, rank) = (vec![0, 0, 1], vec![0, 0, 1], vec![0, 1]);
    let rules = Rules {
        prefixes: &prefixes,
        types: &types,
        tokens: None,
        table: &table,
        n_prefixes: N,
        rank: &rank,
    };
    assert!(count(&[1, 2, 0], &[1, 2, 0], &[1], Mode::Lenient, &rules).is_ok());
    assert!(count(&[1, 2, 0], &[1, 2], &[1], Mode::Lenient, &rules).is_err());
    assert!(count(&[1, 2, 0], &[1, 2, 0], &[2], Mode::Lenient, &rules).is_err());
    assert!(count(&[1, 3, 0], &[1, 2, 0], &[1], Mode::Lenient, &rules).is_err());
    let empty = count(&[1], &[1], &[], Mode::Conlleval, &rules).unwrap();
    assert_eq!((empty.types.len(), empty.correct.len()), (0, 0));
    assert!(Mode::parse("loose").is_err());
}
