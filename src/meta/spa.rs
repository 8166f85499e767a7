//! The counting step of mt-metrics-eval's `pce.compute_pairwise_p_values`: for every pair of
//! systems `i < j` (in `np.triu_indices` order), the permutations whose float32 difference
//! `partial[p, i] - partial[p, j]` reaches the observed `totals[i] - totals[j]`.

/// `partial` is `perms x (mats * systems)` (row-major; matrix `m`'s systems are columns
/// `m * systems ..`), `totals` is `mats x systems`; returns `mats x pairs` counts.
pub fn pair_counts(partial: &[f32], totals: &[f32], systems: usize) -> Result<Vec<i64>, String> {
    if systems == 0 || !totals.len().is_multiple_of(systems) {
        return Err(format!(
            "{} totals are not whole rows of {systems} systems",
            totals.len()
        ));
    }
    let cols = totals.len();
    if cols == 0 || !partial.len().is_multiple_of(cols) {
        return Err(format!(
            "{} partial sums are not whole rows of {cols} columns",
            partial.len()
        ));
    }
    let mats = cols / systems;
    let pairs: Vec<(usize, usize)> = (0..systems)
        .flat_map(|i| (i + 1..systems).map(move |j| (i, j)))
        .collect();
    let observed: Vec<f32> = (0..mats)
        .flat_map(|m| pairs.iter().map(move |&(i, j)| (m, i, j)))
        .map(|(m, i, j)| totals[m * systems + i] - totals[m * systems + j])
        .collect();
    let mut counts = vec![0i64; mats * pairs.len()];
    for row in partial.chunks_exact(cols) {
        for m in 0..mats {
            let sums = &row[m * systems..(m + 1) * systems];
            let base = m * pairs.len();
            for (k, &(i, j)) in pairs.iter().enumerate() {
                counts[base + k] += i64::from(sums[i] - sums[j] >= observed[base + k]);
            }
        }
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_pair_and_matrix() {
        // 2 permutations, 2 matrices of 3 systems
        let partial = [1.0, 0.0, 2.0, 5.0, 5.0, 5.0, -1.0, 3.0, 0.5, 0.0, 1.0, 2.0];
        let totals = [1.0, 1.0, 0.0, 1.0, 0.0, 0.0];
        let counts = pair_counts(&partial, &totals, 3).unwrap();
        // matrix 0, observed (0, 1, 1): p0 diffs (1, -1, -2), p1 diffs (-4, -1.5, 2.5)
        // matrix 1, observed (1, 1, 0): p0 diffs (0, 0, 0), p1 diffs (-1, -2, -1)
        assert_eq!(counts, vec![1, 0, 1, 0, 0, 1]);
    }

    #[test]
    fn float32_rounding_decides() {
        // 16777218 - (-1) = 16777219 is not a float32: it rounds (to even) to 16777220, which
        // reaches the observed 16777220 although the exact difference does not
        let partial = [16_777_218.0f32, -1.0];
        let totals = [16_777_220.0f32, 0.0];
        assert_eq!(pair_counts(&partial, &totals, 2).unwrap(), vec![1]);
    }

    #[test]
    fn bad_shapes() {
        assert!(pair_counts(&[0.0; 5], &[0.0; 2], 2).is_err());
        assert!(pair_counts(&[0.0; 4], &[0.0; 3], 2).is_err());
        assert!(pair_counts(&[], &[], 0).is_err());
    }
}
