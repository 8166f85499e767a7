//! Kernels of `nlpeval report` (python/nlpeval/reports): the count matrix of
//! bootstrap draws, compare-mt's clipped n-gram matches and the occurrences of
//! chosen n-grams, on word ids. The Python bindings are at the end of the file;
//! lib.rs only registers them.

use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// How often each of `n` segments is drawn in each resample: `indices` is a
/// row-major `(k, n)` matrix of segment numbers, the result the row-major
/// `(k, n)` matrix of counts (as float64, ready for a BLAS product). `None`
/// when an index is outside `0..n`.
pub fn resample_counts(indices: &[i64], n: usize) -> Option<Vec<f64>> {
    let mut counts = vec![0.0f64; indices.len()];
    if n == 0 {
        return if indices.is_empty() {
            Some(counts)
        } else {
            None
        };
    }
    for (row, out) in indices.chunks_exact(n).zip(counts.chunks_exact_mut(n)) {
        for &index in row {
            let slot = out.get_mut(usize::try_from(index).ok()?)?;
            *slot += 1.0;
        }
    }
    Some(counts)
}

/// The columns of the row-major `(n, w)` integer `rows` as float64, column after column,
/// when every weighted sum with non-negative integer weights adding up to `n` is exact in
/// float64 (`n * max |value| < 2^53`, whatever the order of the additions); else `None`.
fn exact_columns(rows: &[i64], n: usize, w: usize) -> Option<Vec<f64>> {
    let largest = rows.iter().map(|v| v.unsigned_abs()).max().unwrap_or(0);
    if (largest as u128) * (n as u128) >= 1u128 << 53 {
        return None;
    }
    let mut columns = vec![0.0f64; n * w];
    for (i, row) in rows.chunks_exact(w).enumerate() {
        for (j, &value) in row.iter().enumerate() {
            columns[j * n + i] = value as f64;
        }
    }
    Some(columns)
}

/// `sum(a[i] * b[i])` with eight running sums (vectorised), `step(x, y, acc)` adding `x * y`.
/// Exact for the integer-valued operands of `exact_columns`, so the order of the additions
/// (and a fused multiply-add) does not change the result.
#[inline(always)]
fn dot_lanes(a: &[f64], b: &[f64], step: impl Fn(f64, f64, f64) -> f64) -> f64 {
    let mut lanes = [0.0f64; 8];
    let (chunks_a, chunks_b) = (a.chunks_exact(8), b.chunks_exact(8));
    let (rest_a, rest_b) = (chunks_a.remainder(), chunks_b.remainder());
    for (x, y) in chunks_a.zip(chunks_b) {
        for k in 0..8 {
            lanes[k] = step(x[k], y[k], lanes[k]);
        }
    }
    let tail: f64 = rest_a.iter().zip(rest_b).map(|(x, y)| x * y).sum();
    lanes.iter().sum::<f64>() + tail
}

fn dot_plain(a: &[f64], b: &[f64]) -> f64 {
    dot_lanes(a, b, |x, y, acc| acc + x * y)
}

/// `dot_plain` with AVX2 and fused multiply-adds (two 4-lane accumulators).
///
/// # Safety
/// The CPU must support AVX2 and FMA (checked by `dot_for_this_cpu`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_fma(a: &[f64], b: &[f64]) -> f64 {
    use std::arch::x86_64::{
        _mm256_add_pd, _mm256_fmadd_pd, _mm256_loadu_pd, _mm256_setzero_pd, _mm256_storeu_pd,
    };
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let (mut acc0, mut acc1) = (_mm256_setzero_pd(), _mm256_setzero_pd());
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 <= n, the length of both slices
        acc0 = _mm256_fmadd_pd(_mm256_loadu_pd(pa.add(i)), _mm256_loadu_pd(pb.add(i)), acc0);
        acc1 = _mm256_fmadd_pd(
            _mm256_loadu_pd(pa.add(i + 4)),
            _mm256_loadu_pd(pb.add(i + 4)),
            acc1,
        );
        i += 8;
    }
    let mut lanes = [0.0f64; 4];
    _mm256_storeu_pd(lanes.as_mut_ptr(), _mm256_add_pd(acc0, acc1));
    let mut total = lanes.iter().sum::<f64>();
    for k in i..n {
        total += a[k] * b[k];
    }
    total
}

