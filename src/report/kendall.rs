//! Sufficient statistics of Kendall's tau for many groups of paired values.
//!
//! For every group (a slice of paired `(x, y)` observations) the kernel returns
//! one row of integers:
//! `[discordant, x_tied, y_tied, xy_tied, distinct_x, distinct_y]`
//! where `discordant` counts pairs with `(x_i - x_j) * (y_i - y_j) < 0`,
//! `x_tied` (`y_tied`) counts pairs tied in x (in y), `xy_tied` pairs tied in
//! both, and `distinct_*` the number of distinct values; and one row of floats,
//! the tie-correction sums of the variance `[x0, x1, y0, y1]` with
//! `x0 = sum t(t-1)(t-2)`, `x1 = sum t(t-1)(2t+5)` over runs of `t` tied x values
//! (floats: they overflow 64-bit integers early). It takes O(n log n) per group:
//! one sort by (x, y), then a merge sort of y counting inversions. Formulas
//! (tau-b, tau-c, p-values) live in Python.

use rayon::prelude::*;

/// Number of integer columns of [`group_stats`].
pub const COLUMNS: usize = 6;
/// Number of float columns of [`group_stats`].
pub const SUM_COLUMNS: usize = 4;

/// An order-preserving integer key of a (NaN-free) float; -0.0 and 0.0 get the same key,
/// as they compare equal in NumPy.
fn key(value: f64) -> u64 {
    let bits = if value == 0.0 { 0 } else { value.to_bits() };
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// Per run of equal values of a sorted slice: pair count, run count and the variance sums.
fn runs(sorted: &[u64]) -> (i64, i64, [f64; 2]) {
    let mut pairs = 0i64;
    let mut count = 0i64;
    let mut sums = [0.0f64; 2];
    let mut start = 0usize;
    for i in 1..=sorted.len() {
        if i == sorted.len() || sorted[i] != sorted[start] {
            let t = (i - start) as i64;
            pairs += t * (t - 1) / 2;
            count += 1;
            let tf = t as f64;
            sums[0] += tf * (tf - 1.0) * (tf - 2.0);
            sums[1] += tf * (tf - 1.0) * (2.0 * tf + 5.0);
            start = i;
        }
    }
    (pairs, count, sums)
}

/// Sorts `values` in place and returns the number of strict inversions
/// (pairs `i < j` with `values[i] > values[j]`) of the original order.
fn sort_counting_inversions(values: &mut [u64]) -> i64 {
    let n = values.len();
    let mut buffer = vec![0u64; n];
    let mut inversions = 0i64;
    let mut width = 1usize;
    while width < n {
        let mut start = 0usize;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j, mut k) = (start, mid, start);
            while i < mid && j < end {
                if values[j] < values[i] {
                    inversions += (mid - i) as i64;
                    buffer[k] = values[j];
                    j += 1;
                } else {
                    buffer[k] = values[i];
                    i += 1;
                }
                k += 1;
            }
            buffer[k..k + (mid - i)].copy_from_slice(&values[i..mid]);
            k += mid - i;
            buffer[k..k + (end - j)].copy_from_slice(&values[j..end]);
            start = end;
        }
        values.copy_from_slice(&buffer);
        width *= 2;
    }
    inversions
}

/// The statistics rows of one group of paired observations.
pub fn group_stats(x: &[f64], y: &[f64]) -> ([i64; COLUMNS], [f64; SUM_COLUMNS]) {
    let mut pairs: Vec<(u64, u64)> = x.iter().zip(y).map(|(&a, &b)| (key(a), key(b))).collect();
    pairs.sort_unstable();
    let xs: Vec<u64> = pairs.iter().map(|p| p.0).collect();
    let mut ys: Vec<u64> = pairs.iter().map(|p| p.1).collect();
    let (x_tied, distinct_x, x_sums) = runs(&xs);
    let mut xy_tied = 0i64;
    let mut start = 0usize;
    for i in 1..=pairs.len() {
        if i == pairs.len() || pairs[i] != pairs[start] {
            let t = (i - start) as i64;
            xy_tied += t * (t - 1) / 2;
            start = i;
        }
    }
    // Sorted by (x, y): pairs tied in x are in y order, so strict inversions of y
    // are exactly the pairs with x_i < x_j and y_i > y_j.
    let discordant = sort_counting_inversions(&mut ys);
    let (y_tied, distinct_y, y_sums) = runs(&ys);
    (
        [discordant, x_tied, y_tied, xy_tied, distinct_x, distinct_y],
        [x_sums[0], x_sums[1], y_sums[0], y_sums[1]],
    )
}

