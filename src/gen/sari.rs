//! SARI's per-segment statistics (issue 26): the keep / delete / add n-gram
//! counts of HF evaluate 0.4.6's `SARIsent` and EASSE's `compute_ngram_stats`.
//!
//! Each segment's source, output and references are counted order by order
//! (1-4) in one hash map of n-grams of segment-local token ids; the source's
//! n-grams are inserted first, so the map's entries keep the source
//! `Counter`'s first-occurrence order, the order in which evaluate's script
//! sums its keep and delete fractions.

use super::ngrams::{count_orders, GramCounter, LocalIds};
use crate::common::parallel::{install, PARALLEL_MIN_SEGMENTS};
use rayon::prelude::*;

/// The n-gram orders of both tools.
pub const ORDER: usize = 4;
/// Width of an HF row: sentence SARI, keep, delete, add.
pub const HF_WIDTH: usize = 4;
/// Width of an EASSE row: 9 columns (add, keep, delete x correct, system, reference) x 4 orders.
pub const EASSE_WIDTH: usize = 9 * ORDER;

/// How a normalised line becomes tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// `str.split(" ")` (evaluate's script): empty tokens kept, an empty line is one empty token.
    Space,
    /// `str.split()` (EASSE).
    Python,
}

/// One segment: its source, its output and its references (already normalised).
pub struct Segment<'a> {
    pub source: &'a str,
    pub output: &'a str,
    pub refs: &'a [&'a str],
}

fn tokens<'a>(line: &'a str, split: Split, out: &mut Vec<&'a str>) {
    out.clear();
    match split {
        Split::Space => out.extend(line.split(' ')),
        Split::Python => out.extend(crate::text::py_split(line)),
    }
}

/// Counts of one segment's n-grams: per order, entries `(s, c, r)` with the
/// source's distinct n-grams first, in first-occurrence order.
#[derive(Default)]
pub struct Workspace<'a> {
    ids: LocalIds<'a>,
    words: Vec<&'a str>,
    seq: Vec<u32>,
    scratch: Vec<u32>,
    grams: [GramCounter<3>; ORDER],
}

impl<'a> Workspace<'a> {
    fn count(&mut self, segment: &Segment<'a>, split: Split) {
        self.ids.clear();
        for grams in self.grams.iter_mut() {
            grams.clear();
        }
        let sides = std::iter::once((0, segment.source))
            .chain(std::iter::once((1, segment.output)))
            .chain(segment.refs.iter().map(|r| (2, *r)));
        for (side, line) in sides {
            tokens(line, split, &mut self.words);
            self.seq.clear();
            for word in &self.words {
                self.seq.push(self.ids.id(word));
            }
            count_orders(
                &mut self.grams,
                &self.seq,
                side,
                &mut self.scratch,
                |_, _, _| {},
            );
        }
    }
}

fn f1(p: f64, r: f64) -> f64 {
    if p > 0.0 || r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    }
}