/// The fastest dot product this CPU runs.
fn dot_for_this_cpu() -> fn(&[f64], &[f64]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: both features were just detected
        return |a, b| unsafe { dot_fma(a, b) };
    }
    dot_plain
}

/// What a column's weighted sum needs: nothing (all zeros), the sum of an equal earlier
/// column (e.g. the reference counts every system's rows repeat), or its own dot product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    Zero,
    Same(usize),
    Own,
}

fn column_plan(columns: &[f64], n: usize) -> Vec<Column> {
    let all: Vec<&[f64]> = columns.chunks_exact(n).collect();
    let totals: Vec<f64> = all.iter().map(|c| c.iter().sum()).collect();
    let mut plan = Vec::with_capacity(all.len());
    for (j, column) in all.iter().enumerate() {
        plan.push(if column.iter().all(|&v| v == 0.0) {
            Column::Zero
        } else if let Some(i) =
            (0..j).find(|&i| plan[i] == Column::Own && totals[i] == totals[j] && all[i] == *column)
        {
            Column::Same(i)
        } else {
            Column::Own
        });
    }
    plan
}

/// Resamples per parallel task of `weighted_sums` (each costs about `n * w` multiply-adds).
const ROWS_PER_TASK: usize = 16;

/// Per weight row (`weights` row-major `(k, n)`), the weighted sums of the `(n, w)` rows:
/// `(k, w)`, through float64 columns when exact (`exact_columns`), else in integers. The
/// weight rows are spread over rayon's threads; every sum is exact, so the result does not
/// depend on the split.
fn weighted_sums(
    k: usize,
    n: usize,
    rows: &[i64],
    w: usize,
    weights_of: impl Fn(usize, &mut [f64]) + Sync,
) -> Vec<i64> {
    let mut sums = vec![0i64; k * w];
    if n == 0 || w == 0 {
        return sums;
    }
    match exact_columns(rows, n, w) {
        Some(columns) => {
            let dot = dot_for_this_cpu();
            let plan = column_plan(&columns, n);
            sums.par_chunks_mut(w)
                .enumerate()
                .with_min_len(ROWS_PER_TASK)
                .for_each_init(
                    || vec![0.0f64; n],
                    |weights, (r, acc)| {
                        weights_of(r, weights);
                        for (j, column) in columns.chunks_exact(n).enumerate() {
                            acc[j] = match plan[j] {
                                Column::Zero => 0,
                                Column::Same(i) => acc[i],
                                Column::Own => dot(weights, column) as i64,
                            };
                        }
                    },
                );
        }
        None => {
            sums.par_chunks_mut(w)
                .enumerate()
                .with_min_len(ROWS_PER_TASK)
                .for_each_init(
                    || vec![0.0f64; n],
                    |weights, (r, acc)| {
                        weights_of(r, weights);
                        for (row, &weight) in rows.chunks_exact(w).zip(weights.iter()) {
                            for (a, &b) in acc.iter_mut().zip(row) {
                                *a += weight as i64 * b;
                            }
                        }
                    },
                );
        }
    }
    sums
}

/// Per resample, the sum of the rows it draws: `indices` is a row-major `(k, n)`
/// matrix of row numbers, `rows` a row-major `(n, w)` integer matrix; the result is the
/// row-major `(k, w)` matrix of exact sums (`counts @ rows`). `None` when an index is
/// outside `0..n`.
pub fn resampled_sums(indices: &[i64], n: usize, rows: &[i64], w: usize) -> Option<Vec<i64>> {
    if n == 0 {
        return if indices.is_empty() {
            Some(Vec::new())
        } else {
            None
        };
    }
    // one check of every index (as unsigned: a negative one is huge), then unchecked counting
    if indices.iter().fold(0u64, |m, &i| m.max(i as u64)) >= n as u64 {
        return None;
    }
    let k = indices.len() / n;
    Some(weighted_sums(k, n, rows, w, |r, counts| {
        counts.fill(0.0);
        for &index in &indices[r * n..(r + 1) * n] {
            // SAFETY: every index was checked to be below n == counts.len()
            unsafe { *counts.get_unchecked_mut(index as usize) += 1.0 };
        }
    }))
}