/// Group boundaries from `offsets` (`offsets[g]..offsets[g + 1]`), checked.
pub fn group_ranges(offsets: &[i64], len: usize) -> Result<Vec<(usize, usize)>, String> {
    let mut ranges = Vec::with_capacity(offsets.len().saturating_sub(1));
    for pair in offsets.windows(2) {
        let (start, end) = (pair[0], pair[1]);
        if start < 0 || end < start || end as usize > len {
            return Err(format!("bad group offsets {start}..{end} for {len} values"));
        }
        ranges.push((start as usize, end as usize));
    }
    Ok(ranges)
}

/// [`group_stats`] of every group: the integer rows and the float rows, each flattened.
pub fn batch_group_stats(x: &[f64], y: &[f64], ranges: &[(usize, usize)]) -> (Vec<i64>, Vec<f64>) {
    crate::common::parallel::install(|| {
        let rows: Vec<([i64; COLUMNS], [f64; SUM_COLUMNS])> = ranges
            .par_iter()
            .map(|&(start, end)| group_stats(&x[start..end], &y[start..end]))
            .collect();
        let counts = rows.iter().flat_map(|row| row.0).collect();
        let sums = rows.iter().flat_map(|row| row.1).collect();
        (counts, sums)
    })
}

/// Number of columns of [`weighted_group_stats`].
pub const WEIGHTED_COLUMNS: usize = 7;

/// Pairs within weighted runs: `sum (W^2 - W) / 2` over runs (`W` = total weight of a
/// run, i.e. its number of copies) and the number of runs with weight.
fn weighted_runs(boundaries: &[usize], weights: &[f64]) -> (f64, f64) {
    let mut pairs = 0.0;
    let mut count = 0.0;
    for window in boundaries.windows(2) {
        let total: f64 = weights[window[0]..window[1]].iter().sum();
        pairs += (total * total - total) / 2.0;
        if total > 0.0 {
            count += 1.0;
        }
    }
    (pairs, count)
}

/// Start of every run of equal values of a sorted slice, and its end.
fn run_boundaries<T: PartialEq>(sorted: &[T]) -> Vec<usize> {
    let mut bounds = vec![0];
    for i in 1..sorted.len() {
        if sorted[i] != sorted[i - 1] {
            bounds.push(i);
        }
    }
    bounds.push(sorted.len());
    bounds
}

/// Sorts `(values, weights)` by value and returns the weighted number of strict
/// inversions: the sum of `w_i * w_j` over pairs `i < j` with `values[i] > values[j]`.
fn sort_counting_weighted_inversions(values: &mut [u64], weights: &mut [f64]) -> f64 {
    let n = values.len();
    let mut value_buffer = vec![0u64; n];
    let mut weight_buffer = vec![0.0f64; n];
    let mut inversions = 0.0;
    let mut width = 1usize;
    while width < n {
        let mut start = 0usize;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let mut left_weight: f64 = weights[start..mid].iter().sum();
            let (mut i, mut j, mut k) = (start, mid, start);
            while i < mid && j < end {
                if values[j] < values[i] {
                    inversions += weights[j] * left_weight;
                    value_buffer[k] = values[j];
                    weight_buffer[k] = weights[j];
                    j += 1;
                } else {
                    left_weight -= weights[i];
                    value_buffer[k] = values[i];
                    weight_buffer[k] = weights[i];
                    i += 1;
                }
                k += 1;
            }
            for (src, dst) in [(i..mid, k), (j..end, k + (mid - i))] {
                let len = src.len();
                value_buffer[dst..dst + len].copy_from_slice(&values[src.clone()]);
                weight_buffer[dst..dst + len].copy_from_slice(&weights[src]);
            }
            start = end;
        }
        values.copy_from_slice(&value_buffer);
        weights.copy_from_slice(&weight_buffer);
        width *= 2;
    }
    inversions
}