/// `SARIngram` of one order: `(keep, delete, add)`.
fn hf_order(grams: &GramCounter<3>, numref: i64) -> (f64, f64, f64) {
    let (mut keep_sum1, mut keep_sum2, mut keep_len, mut keep_all) = (0.0f64, 0i64, 0i64, 0i64);
    let (mut del_sum, mut del_len) = (0.0f64, 0i64);
    let (mut add_good, mut add_len, mut add_all) = (0i64, 0i64, 0i64);
    for &[s, c, r] in grams.counts() {
        let (s_rep, c_rep) = (s * numref, c * numref);
        let kept = s_rep.min(c_rep);
        if kept > 0 {
            let good = kept.min(r);
            keep_len += 1;
            keep_sum2 += good;
            if good > 0 {
                keep_sum1 += good as f64 / kept as f64;
            }
        }
        keep_all += s_rep.min(r);
        let deleted = s_rep - c_rep;
        if deleted > 0 {
            del_len += 1;
            let good = deleted - r;
            if good > 0 {
                del_sum += good as f64 / deleted as f64;
            }
        }
        if s == 0 {
            if c > 0 {
                add_len += 1;
                if r > 0 {
                    add_good += 1;
                }
            }
            if r > 0 {
                add_all += 1;
            }
        }
    }
    let keep_p = if keep_len > 0 {
        keep_sum1 / keep_len as f64
    } else {
        1.0
    };
    let keep_r = if keep_all > 0 {
        keep_sum2 as f64 / keep_all as f64
    } else {
        1.0
    };
    let delete = if del_len > 0 {
        del_sum / del_len as f64
    } else {
        1.0
    };
    let add_p = if add_len > 0 {
        add_good as f64 / add_len as f64
    } else {
        1.0
    };
    let add_r = if add_all > 0 {
        add_good as f64 / add_all as f64
    } else {
        1.0
    };
    (f1(keep_p, keep_r), delete, f1(add_p, add_r))
}

fn hf_row(ws: &Workspace<'_>, numref: i64, row: &mut [f64]) {
    let mut parts = [[0.0f64; ORDER]; 3];
    for (k, grams) in ws.grams.iter().enumerate() {
        let (keep, delete, add) = hf_order(grams, numref);
        parts[0][k] = keep;
        parts[1][k] = delete;
        parts[2][k] = add;
    }
    // sum([x1, x2, x3, x4]) / 4, left to right
    let avg = |v: &[f64; ORDER]| (((v[0] + v[1]) + v[2]) + v[3]) / 4.0;
    let (keep, delete, add) = (avg(&parts[0]), avg(&parts[1]), avg(&parts[2]));
    row[0] = (keep + delete + add) / 3.0;
    row[1] = keep;
    row[2] = delete;
    row[3] = add;
}

fn easse_row(ws: &Workspace<'_>, numref: i64, row: &mut [i64]) {
    row.fill(0);
    for (k, grams) in ws.grams.iter().enumerate() {
        for &[s, c, r] in grams.counts() {
            let (s_rep, c_rep) = (s * numref, c * numref);
            let added_sys = c > 0 && s == 0;
            let added_ref = r > 0 && s == 0;
            let del_sys = (s_rep - c_rep).max(0);
            let del_ref = (s_rep - r).max(0);
            let kept_sys = s_rep.min(c_rep);
            let kept_ref = s_rep.min(r);
            let columns = [
                i64::from(added_sys && r > 0),
                i64::from(added_sys),
                i64::from(added_ref),
                kept_sys.min(kept_ref),
                kept_sys,
                kept_ref,
                del_sys.min(del_ref),
                del_sys,
                del_ref,
            ];
            for (column, value) in columns.iter().enumerate() {
                row[column * ORDER + k] += value;
            }
        }
    }
}

fn fill<'a, T: Send + Sync + Default + Copy>(
    segments: &[Segment<'a>],
    width: usize,
    row: impl Fn(&mut Workspace<'a>, &Segment<'a>, &mut [T]) + Sync + Send,
) -> Vec<T> {
    let mut out = vec![T::default(); segments.len() * width];
    if segments.len() >= PARALLEL_MIN_SEGMENTS {
        install(|| {
            out.par_chunks_mut(width)
                .zip(segments.par_iter())
                .with_min_len(16)
                .for_each_init(Workspace::default, |ws, (out, seg)| row(ws, seg, out))
        });
    } else {
        let mut ws = Workspace::default();
        for (out, seg) in out.chunks_mut(width).zip(segments) {
            row(&mut ws, seg, out);
        }
    }
    out
}