/// Per trial, the sum of the rows its mask selects: `mask` a row-major `(k, n)`
/// matrix, `rows` a row-major `(n, w)` integer matrix; the result the `(k, w)` sums.
pub fn masked_sums(mask: &[bool], n: usize, rows: &[i64], w: usize) -> Vec<i64> {
    if n == 0 {
        return Vec::new();
    }
    weighted_sums(mask.len() / n, n, rows, w, |r, weights| {
        for (weight, &on) in weights.iter_mut().zip(&mask[r * n..(r + 1) * n]) {
            *weight = if on { 1.0 } else { 0.0 };
        }
    })
}

// ---------------------------------------------------------------------------- seeded draws

/// NumPy's `default_rng(seed)`: a PCG64 generator (XSL-RR output of a 128-bit LCG) seeded
/// through `SeedSequence` from the seed's 32-bit words, least significant first. Its 32-bit
/// outputs are the two halves of a 64-bit output, low half first (NumPy's `next_uint32`).
#[derive(Clone, Debug)]
pub struct Pcg64 {
    state: u128,
    inc: u128,
    spare: Option<u32>,
}

const PCG_MULTIPLIER: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;

impl Pcg64 {
    /// The generator `numpy.random.default_rng(seed)` makes, from the words of the seed
    /// (`seed = sum(words[i] << (32 * i))`; `[0]` for seed 0).
    pub fn from_entropy(entropy: &[u32]) -> Pcg64 {
        const INIT_A: u32 = 0x43b0_d7e5;
        const MULT_A: u32 = 0x931e_8875;
        const INIT_B: u32 = 0x8b51_f9dd;
        const MULT_B: u32 = 0x58f3_8ded;
        const MIX_L: u32 = 0xca01_f9dd;
        const MIX_R: u32 = 0x4973_f715;
        let mut hash = INIT_A;
        let mut hashmix = |value: u32| {
            let mut v = value ^ hash;
            hash = hash.wrapping_mul(MULT_A);
            v = v.wrapping_mul(hash);
            v ^ (v >> 16)
        };
        let mix = |x: u32, y: u32| {
            let r = MIX_L.wrapping_mul(x).wrapping_sub(MIX_R.wrapping_mul(y));
            r ^ (r >> 16)
        };
        // SeedSequence: a pool of 4 words mixed from the entropy
        let mut pool = [0u32; 4];
        for (i, slot) in pool.iter_mut().enumerate() {
            *slot = hashmix(entropy.get(i).copied().unwrap_or(0));
        }
        for src in 0..4 {
            for dst in 0..4 {
                if src != dst {
                    let hashed = hashmix(pool[src]);
                    pool[dst] = mix(pool[dst], hashed);
                }
            }
        }
        for &word in entropy.iter().skip(4) {
            for slot in pool.iter_mut() {
                let hashed = hashmix(word);
                *slot = mix(*slot, hashed);
            }
        }
        // generate_state(4, uint64): eight 32-bit words, paired little-endian
        let mut hash = INIT_B;
        let mut words = [0u64; 8];
        for (i, out) in words.iter_mut().enumerate() {
            let mut v = pool[i % 4] ^ hash;
            hash = hash.wrapping_mul(MULT_B);
            v = v.wrapping_mul(hash);
            *out = u64::from(v ^ (v >> 16));
        }
        let word = |i: usize| words[2 * i] | (words[2 * i + 1] << 32);
        let seed = (u128::from(word(0)) << 64) | u128::from(word(1));
        let sequence = (u128::from(word(2)) << 64) | u128::from(word(3));
        // pcg64_set_seed (pcg_setseq_128_srandom_r)
        let mut rng = Pcg64 {
            state: 0,
            inc: (sequence << 1) | 1,
            spare: None,
        };
        rng.step();
        rng.state = rng.state.wrapping_add(seed);
        rng.step();
        rng
    }

    #[inline(always)]
    fn step(&mut self) {
        self.state = self
            .state
            .wrapping_mul(PCG_MULTIPLIER)
            .wrapping_add(self.inc);
    }

