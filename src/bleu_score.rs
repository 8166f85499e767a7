//! sacreBLEU's BLEU formula on one statistics row, for the pairwise matrix only.
//!
//! The corpus and segment scores are computed in Python (`sacrebleu_values`,
//! vectorised over rows); an `n x m` MBR matrix has millions of rows, so its
//! sentence scores are computed here, next to the statistics, without
//! materialising them. The steps mirror sacreBLEU's `BLEU.compute_bleu`
//! (0–100 scale, `my_log` floor) and tests pin the two implementations together.

use crate::ngram::LENGTH_COLUMNS;

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

const LOG_ZERO: f64 = -9_999_999_999.0;

/// BLEU on the 0–1 scale of one row `[hyp_len, ref_len, _, correct.., total..]`.
pub fn bleu(row: &[i64], max_order: usize, smoothing: Smoothing, effective_order: bool) -> f64 {
    let sys_len = row[0] as f64;
    let ref_len = row[1] as f64;
    let correct_row = &row[LENGTH_COLUMNS..LENGTH_COLUMNS + max_order];
    let total_row = &row[LENGTH_COLUMNS + max_order..LENGTH_COLUMNS + 2 * max_order];
    if correct_row.iter().all(|&c| c == 0) {
        return 0.0;
    }
    let bp = if sys_len < ref_len {
        if sys_len > 0.0 {
            (1.0 - ref_len / sys_len).exp()
        } else {
            0.0
        }
    } else {
        1.0
    };
    let mut smooth_mteval = 1.0;
    let mut eff_order = max_order;
    let mut log_sum = 0.0;
    let mut used = 0;
    for n in 0..max_order {
        let (mut correct, mut total) = (correct_row[n] as f64, total_row[n] as f64);
        if let Smoothing::AddK(k) = smoothing {
            if n > 0 {
                correct += k;
                total += k;
            }
        }
        if total == 0.0 {
            break;
        }
        if effective_order {
            eff_order = n + 1;
        }
        let precision = if correct == 0.0 {
            match smoothing {
                Smoothing::Exp => {
                    smooth_mteval *= 2.0;
                    100.0 / (smooth_mteval * total)
                }
                Smoothing::Floor(value) => 100.0 * value / total,
                _ => 0.0,
            }
        } else {
            100.0 * correct / total
        };
        log_sum += if precision > 0.0 {
            precision.ln()
        } else {
            LOG_ZERO
        };
        used = n + 1;
    }
    // orders after a break count as log(0) when they are inside the effective order
    log_sum += LOG_ZERO * eff_order.saturating_sub(used) as f64;
    bp * (log_sum / eff_order as f64).exp() / 100.0
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
