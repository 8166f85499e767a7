//! METEOR 1.5's score of sufficient statistics (`computeMetrics`) and a corpus's
//! totals: each segment keeps its best reference's row, a perfectly matched
//! segment adds no chunks, and the rows are summed.
//!
//! A row is [`super::align::Counts::row`]: lengths, function words, per module
//! the hypothesis/reference content/function matches, then chunks. The formula
//! is the one `nlpeval.metrics.meteor.METEOR` scores with, operation for
//! operation in METEOR's order (so the same bits as the jar's doubles).

/// METEOR's parameters and module weights (one per module of the rows).
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    pub delta: f64,
    pub weights: Vec<f64>,
}

/// The score of a row and the parts `METEOR.components` reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Parts {
    pub score: f64,
    pub precision: f64,
    pub recall: f64,
    pub fmean: f64,
    pub penalty: f64,
    pub hyp_matches: f64,
    pub ref_matches: f64,
}

impl Parts {
    /// The parts in the order of [`Parts::COLUMNS`].
    pub fn to_array(self) -> [f64; 7] {
        [
            self.score,
            self.precision,
            self.recall,
            self.fmean,
            self.penalty,
            self.hyp_matches,
            self.ref_matches,
        ]
    }

    /// Number of values in [`Parts::to_array`].
    pub const COLUMNS: usize = 7;
}

/// The width of a row with `modules` modules (without the reference-count columns).
pub fn row_width(modules: usize) -> usize {
    5 + 4 * modules
}

/// METEOR 1.5's `computeMetrics` of one row (`row.len() >= row_width(weights.len())`).
pub fn parts(row: &[f64], p: &Params) -> Parts {
    let k = p.weights.len();
    let (hyp_len, ref_len, hyp_function, ref_function) = (row[0], row[1], row[2], row[3]);
    let module = |i: usize, part: usize| row[4 + 4 * i + part];
    let chunks = row[4 + 4 * k];
    let delta = p.delta;
    let hyp_wlen = delta * (hyp_len - hyp_function) + (1.0 - delta) * hyp_function;
    let ref_wlen = delta * (ref_len - ref_function) + (1.0 - delta) * ref_function;
    let (mut hyp_wmatch, mut ref_wmatch) = (0.0, 0.0);
    for (i, &w) in p.weights.iter().enumerate() {
        hyp_wmatch += module(i, 0) * w * delta;
    }
    for (i, &w) in p.weights.iter().enumerate() {
        ref_wmatch += module(i, 1) * w * delta;
    }
    for (i, &w) in p.weights.iter().enumerate() {
        hyp_wmatch += module(i, 2) * w * (1.0 - delta);
    }
    for (i, &w) in p.weights.iter().enumerate() {
        ref_wmatch += module(i, 3) * w * (1.0 - delta);
    }
    let (mut hyp_matches, mut ref_matches) = (0.0, 0.0);
    for i in 0..k {
        hyp_matches += module(i, 0) + module(i, 2);
        ref_matches += module(i, 1) + module(i, 3);
    }
    let precision = hyp_wmatch / hyp_wlen;
    let recall = ref_wmatch / ref_wlen;
    let fmean = 1.0 / ((1.0 - p.alpha) / precision + p.alpha / recall);
    let perfect = hyp_matches == hyp_len && ref_matches == ref_len && chunks == 1.0;
    let frag = if perfect {
        0.0
    } else {
        chunks / ((hyp_matches + ref_matches) / 2.0)
    };
    let penalty = p.gamma * frag.powf(p.beta);
    let raw = fmean * (1.0 - penalty);
    // NumPy's `maximum(score, 0.0)` keeps `score` when `score >= 0.0`
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    let score = if raw.is_nan() || !(raw >= 0.0) {
        0.0
    } else {
        raw
    };
    Parts {
        score,
        precision,
        recall,
        fmean,
        penalty,
        hyp_matches,
        ref_matches,
    }
}

/// Whether an integer row is a perfect match (every word matched, one chunk).
pub fn is_perfect(row: &[i64], modules: usize) -> bool {
    let (mut hyp, mut reference) = (0i64, 0i64);
    for i in 0..modules {
        hyp += row[4 + 4 * i] + row[4 + 4 * i + 2];
        reference += row[4 + 4 * i + 1] + row[4 + 4 * i + 3];
    }
    hyp == row[0] && reference == row[1] && row[4 + 4 * modules] == 1
}

/// The corpus totals of pair rows (`counts[s]` consecutive pairs per segment,
/// each `row_width` wide): the first best-scoring reference's row per segment,
/// chunks zeroed for a perfect match, summed; then the least and most references.
pub fn totals(rows: &[Vec<i64>], counts: &[usize], p: &Params) -> Vec<i64> {
    let k = p.weights.len();
    let width = row_width(k);
    let mut out = vec![0i64; width];
    let mut start = 0;
    let mut row_f = vec![0.0; width];
    for &count in counts {
        let mut best: Option<(usize, f64)> = None;
        for (j, row) in rows[start..start + count].iter().enumerate() {
            let score = if count == 1 {
                0.0
            } else {
                row_f.iter_mut().zip(row).for_each(|(f, &v)| *f = v as f64);
                parts(&row_f, p).score
            };
            if best.is_none_or(|(_, s)| score > s) {
                best = Some((j, score));
            }
        }
        if let Some((j, _)) = best {
            let row = &rows[start + j];
            let perfect = is_perfect(row, k);
            for (c, (o, &v)) in out.iter_mut().zip(row).enumerate() {
                if !(perfect && c == width - 1) {
                    *o += v;
                }
            }
        }
        start += count;
    }
    let min = counts.iter().copied().min().unwrap_or(0) as i64;
    let max = counts.iter().copied().max().unwrap_or(0) as i64;
    out.extend([min, max]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rank() -> Params {
        Params {
            alpha: 0.85,
            beta: 0.2,
            gamma: 0.6,
            delta: 0.75,
            weights: vec![1.0, 0.6],
        }
    }

    #[test]
    fn perfect_row_has_no_penalty() {
        // 3 words each side, all exact content matches, one chunk
        let row = [3, 3, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 1];
        let f: Vec<f64> = row.iter().map(|&v| v as f64).collect();
        let parts = parts(&f, &rank());
        assert_eq!(parts.penalty, 0.0);
        assert_eq!(parts.score, 1.0);
        assert!(is_perfect(&row, 2));
    }

    #[test]
    fn empty_row_scores_zero() {
        let f = [0.0; 13];
        assert_eq!(parts(&f, &rank()).score, 0.0);
    }

    #[test]
    fn totals_keep_the_first_best_reference_and_drop_perfect_chunks() {
        let worse = vec![3, 3, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1];
        let perfect = vec![3, 3, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 1];
        let rows = vec![
            worse.clone(),
            perfect.clone(),
            perfect.clone(),
            worse.clone(),
        ];
        let t = totals(&rows, &[2, 2], &rank());
        assert_eq!(t, vec![6, 6, 0, 0, 6, 6, 0, 0, 0, 0, 0, 0, 0, 2, 2]);
        let t = totals(std::slice::from_ref(&worse), &[1], &rank());
        assert_eq!(t, [worse, vec![1, 1]].concat());
    }
}