    /// The next 64-bit output.
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let (high, low) = ((self.state >> 64) as u64, self.state as u64);
        (high ^ low).rotate_right((high >> 58) as u32)
    }

    /// The next 32-bit output (NumPy's: the halves of one 64-bit output, low first).
    #[inline(always)]
    pub fn next_u32(&mut self) -> u32 {
        if let Some(spare) = self.spare.take() {
            return spare;
        }
        let next = self.next_u64();
        self.spare = Some((next >> 32) as u32);
        next as u32
    }

    /// A uniform integer in `0..bound` by Lemire's multiply-and-reject on 32-bit outputs, as
    /// NumPy's `integers(0, bound)` for `2 <= bound < 2^32` (`buffered_bounded_lemire_uint32`).
    #[inline(always)]
    fn below(&mut self, bound: u32) -> u32 {
        let mut m = u64::from(self.next_u32()) * u64::from(bound);
        if (m as u32) < bound {
            let threshold = bound.wrapping_neg() % bound;
            while (m as u32) < threshold {
                m = u64::from(self.next_u32()) * u64::from(bound);
            }
        }
        (m >> 32) as u32
    }
}

/// `numpy.random.default_rng(seed).choice(n, size=count)` (with replacement; NumPy's
/// `integers(0, n, dtype=int64)`): `count` uniform draws from `0..n`. `None` unless
/// `1 <= n < 2^32` (`count == 0` gives an empty draw for any `n`).
pub fn seeded_indices(entropy: &[u32], n: u64, count: usize) -> Option<Vec<i64>> {
    if count == 0 {
        return Some(Vec::new());
    }
    if n == 0 || n > u64::from(u32::MAX) {
        return None;
    }
    if n == 1 {
        return Some(vec![0; count]);
    }
    let mut rng = Pcg64::from_entropy(entropy);
    let bound = n as u32;
    Some((0..count).map(|_| i64::from(rng.below(bound))).collect())
}

/// `numpy.random.default_rng(seed).integers(2, size=count, dtype=bool)`: fair coins, one
/// bit of a 32-bit output each, lowest bit first (NumPy's `buffered_bounded_bool`).
pub fn seeded_coins(entropy: &[u32], count: usize) -> Vec<bool> {
    let mut rng = Pcg64::from_entropy(entropy);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let word = rng.next_u32();
        let take = (count - out.len()).min(32);
        out.extend((0..take).map(|bit| (word >> bit) & 1 == 1));
    }
    out
}

/// The segments of a flat id array: `offsets` has one more entry than there are
/// segments, starts at 0, never decreases and ends at `ids.len()`.
pub fn segments<'a>(ids: &'a [i64], offsets: &[i64]) -> Option<Vec<&'a [i64]>> {
    if offsets.first() != Some(&0) || usize::try_from(*offsets.last()?).ok()? != ids.len() {
        return None;
    }
    offsets
        .windows(2)
        .map(|w| {
            let (a, b) = (usize::try_from(w[0]).ok()?, usize::try_from(w[1]).ok()?);
            ids.get(a..b)
        })
        .collect()
}

/// Every n-gram (`min_order <= n <= max_order`) of `words`, with the position of its first word.
fn ngrams(
    words: &[i64],
    min_order: usize,
    max_order: usize,
) -> impl Iterator<Item = (usize, &[i64])> {
    (min_order.max(1)..=max_order).flat_map(move |n| words.windows(n).enumerate())
}

/// compare-mt's `match` n-grams of several systems against one reference.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Matches {
    /// Per n-gram type (matched at least once by some system): a reference
    /// position of it (index into the reference's flat ids) and its order.
    pub type_start: Vec<i64>,
    pub type_order: Vec<i64>,
    /// Per system: the summed clipped count of each type (`type_start.len()` entries).
    pub totals: Vec<Vec<i64>>,
    /// Per system: `(segment, type)` of every type matched in a segment.
    pub segment: Vec<Vec<i64>>,
    pub kind: Vec<Vec<i64>>,
}

