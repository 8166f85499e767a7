//! The inner loop of Card et al.'s BLEU.ipynb, draw for draw: per randomization
//! `rands = np.random.rand(N)`, `sel = rands > 0.5` and `np.sum(samples * sel)`.

use super::mt::{select, Mt19937};

/// NumPy's pairwise summation of float64 (`DOUBLE_pairwise_sum`: blocks of at most 128
/// values over 8 accumulators, halves at multiples of 8 above that).
pub fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &x in a {
            res += x;
        }
        res
    } else if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&a[..8]);
        let whole = n - n % 8;
        for chunk in a[8..whole].chunks_exact(8) {
            for j in 0..8 {
                r[j] += chunk[j];
            }
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &x in &a[whole..] {
            res += x;
        }
        res
    } else {
        let mut half = n / 2;
        half -= half % 8;
        pairwise_sum(&a[..half]) + pairwise_sum(&a[half..])
    }
}

/// `np.sum(x)` of a contiguous float64 vector (the reduction starts from the identity 0.0).
pub fn numpy_sum(a: &[f64]) -> f64 {
    0.0 + pairwise_sum(a)
}

/// `out[r] = np.sum(samples * (rand(len(samples)) > threshold))` for each row `r`, drawing
/// the uniforms from `gen` in the notebook's order.
pub fn swap_effects(gen: &mut Mt19937, samples: &[f64], threshold: f64, out: &mut [f64]) {
    let n = samples.len();
    let mut words = vec![0u32; 2 * n];
    let mut products = vec![0.0f64; n];
    for effect in out.iter_mut() {
        gen.fill_u32(&mut words);
        select(&words, samples, threshold, &mut products);
        *effect = numpy_sum(&products);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairwise_small_and_split() {
        assert_eq!(numpy_sum(&[]), 0.0);
        assert_eq!(numpy_sum(&[1.0, 2.0, 3.0]), 6.0);
        let ints: Vec<f64> = (0..300).map(f64::from).collect();
        assert_eq!(numpy_sum(&ints), 44_850.0);
        // 300 values: blocks [0, 72), [72, 144), [144, 216), [216, 300); each 1.0 shares an
        // accumulator with a 1e16 of its block and is lost there (1e16 + 1 rounds to 1e16)
        let mut v = vec![0.0; 300];
        v[0] = 1e16;
        v[8] = 1.0;
        v[200] = -1e16;
        v[208] = 1.0;
        assert_eq!(numpy_sum(&v), 0.0);
        // a left-to-right sum keeps the second 1.0 (added after -1e16 cancelled 1e16)
        assert_eq!(v.iter().sum::<f64>(), 1.0);
    }
}
