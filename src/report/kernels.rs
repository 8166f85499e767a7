//! Kernels of `nlpeval report` (python/nlpeval/reports): the count matrix of
//! bootstrap draws, compare-mt's clipped n-gram matches and the occurrences of
//! chosen n-grams, on word ids. Their Python bindings are in `report/py/resample.rs`.

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

/// What a column's sums need: nothing (all zeros), the sums of an equal earlier column
/// (e.g. the reference counts every system's rows repeat), or a place in the packed table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    Zero,
    Same(usize),
    Packed(usize),
}

/// The plan of the `w` columns of the row-major `(n, w)` rows (`Column`).
fn column_plan(rows: &[i64], n: usize, w: usize) -> Vec<Column> {
    let column = |j: usize| (0..n).map(move |i| rows[i * w + j]);
    let mut plan: Vec<Column> = Vec::with_capacity(w);
    let mut packed = 0;
    for j in 0..w {
        plan.push(if column(j).all(|v| v == 0) {
            Column::Zero
        } else if let Some(i) =
            (0..j).find(|&i| matches!(plan[i], Column::Packed(_)) && column(i).eq(column(j)))
        {
            Column::Same(i)
        } else {
            packed += 1;
            Column::Packed(packed - 1)
        });
    }
    plan
}

/// An integer lane of the packed sums (`i32` when every sum fits, else `i64`).
trait Lane: Copy + Default + std::ops::AddAssign + Send + Sync + Into<i64> {
    fn from_i64(value: i64) -> Self;
}

impl Lane for i32 {
    fn from_i64(value: i64) -> Self {
        value as i32
    }
}

impl Lane for i64 {
    fn from_i64(value: i64) -> Self {
        value
    }
}

/// Resamples per parallel task of the sums (each costs about `n * w` additions).
const ROWS_PER_TASK: usize = 8;

/// Per row `r` of `k`, the sum of the table rows `fill(r, ..)` lists (with repetition):
/// `table` is row-major `(n, width)` with `width` a multiple of `B`; the result `(k, width)`.
/// The sums of a block of `B` columns stay in registers while the listed rows stream by.
fn block_sums<T: Lane, const B: usize>(
    table: &[T],
    width: usize,
    k: usize,
    fill: &(impl Fn(usize, &mut Vec<u32>) + Sync),
) -> Vec<T> {
    crate::common::parallel::install(|| {
        let mut sums = vec![T::default(); k * width];
        if width == 0 {
            return sums;
        }
        let sum_rows = rows_summer::<T, B>();
        sums.par_chunks_mut(width)
            .enumerate()
            .with_min_len(ROWS_PER_TASK)
            .for_each_init(Vec::new, |listed, (r, out)| {
                listed.clear();
                fill(r, listed);
                sum_rows(table, width, listed, out);
            });
        sums
    })
}

/// `out` = the sum of the `listed` rows of the `(n, width)` table, block of `B` columns by block.
#[inline(always)]
fn sum_listed_rows<T: Lane, const B: usize>(
    table: &[T],
    width: usize,
    listed: &[u32],
    out: &mut [T],
) {
    for block in (0..width).step_by(B) {
        let mut acc = [T::default(); B];
        for &i in listed {
            let start = i as usize * width + block;
            let row: &[T; B] = table[start..start + B].try_into().unwrap();
            for (a, &v) in acc.iter_mut().zip(row) {
                *a += v;
            }
        }
        out[block..block + B].copy_from_slice(&acc);
    }
}

/// `sum_listed_rows` compiled for AVX2 (256-bit integer additions).
///
/// # Safety
/// The CPU must support AVX2 (checked by `rows_summer`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sum_listed_rows_avx2<T: Lane, const B: usize>(
    table: &[T],
    width: usize,
    listed: &[u32],
    out: &mut [T],
) {
    sum_listed_rows::<T, B>(table, width, listed, out)
}

type RowsSummer<T> = fn(&[T], usize, &[u32], &mut [T]);

/// The fastest `sum_listed_rows` this CPU runs.
fn rows_summer<T: Lane, const B: usize>() -> RowsSummer<T> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was just detected
        return |table, width, listed, out| unsafe {
            sum_listed_rows_avx2::<T, B>(table, width, listed, out)
        };
    }
    sum_listed_rows::<T, B>
}