/// Per segment, each n-gram of a system's output matches `min(count in the output,
/// count in the reference)` times (compare-mt's `ngram_table(out) & ngram_table(ref)`);
/// types are numbered in order of first match.
pub fn clipped_matches(
    reference: &[&[i64]],
    reference_base: &[usize],
    systems: &[Vec<&[i64]>],
    min_order: usize,
    max_order: usize,
) -> Matches {
    let mut types: FxHashMap<&[i64], usize> = FxHashMap::default();
    let mut out = Matches {
        totals: vec![Vec::new(); systems.len()],
        segment: vec![Vec::new(); systems.len()],
        kind: vec![Vec::new(); systems.len()],
        ..Matches::default()
    };
    let mut in_reference: FxHashMap<&[i64], (u32, usize)> = FxHashMap::default();
    let mut in_output: FxHashMap<&[i64], u32> = FxHashMap::default();
    for (i, words) in reference.iter().enumerate() {
        in_reference.clear();
        for (start, gram) in ngrams(words, min_order, max_order) {
            in_reference
                .entry(gram)
                .or_insert((0, reference_base[i] + start))
                .0 += 1;
        }
        for (s, system) in systems.iter().enumerate() {
            in_output.clear();
            for (_, gram) in ngrams(system[i], min_order, max_order) {
                *in_output.entry(gram).or_insert(0) += 1;
            }
            for (gram, &count) in &in_output {
                let Some(&(available, at)) = in_reference.get(gram) else {
                    continue;
                };
                let next = out.type_start.len();
                let kind = *types.entry(gram).or_insert_with(|| {
                    out.type_start.push(at as i64);
                    out.type_order.push(gram.len() as i64);
                    next
                });
                let totals = &mut out.totals[s];
                if totals.len() <= kind {
                    totals.resize(kind + 1, 0);
                }
                totals[kind] += i64::from(count.min(available));
                out.segment[s].push(i as i64);
                out.kind[s].push(kind as i64);
            }
        }
    }
    for totals in &mut out.totals {
        totals.resize(out.type_start.len(), 0);
    }
    out
}

/// Every occurrence of the `wanted` n-grams in `words` (segments): `(segment, start,
/// entry)`, where `entry` is the first index of the n-gram in `wanted`.
pub fn occurrences(words: &[&[i64]], wanted: &[&[i64]]) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
    let mut entry_of: FxHashMap<&[i64], i64> = FxHashMap::default();
    for (k, gram) in wanted.iter().enumerate() {
        if !gram.is_empty() {
            entry_of.entry(gram).or_insert(k as i64);
        }
    }
    let max_order = wanted.iter().map(|g| g.len()).max().unwrap_or(0);
    let (mut segment, mut start, mut entry) = (Vec::new(), Vec::new(), Vec::new());
    if max_order == 0 {
        return (segment, start, entry);
    }
    for (i, seg) in words.iter().enumerate() {
        for (at, gram) in ngrams(seg, 1, max_order) {
            if let Some(&k) = entry_of.get(gram) {
                segment.push(i as i64);
                start.push(at as i64);
                entry.push(k);
            }
        }
    }
    (segment, start, entry)
}

// ---------------------------------------------------------------------------- Python bindings

fn bad(what: &str) -> PyErr {
    PyValueError::new_err(format!("report kernel: {what}"))
}

/// `resample_counts` of a `(k, n)` int64 array: the `(k, n)` float64 counts.
#[pyfunction]
pub fn report_resample_counts<'py>(
    py: Python<'py>,
    indices: PyReadonlyArray2<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let shape = indices.shape();
    let (k, n) = (shape[0], shape[1]);
    let flat = indices.as_slice()?;
    let counts = py
        .detach(|| resample_counts(flat, n))
        .ok_or_else(|| bad(&format!("a resample index is outside 0..{n}")))?;
    PyArray1::from_vec(py, counts).reshape([k, n])
}

/// `resampled_sums` of `(k, n)` int64 indices and `(n, w)` int64 rows: `(k, w)` int64.
#[pyfunction]
pub fn report_resampled_sums<'py>(
    py: Python<'py>,
    indices: PyReadonlyArray2<'py, i64>,
    rows: PyReadonlyArray2<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let (k, n) = (indices.shape()[0], indices.shape()[1]);
    let (m, w) = (rows.shape()[0], rows.shape()[1]);
    if m != n {
        return Err(bad(&format!("{m} rows for resamples of {n}")));
    }
    let (flat, table) = (indices.as_slice()?, rows.as_slice()?);
    let sums = py
        .detach(|| resampled_sums(flat, n, table, w))
        .ok_or_else(|| bad(&format!("a resample index is outside 0..{n}")))?;
    PyArray1::from_vec(py, sums).reshape([k, w])
}

