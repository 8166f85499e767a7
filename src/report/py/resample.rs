//! Python bindings of the report kernels (`report/kernels.rs`): bootstrap counts and
//! sums, the seeded draws, and compare-mt's n-gram matches on word ids.

use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::common::py::{to_array2, value_error};
use crate::report::kernels::*;

fn bad(what: &str) -> PyErr {
    value_error(format!("report kernel: {what}"))
}

/// The error of a draw from `0..0` (the seeded kernels return `None` for it).
fn empty_range(n: impl std::fmt::Display) -> PyErr {
    bad(&format!("cannot draw from 0..{n}"))
}

/// Checks that resample states come as a `(k, 3)` array (one generator snapshot per row).
fn check_states(states: &PyReadonlyArray2<'_, u64>) -> PyResult<()> {
    if states.shape()[1] != 3 {
        return Err(bad("states must have 3 columns"));
    }
    Ok(())
}

/// The width of `rows`, checked to hold one row per segment of the `n` resampled (`what`:
/// "resamples" or "masks").
fn row_width(rows: &PyReadonlyArray2<'_, i64>, n: usize, what: &str) -> PyResult<usize> {
    let m = rows.shape()[0];
    if m != n {
        return Err(bad(&format!("{m} rows for {what} of {n}")));
    }
    Ok(rows.shape()[1])
}

/// The segments of a `(flat ids, offsets)` pair, or the error naming `what` offsets are bad.
fn segments_of<'a>(side: &'a Flat<'_>, what: &str) -> PyResult<Vec<&'a [i64]>> {
    segments(side.0.as_slice()?, side.1.as_slice()?).ok_or_else(|| bad(&format!("bad {what}")))
}

/// `resample_counts` of a `(k, n)` int64 array: the `(k, n)` float64 counts.
#[pyfunction]
pub fn report_resample_counts<'py>(
    py: Python<'py>,
    indices: PyReadonlyArray2<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let shape = indices.shape();
    let (k, n) = (shape[0], shape[1]);
    let flat = indices.as_slice()?;
    let counts = py
        .detach(|| resample_counts(flat, n))
        .ok_or_else(|| bad(&format!("a resample index is outside 0..{n}")))?;
    to_array2(py, counts, k, n)
}

/// `resampled_sums` of `(k, n)` int64 indices and `(n, w)` int64 rows: `(k, w)` int64.
#[pyfunction]
pub fn report_resampled_sums<'py>(
    py: Python<'py>,
    indices: PyReadonlyArray2<'py, i64>,
    rows: PyReadonlyArray2<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let (k, n) = (indices.shape()[0], indices.shape()[1]);
    let w = row_width(&rows, n, "resamples")?;
    let (flat, table) = (indices.as_slice()?, rows.as_slice()?);
    let sums = py
        .detach(|| resampled_sums(flat, n, table, w))
        .ok_or_else(|| bad(&format!("a resample index is outside 0..{n}")))?;
    to_array2(py, sums, k, w)
}

/// `masked_sums` of a `(k, n)` bool mask and `(n, w)` int64 rows: `(k, w)` int64.
#[pyfunction]
pub fn report_masked_sums<'py>(
    py: Python<'py>,
    mask: PyReadonlyArray2<'py, bool>,
    rows: PyReadonlyArray2<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let (k, n) = (mask.shape()[0], mask.shape()[1]);
    let w = row_width(&rows, n, "masks")?;
    if n > u32::MAX as usize {
        return Err(bad("too many segments"));
    }
    let (flat, table) = (mask.as_slice()?, rows.as_slice()?);
    let sums = py.detach(|| masked_sums(flat, n, table, w));
    to_array2(py, sums, k, w)
}

