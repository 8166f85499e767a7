//! Python bindings of the text kernels: the native tokenizers, and the id-list
//! conversions of the metrics that take token ids (`flatten_*`, `trim_ids`).

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList};
use rayon::prelude::*;

use crate::common::parallel::detached;
use crate::common::py::{split_flat, value_error};
use crate::text::Tokenizer;

/// The native tokenizer called `name` (`ValueError` for another name).
pub fn tokenizer_from(name: &str) -> PyResult<Tokenizer> {
    Tokenizer::from_name(name)
        .ok_or_else(|| value_error(format!("unknown native tokenizer {name:?}")))
}

/// Tokenizes each line natively; returns the space-joined token strings.
#[pyfunction]
fn tokenize(py: Python<'_>, lines: Vec<String>, tokenizer: &str) -> PyResult<Vec<String>> {
    let tok = tokenizer_from(tokenizer)?;
    Ok(detached(py, || {
        lines.par_iter().map(|line| tok.tokenize(line)).collect()
    }))
}

/// Profiling helper: receives text segments as the statistics kernels do (one
/// `String` per segment) and returns their byte count, so the conversion cost
/// can be told apart from the work (benchmarks/profile_metrics.py).
#[pyfunction]
fn receive_text(hyps: Vec<String>, refs: Vec<Vec<String>>) -> usize {
    hyps.iter().map(String::len).sum::<usize>()
        + refs.iter().flatten().map(String::len).sum::<usize>()
}

/// Flat `(ids, lengths)` arrays of `(n,)` int64.
type FlatArrays<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>);

/// Appends the ids of `item` when it is a list of exact Python ints; false otherwise.
fn push_int_list(item: &Bound<'_, PyAny>, ids: &mut Vec<i64>, lens: &mut Vec<i64>) -> bool {
    let Ok(list) = item.cast::<PyList>() else {
        return false;
    };
    for value in list.iter() {
        if !value.is_exact_instance_of::<PyInt>() {
            return false;
        }
        match value.extract::<i64>() {
            Ok(id) => ids.push(id),
            Err(_) => return false,
        }
    }
    lens.push(list.len() as i64);
    true
}

/// A list of lists of Python ints as one flat id array and the list lengths, in
/// one pass without per-row Python objects; `None` when any item is not a list
/// of exact ints (the caller then takes its checking path, which names the item).
#[pyfunction]
fn flatten_id_lists<'py>(
    py: Python<'py>,
    seqs: &Bound<'py, PyAny>,
) -> PyResult<Option<FlatArrays<'py>>> {
    let Ok(list) = seqs.cast::<PyList>() else {
        return Ok(None);
    };
    let mut ids = Vec::new();
    let mut lens = Vec::with_capacity(list.len());
    for item in list.iter() {
        if !push_int_list(&item, &mut ids, &mut lens) {
            return Ok(None);
        }
    }
    Ok(Some((
        PyArray1::from_vec(py, ids),
        PyArray1::from_vec(py, lens),
    )))
}

/// Per-segment references given as lists: each item one list of ints (one
/// reference, possibly empty) or a non-empty list of such lists. Returns flat
/// ids, each reference's length and each segment's number of references;
/// `None` for any other layout.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn flatten_reference_lists<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyAny>,
) -> PyResult<
    Option<(
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
    )>,
> {
    let Ok(list) = items.cast::<PyList>() else {
        return Ok(None);
    };
    let mut ids = Vec::new();
    let mut lens = Vec::with_capacity(list.len());
    let mut counts = Vec::with_capacity(list.len());
    for item in list.iter() {
        let Ok(seg) = item.cast::<PyList>() else {
            return Ok(None);
        };
        let several = !seg.is_empty() && seg.get_item(0)?.is_instance_of::<PyList>();
        if several {
            for reference in seg.iter() {
                if !push_int_list(&reference, &mut ids, &mut lens) {
                    return Ok(None);
                }
            }
            counts.push(seg.len() as i64);
        } else {
            if !push_int_list(seg, &mut ids, &mut lens) {
                return Ok(None);
            }
            counts.push(1);
        }
    }
    Ok(Some((
        PyArray1::from_vec(py, ids),
        PyArray1::from_vec(py, lens),
        PyArray1::from_vec(py, counts),
    )))
}

/// Each sequence of `ids` (split by `lens`) cut at its first `eos_id` and
/// stripped of every `pad_id`, in one pass: the new flat ids and lengths.
#[pyfunction]
#[pyo3(signature = (ids, lens, pad_id=None, eos_id=None))]
fn trim_ids<'py>(
    py: Python<'py>,
    ids: PyReadonlyArray1<'py, i64>,
    lens: PyReadonlyArray1<'py, i64>,
    pad_id: Option<i64>,
    eos_id: Option<i64>,
) -> PyResult<FlatArrays<'py>> {
    let seqs = split_flat(ids.as_slice()?, lens.as_slice()?)?;
    let mut out: Vec<i64> = Vec::with_capacity(seqs.iter().map(|s| s.len()).sum());
    let mut out_lens = Vec::with_capacity(seqs.len());
    for seq in seqs {
        let start = out.len();
        let cut = eos_id
            .and_then(|eos| seq.iter().position(|&id| id == eos))
            .unwrap_or(seq.len());
        match pad_id {
            Some(pad) => out.extend(seq[..cut].iter().filter(|&&id| id != pad)),
            None => out.extend_from_slice(&seq[..cut]),
        }
        out_lens.push((out.len() - start) as i64);
    }
    Ok((
        PyArray1::from_vec(py, out),
        PyArray1::from_vec(py, out_lens),
    ))
}

/// Adds the text functions to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(receive_text, m)?)?;
    m.add_function(wrap_pyfunction!(flatten_id_lists, m)?)?;
    m.add_function(wrap_pyfunction!(flatten_reference_lists, m)?)?;
    m.add_function(wrap_pyfunction!(trim_ids, m)?)?;
    Ok(())
}