/// `masked_sums` of a `(k, n)` bool mask and `(n, w)` int64 rows: `(k, w)` int64.
#[pyfunction]
pub fn report_masked_sums<'py>(
    py: Python<'py>,
    mask: PyReadonlyArray2<'py, bool>,
    rows: PyReadonlyArray2<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let (k, n) = (mask.shape()[0], mask.shape()[1]);
    let (m, w) = (rows.shape()[0], rows.shape()[1]);
    if m != n {
        return Err(bad(&format!("{m} rows for masks of {n}")));
    }
    let (flat, table) = (mask.as_slice()?, rows.as_slice()?);
    let sums = py.detach(|| masked_sums(flat, n, table, w));
    PyArray1::from_vec(py, sums).reshape([k, w])
}

/// `seeded_indices` as a `(k, n)` int64 array: `numpy.random.default_rng(seed).choice(n,
/// size=(k, n))` for the seed's 32-bit `entropy` words (least significant first).
#[pyfunction]
pub fn report_seeded_indices<'py>(
    py: Python<'py>,
    entropy: Vec<u32>,
    n: u64,
    k: usize,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let count = k
        .checked_mul(n as usize)
        .ok_or_else(|| bad("too many draws"))?;
    let drawn = py
        .detach(|| seeded_indices(&entropy, n, count))
        .ok_or_else(|| bad(&format!("cannot draw from 0..{n}")))?;
    PyArray1::from_vec(py, drawn).reshape([k, n as usize])
}

/// `seeded_coins` as a `(k, n)` bool array: `numpy.random.default_rng(seed).integers(2,
/// size=(k, n), dtype=bool)`.
#[pyfunction]
pub fn report_seeded_coins<'py>(
    py: Python<'py>,
    entropy: Vec<u32>,
    k: usize,
    n: usize,
) -> PyResult<Bound<'py, PyArray2<bool>>> {
    let count = k.checked_mul(n).ok_or_else(|| bad("too many draws"))?;
    let coins = py.detach(|| seeded_coins(&entropy, count));
    PyArray1::from_vec(py, coins).reshape([k, n])
}

type Flat<'py> = (PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>);
type Ids<'py> = Bound<'py, PyArray1<i64>>;

/// `clipped_matches` of the reference and the systems, each `(flat ids, offsets)`
/// with the same number of segments: `(type_start, type_order, [(totals, segment,
/// type) per system])`.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn report_ngram_matches<'py>(
    py: Python<'py>,
    reference: Flat<'py>,
    systems: Vec<Flat<'py>>,
    min_order: usize,
    max_order: usize,
) -> PyResult<(Ids<'py>, Ids<'py>, Vec<(Ids<'py>, Ids<'py>, Ids<'py>)>)> {
    let (ref_ids, ref_offsets) = (reference.0.as_slice()?, reference.1.as_slice()?);
    let refs = segments(ref_ids, ref_offsets).ok_or_else(|| bad("bad reference offsets"))?;
    let base: Vec<usize> = ref_offsets.iter().map(|&o| o as usize).collect();
    let mut outs = Vec::with_capacity(systems.len());
    for (ids, offsets) in &systems {
        let segs = segments(ids.as_slice()?, offsets.as_slice()?)
            .ok_or_else(|| bad("bad system offsets"))?;
        if segs.len() != refs.len() {
            return Err(bad(
                "a system and the reference have different segment counts",
            ));
        }
        outs.push(segs);
    }
    let found = py.detach(|| clipped_matches(&refs, &base, &outs, min_order, max_order));
    let per_system = found
        .totals
        .into_iter()
        .zip(found.segment)
        .zip(found.kind)
        .map(|((t, s), k)| {
            (
                PyArray1::from_vec(py, t),
                PyArray1::from_vec(py, s),
                PyArray1::from_vec(py, k),
            )
        })
        .collect();
    Ok((
        PyArray1::from_vec(py, found.type_start),
        PyArray1::from_vec(py, found.type_order),
        per_system,
    ))
}

/// `occurrences` of n-grams `(flat ids, offsets)` in segments `(flat ids, offsets)`
/// (the first `n_segments` only): `(segment, start, entry)`.
#[pyfunction]
pub fn report_ngram_occurrences<'py>(
    py: Python<'py>,
    side: Flat<'py>,
    n_segments: usize,
    wanted: Flat<'py>,
) -> PyResult<(Ids<'py>, Ids<'py>, Ids<'py>)> {
    let words =
        segments(side.0.as_slice()?, side.1.as_slice()?).ok_or_else(|| bad("bad offsets"))?;
    let grams = segments(wanted.0.as_slice()?, wanted.1.as_slice()?)
        .ok_or_else(|| bad("bad n-gram offsets"))?;
    let words = &words[..n_segments.min(words.len())];
    let (segment, start, entry) = py.detach(|| occurrences(words, &grams));
    Ok((
        PyArray1::from_vec(py, segment),
        PyArray1::from_vec(py, start),
        PyArray1::from_vec(py, entry),
    ))
}