/// `seeded_indices` as a `(k, n)` int64 array: `numpy.random.default_rng(seed).choice(n,
/// size=(k, n))` for the seed's 32-bit `entropy` words (least significant first).
#[pyfunction]
pub fn report_seeded_indices<'py>(
    py: Python<'py>,
    entropy: Vec<u32>,
    n: u64,
    k: usize,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let count = k
        .checked_mul(n as usize)
        .ok_or_else(|| bad("too many draws"))?;
    let drawn = py
        .detach(|| seeded_indices(&entropy, n, count))
        .ok_or_else(|| empty_range(n))?;
    to_array2(py, drawn, k, n as usize)
}

/// `seeded_states` of `k` resamples of `n`: a `(k, 3)` uint64 array.
#[pyfunction]
pub fn report_seeded_states<'py>(
    py: Python<'py>,
    entropy: Vec<u32>,
    n: u64,
    k: usize,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let states = py
        .detach(|| seeded_states(&entropy, n, k))
        .ok_or_else(|| empty_range(n))?;
    to_array2(py, states, k, 3)
}

/// `seeded_sums` of `(k, 3)` states of resamples of `n` and `(n, w)` int64 rows: `(k, w)` int64.
#[pyfunction]
pub fn report_seeded_sums<'py>(
    py: Python<'py>,
    entropy: Vec<u32>,
    states: PyReadonlyArray2<'py, u64>,
    n: usize,
    rows: PyReadonlyArray2<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let k = states.shape()[0];
    check_states(&states)?;
    let w = row_width(&rows, n, "resamples")?;
    let (snapshots, table) = (states.as_slice()?, rows.as_slice()?);
    let sums = py
        .detach(|| seeded_sums(&entropy, snapshots, n as u64, table, w))
        .ok_or_else(|| empty_range(n))?;
    to_array2(py, sums, k, w)
}

/// `seeded_rows` of `(k, 3)` states: the `(k, n)` int64 indices.
#[pyfunction]
pub fn report_seeded_rows<'py>(
    py: Python<'py>,
    entropy: Vec<u32>,
    states: PyReadonlyArray2<'py, u64>,
    n: u64,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let k = states.shape()[0];
    check_states(&states)?;
    let snapshots = states.as_slice()?;
    let rows = py
        .detach(|| seeded_rows(&entropy, snapshots, n))
        .ok_or_else(|| empty_range(n))?;
    to_array2(py, rows, k, n as usize)
}

/// `seeded_coins` as a `(k, n)` bool array: `numpy.random.default_rng(seed).integers(2,
/// size=(k, n), dtype=bool)`.
#[pyfunction]
pub fn report_seeded_coins<'py>(
    py: Python<'py>,
    entropy: Vec<u32>,
    k: usize,
    n: usize,
) -> PyResult<Bound<'py, PyArray2<bool>>> {
    let count = k.checked_mul(n).ok_or_else(|| bad("too many draws"))?;
    let coins = py.detach(|| seeded_coins(&entropy, count));
    to_array2(py, coins, k, n)
}

type Flat<'py> = (PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>);
type Ids<'py> = Bound<'py, PyArray1<i64>>;

