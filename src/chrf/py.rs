//! Python bindings of the chrF kernels: statistics rows of text, their totals, and
//! sentence chrF of every hypothesis-candidate pair.

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;

use crate::chrf;
use crate::common::py::{column_sums, one_list_per_hypothesis, to_array2, too_large, value_error};
use crate::text;

fn chrf_config(
    char_order: usize,
    word_order: usize,
    whitespace: bool,
    factor: f64,
    eps_smoothing: bool,
) -> PyResult<chrf::ChrfConfig> {
    if char_order + word_order == 0 || char_order + word_order > 255 {
        return Err(value_error(
            "chrF needs 1 <= char_order + word_order <= 255",
        ));
    }
    Ok(chrf::ChrfConfig {
        char_order,
        word_order,
        whitespace,
        factor,
        eps_smoothing,
    })
}

/// chrF statistics of raw text segments: `(n, 3 * (char_order + word_order))`
/// integers, `[hyp, ref, match]` per order, the best reference's per segment.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn chrf_stats<'py>(
    py: Python<'py>,
    hyps: &Bound<'py, PyAny>,
    refs: &Bound<'py, PyAny>,
    char_order: usize,
    word_order: usize,
    whitespace: bool,
    factor: f64,
    eps_smoothing: bool,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let cfg = chrf_config(char_order, word_order, whitespace, factor, eps_smoothing)?;
    let (flat, n) = chrf_rows(py, hyps, refs, &cfg)?;
    to_array2(py, flat, n, cfg.row_width())
}

/// The flat statistics rows of [`chrf_stats`] and their number (borrowed strings, cached
/// references).
fn chrf_rows(
    py: Python<'_>,
    hyps: &Bound<'_, PyAny>,
    refs: &Bound<'_, PyAny>,
    cfg: &chrf::ChrfConfig,
) -> PyResult<(Vec<i64>, usize)> {
    let (hyps, (refs, offsets)) = (
        text::py_text::texts(hyps)?,
        text::py_text::nested_texts(refs)?,
    );
    let (hyps, refs) = (hyps.strs()?, refs.strs()?);
    let refs = one_list_per_hypothesis(&hyps, &refs, &offsets)?;
    let flat = py.detach(|| chrf::refs::batch_stats_cached(&hyps, refs, cfg));
    Ok((flat, hyps.len()))
}

/// The totals of [`chrf_stats`]' rows, as a list (see [`bleu_totals`]).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn chrf_totals(
    py: Python<'_>,
    hyps: &Bound<'_, PyAny>,
    refs: &Bound<'_, PyAny>,
    char_order: usize,
    word_order: usize,
    whitespace: bool,
    factor: f64,
    eps_smoothing: bool,
) -> PyResult<Vec<i64>> {
    let cfg = chrf_config(char_order, word_order, whitespace, factor, eps_smoothing)?;
    let (flat, _) = chrf_rows(py, hyps, refs, &cfg)?;
    Ok(column_sums(&flat, cfg.row_width()))
}

/// Sentence chrF (0–100 scale) of every hypothesis against every candidate:
/// an `(n_hyps, n_cands)` float array.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn chrf_pairwise_scores<'py>(
    py: Python<'py>,
    hyps: Vec<String>,
    cands: Vec<String>,
    char_order: usize,
    word_order: usize,
    whitespace: bool,
    factor: f64,
    eps_smoothing: bool,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let cfg = chrf_config(char_order, word_order, whitespace, factor, eps_smoothing)?;
    let (n, m) = (hyps.len(), cands.len());
    let flat = py
        .detach(|| chrf::pairwise_scores(&hyps, &cands, &cfg))
        .map_err(|err| too_large(err, n, m))?;
    PyArray1::from_vec(py, flat).reshape([n, m])
}

/// Adds the chrF functions to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(chrf_stats, m)?)?;
    m.add_function(wrap_pyfunction!(chrf_totals, m)?)?;
    m.add_function(wrap_pyfunction!(chrf_pairwise_scores, m)?)?;
    Ok(())
}
