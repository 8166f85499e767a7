//! Scores of statistics rows: sacreBLEU's BLEU (`BLEU.compute_bleu`) and chrF
//! (`CHRF._compute_f_score`) formulas, for sentence-level calls and corpus totals.
//!
//! A training loop scores 8-16 segments per call; evaluated in Python, the formulas
//! cost more than computing the statistics. Here they run on the rows the statistics
//! kernels return. sacreBLEU computes with Python floats and `math.log`/`math.exp`
//! (the C library's `log`/`exp`, which `f64::ln`/`f64::exp` call too), so the same
//! IEEE operations in the same order give the same bits; the Python tests pin these
//! functions to the vectorised Python formulas and to sacreBLEU.

use crate::bleu::score::{bleu_parts as bleu, Smoothing};
use crate::chrf::f_score_parts as chrf;
use crate::common::py::value_error;
use numpy::ndarray::{ArrayView1, ArrayView2};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyListMethods};

/// Largest `max_order` scored here: NumPy's sum over 8 or more orders is pairwise, not
/// sequential, so the Python formula keeps larger orders.
pub const MAX_BLEU_ORDER: usize = 7;

fn smoothing_from(smooth: &str, smooth_value: Option<f64>) -> PyResult<Smoothing> {
    Smoothing::from_name(smooth, smooth_value)
        .ok_or_else(|| value_error(format!("unknown smoothing {smooth:?}")))
}

fn check_width(width: usize, needed: usize) -> PyResult<()> {
    if width < needed {
        return Err(value_error(format!(
            "statistics rows have {width} columns; the formula reads {needed}"
        )));
    }
    Ok(())
}

fn check_bleu(max_order: usize, ref_len_column: usize, width: usize) -> PyResult<()> {
    if max_order == 0 || max_order > MAX_BLEU_ORDER || !(1..3).contains(&ref_len_column) {
        return Err(value_error(format!(
            "max_order must be in 1..={MAX_BLEU_ORDER} and ref_len_column 1 or 2"
        )));
    }
    check_width(width, 3 + 2 * max_order)
}

/// `score(row) / divisor` of every row of `rows`, borrowing contiguous rows.
fn map_rows(rows: ArrayView2<'_, i64>, mut score: impl FnMut(&[i64]) -> f64) -> Vec<f64> {
    let mut copy = Vec::new();
    rows.outer_iter()
        .map(|row: ArrayView1<'_, i64>| match row.as_slice() {
            Some(slice) => score(slice),
            None => {
                copy.clear();
                copy.extend(row.iter().copied());
                score(&copy)
            }
        })
        .collect()
}

fn row_vec(row: ArrayView1<'_, i64>) -> Vec<i64> {
    row.iter().copied().collect()
}

/// One totals vector given as a list of ints (NumPy is then never imported: `nlpeval
/// score`'s NumPy-free path) or as a 1-D int64 array.
fn totals_vec(totals: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if totals.is_instance_of::<PyList>() {
        return totals.extract();
    }
    let array: PyReadonlyArray1<'_, i64> = totals.extract()?;
    Ok(row_vec(array.as_array()))
}

/// Sentence BLEU of every statistics row (0–100 divided by `divisor`).
#[pyfunction]
#[pyo3(signature = (rows, max_order, smooth, smooth_value, effective_order, ref_len_column=1, divisor=1.0))]
#[allow(clippy::too_many_arguments)]
pub fn bleu_row_scores<'py>(
    py: Python<'py>,
    rows: PyReadonlyArray2<'py, i64>,
    max_order: usize,
    smooth: &str,
    smooth_value: Option<f64>,
    effective_order: bool,
    ref_len_column: usize,
    divisor: f64,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let smoothing = smoothing_from(smooth, smooth_value)?;
    let rows = rows.as_array();
    check_bleu(max_order, ref_len_column, rows.ncols())?;
    let mut precisions = [0.0; MAX_BLEU_ORDER];
    let scores = map_rows(rows, |row| {
        let precisions = &mut precisions[..max_order];
        bleu(row, ref_len_column, smoothing, effective_order, precisions).0 / divisor
    });
    Ok(PyArray1::from_vec(py, scores))
}

