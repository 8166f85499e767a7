//! Where the judged documents land in each ranking, as `nlpeval.ir.ranking.place` computes it from
//! Python mappings: trec_eval's order (score descending, ties broken by document id descending,
//! `strcmp(p2->docno, p1->docno)` in `form_res_rels.c`), the rank field of the run ignored.
//!
//! Every measure depends on a ranking only through the ranks of the documents judged relevant, so
//! only those are placed: a document's rank is the number of documents scored higher plus the number
//! with the same score and a greater id (byte order of UTF-8, the code-point order Python compares),
//! counted against the relevant documents' distinct scores without sorting the ranking.
//! Scores are compared in single precision when `float32` (trec_eval 9.0.8 stores `float sim`).

use super::parse::{Entries, Qrels, Run};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Rank of an empty slot of the padded rows (`nlpeval.ir.ranking.PAD_RANK`).
pub const PAD_RANK: i64 = i64::MAX / 4;

/// The placed queries: row-major `(queries, width)` ranks and levels of the relevant retrieved
/// documents (ascending ranks, padded with [`PAD_RANK`] and 0), documents retrieved per query, and
/// the `(queries, depth)` ideal levels (descending, padded with 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub queries: Vec<String>,
    pub ranks: Vec<i64>,
    pub rels: Vec<i64>,
    pub width: usize,
    pub num_ret: Vec<i64>,
    pub levels: Vec<i64>,
    pub depth: usize,
    /// run queries without judgements (left out, as trec_eval does), sorted
    pub skipped: Vec<String>,
    /// judged queries the run does not rank, sorted
    pub unranked: Vec<String>,
}

/// One placed query: its relevant retrieved documents `(rank, level)` by rank, the number of
/// documents retrieved, and its ideal levels (descending).
#[derive(Debug, Clone, Default)]
pub struct Row {
    pub hits: Vec<(i64, i64)>,
    pub num_ret: i64,
    pub ideal: Vec<i64>,
}

fn key(score: f64, float32: bool) -> f64 {
    if float32 {
        score as f32 as f64
    } else {
        score
    }
}

/// The judged levels `>= 1` of a query, descending (the ideal ranking's levels).
pub fn ideal_levels(judged: &Entries<i64>) -> Vec<i64> {
    let mut ideal: Vec<i64> = judged.values.iter().copied().filter(|&l| l >= 1).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    ideal
}

/// A query's judged documents that can be placed, by id: a bit filter on a cheap hash of the id
/// (its length, first and last 8 bytes) answers most of a ranking's unjudged ids without hashing
/// them fully; the others are looked up in a hash map.
pub struct JudgedIds<'a> {
    filter: Vec<u64>,
    shift: u32,
    levels: FxHashMap<&'a [u8], i64>,
}