/// `clipped_matches` of the reference and the systems, each `(flat ids, offsets)`
/// with the same number of segments: `(type_start, type_order, [(totals, segment,
/// type) per system])`.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn report_ngram_matches<'py>(
    py: Python<'py>,
    reference: Flat<'py>,
    systems: Vec<Flat<'py>>,
    min_order: usize,
    max_order: usize,
) -> PyResult<(Ids<'py>, Ids<'py>, Vec<(Ids<'py>, Ids<'py>, Ids<'py>)>)> {
    let refs = segments_of(&reference, "reference offsets")?;
    let ref_offsets = reference.1.as_slice()?;
    let base: Vec<usize> = ref_offsets.iter().map(|&o| o as usize).collect();
    let mut outs = Vec::with_capacity(systems.len());
    for system in &systems {
        let segs = segments_of(system, "system offsets")?;
        if segs.len() != refs.len() {
            return Err(bad(
                "a system and the reference have different segment counts",
            ));
        }
        outs.push(segs);
    }
    let found = py.detach(|| clipped_matches(&refs, &base, &outs, min_order, max_order));
    let per_system = found
        .totals
        .into_iter()
        .zip(found.segment)
        .zip(found.kind)
        .map(|((t, s), k)| {
            (
                PyArray1::from_vec(py, t),
                PyArray1::from_vec(py, s),
                PyArray1::from_vec(py, k),
            )
        })
        .collect();
    Ok((
        PyArray1::from_vec(py, found.type_start),
        PyArray1::from_vec(py, found.type_order),
        per_system,
    ))
}

/// `occurrences` of n-grams `(flat ids, offsets)` in segments `(flat ids, offsets)`
/// (the first `n_segments` only): `(segment, start, entry)`.
#[pyfunction]
pub fn report_ngram_occurrences<'py>(
    py: Python<'py>,
    side: Flat<'py>,
    n_segments: usize,
    wanted: Flat<'py>,
) -> PyResult<(Ids<'py>, Ids<'py>, Ids<'py>)> {
    let words = segments_of(&side, "offsets")?;
    let grams = segments_of(&wanted, "n-gram offsets")?;
    let words = &words[..n_segments.min(words.len())];
    let (segment, start, entry) = py.detach(|| occurrences(words, &grams));
    Ok((
        PyArray1::from_vec(py, segment),
        PyArray1::from_vec(py, start),
        PyArray1::from_vec(py, entry),
    ))
}

/// `encode_lines` of lists of str: `(words, [(flat ids, offsets) per side])`.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn report_encode_lines<'py>(
    py: Python<'py>,
    sides: Vec<Vec<Bound<'py, pyo3::types::PyString>>>,
) -> PyResult<(
    Vec<Bound<'py, pyo3::types::PyString>>,
    Vec<(Ids<'py>, Ids<'py>)>,
)> {
    let mut texts: Vec<Vec<&str>> = Vec::with_capacity(sides.len());
    for lines in &sides {
        let side = lines
            .iter()
            .map(|line| line.to_str())
            .collect::<PyResult<Vec<&str>>>()?;
        texts.push(side);
    }
    let (words, encoded) = py.detach(|| encode_lines(&texts));
    let words = words
        .into_iter()
        .map(|w| pyo3::types::PyString::new(py, w))
        .collect();
    let encoded = encoded
        .into_iter()
        .map(|(ids, offsets)| (PyArray1::from_vec(py, ids), PyArray1::from_vec(py, offsets)))
        .collect();
    Ok((words, encoded))
}

/// `matched_strings` of the reference and a system, each `(flat ids, offsets)`.
#[pyfunction]
pub fn report_matched_strings<'py>(
    py: Python<'py>,
    reference: Flat<'py>,
    system: Flat<'py>,
    n_segments: usize,
) -> PyResult<Vec<String>> {
    let refs = segments_of(&reference, "reference offsets")?;
    let words = segments_of(&system, "offsets")?;
    py.detach(|| matched_strings(&refs, &words, n_segments))
        .ok_or_else(|| bad("a system and the reference have different segment counts"))
}

/// Adds the report kernels to the extension module (through `report::py::register`).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(report_resample_counts, m)?)?;
    m.add_function(wrap_pyfunction!(report_resampled_sums, m)?)?;
    m.add_function(wrap_pyfunction!(report_masked_sums, m)?)?;
    m.add_function(wrap_pyfunction!(report_seeded_indices, m)?)?;
    m.add_function(wrap_pyfunction!(report_seeded_coins, m)?)?;
    m.add_function(wrap_pyfunction!(report_seeded_states, m)?)?;
    m.add_function(wrap_pyfunction!(report_seeded_sums, m)?)?;
    m.add_function(wrap_pyfunction!(report_seeded_rows, m)?)?;
    m.add_function(wrap_pyfunction!(report_ngram_matches, m)?)?;
    m.add_function(wrap_pyfunction!(report_ngram_occurrences, m)?)?;
    m.add_function(wrap_pyfunction!(report_encode_lines, m)?)?;
    m.add_function(wrap_pyfunction!(report_matched_strings, m)?)?;
    Ok(())
}