/// BLEU of one totals vector (a list or a 1-D int64 array): `(score, precisions, brevity
/// penalty)`, 0–100 scale.
#[pyfunction]
#[pyo3(signature = (totals, max_order, smooth, smooth_value, effective_order, ref_len_column=1))]
pub fn bleu_totals_values(
    totals: &Bound<'_, PyAny>,
    max_order: usize,
    smooth: &str,
    smooth_value: Option<f64>,
    effective_order: bool,
    ref_len_column: usize,
) -> PyResult<(f64, Vec<f64>, f64)> {
    let smoothing = smoothing_from(smooth, smooth_value)?;
    let totals = totals_vec(totals)?;
    check_bleu(max_order, ref_len_column, totals.len())?;
    let mut precisions = vec![0.0; max_order];
    let (score, bp) = bleu(
        &totals,
        ref_len_column,
        smoothing,
        effective_order,
        &mut precisions,
    );
    Ok((score, precisions, bp))
}

fn check_chrf(orders: usize, width: usize) -> PyResult<()> {
    if orders == 0 {
        return Err(value_error("chrF needs at least one order"));
    }
    check_width(width, 3 * orders)
}

/// Sentence chrF of every statistics row (0–100 divided by `divisor`).
#[pyfunction]
#[pyo3(signature = (rows, orders, factor, eps_smoothing, divisor=1.0))]
pub fn chrf_row_scores<'py>(
    py: Python<'py>,
    rows: PyReadonlyArray2<'py, i64>,
    orders: usize,
    factor: f64,
    eps_smoothing: bool,
    divisor: f64,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let rows = rows.as_array();
    check_chrf(orders, rows.ncols())?;
    let scores = map_rows(rows, |row| {
        chrf(&row[..3 * orders], factor, eps_smoothing, None).0 / divisor
    });
    Ok(PyArray1::from_vec(py, scores))
}

/// `(score, precision, recall, precisions, recalls)` of chrF.
type ChrfParts = (f64, f64, f64, Vec<f64>, Vec<f64>);

/// chrF of one totals vector (a list or a 1-D int64 array): `(score, precision, recall,
/// precisions, recalls)`.
#[pyfunction]
pub fn chrf_totals_parts(
    totals: &Bound<'_, PyAny>,
    orders: usize,
    factor: f64,
    eps_smoothing: bool,
) -> PyResult<ChrfParts> {
    let totals = totals_vec(totals)?;
    check_chrf(orders, totals.len())?;
    let (mut precisions, mut recalls) = (vec![0.0; orders], vec![0.0; orders]);
    let (score, precision, recall) = chrf(
        &totals[..3 * orders],
        factor,
        eps_smoothing,
        Some((&mut precisions, &mut recalls)),
    );
    Ok((score, precision, recall, precisions, recalls))
}

/// Column totals of statistics rows laid out as `[summed.., nrefs_min, nrefs_max]` (the BLEU
/// and chrF schemas): sums (wrapping, as NumPy's), then the minimum and maximum of the
/// reference counts.
fn schema_totals(rows: ArrayView2<'_, i64>, summed: usize) -> PyResult<Vec<i64>> {
    if rows.ncols() != summed + 2 || rows.nrows() == 0 {
        return Err(value_error(format!(
            "expected a non-empty batch of rows with {} columns",
            summed + 2
        )));
    }
    let mut totals = vec![0i64; summed + 2];
    totals[summed] = i64::MAX;
    totals[summed + 1] = i64::MIN;
    for row in rows.outer_iter() {
        for (total, &value) in totals[..summed].iter_mut().zip(row.iter()) {
            *total = total.wrapping_add(value);
        }
        totals[summed] = totals[summed].min(row[summed]);
        totals[summed + 1] = totals[summed + 1].max(row[summed + 1]);
    }
    Ok(totals)
}

/// What a BLEU score reports (see [`bleu_summary`]).
type BleuSummary<'py> = (
    f64,
    Vec<f64>,
    f64,
    Vec<i64>,
    Option<Bound<'py, PyArray1<f64>>>,
);