impl<'a> JudgedIds<'a> {
    fn new(ids: impl ExactSizeIterator<Item = (&'a [u8], i64)>) -> Self {
        let bits = (16 * ids.len()).next_power_of_two().clamp(1 << 10, 1 << 20);
        let mut judged = JudgedIds {
            filter: vec![0u64; bits / 64],
            shift: 64 - bits.trailing_zeros(),
            levels: FxHashMap::default(),
        };
        judged.levels.reserve(ids.len());
        for (id, level) in ids {
            let bit = judged.bit(id);
            judged.filter[bit >> 6] |= 1 << (bit & 63);
            judged.levels.insert(id, level);
        }
        judged
    }

    #[inline]
    fn bit(&self, id: &[u8]) -> usize {
        let n = id.len();
        let word = if n >= 8 {
            let head = u64::from_le_bytes(id[..8].try_into().expect("8 bytes"));
            let tail = u64::from_le_bytes(id[n - 8..].try_into().expect("8 bytes"));
            head.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ tail
        } else if n >= 4 {
            let head = u32::from_le_bytes(id[..4].try_into().expect("4 bytes"));
            let tail = u32::from_le_bytes(id[n - 4..].try_into().expect("4 bytes"));
            (head as u64) << 32 | tail as u64
        } else if n > 0 {
            (id[0] as u64) << 16 | (id[n / 2] as u64) << 8 | id[n - 1] as u64
        } else {
            0
        };
        ((word ^ n as u64).wrapping_mul(0xFF51_AFD7_ED55_8CCD) >> self.shift) as usize
    }

    /// The level of a judged id (`None`: not judged, or below the placed levels).
    #[inline(always)]
    pub fn get(&self, id: &[u8]) -> Option<i64> {
        let bit = self.bit(id);
        if self.filter[bit >> 6] & (1 << (bit & 63)) == 0 {
            return None;
        }
        self.levels.get(id).copied()
    }
}

/// A query's judged documents that can be placed (`level >= 0` with `judged_only`, else `>= 1`), by id.
pub fn judged_levels<'a>(
    qrels: &'a Qrels,
    judged: &Entries<i64>,
    judged_only: bool,
) -> JudgedIds<'a> {
    let lowest = if judged_only { 0 } else { 1 };
    let placed: Vec<(&[u8], i64)> = judged
        .docs
        .iter()
        .zip(&judged.values)
        .filter(|&(_, &level)| level >= lowest)
        .map(|(span, &level)| (qrels.doc(*span).as_bytes(), level))
        .collect();
    JudgedIds::new(placed.into_iter())
}

/// One query: its relevant retrieved documents `(rank, level)` by rank, `num_ret`, its ideal levels.
fn place_query(
    qrels: &Qrels,
    judged: &Entries<i64>,
    run: Option<(&Run, &Entries<f64>)>,
    judged_only: bool,
    float32: bool,
) -> Row {
    let ideal = ideal_levels(judged);
    let Some((run, ranked)) = run else {
        return Row {
            hits: Vec::new(),
            num_ret: 0,
            ideal,
        };
    };
    let levels = judged_levels(qrels, judged, judged_only);
    // the judged documents of the ranking: (position in the run, level)
    let mut found: Vec<(u32, i64)> = Vec::new();
    for (i, span) in ranked.docs.iter().enumerate() {
        if let Some(level) = levels.get(run.doc(*span).as_bytes()) {
            found.push((i as u32, level));
        }
    }
    let (hits, num_ret) = place_hits(
        &found,
        &ranked.values,
        |i| run.doc(ranked.docs[i]).as_bytes(),
        judged_only,
        float32,
    );
    Row {
        hits,
        num_ret,
        ideal,
    }
}

/// Counts a ranking's scores against the relevant documents' distinct scores `keys` (descending)
/// without a search per score: `[lo, hi]` of the keys cut into equal buckets, each bucket without a
/// key lying wholly between two neighbouring keys. A score's bucket is a monotone function of it
/// (a subtraction, a product and a truncation, each rounding monotonically), so every score of a
/// bucket without a key is above the keys of lower buckets and below those of higher ones; only the
/// scores of the few buckets holding a key are searched.
struct Buckets {
    lo: f64,
    scale: f64,
    last: f64,
    /// per bucket: the number of keys in the buckets above it, with [`Buckets::KEYS`] set when it
    /// holds keys itself
    slots: Vec<u32>,
}

impl Buckets {
    const KEYS: usize = 1 << 31;

    /// `None` when searching each score is as cheap (short rankings, few keys) or the keys'
    /// range is not finite.
    fn new(keys: &[f64], scores: usize) -> Option<Buckets> {
        let m = keys.len();
        if m < 4 || scores < 8 * m {
            return None;
        }
        let (hi, lo) = (keys[0], keys[m - 1]);
        let count = (16 * m).max(scores).min(1 << 15);
        let scale = (count as f64 - 1.0) / (hi - lo);
        if !(lo.is_finite() && hi.is_finite() && scale.is_finite() && scale > 0.0) {
            return None;
        }
        let mut buckets = Buckets {
            lo,
            scale,
            last: count as f64,
            slots: vec![0u32; count + 2],
        };
        for &k in keys {
            let b = buckets.index(k);
            buckets.slots[b] += 1;
        }
        let mut above = 0; // keys in the buckets above
        for slot in buckets.slots.iter_mut().rev() {
            let here = *slot;
            *slot = if here > 0 {
                above | Self::KEYS as u32
            } else {
                above
            };
            above += here;
        }
        Some(buckets)
    }

