//! sacreBLEU's BLEU formula on one statistics row: corpus totals, sentence scores
//! (`sentence_scores`) and the pairwise matrix, whose millions of rows are scored
//! next to the statistics without materialising them. The steps mirror sacreBLEU's
//! `BLEU.compute_bleu` (0–100 scale, `my_log` floor) with the C library's `log`/`exp`
//! (those of Python's `math`), so the same bits; tests pin it to sacreBLEU and to the
//! vectorised Python formula.

use crate::bleu::ngram::LENGTH_COLUMNS;

/// sacreBLEU's smoothing methods with their values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Smoothing {
    /// NIST geometric sequence (`exp`).
    Exp,
    /// A fixed count for zero matches (`floor`).
    Floor(f64),
    /// Add `k` to matches and totals of orders above one (`add-k`).
    AddK(f64),
    /// No smoothing.
    None,
}

impl Smoothing {
    /// From sacreBLEU's name and value (`None` value: sacreBLEU's default).
    pub fn from_name(name: &str, value: Option<f64>) -> Option<Smoothing> {
        match name {
            "exp" => Some(Smoothing::Exp),
            "floor" => Some(Smoothing::Floor(value.unwrap_or(0.1))),
            "add-k" => Some(Smoothing::AddK(value.unwrap_or(1.0))),
            "none" => Some(Smoothing::None),
            _ => None,
        }
    }
}

/// sacreBLEU's floor for `log(0)` (`my_log`).
pub const LOG_ZERO: f64 = -9_999_999_999.0;

/// BLEU of one statistics row `[hyp_len, ref_len.., correct_1..N, total_1..N, ..]`
/// (`N = precisions.len()`, `ref_len_column` the reference length used) on
/// sacreBLEU's 0–100 scale, as `BLEU.compute_bleu`: returns `(score, brevity penalty)`
/// and writes the precisions (0–100; all zero when nothing matched) into `precisions`.
pub fn bleu_parts(
    row: &[i64],
    ref_len_column: usize,
    smoothing: Smoothing,
    effective_order: bool,
    precisions: &mut [f64],
) -> (f64, f64) {
    let max_order = precisions.len();
    let (sys_len, ref_len) = (row[0] as f64, row[ref_len_column] as f64);
    let correct = &row[LENGTH_COLUMNS..LENGTH_COLUMNS + max_order];
    let total = &row[LENGTH_COLUMNS + max_order..LENGTH_COLUMNS + 2 * max_order];
    let bp = if sys_len < ref_len {
        if sys_len > 0.0 {
            (1.0 - ref_len / sys_len).exp()
        } else {
            0.0
        }
    } else {
        1.0
    };
    precisions.fill(0.0);
    if correct.iter().all(|&c| c == 0) {
        return (0.0, bp);
    }
    let mut smooth_mteval = 1.0;
    let mut eff_order = max_order;
    for n in 0..max_order {
        let (mut c, mut t) = (correct[n] as f64, total[n] as f64);
        if let Smoothing::AddK(k) = smoothing {
            if n > 0 {
                c += k;
                t += k;
            }
        }
        if t == 0.0 {
            break;
        }
        if effective_order {
            eff_order = n + 1;
        }
        if c == 0.0 {
            match smoothing {
                Smoothing::Exp => {
                    smooth_mteval *= 2.0;
                    precisions[n] = 100.0 / (smooth_mteval * t);
                }
                Smoothing::Floor(value) => precisions[n] = 100.0 * value / t,
                _ => {}
            }
        } else {
            precisions[n] = 100.0 * c / t;
        }
    }
    // sequential, as Python's sum() of floats (3.11) and NumPy's sum of fewer than 8 values
    let mut log_sum = 0.0;
    for &p in &precisions[..eff_order] {
        log_sum += if p > 0.0 { p.ln() } else { LOG_ZERO };
    }
    (bp * (log_sum / eff_order as f64).exp(), bp)
}

/// BLEU on the 0–1 scale of one row `[hyp_len, ref_len, _, correct.., total..]`
/// (the pairwise matrix's score: [`bleu_parts`] without the precisions).
pub fn bleu(row: &[i64], max_order: usize, smoothing: Smoothing, effective_order: bool) -> f64 {
    let mut stack = [0.0f64; 16];
    let mut heap = Vec::new();
    let precisions = if max_order <= stack.len() {
        &mut stack[..max_order]
    } else {
        heap.resize(max_order, 0.0);
        &mut heap[..]
    };
    bleu_parts(row, 1, smoothing, effective_order, precisions).0 / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_sentences_score_one() {
        let row = [4, 4, 4, 4, 3, 2, 1, 4, 3, 2, 1];
        assert!((bleu(&row, 4, Smoothing::Exp, true) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn exp_smoothing_of_the_worked_example() {
        // 5/7, 3/6, 1/5, 0/4 -> exp smoothing gives the last order 1 / (2 * 4)
        let row = [7, 7, 7, 5, 3, 1, 0, 7, 6, 5, 4];
        let expected = ((5.0f64 / 7.0).ln() + 0.5f64.ln() + 0.2f64.ln() + 0.125f64.ln()) / 4.0;
        assert!((bleu(&row, 4, Smoothing::Exp, true) - expected.exp()).abs() < 1e-12);
        assert_eq!(bleu(&row, 4, Smoothing::None, true), 0.0);
    }

    #[test]
    fn effective_order_stops_at_orders_without_ngrams() {
        // a two-token hypothesis: orders 3 and 4 have no n-grams at all
        let row = [2, 2, 2, 2, 1, 0, 0, 2, 1, 0, 0];
        assert!((bleu(&row, 4, Smoothing::Exp, true) - 1.0).abs() < 1e-12);
        assert!(bleu(&row, 4, Smoothing::Exp, false) < 1e-300);
    }
}
