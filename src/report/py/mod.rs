//! Python bindings of the report kernels: Kendall's tau per group (here), the
//! resampling and n-gram kernels (`resample`), and sentence scores from statistics
//! rows (`sentence_scores`).

pub mod resample;
pub mod sentence_scores;

use numpy::{PyArray1, PyArray2, PyArray3, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

use crate::common::py::{to_array2, value_error, OrValueError};
use crate::report;

/// Kendall's tau statistics of groups of paired values (`offsets[g]..offsets[g + 1]`):
/// `(n_groups, 6)` integers `[discordant, x_tied, y_tied, xy_tied, distinct_x, distinct_y]`
/// and `(n_groups, 4)` floats `[x0, x1, y0, y1]` (tie-correction sums of the variance).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn kendall_group_stats<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, i64>,
) -> PyResult<(Bound<'py, PyArray2<i64>>, Bound<'py, PyArray2<f64>>)> {
    let (x, y, offsets) = (x.as_slice()?, y.as_slice()?, offsets.as_slice()?);
    if x.len() != y.len() {
        return Err(value_error("x and y differ in length"));
    }
    let ranges = report::kendall::group_ranges(offsets, x.len()).or_value_error()?;
    let groups = ranges.len();
    let (counts, sums) = py.detach(|| report::kendall::batch_group_stats(x, y, &ranges));
    Ok((
        to_array2(py, counts, groups, report::kendall::COLUMNS)?,
        PyArray1::from_vec(py, sums).reshape([groups, report::kendall::SUM_COLUMNS])?,
    ))
}

/// Kendall's tau statistics of groups under many weightings (bootstrap resamples):
/// `weights` is `(rows, len(x))`; returns `(rows, n_groups, 7)` floats
/// `[discordant, x_tied, y_tied, xy_tied, distinct_x, distinct_y, n]`.
#[pyfunction]
fn kendall_weighted_stats<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, i64>,
    weights: PyReadonlyArray2<'py, f64>,
) -> PyResult<Bound<'py, PyArray3<f64>>> {
    let (x, y, offsets) = (x.as_slice()?, y.as_slice()?, offsets.as_slice()?);
    let (rows, cols) = weights.as_array().dim();
    if x.len() != y.len() || cols != x.len() {
        return Err(value_error("x, y and the weight rows differ in length"));
    }
    let weights = weights.as_slice()?;
    let ranges = report::kendall::group_ranges(offsets, x.len()).or_value_error()?;
    let groups = ranges.len();
    let flat =
        py.detach(|| report::kendall::batch_weighted_group_stats(x, y, &ranges, weights, rows));
    PyArray1::from_vec(py, flat).reshape([rows, groups, report::kendall::WEIGHTED_COLUMNS])
}

/// Adds the report functions to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(kendall_group_stats, m)?)?;
    m.add_function(wrap_pyfunction!(kendall_weighted_stats, m)?)?;
    resample::register(m)?;
    sentence_scores::register(m)
}