/// `block_sums` over the packed columns of `rows` (`plan`), in lanes of `T`, unpacked to
/// the `(k, w)` sums of every column.
fn packed_sums<T: Lane>(
    rows: &[i64],
    n: usize,
    w: usize,
    plan: &[Column],
    k: usize,
    fill: &(impl Fn(usize, &mut Vec<u32>) + Sync),
) -> Vec<i64> {
    let packed = plan
        .iter()
        .filter(|c| matches!(c, Column::Packed(_)))
        .count();
    // blocks of 8 lanes for narrow tables, else of 16 or 32 (four 256-bit registers)
    let block = if packed <= 8 {
        8
    } else if packed <= 16 {
        16
    } else {
        32
    };
    let width = packed.div_ceil(block) * block;
    let mut table = vec![T::default(); n * width];
    for (i, row) in rows.chunks_exact(w).enumerate() {
        for (j, &column) in plan.iter().enumerate() {
            if let Column::Packed(c) = column {
                table[i * width + c] = T::from_i64(row[j]);
            }
        }
    }
    let sums = match block {
        8 => block_sums::<T, 8>(&table, width, k, fill),
        16 => block_sums::<T, 16>(&table, width, k, fill),
        _ => block_sums::<T, 32>(&table, width, k, fill),
    };
    let mut out = vec![0i64; k * w];
    for (acc, packed) in out.chunks_exact_mut(w).zip(sums.chunks_exact(width.max(1))) {
        for (j, &column) in plan.iter().enumerate() {
            acc[j] = match column {
                Column::Zero => 0,
                Column::Same(i) => acc[i],
                Column::Packed(c) => packed[c].into(),
            };
        }
    }
    out
}

/// Per row `r` of `k`, the exact sums of the rows of the row-major `(n, w)` integer `rows`
/// that `fill(r, ..)` lists (at most `most` of them, with repetition): in 32-bit lanes when
/// no sum can leave their range, else in 64-bit lanes (wrapping like NumPy's int64 sums).
/// The rows of `k` are spread over rayon's threads; the sums do not depend on the split.
fn listed_sums(
    rows: &[i64],
    n: usize,
    w: usize,
    k: usize,
    most: usize,
    fill: impl Fn(usize, &mut Vec<u32>) + Sync,
) -> Vec<i64> {
    if n == 0 || w == 0 || k == 0 {
        return vec![0; k * w];
    }
    let plan = column_plan(rows, n, w);
    let largest = rows.iter().map(|v| v.unsigned_abs()).max().unwrap_or(0);
    if u128::from(largest) * (most as u128) < 1u128 << 31 {
        packed_sums::<i32>(rows, n, w, &plan, k, &fill)
    } else {
        packed_sums::<i64>(rows, n, w, &plan, k, &fill)
    }
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
    // one check of every index (as unsigned: a negative one is huge)
    if indices.iter().fold(0u64, |m, &i| m.max(i as u64)) >= n as u64 || n > u32::MAX as usize {
        return None;
    }
    let k = indices.len() / n;
    Some(listed_sums(rows, n, w, k, n, |r, listed| {
        listed.extend(indices[r * n..(r + 1) * n].iter().map(|&i| i as u32));
    }))
}