    /// The bucket of `x`: 0 below `lo`, `count + 1` at and above the top.
    #[inline]
    fn index(&self, x: f64) -> usize {
        let t = ((x - self.lo) * self.scale).max(-1.0).min(self.last) + 1.0;
        debug_assert!((0.0..=self.last + 1.0).contains(&t));
        // SAFETY: `t` is in [0, count + 1] (clamped; `x` is never NaN, `lo` and `scale` are finite
        // and `scale > 0`, so the product is a number or an infinity before the clamp)
        unsafe { t.to_int_unchecked::<u32>() as usize }
    }

    /// The number of keys in the buckets above `x`'s, with [`Buckets::KEYS`] set when its bucket
    /// holds keys (then the scores above `x` among them are still to be counted).
    #[inline]
    fn above(&self, x: f64) -> usize {
        self.slots[self.index(x)] as usize
    }
}

/// The ranks of one ranking's relevant documents: `found` holds the judged documents of the ranking
/// as `(position, level)`, `values` the ranking's scores, `doc(position)` a document's id (read only
/// for documents tied with a relevant one). Returns `(rank, level)` by rank and `num_ret`.
pub fn place_hits<'d>(
    found: &[(u32, i64)],
    values: &[f64],
    doc: impl Fn(usize) -> &'d [u8],
    judged_only: bool,
    float32: bool,
) -> (Vec<(i64, i64)>, i64) {
    // the distinct scores of the relevant hits, descending: each document of the pool the ranks
    // count in (every retrieved document, or with -J the judged ones) is counted against them by a
    // binary search, so no ranking is sorted
    let mut keys: Vec<f64> = found
        .iter()
        .filter(|&&(_, level)| level >= 1)
        .map(|&(i, _)| key(values[i as usize], float32))
        .collect();
    keys.sort_unstable_by(|a, b| b.partial_cmp(a).unwrap_or(std::cmp::Ordering::Equal));
    keys.dedup();
    let m = keys.len();
    // between[j]: pool documents below keys[j - 1] and above keys[j]; equal[j]: those equal to keys[j]
    let mut between = vec![0i64; m + 1];
    let mut equal = vec![0i64; m];
    let mut tied: Vec<(u32, u32)> = Vec::new(); // (key slot, position in the run) of the equal ones
                                                // a score searched among the keys: counted between two of them, or tied with one
    let exact =
        |i: usize, x: f64, between: &mut [i64], equal: &mut [i64], tied: &mut Vec<(u32, u32)>| {
            let slot = keys.partition_point(|&s| s > x);
            if slot < m && keys[slot] == x {
                equal[slot] += 1;
                tied.push((slot as u32, i as u32));
            } else {
                between[slot] += 1;
            }
        };
    let num_ret = if judged_only {
        for &(i, _) in found {
            let x = key(values[i as usize], float32);
            exact(i as usize, x, &mut between, &mut equal, &mut tied);
        }
        found.len() as i64
    } else {
        match Buckets::new(&keys, values.len()) {
            Some(buckets) => {
                for (i, &value) in values.iter().enumerate() {
                    let x = key(value, float32);
                    let mut slot = buckets.above(x);
                    if slot & Buckets::KEYS != 0 {
                        // the bucket holds keys: the keys below those above it are scanned (the
                        // first one not above x is in this bucket or the highest one below it)
                        slot &= !Buckets::KEYS;
                        while slot < m && keys[slot] > x {
                            slot += 1;
                        }
                        if slot < m && keys[slot] == x {
                            equal[slot] += 1;
                            tied.push((slot as u32, i as u32));
                            continue;
                        }
                    }
                    between[slot] += 1;
                }
            }
            None => {
                for (i, &value) in values.iter().enumerate() {
                    exact(i, key(value, float32), &mut between, &mut equal, &mut tied);
                }
            }
        }
        values.len() as i64
    };
    // higher[j]: pool documents scored above keys[j]
    let mut higher = Vec::with_capacity(m);
    let mut so_far = 0;
    for j in 0..m {
        higher.push(so_far + between[j]);
        so_far += between[j] + equal[j];
    }
    tied.sort_unstable();
    let mut hits = Vec::with_capacity(found.len());
    for &(i, level) in found {
        if level < 1 {
            continue;
        }
        let mine = key(values[i as usize], float32);
        let slot = keys.partition_point(|&s| s > mine);
        let mut rank = higher[slot];
        if equal[slot] > 1 {
            // the documents with the same score and a greater id come first (trec_eval's order)
            let id = doc(i as usize);
            let first = tied.partition_point(|&(s, _)| (s as usize) < slot);
            let last = tied.partition_point(|&(s, _)| (s as usize) <= slot);
            rank += tied[first..last]
                .iter()
                .filter(|&&(_, p)| doc(p as usize) > id)
                .count() as i64;
        }
        hits.push((rank, level));
    }
    hits.sort_unstable();
    (hits, num_ret)
}