/// A batch's BLEU in one call, from its rows `[hyp_len, ref_len_closest, ref_len_shortest,
/// correct.., total.., nrefs_min, nrefs_max]`: the corpus score of the merged rows
/// (0–1), its precisions (0–1) and brevity penalty, the merged rows, and with `segments`
/// each row's sentence BLEU (0–1, effective order), as the Python path computes them.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn bleu_summary<'py>(
    py: Python<'py>,
    rows: PyReadonlyArray2<'py, i64>,
    max_order: usize,
    smooth: &str,
    smooth_value: Option<f64>,
    effective_order: bool,
    segments: bool,
) -> PyResult<BleuSummary<'py>> {
    let smoothing = smoothing_from(smooth, smooth_value)?;
    let rows = rows.as_array();
    check_bleu(max_order, 1, rows.ncols())?;
    let totals = schema_totals(rows, 3 + 2 * max_order)?;
    let mut precisions = vec![0.0; max_order];
    let (score, bp) = bleu(&totals, 1, smoothing, effective_order, &mut precisions);
    for p in precisions.iter_mut() {
        *p /= 100.0;
    }
    let values = segments.then(|| {
        let mut scratch = [0.0; MAX_BLEU_ORDER];
        let scores = map_rows(rows, |row| {
            bleu(row, 1, smoothing, true, &mut scratch[..max_order]).0 / 100.0
        });
        PyArray1::from_vec(py, scores)
    });
    Ok((score / 100.0, precisions, bp, totals, values))
}

/// What a chrF score reports (see [`chrf_summary`]).
type ChrfSummary<'py> = (
    (f64, f64, f64),
    Vec<f64>,
    Vec<f64>,
    Vec<i64>,
    Option<Bound<'py, PyArray1<f64>>>,
);

/// A batch's chrF in one call, from its rows `[hyp, ref, match].. nrefs_min, nrefs_max`:
/// `(score (0–1), precision, recall)` of the merged rows, their per-order precisions and
/// recalls, the merged rows, and with `segments` each row's sentence chrF (0–1).
#[pyfunction]
pub fn chrf_summary<'py>(
    py: Python<'py>,
    rows: PyReadonlyArray2<'py, i64>,
    orders: usize,
    factor: f64,
    eps_smoothing: bool,
    segments: bool,
) -> PyResult<ChrfSummary<'py>> {
    let rows = rows.as_array();
    check_chrf(orders, rows.ncols())?;
    let totals = schema_totals(rows, 3 * orders)?;
    let (mut precisions, mut recalls) = (vec![0.0; orders], vec![0.0; orders]);
    let (score, precision, recall) = chrf(
        &totals[..3 * orders],
        factor,
        eps_smoothing,
        Some((&mut precisions, &mut recalls)),
    );
    let values = segments.then(|| {
        let scores = map_rows(rows, |row| {
            chrf(&row[..3 * orders], factor, eps_smoothing, None).0 / 100.0
        });
        PyArray1::from_vec(py, scores)
    });
    Ok((
        (score / 100.0, precision, recall),
        precisions,
        recalls,
        totals,
        values,
    ))
}

/// `rows` with two more columns, each the number of references of the segment
/// (`len(refs[i])`): the `nrefs_min`, `nrefs_max` fields of the BLEU and chrF schemas.
#[pyfunction]
pub fn with_reference_counts<'py>(
    py: Python<'py>,
    rows: PyReadonlyArray2<'py, i64>,
    refs: &Bound<'py, pyo3::types::PyList>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let rows = rows.as_array();
    if refs.len() != rows.nrows() {
        return Err(value_error("one reference list per row is required"));
    }
    let width = rows.ncols() + 2;
    let mut out = Vec::with_capacity(rows.nrows() * width);
    for (row, seg) in rows.outer_iter().zip(refs.iter()) {
        let count = seg.len()? as i64;
        out.extend(row.iter().copied());
        out.push(count);
        out.push(count);
    }
    PyArray1::from_vec(py, out).reshape([rows.nrows(), width])
}