/// Per trial, the sum of the rows its mask selects: `mask` a row-major `(k, n)`
/// matrix, `rows` a row-major `(n, w)` integer matrix; the result the `(k, w)` sums.
pub fn masked_sums(mask: &[bool], n: usize, rows: &[i64], w: usize) -> Vec<i64> {
    if n == 0 {
        return Vec::new();
    }
    listed_sums(rows, n, w, mask.len() / n, n, |r, listed| {
        // without a branch per segment (random coins defeat the branch predictor): every
        // index is written, and the end moves past it only when its mask is on
        listed.resize(n, 0);
        let mut end = 0;
        for (i, &on) in mask[r * n..(r + 1) * n].iter().enumerate() {
            listed[end] = i as u32;
            end += usize::from(on);
        }
        listed.truncate(end);
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

    /// The state to resume from: `[state >> 64, state mod 2^64, spare]`, `spare` being 0
    /// (none) or `2^32 + value` (the high half of the last 64-bit output, not yet used).
    pub fn snapshot(&self) -> [u64; 3] {
        let spare = self.spare.map_or(0, |v| (1u64 << 32) | u64::from(v));
        [(self.state >> 64) as u64, self.state as u64, spare]
    }

    /// The generator of `snapshot` (same stream increment as `self`).
    pub fn resumed(&self, snapshot: &[u64]) -> Pcg64 {
        Pcg64 {
            state: (u128::from(snapshot[0]) << 64) | u128::from(snapshot[1]),
            inc: self.inc,
            spare: (snapshot[2] >> 32 != 0).then_some(snapshot[2] as u32),
        }
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
    /// NumPy's `integers(0, bound)` for `2 <= bound < 2^32` (`buffered_bounded_lemire_uint32`),
    /// one at a time: the reference `draws_below` is tested against.
    #[cfg(test)]
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

    /// `count` draws of `below(bound)` (`2 <= bound`) passed to `emit`, two per 64-bit
    /// output: a 32-bit output `x` gives `x * bound >> 32` unless the low half of the
    /// product is below `2^32 mod bound` (Lemire's test, as NumPy's, with the bound computed
    /// once), in which case the next output is tried.
    #[inline(always)]
    fn draws_below(&mut self, bound: u32, count: usize, mut emit: impl FnMut(u32)) {
        let threshold = bound.wrapping_neg() % bound;
        let scaled = |x: u32| u64::from(x) * u64::from(bound);
        let mut left = count;
        if left == 0 {
            return;
        }
        if let Some(x) = self.spare.take() {
            let m = scaled(x);
            if m as u32 >= threshold {
                emit((m >> 32) as u32);
                left -= 1;
            }
        }
        while left > 0 {
            let next = self.next_u64();
            let (low, high) = (scaled(next as u32), scaled((next >> 32) as u32));
            if low as u32 >= threshold {
                emit((low >> 32) as u32);
                left -= 1;
                if left == 0 {
                    self.spare = Some((next >> 32) as u32);
                    return;
                }
            }
            if high as u32 >= threshold {
                emit((high >> 32) as u32);
                left -= 1;
            }
        }
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
    let mut out = Vec::with_capacity(count);
    rng.draws_below(n as u32, count, |v| out.push(i64::from(v)));
    Some(out)
}

/// The generator's snapshot (`Pcg64::snapshot`) at the start of each of `k` resamples of
/// `n` draws from `0..n` (`seeded_indices(entropy, n, k * n)` row by row), `k * 3` words:
/// the draws of any resample can then be made again on its own, in parallel with the
/// others. One pass over every draw (a rejected 32-bit output shifts all later ones).
/// `None` unless `1 <= n < 2^32`.
pub fn seeded_states(entropy: &[u32], n: u64, k: usize) -> Option<Vec<u64>> {
    if n == 0 || n > u64::from(u32::MAX) {
        return None;
    }
    let mut rng = Pcg64::from_entropy(entropy);
    let mut states = Vec::with_capacity(3 * k);
    for _ in 0..k {
        states.extend_from_slice(&rng.snapshot());
        if n > 1 {
            rng.draws_below(n as u32, n as usize, |_| {});
        }
    }
    Some(states)
}

/// The draws of resample `r` (from its snapshot in `states`) appended to `out`.
fn redraw(start: &Pcg64, states: &[u64], r: usize, n: u32, out: &mut Vec<u32>) {
    if n == 1 {
        out.resize(out.len() + 1, 0);
        return;
    }
    let mut rng = start.resumed(&states[3 * r..3 * r + 3]);
    out.reserve(n as usize);
    rng.draws_below(n, n as usize, |v| out.push(v));
}

/// `resampled_sums` of the resamples `seeded_states` describes (the draws made again,
/// never stored): the `(k, w)` sums of the `(n, w)` rows. `None` unless `1 <= n < 2^32`.
pub fn seeded_sums(
    entropy: &[u32],
    states: &[u64],
    n: u64,
    rows: &[i64],
    w: usize,
) -> Option<Vec<i64>> {
    if n == 0 || n > u64::from(u32::MAX) {
        return None;
    }
    let start = Pcg64::from_entropy(entropy);
    let bound = n as u32;
    let k = states.len() / 3;
    Some(listed_sums(
        rows,
        n as usize,
        w,
        k,
        n as usize,
        |r, listed| redraw(&start, states, r, bound, listed),
    ))
}

/// The `(k, n)` indices of the resamples `seeded_states` describes (`seeded_indices`).
pub fn seeded_rows(entropy: &[u32], states: &[u64], n: u64) -> Option<Vec<i64>> {
    crate::common::parallel::install(|| {
        if n == 0 || n > u64::from(u32::MAX) {
            return None;
        }
        let start = Pcg64::from_entropy(entropy);
        let (bound, width) = (n as u32, n as usize);
        let mut out = vec![0i64; states.len() / 3 * width];
        out.par_chunks_mut(width)
            .enumerate()
            .with_min_len(ROWS_PER_TASK)
            .for_each_init(Vec::new, |drawn, (r, row)| {
                drawn.clear();
                redraw(&start, states, r, bound, drawn);
                for (slot, &i) in row.iter_mut().zip(drawn.iter()) {
                    *slot = i64::from(i);
                }
            });
        Some(out)
    })
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

/// One side's flat word ids and its segment offsets.
pub type IdsOffsets = (Vec<i64>, Vec<i64>);

/// Python's `str.isspace` for one character (what `str.strip()` removes): Unicode
/// White_Space plus the four information separators U+001C..U+001F.
fn python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Word ids of compare-mt's tokens (`line.strip().split(" ")`: an empty line is one
/// empty token) of several sides of lines, one vocabulary for all: ids `1..=V` in
/// order of first occurrence (side by side, line by line). Returns the words in id
/// order and per side its flat ids and its `len + 1` offsets.
pub fn encode_lines<'a>(sides: &[Vec<&'a str>]) -> (Vec<&'a str>, Vec<IdsOffsets>) {
    let mut vocab: FxHashMap<&'a str, i64> = FxHashMap::default();
    let mut words: Vec<&'a str> = Vec::new();
    let mut encoded = Vec::with_capacity(sides.len());
    for lines in sides {
        let mut ids = Vec::new();
        let mut offsets = Vec::with_capacity(lines.len() + 1);
        offsets.push(0i64);
        for line in lines {
            for token in line.trim_matches(python_space).split(' ') {
                let next = words.len() as i64 + 1;
                let id = *vocab.entry(token).or_insert_with(|| {
                    words.push(token);
                    next
                });
                ids.push(id);
            }
            offsets.push(ids.len() as i64);
        }
        encoded.push((ids, offsets));
    }
    (words, encoded)
}

/// compare-mt's clipped word matches as text: per segment of `system` (the first
/// `n_segments`), one character per token, `'1'` when it is among the first `k`
/// occurrences of a word that occurs `k` times in the segment's reference, else `'0'`.
/// `None` when the sides have different segment counts.
pub fn matched_strings(
    reference: &[&[i64]],
    system: &[&[i64]],
    n_segments: usize,
) -> Option<Vec<String>> {
    if reference.len() != system.len() {
        return None;
    }
    let mut left: FxHashMap<i64, usize> = FxHashMap::default();
    let mut out = Vec::with_capacity(n_segments.min(system.len()));
    for (refs, words) in reference.iter().zip(system).take(n_segments) {
        left.clear();
        for &w in *refs {
            *left.entry(w).or_insert(0) += 1;
        }
        let mut text = String::with_capacity(words.len());
        for w in *words {
            let hit = match left.get_mut(w) {
                Some(k) if *k > 0 => {
                    *k -= 1;
                    true
                }
                _ => false,
            };
            text.push(if hit { '1' } else { '0' });
        }
        out.push(text);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_matched_words() {
        let reference: Vec<&[i64]> = vec![&[1, 2, 1], &[3]];
        let system: Vec<&[i64]> = vec![&[1, 1, 1, 4, 2], &[]];
        let text = matched_strings(&reference, &system, 5).unwrap();
        assert_eq!(text, vec!["11001".to_string(), String::new()]);
        assert_eq!(matched_strings(&reference, &system, 1).unwrap().len(), 1);
        assert!(matched_strings(&reference, &system[..1], 2).is_none());
    }

    #[test]
    fn encodes_compare_mt_tokens() {
        let sides = vec![vec![" a b  a\u{1c}", ""], vec!["b\u{a0}c\u{3000}", "\t"]];
        let (words, encoded) = encode_lines(&sides);
        assert_eq!(words, vec!["a", "b", "", "b\u{a0}c"]);
        assert_eq!(encoded[0], (vec![1, 2, 3, 1, 3], vec![0, 4, 5]));
        assert_eq!(encoded[1], (vec![4, 3], vec![0, 1, 2]));
    }

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
        // a zero column and a repeated one (row i: 0, i + 1, 7, i + 1)
        let rows = [0, 1, 7, 1, 0, 2, 7, 2, 0, 3, 7, 3];
        assert_eq!(
            column_plan(&rows, 3, 4),
            vec![
                Column::Zero,
                Column::Packed(0),
                Column::Packed(1),
                Column::Same(1)
            ]
        );
        assert_eq!(
            resampled_sums(&[0, 0, 2, 1, 2, 2], 3, &rows, 4).unwrap(),
            vec![0, 5, 21, 5, 0, 8, 21, 8]
        );
        // 8, 16 and 32-lane blocks, in 32 and 64-bit lanes: against plain sums
        for (w, scale) in [(3usize, 1i64), (11, 1), (40, 1), (40, 1 << 40)] {
            let n = 23;
            let rows: Vec<i64> = (0..n * w)
                .map(|x| ((x * 37 % 101) as i64 - 50) * scale)
                .collect();
            let indices: Vec<i64> = (0..5 * n).map(|i| ((i * 13 + i / 7) % n) as i64).collect();
            let sums = resampled_sums(&indices, n, &rows, w).unwrap();
            let mask: Vec<bool> = (0..5 * n).map(|i| (i * 7) % 3 == 0).collect();
            let masked = masked_sums(&mask, n, &rows, w);
            for r in 0..5 {
                for j in 0..w {
                    let drawn = &indices[r * n..(r + 1) * n];
                    let expected: i64 = drawn.iter().map(|&i| rows[i as usize * w + j]).sum();
                    assert_eq!(sums[r * w + j], expected);
                    let selected: i64 = (0..n)
                        .filter(|&i| mask[r * n + i])
                        .map(|i| rows[i * w + j])
                        .sum();
                    assert_eq!(masked[r * w + j], selected);
                }
            }
        }
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
        // the draws made again from each resample's snapshot are the draws in one stream
        for (n, k) in [(1u64, 3usize), (2, 5), (7, 4), (300, 9)] {
            let states = seeded_states(&[99, 1], n, k).unwrap();
            let flat = seeded_indices(&[99, 1], n, k * n as usize).unwrap();
            assert_eq!(seeded_rows(&[99, 1], &states, n).unwrap(), flat);
            let rows: Vec<i64> = (0..n as i64).flat_map(|i| [i, 3 * i + 1]).collect();
            {
                assert_eq!(
                    seeded_sums(&[99, 1], &states, n, &rows, 2).unwrap(),
                    resampled_sums(&flat, n as usize, &rows, 2).unwrap()
                );
            }
        }
        // a snapshot taken after rejections (bound 2^31 + 1) and an odd number of 32-bit
        // outputs resumes the same stream
        let mut rng = Pcg64::from_entropy(&[0]);
        let first: Vec<u32> = (0..5).map(|_| rng.below((1 << 31) + 1)).collect();
        assert_eq!(
            first,
            vec![87989972, 161576974, 376383645, 1746484540, 1394609703]
        );
        let snapshot = rng.snapshot();
        let resumed: Vec<u32> = {
            let mut again = rng.resumed(&snapshot);
            (0..3).map(|_| again.below((1 << 31) + 1)).collect()
        };
        assert_eq!(resumed, vec![1440696408, 72124473, 1818006483]);
        // draws in pairs equal NumPy's one-at-a-time draws, across rejections and odd counts
        for bound in [2u32, 3, 2445, (1 << 31) + 1, u32::MAX - 1] {
            let (mut one, mut pairs) = (Pcg64::from_entropy(&[4]), Pcg64::from_entropy(&[4]));
            for count in [1usize, 0, 3, 8, 5] {
                let expected: Vec<u32> = (0..count).map(|_| one.below(bound)).collect();
                let mut got = Vec::new();
                pairs.draws_below(bound, count, |v| got.push(v));
                assert_eq!(got, expected);
                assert_eq!(pairs.snapshot(), one.snapshot());
            }
        }
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