/// Adds the report kernels to the extension module (called from lib.rs).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(report_resample_counts, m)?)?;
    m.add_function(wrap_pyfunction!(report_resampled_sums, m)?)?;
    m.add_function(wrap_pyfunction!(report_masked_sums, m)?)?;
    m.add_function(wrap_pyfunction!(report_seeded_indices, m)?)?;
    m.add_function(wrap_pyfunction!(report_seeded_coins, m)?)?;
    m.add_function(wrap_pyfunction!(report_ngram_matches, m)?)?;
    m.add_function(wrap_pyfunction!(report_ngram_occurrences, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_row() {
        let counts = resample_counts(&[0, 0, 2, 1, 2, 2], 3).unwrap();
        assert_eq!(counts, vec![2.0, 0.0, 1.0, 0.0, 1.0, 2.0]);
    }

    #[test]
    fn rejects_out_of_range() {
        assert!(resample_counts(&[0, 3, 1], 3).is_none());
        assert!(resample_counts(&[0, -1, 1], 3).is_none());
        assert!(resample_counts(&[1], 0).is_none());
        assert_eq!(resample_counts(&[], 0), Some(vec![]));
    }

    #[test]
    fn sums_of_drawn_and_masked_rows() {
        let rows = [1, 10, 2, 20, 3, 30];
        assert_eq!(
            resampled_sums(&[0, 0, 2, 1, 2, 2], 3, &rows, 2).unwrap(),
            vec![5, 50, 8, 80]
        );
        assert!(resampled_sums(&[0, 3, 1], 3, &rows, 2).is_none());
        assert!(resampled_sums(&[0, -1, 1], 3, &rows, 2).is_none());
        let mask = [true, false, true, false, false, false];
        assert_eq!(masked_sums(&mask, 3, &rows, 2), vec![4, 40, 0, 0]);
        assert_eq!(masked_sums(&mask, 3, &[], 0), vec![0; 0]);
        // beyond float64's exact range: the integer path gives the same sums
        let big = [1i64 << 60, 1, -(1i64 << 60), 2, 5, 3];
        assert_eq!(
            resampled_sums(&[0, 0, 1, 2, 2, 2], 3, &big, 2).unwrap(),
            vec![1i64 << 60, 4, 15, 9]
        );
        assert_eq!(
            masked_sums(&[true, true, false, false, false, true], 3, &big, 2),
            vec![0, 3, 5, 3]
        );
        // long rows (the vectorised dot products and their tail)
        assert_eq!(
            dot_plain(&[1.0; 13], &[2.0; 13]),
            dot_for_this_cpu()(&[1.0; 13], &[2.0; 13])
        );
        // a zero column and a repeated one (row i: 0, i + 1, 7, i + 1)
        let rows = [0, 1, 7, 1, 0, 2, 7, 2, 0, 3, 7, 3];
        assert_eq!(
            column_plan(&exact_columns(&rows, 3, 4).unwrap(), 3),
            vec![Column::Zero, Column::Own, Column::Own, Column::Same(1)]
        );
        assert_eq!(
            resampled_sums(&[0, 0, 2, 1, 2, 2], 3, &rows, 4).unwrap(),
            vec![0, 5, 21, 5, 0, 8, 21, 8]
        );
        let n = 21;
        let rows: Vec<i64> = (0..n as i64).flat_map(|i| [i, 100 - i]).collect();
        let indices: Vec<i64> = (0..2 * n as i64).map(|i| (i * 7) % n as i64).collect();
        let sums = resampled_sums(&indices, n, &rows, 2).unwrap();
        for r in 0..2 {
            let drawn = &indices[r * n..(r + 1) * n];
            assert_eq!(sums[2 * r], drawn.iter().sum::<i64>());
            assert_eq!(sums[2 * r + 1], drawn.iter().map(|i| 100 - i).sum::<i64>());
        }
    }

    #[test]
    fn seeded_draws_are_numpys() {
        // numpy.random.default_rng(seed).choice / .integers / .bit_generator.random_raw, NumPy 2.4
        let mut raw = Pcg64::from_entropy(&[1]);
        assert_eq!(
            [raw.next_u64(), raw.next_u64()],
            [9441442522235856127, 17532960557476522086]
        );
        assert_eq!(
            seeded_indices(&[12345], 10, 12).unwrap(),
            vec![6, 2, 7, 3, 2, 7, 6, 6, 9, 3, 8, 3]
        );
        // a bound just above 2^31: about every other 32-bit output is rejected
        assert_eq!(
            seeded_indices(&[0], (1 << 31) + 1, 8).unwrap(),
            vec![
                87989972, 161576974, 376383645, 1746484540, 1394609703, 1440696408, 72124473,
                1818006483
            ]
        );
        // seed 2^70 + 3: three words
        assert_eq!(
            seeded_indices(&[3, 0, 64], 3, 6).unwrap(),
            vec![0, 1, 0, 0, 0, 0]
        );
        let coins: Vec<u8> = seeded_coins(&[7], 40).into_iter().map(u8::from).collect();
        assert_eq!(
            coins,
            vec![
                1, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 0, 0, 0,
                1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1
            ]
        );
        assert_eq!(seeded_indices(&[1], 1, 3), Some(vec![0, 0, 0]));
        assert_eq!(seeded_indices(&[1], 0, 0), Some(vec![]));
        assert!(seeded_indices(&[1], 0, 2).is_none());
        assert!(seeded_indices(&[1], 1 << 32, 2).is_none());
    }

    #[test]
    fn segments_check_offsets() {
        let ids = [1, 2, 3];
        assert_eq!(
            segments(&ids, &[0, 2, 2, 3]).unwrap(),
            vec![&[1, 2][..], &[][..], &[3][..]]
        );
        assert!(segments(&ids, &[0, 2]).is_none());
        assert!(segments(&ids, &[1, 3]).is_none());
        assert!(segments(&ids, &[0, 2, 1, 3]).is_none());
    }

    #[test]
    fn matches_are_clipped_per_segment() {
        // reference "a b a" / "c"; system "a a a b" / "c c"
        let refs: Vec<&[i64]> = vec![&[1, 2, 1], &[3]];
        let sys: Vec<&[i64]> = vec![&[1, 1, 1, 2], &[3, 3]];
        let found = clipped_matches(&refs, &[0, 3], &[sys], 1, 2);
        let mut got: Vec<(Vec<i64>, i64)> = (0..found.type_start.len())
            .map(|t| {
                let start = found.type_start[t] as usize;
                let flat = [1, 2, 1, 3];
                (
                    flat[start..start + found.type_order[t] as usize].to_vec(),
                    found.totals[0][t],
                )
            })
            .collect();
        got.sort();
        // a: min(3, 2) = 2; b: 1; "a b": 1; "b a": 0 (absent); c: min(2, 1) = 1; "a a": 0
        assert_eq!(
            got,
            vec![(vec![1], 2), (vec![1, 2], 1), (vec![2], 1), (vec![3], 1)]
        );
        let mut pairs: Vec<(i64, i64)> = found.segment[0]
            .iter()
            .copied()
            .zip(found.kind[0].iter().copied())
            .collect();
        pairs.sort();
        assert_eq!(pairs.len(), 4);
        assert_eq!(pairs.iter().filter(|p| p.0 == 1).count(), 1);
    }

    #[test]
    fn occurrences_take_the_first_entry() {
        let words: Vec<&[i64]> = vec![&[1, 2, 1, 2], &[2, 1]];
        let wanted: Vec<&[i64]> = vec![&[1, 2], &[2], &[1, 2]];
        let (segment, start, entry) = occurrences(&words, &wanted);
        let mut rows: Vec<(i64, i64, i64)> = segment
            .into_iter()
            .zip(start)
            .zip(entry)
            .map(|((a, b), c)| (a, b, c))
            .collect();
        rows.sort();
        assert_eq!(
            rows,
            vec![(0, 0, 0), (0, 1, 1), (0, 2, 0), (0, 3, 1), (1, 0, 1)]
        );
        assert_eq!(occurrences(&words, &[]), (vec![], vec![], vec![]));
    }
}