/// Rows `(sari, keep, delete, add)` of evaluate's `SARIsent`, `HF_WIDTH` per segment.
pub fn hf_rows(segments: &[Segment<'_>], split: Split) -> Vec<f64> {
    fill(segments, HF_WIDTH, |ws, seg, out| {
        ws.count(seg, split);
        hf_row(ws, seg.refs.len() as i64, out);
    })
}

/// EASSE's `compute_ngram_stats` counts, `EASSE_WIDTH` per segment (column-major by operation part).
pub fn easse_rows(segments: &[Segment<'_>], split: Split) -> Vec<i64> {
    fill(segments, EASSE_WIDTH, |ws, seg, out| {
        ws.count(seg, split);
        easse_row(ws, seg.refs.len() as i64, out);
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A literal reading of evaluate's `SARIngram` over string n-grams (insertion-ordered).
    fn reference_ngram(
        s: &[String],
        c: &[String],
        r: &[Vec<String>],
        numref: i64,
    ) -> (f64, f64, f64) {
        fn counter(items: &[String]) -> Vec<(String, i64)> {
            let mut out: Vec<(String, i64)> = Vec::new();
            let mut at: HashMap<String, usize> = HashMap::new();
            for item in items {
                match at.get(item) {
                    Some(&i) => out[i].1 += 1,
                    None => {
                        at.insert(item.clone(), out.len());
                        out.push((item.clone(), 1));
                    }
                }
            }
            out
        }
        let get = |m: &[(String, i64)], k: &str| m.iter().find(|(g, _)| g == k).map_or(0, |x| x.1);
        let rall: Vec<String> = r.iter().flatten().cloned().collect();
        let rc = counter(&rall);
        let sc: Vec<(String, i64)> = counter(s)
            .into_iter()
            .map(|(g, v)| (g, v * numref))
            .collect();
        let cc: Vec<(String, i64)> = counter(c)
            .into_iter()
            .map(|(g, v)| (g, v * numref))
            .collect();
        let keep: Vec<(String, i64)> = sc
            .iter()
            .map(|(g, v)| (g.clone(), (*v).min(get(&cc, g))))
            .filter(|x| x.1 > 0)
            .collect();
        let keep_all: i64 = sc.iter().map(|(g, v)| (*v).min(get(&rc, g))).sum();
        let (mut t1, mut t2) = (0.0, 0i64);
        for (g, v) in &keep {
            let good = (*v).min(get(&rc, g));
            if good > 0 {
                t1 += good as f64 / *v as f64;
                t2 += good;
            }
        }
        let kp = if keep.is_empty() {
            1.0
        } else {
            t1 / keep.len() as f64
        };
        let kr = if keep_all > 0 {
            t2 as f64 / keep_all as f64
        } else {
            1.0
        };
        let del: Vec<(String, i64)> = sc
            .iter()
            .map(|(g, v)| (g.clone(), v - get(&cc, g)))
            .filter(|x| x.1 > 0)
            .collect();
        let mut d1 = 0.0;
        for (g, v) in &del {
            let good = v - get(&rc, g);
            if good > 0 {
                d1 += good as f64 / *v as f64;
            }
        }
        let dp = if del.is_empty() {
            1.0
        } else {
            d1 / del.len() as f64
        };
        let in_s = |g: &str| get(&sc, g) > 0;
        let add: Vec<&String> = cc.iter().map(|x| &x.0).filter(|g| !in_s(g)).collect();
        let good = add.iter().filter(|g| get(&rc, g) > 0).count();
        let all = rc.iter().filter(|(g, _)| !in_s(g)).count();
        let ap = if add.is_empty() {
            1.0
        } else {
            good as f64 / add.len() as f64
        };
        let ar = if all == 0 {
            1.0
        } else {
            good as f64 / all as f64
        };
        (f1(kp, kr), dp, f1(ap, ar))
    }

    fn grams(line: &str, n: usize) -> Vec<String> {
        let words: Vec<&str> = line.split(' ').collect();
        if words.len() < n {
            return Vec::new();
        }
        (0..=words.len() - n)
            .map(|i| words[i..i + n].join(" "))
            .collect()
    }

    fn reference_sent(s: &str, c: &str, refs: &[&str]) -> [f64; 4] {
        let mut parts = [[0.0; ORDER]; 3];
        for n in 1..=ORDER {
            let r: Vec<Vec<String>> = refs.iter().map(|x| grams(x, n)).collect();
            let (k, d, a) = reference_ngram(&grams(s, n), &grams(c, n), &r, refs.len() as i64);
            parts[0][n - 1] = k;
            parts[1][n - 1] = d;
            parts[2][n - 1] = a;
        }
        let avg = |v: &[f64; ORDER]| (((v[0] + v[1]) + v[2]) + v[3]) / 4.0;
        let (k, d, a) = (avg(&parts[0]), avg(&parts[1]), avg(&parts[2]));
        [(k + d + a) / 3.0, k, d, a]
    }

    fn random_line(rng: &mut fastrand::Rng) -> String {
        const WORDS: [&str; 7] = ["a", "b", "é", "", "a b", "ß", "."];
        let len = rng.usize(0..12);
        (0..len)
            .map(|_| WORDS[rng.usize(0..WORDS.len())])
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn hf_rows_equal_a_literal_reading_of_the_script() {
        let mut rng = fastrand::Rng::with_seed(26);
        for _ in 0..400 {
            let source = random_line(&mut rng);
            let output = random_line(&mut rng);
            let refs: Vec<String> = (0..rng.usize(1..4))
                .map(|_| random_line(&mut rng))
                .collect();
            let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
            let seg = Segment {
                source: &source,
                output: &output,
                refs: &refs,
            };
            let got = hf_rows(&[seg], Split::Space);
            let want = reference_sent(&source, &output, &refs);
            assert_eq!(got, want, "{source:?} {output:?} {refs:?}");
        }
    }

    #[test]
    fn many_segments_take_the_pool_and_give_the_same_rows() {
        let mut rng = fastrand::Rng::with_seed(7);
        let lines: Vec<String> = (0..3 * 200).map(|_| random_line(&mut rng)).collect();
        let refs: Vec<[&str; 1]> = (0..200).map(|i| [lines[400 + i].as_str()]).collect();
        let segments: Vec<Segment> = (0..200)
            .map(|i| Segment {
                source: &lines[i],
                output: &lines[200 + i],
                refs: &refs[i],
            })
            .collect();
        let all = easse_rows(&segments, Split::Python);
        for (i, seg) in segments.iter().enumerate() {
            let one = easse_rows(std::slice::from_ref(seg), Split::Python);
            assert_eq!(&all[i * EASSE_WIDTH..(i + 1) * EASSE_WIDTH], &one[..]);
        }
        let all = hf_rows(&segments, Split::Space);
        for (i, seg) in segments.iter().enumerate() {
            assert_eq!(
                &all[i * 4..(i + 1) * 4],
                &reference_sent(seg.source, seg.output, seg.refs)
            );
        }
    }

    #[test]
    fn easse_counts_of_a_known_triple() {
        // source "a b", output "a c", reference "c": unigrams s={a:1,b:1}, c={a:1,c:1}, r={c:1}
        let refs = ["c"];
        let seg = Segment {
            source: "a b",
            output: "a c",
            refs: &refs,
        };
        let row = easse_rows(&[seg], Split::Python);
        let at = |column: usize, order: usize| row[column * ORDER + order - 1];
        assert_eq!((at(0, 1), at(1, 1), at(2, 1)), (1, 1, 1)); // add: c
        assert_eq!((at(3, 1), at(4, 1), at(5, 1)), (0, 1, 0)); // keep: a kept, not in the reference
        assert_eq!((at(6, 1), at(7, 1), at(8, 1)), (1, 1, 2)); // delete: b by both; a by the reference
        assert_eq!((at(1, 2), at(2, 2)), (1, 0)); // "a c" added, no reference bigram
    }
}