/// Kendall statistics of one group under several weightings (each observation counted
/// `weight` times, as a bootstrap resample does): per weighting
/// `[discordant, x_tied, y_tied, xy_tied, distinct_x, distinct_y, n]` as floats
/// (integers when the weights are). The sort by (x, y) is done once for all weightings.
pub fn weighted_group_stats(
    x: &[f64],
    y: &[f64],
    weightings: &[&[f64]],
) -> Vec<[f64; WEIGHTED_COLUMNS]> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    let keys: Vec<(u64, u64)> = x.iter().zip(y).map(|(&a, &b)| (key(a), key(b))).collect();
    order.sort_unstable_by_key(|&i| keys[i]);
    weightings
        .iter()
        .map(|weights| {
            // observations drawn zero times take no part: drop them before counting
            let kept: Vec<usize> = order
                .iter()
                .copied()
                .filter(|&i| weights[i] > 0.0)
                .collect();
            let sorted: Vec<(u64, u64)> = kept.iter().map(|&i| keys[i]).collect();
            let mut w: Vec<f64> = kept.iter().map(|&i| weights[i]).collect();
            let n: f64 = w.iter().sum();
            let xs: Vec<u64> = sorted.iter().map(|p| p.0).collect();
            let (x_tied, distinct_x) = weighted_runs(&run_boundaries(&xs), &w);
            let (xy_tied, _) = weighted_runs(&run_boundaries(&sorted), &w);
            let mut ys: Vec<u64> = sorted.iter().map(|p| p.1).collect();
            let discordant = sort_counting_weighted_inversions(&mut ys, &mut w);
            let (y_tied, distinct_y) = weighted_runs(&run_boundaries(&ys), &w);
            [
                discordant, x_tied, y_tied, xy_tied, distinct_x, distinct_y, n,
            ]
        })
        .collect()
}