/// Adds the sentence-score functions to the extension module (through `report::py::register`).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bleu_row_scores, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_totals_values, m)?)?;
    m.add_function(wrap_pyfunction!(chrf_row_scores, m)?)?;
    m.add_function(wrap_pyfunction!(chrf_totals_parts, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_summary, m)?)?;
    m.add_function(wrap_pyfunction!(chrf_summary, m)?)?;
    m.add_function(wrap_pyfunction!(with_reference_counts, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bleu::score::LOG_ZERO;

    fn bleu4(row: &[i64], smoothing: Smoothing, effective_order: bool) -> f64 {
        bleu(row, 1, smoothing, effective_order, &mut [0.0; 4]).0
    }

    #[test]
    fn identical_sentences_score_one_hundred() {
        let row = [4, 4, 4, 4, 3, 2, 1, 4, 3, 2, 1];
        assert!((bleu4(&row, Smoothing::Exp, true) - 100.0).abs() < 1e-12);
    }

    #[test]
    fn exp_smoothing_halves_the_count_per_order_without_matches() {
        // 5/7, 3/6, 1/5, 0/4: the last precision is 100 / (2 * 4)
        let row = [7, 7, 7, 5, 3, 1, 0, 7, 6, 5, 4];
        let mut precisions = [0.0; 4];
        bleu(&row, 1, Smoothing::Exp, true, &mut precisions);
        assert_eq!(precisions, [500.0 / 7.0, 50.0, 20.0, 12.5]);
        // without smoothing the zero precision is logged as sacreBLEU's floor
        let none = bleu4(&row, Smoothing::None, true);
        let floor = (((500.0f64 / 7.0).ln() + 50f64.ln() + 20f64.ln() + LOG_ZERO) / 4.0).exp();
        assert_eq!(none, floor);
    }

    #[test]
    fn effective_order_stops_at_orders_without_ngrams() {
        let row = [2, 2, 2, 2, 1, 0, 0, 2, 1, 0, 0];
        assert!((bleu4(&row, Smoothing::Exp, true) - 100.0).abs() < 1e-12);
        assert_eq!(bleu4(&row, Smoothing::Exp, false), 0.0);
    }

    #[test]
    fn no_match_scores_zero_and_a_short_hypothesis_is_penalised() {
        let mut precisions = [1.0; 4];
        let (score, bp) = bleu(
            &[3, 6, 6, 0, 0, 0, 0, 3, 2, 1, 0],
            1,
            Smoothing::Exp,
            true,
            &mut precisions,
        );
        assert_eq!((score, precisions), (0.0, [0.0; 4]));
        assert_eq!(bp, (1.0f64 - 2.0).exp());
        assert_eq!(
            bleu(
                &[0, 5, 5, 0, 0, 0, 0, 0, 0, 0, 0],
                1,
                Smoothing::Exp,
                true,
                &mut [0.0; 4]
            )
            .1,
            0.0
        );
    }

    #[test]
    fn add_k_smooths_orders_above_one() {
        let row = [3, 3, 3, 2, 0, 0, 0, 3, 2, 1, 0];
        let mut precisions = [0.0; 4];
        bleu(&row, 1, Smoothing::AddK(1.0), false, &mut precisions);
        assert_eq!(precisions, [200.0 / 3.0, 100.0 / 3.0, 50.0, 100.0]);
    }

    #[test]
    fn chrf_of_one_order() {
        // 1 match of 2 hypothesis and 1 reference n-grams: P 0.5, R 1, F2 = 5 * 0.5 / 3
        let mut parts = ([0.0], [0.0]);
        let (score, p, r) = chrf(&[2, 1, 1], 4.0, false, Some((&mut parts.0, &mut parts.1)));
        assert_eq!((score, p, r), (100.0 * (2.5 / 3.0), 0.5, 1.0));
        assert_eq!(parts, ([0.5], [1.0]));
        assert_eq!(chrf(&[0, 3, 0], 4.0, false, None).0, 0.0);
        assert_eq!(chrf(&[2, 2, 2], 4.0, true, None).0, 100.0);
    }
}