fn sorted(mut items: Vec<String>) -> Vec<String> {
    items.sort_unstable();
    items
}

/// Places every evaluated query: those with judgements and a ranking (trec_eval 9.0.8), or with
/// `complete` (trec_eval `-c`) every judged query; `judged_only` is trec_eval `-J`.
pub fn place(qrels: &Qrels, run: &Run, complete: bool, judged_only: bool, float32: bool) -> Placed {
    let judged_index = qrels.index();
    let run_index = run.index();
    let mut queries: Vec<&str> = if complete {
        qrels.queries.iter().map(String::as_str).collect()
    } else {
        run.queries
            .iter()
            .map(String::as_str)
            .filter(|q| judged_index.contains_key(q))
            .collect()
    };
    queries.sort_unstable();
    let one = |q: &&str| {
        let judged = &qrels.entries[judged_index[q]];
        let ranked = run_index.get(q).map(|&slot| (run, &run.entries[slot]));
        place_query(qrels, judged, ranked, judged_only, float32)
    };
    let rows: Vec<Row> = if queries.len() >= crate::common::parallel::PARALLEL_MIN_SEGMENTS {
        crate::common::parallel::install(|| queries.par_iter().with_min_len(16).map(one).collect())
    } else {
        queries.iter().map(one).collect()
    };
    let skipped = run
        .queries
        .iter()
        .filter(|q| !judged_index.contains_key(q.as_str()))
        .cloned()
        .collect();
    let unranked = qrels
        .queries
        .iter()
        .filter(|q| !run_index.contains_key(q.as_str()))
        .cloned()
        .collect();
    let queries = queries.into_iter().map(str::to_string).collect();
    assemble(queries, &rows, skipped, unranked)
}