/// [`weighted_group_stats`] of every group under every row of `weights`
/// (`rows x len`, row-major): flattened in (row, group) order.
pub fn batch_weighted_group_stats(
    x: &[f64],
    y: &[f64],
    ranges: &[(usize, usize)],
    weights: &[f64],
    rows: usize,
) -> Vec<f64> {
    crate::common::parallel::install(|| {
        let len = x.len();
        let per_group: Vec<Vec<[f64; WEIGHTED_COLUMNS]>> = ranges
            .par_iter()
            .map(|&(start, end)| {
                let weightings: Vec<&[f64]> = (0..rows)
                    .map(|r| &weights[r * len + start..r * len + end])
                    .collect();
                weighted_group_stats(&x[start..end], &y[start..end], &weightings)
            })
            .collect();
        let mut out = Vec::with_capacity(rows * ranges.len() * WEIGHTED_COLUMNS);
        for r in 0..rows {
            for group in &per_group {
                out.extend_from_slice(&group[r]);
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_force(x: &[f64], y: &[f64]) -> [i64; COLUMNS] {
        let mut row = [0i64; COLUMNS];
        for i in 0..x.len() {
            for j in (i + 1)..x.len() {
                let dx = x[i] - x[j];
                let dy = y[i] - y[j];
                if dx * dy < 0.0 {
                    row[0] += 1;
                }
                row[1] += (dx == 0.0) as i64;
                row[2] += (dy == 0.0) as i64;
                row[3] += (dx == 0.0 && dy == 0.0) as i64;
            }
        }
        let distinct = |v: &[f64]| {
            let mut s = v.to_vec();
            s.sort_by(|a, b| a.partial_cmp(b).unwrap());
            s.dedup();
            s.len() as i64
        };
        row[4] = distinct(x);
        row[5] = distinct(y);
        row
    }

    /// A small deterministic generator (no external crates).
    fn sequence(seed: u64, n: usize, levels: u64) -> Vec<f64> {
        let mut state = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 33) % levels) as f64
            })
            .collect()
    }

    #[test]
    fn matches_brute_force_with_and_without_ties() {
        for (seed, n, levels) in [
            (1, 0, 3),
            (2, 1, 3),
            (3, 2, 2),
            (4, 17, 3),
            (5, 64, 1000),
            (6, 101, 5),
        ] {
            let x = sequence(seed, n, levels);
            let y = sequence(seed + 100, n, levels);
            assert_eq!(group_stats(&x, &y).0, brute_force(&x, &y), "seed {seed}");
        }
    }

    #[test]
    fn negative_zero_equals_zero() {
        let (row, _) = group_stats(&[0.0, -0.0, 1.0], &[1.0, 2.0, 3.0]);
        assert_eq!(row, [0, 1, 0, 0, 2, 3]);
        let (row, _) = group_stats(&[-2.5, -1.0, 3.0], &[1e300, -1e-300, -7.0]);
        assert_eq!(row[0], 3);
    }

    #[test]
    fn reversed_order_is_fully_discordant() {
        let x: Vec<f64> = (0..50).map(f64::from).collect();
        let y: Vec<f64> = x.iter().rev().copied().collect();
        assert_eq!(group_stats(&x, &y).0[0], 50 * 49 / 2);
    }

    #[test]
    fn tie_sums_count_runs() {
        // x: runs of 3 and 2 equal values, and a single one; y: no ties
        let (_, sums) = group_stats(
            &[2.0, 1.0, 2.0, 1.0, 2.0, 5.0],
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        );
        assert_eq!(sums, [6.0, 3.0 * 2.0 * 11.0 + 2.0 * 9.0, 0.0, 0.0]);
    }

    #[test]
    fn batches_follow_offsets_and_reject_bad_ones() {
        let x = [1.0, 2.0, 3.0, 3.0, 2.0, 1.0];
        let y = [1.0, 2.0, 3.0, 1.0, 2.0, 3.0];
        let ranges = group_ranges(&[0, 3, 6], 6).unwrap();
        let (flat, sums) = batch_group_stats(&x, &y, &ranges);
        assert_eq!(flat, vec![0, 0, 0, 0, 3, 3, 3, 0, 0, 0, 3, 3]);
        assert_eq!(sums, vec![0.0; 8]);
        assert!(group_ranges(&[0, 7], 6).is_err());
        assert!(group_ranges(&[3, 1], 6).is_err());
    }

    #[test]
    fn weights_equal_repeating_observations() {
        let x = sequence(7, 40, 4);
        let y = sequence(8, 40, 5);
        let weights: Vec<f64> = sequence(9, 40, 3);
        let mut xr = Vec::new();
        let mut yr = Vec::new();
        for i in 0..40 {
            for _ in 0..weights[i] as usize {
                xr.push(x[i]);
                yr.push(y[i]);
            }
        }
        let (expanded, _) = group_stats(&xr, &yr);
        let weighted = weighted_group_stats(&x, &y, &[&weights])[0];
        let expected: Vec<f64> = expanded.iter().map(|&v| v as f64).collect();
        assert_eq!(weighted[..6].to_vec(), expected);
        assert_eq!(weighted[6], xr.len() as f64);
        let ones = vec![1.0; 40];
        let plain = weighted_group_stats(&x, &y, &[&ones])[0];
        let (counts, _) = group_stats(&x, &y);
        assert_eq!(
            plain[..6].to_vec(),
            counts.iter().map(|&v| v as f64).collect::<Vec<_>>()
        );
    }

    #[test]
    fn weighted_batches_are_row_then_group() {
        let x = [1.0, 2.0, 3.0, 1.0, 2.0];
        let y = [3.0, 2.0, 1.0, 1.0, 2.0];
        let weights = [1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 0.0, 1.0, 1.0, 1.0];
        let flat = batch_weighted_group_stats(&x, &y, &[(0, 3), (3, 5)], &weights, 2);
        assert_eq!(flat.len(), 2 * 2 * WEIGHTED_COLUMNS);
        assert_eq!(flat[0], 3.0); // row 0, group 0: fully discordant
        assert_eq!(flat[WEIGHTED_COLUMNS], 0.0); // row 0, group 1: concordant
        assert_eq!(flat[2 * WEIGHTED_COLUMNS], 2.0); // row 1, group 0: x=1 twice, x=3 once
        assert_eq!(flat[2 * WEIGHTED_COLUMNS + 6], 3.0);
    }
}