/// The padded arrays of placed rows (one per query of `queries`, sorted), with the run's unjudged
/// and the judgements' unranked queries (sorted here).
pub fn assemble(
    queries: Vec<String>,
    rows: &[Row],
    skipped: Vec<String>,
    unranked: Vec<String>,
) -> Placed {
    let width = rows.iter().map(|r| r.hits.len()).max().unwrap_or(0).max(1);
    let depth = rows.iter().map(|r| r.ideal.len()).max().unwrap_or(0).max(1);
    let n = rows.len();
    let mut ranks = vec![PAD_RANK; n * width];
    let mut rels = vec![0i64; n * width];
    let mut levels = vec![0i64; n * depth];
    let mut num_ret = Vec::with_capacity(n);
    for (q, row) in rows.iter().enumerate() {
        for (j, &(rank, level)) in row.hits.iter().enumerate() {
            ranks[q * width + j] = rank;
            rels[q * width + j] = level;
        }
        levels[q * depth..q * depth + row.ideal.len()].copy_from_slice(&row.ideal);
        num_ret.push(row.num_ret);
    }
    Placed {
        queries,
        ranks,
        rels,
        width,
        num_ret,
        levels,
        depth,
        skipped: sorted(skipped),
        unranked: sorted(unranked),
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::{parse_qrels, parse_run};
    use super::*;

    fn placed(qrels: &str, run: &str, complete: bool, judged_only: bool) -> Placed {
        let q = parse_qrels(qrels.as_bytes().to_vec()).unwrap();
        let r = parse_run(run.as_bytes().to_vec()).unwrap();
        place(&q, &r, complete, judged_only, true)
    }

    #[test]
    fn the_python_docstring_example() {
        // place({"q": {"a": 1, "b": 2, "c": 0}}, {"q": {"a": 0.5, "b": 0.5, "c": 0.9, "x": 1.0}})
        let p = placed(
            "q 0 a 1\nq 0 b 2\nq 0 c 0\n",
            "q Q0 a 1 0.5 t\nq Q0 b 2 0.5 t\nq Q0 c 3 0.9 t\nq Q0 x 4 1.0 t\n",
            false,
            false,
        );
        assert_eq!(p.ranks, vec![2, 3]);
        assert_eq!(p.rels, vec![2, 1]);
        assert_eq!(p.num_ret, vec![4]);
        assert_eq!(p.levels, vec![2, 1]);
    }

    #[test]
    fn ties_in_single_precision_go_to_the_greater_id() {
        // 0.1 and 0.1 + 1e-12 are one float32: a tie, broken by id descending
        let p = placed(
            "q 0 a 1\n",
            "q Q0 a 1 0.1 t\nq Q0 b 2 0.100000000001 t\n",
            false,
            false,
        );
        assert_eq!(p.ranks, vec![1]);
        let q = parse_qrels(b"q 0 a 1\n".to_vec()).unwrap();
        let r = parse_run(b"q Q0 a 1 0.1 t\nq Q0 b 2 0.100000000001 t\n".to_vec()).unwrap();
        assert_eq!(place(&q, &r, false, false, false).ranks, vec![1]);
        let r = parse_run(b"q Q0 a 1 0.100000000001 t\nq Q0 b 2 0.1 t\n".to_vec()).unwrap();
        assert_eq!(place(&q, &r, false, false, false).ranks, vec![0]);
    }

    #[test]
    fn complete_judged_only_skipped_and_unranked() {
        let qrels = "q1 0 a 1\nq1 0 b 0\nq2 0 c 3\nq2 0 d -1\n";
        let run = "q1 Q0 x 1 9 t\nq1 Q0 b 2 8 t\nq1 Q0 a 3 7 t\nq9 Q0 a 1 1 t\n";
        let p = placed(qrels, run, false, false);
        assert_eq!(p.queries, vec!["q1"]);
        assert_eq!((p.ranks.clone(), p.num_ret.clone()), (vec![2], vec![3]));
        assert_eq!(p.skipped, vec!["q9"]);
        assert_eq!(p.unranked, vec!["q2"]);
        let p = placed(qrels, run, true, false);
        assert_eq!(p.queries, vec!["q1", "q2"]);
        assert_eq!(p.ranks, vec![2, PAD_RANK]);
        assert_eq!(p.levels, vec![1, 3]);
        // -J: only the judged documents (b at level 0, a) are ranked
        let p = placed(qrels, run, false, true);
        assert_eq!((p.ranks, p.num_ret), (vec![1], vec![2]));
    }

    #[test]
    fn agrees_with_a_full_sort_on_generated_ties() {
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..50 {
            let mut qrels = String::new();
            let mut run = String::new();
            let n = rng.usize(1..60);
            for d in 0..n {
                let score = rng.u32(0..8) as f64 / 4.0;
                run.push_str(&format!("q Q0 d{d} {d} {score} t\n"));
                if rng.bool() {
                    qrels.push_str(&format!("q 0 d{d} {}\n", rng.i64(-1..4)));
                }
            }
            qrels.push_str("q 0 zz 1\n");
            let p = placed(&qrels, &run, false, false);
            let r = parse_run(run.as_bytes().to_vec()).unwrap();
            let q = parse_qrels(qrels.as_bytes().to_vec()).unwrap();
            let mut order: Vec<usize> = (0..n).collect();
            let e = &r.entries[0];
            order.sort_by(|&a, &b| {
                e.values[b]
                    .partial_cmp(&e.values[a])
                    .unwrap()
                    .then_with(|| r.doc(e.docs[b]).cmp(r.doc(e.docs[a])))
            });
            let levels: FxHashMap<&str, i64> = q.entries[0]
                .docs
                .iter()
                .zip(&q.entries[0].values)
                .map(|(s, &l)| (q.doc(*s), l))
                .collect();
            let expected: Vec<i64> = order
                .iter()
                .enumerate()
                .filter(|(_, &i)| levels.get(r.doc(e.docs[i])).is_some_and(|&l| l >= 1))
                .map(|(rank, _)| rank as i64)
                .collect();
            let got: Vec<i64> = p.ranks.iter().copied().filter(|&x| x != PAD_RANK).collect();
            assert_eq!(got, expected);
        }
    }
}

#[cfg(test)]
mod bucket_tests {
    use super::*;

    /// `place_hits` against a full sort of the ranking (score descending, id descending).
    fn by_sorting(
        values: &[f64],
        ids: &[String],
        levels: &[i64],
        float32: bool,
    ) -> Vec<(i64, i64)> {
        let mut order: Vec<usize> = (0..values.len()).collect();
        order.sort_by(|&a, &b| {
            key(values[b], float32)
                .partial_cmp(&key(values[a], float32))
                .unwrap()
                .then_with(|| ids[b].cmp(&ids[a]))
        });
        order
            .iter()
            .enumerate()
            .filter(|(_, &i)| levels[i] >= 1)
            .map(|(rank, &i)| (rank as i64, levels[i]))
            .collect()
    }

    #[test]
    fn buckets_agree_with_a_full_sort_on_adversarial_scores() {
        let mut rng = fastrand::Rng::with_seed(11);
        let specials = [
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            -f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1e300,
            1e-300,
            0.1,
            0.1 + 1e-12,
            3.4e38,
            3.5e38,
        ];
        let mut engaged = 0;
        for case in 0..400 {
            let n = rng.usize(1..1500);
            let values: Vec<f64> = (0..n)
                .map(|_| match case % 5 {
                    0 => 15.0 + 4.0 * (rng.f64() - 0.5),
                    1 => (rng.u32(0..50) as f64) / 8.0,
                    2 => specials[rng.usize(..specials.len())],
                    3 => {
                        if rng.u8(..) < 20 {
                            specials[rng.usize(..specials.len())]
                        } else {
                            rng.f64() * 1e-3
                        }
                    }
                    _ => f64::from_bits(rng.u64(..)).clamp(-1e308, 1e308),
                })
                .map(|v: f64| if v.is_nan() { 1.0 } else { v })
                .collect();
            let ids: Vec<String> = (0..n).map(|i| format!("{:x}-{i}", rng.u8(..))).collect();
            let levels: Vec<i64> = (0..n)
                .map(|_| if rng.u8(..) < 40 { rng.i64(-1..4) } else { 0 })
                .collect();
            let found: Vec<(u32, i64)> = (0..n)
                .filter(|&i| levels[i] >= 1)
                .map(|i| (i as u32, levels[i]))
                .collect();
            for float32 in [true, false] {
                let mut keys: Vec<f64> = found
                    .iter()
                    .map(|&(i, _)| key(values[i as usize], float32))
                    .collect();
                keys.sort_unstable_by(|a, b| b.partial_cmp(a).unwrap());
                keys.dedup();
                engaged += usize::from(Buckets::new(&keys, n).is_some());
                let (hits, num_ret) =
                    place_hits(&found, &values, |i| ids[i].as_bytes(), false, float32);
                assert_eq!(num_ret, n as i64);
                assert_eq!(
                    hits,
                    by_sorting(&values, &ids, &levels, float32),
                    "case {case}"
                );
            }
        }
        assert!(engaged > 200, "{engaged}");
    }
}
