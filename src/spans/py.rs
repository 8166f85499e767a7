//! Python bindings of span F1 (`nlpeval._core`): the label coding of both sides and the
//! chunk counts of [`super::count`].

use super::{count, Mode, Rules};
use crate::common::py::{to_array2, OrValueError};
use numpy::{PyArray1, PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use rustc_hash::FxHashMap;

/// Slots of the address cache (a power of two).
const CACHE: usize = 1 << 10;

/// Label -> code of one call. The same `str` objects recur (interned or shared labels): a small
/// direct-mapped cache by object address answers those, valid during the call (the lists hold
/// every label and no Python code runs); other labels are looked up by text.
struct LabelIndex {
    by_text: FxHashMap<String, i32>,
    cache: Vec<(usize, i32)>,
    labels: Vec<String>,
}

impl LabelIndex {
    fn new() -> LabelIndex {
        LabelIndex {
            by_text: FxHashMap::from_iter([("O".to_string(), 0)]),
            cache: vec![(0, 0); CACHE],
            labels: Vec::new(),
        }
    }

    /// The code of one label; `None` for anything but an exact `str` with a UTF-8 form.
    #[inline]
    fn code(&mut self, item: &Bound<'_, PyAny>) -> Option<i32> {
        let address = item.as_ptr() as usize;
        let slot = ((address >> 4) ^ (address >> 14)) & (CACHE - 1);
        let (cached, code) = self.cache[slot];
        if cached == address {
            return Some(code);
        }
        // exact `str` only: the checking path refuses subclasses (e.g. NumPy's `str_`) by name
        if !item.is_exact_instance_of::<PyString>() {
            return None;
        }
        // a lone surrogate has no UTF-8 form: the Python path codes it
        let label = item.cast::<PyString>().ok()?.to_str().ok()?;
        let code = match self.by_text.get(label) {
            Some(&code) => code,
            None => {
                let code = 2 + self.labels.len() as i32;
                self.by_text.insert(label.to_string(), code);
                self.labels.push(label.to_string());
                code
            }
        };
        self.cache[slot] = (address, code);
        Some(code)
    }

    /// Appends each sentence's codes and one `O` to `codes` and its length to `lengths`; false
    /// when the side is not lists/tuples of `str`.
    fn side(
        &mut self,
        side: &Bound<'_, PyList>,
        codes: &mut Vec<i32>,
        lengths: &mut Vec<i64>,
    ) -> bool {
        codes.push(1);
        for sentence in side.iter() {
            let before = codes.len();
            if let Ok(list) = sentence.cast::<PyList>() {
                for item in list.iter() {
                    let Some(code) = self.code(&item) else {
                        return false;
                    };
                    codes.push(code);
                }
            } else if let Ok(tuple) = sentence.cast::<PyTuple>() {
                for item in tuple.iter() {
                    let Some(code) = self.code(&item) else {
                        return false;
                    };
                    codes.push(code);
                }
            } else {
                return false;
            }
            lengths.push((codes.len() - before) as i64);
            codes.push(0);
        }
        true
    }
}

/// The arrays of [`span_label_codes`].
type SpanCodes<'py> = (
    Bound<'py, PyArray1<i32>>,
    Bound<'py, PyArray1<i32>>,
    Vec<String>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
);

/// Span F1's label codes of both sides, laid out as `nlpeval.metrics.span_f1.chunks.layout`
/// does: position 0 is START (code 1), then each sentence's labels and one `O` (code 0). New
/// labels get codes 2, 3, ... in order of first sight (hypotheses first). Returns the two
/// int32 arrays, the labels of codes 2, 3, ... and each side's sentence lengths; `None` when a
/// side is not a list of lists/tuples of `str` (the caller's checking path then names the item).
#[pyfunction]
fn span_label_codes<'py>(
    py: Python<'py>,
    hyps: &Bound<'py, PyAny>,
    refs: &Bound<'py, PyAny>,
) -> PyResult<Option<SpanCodes<'py>>> {
    let (Ok(hyps), Ok(refs)) = (hyps.cast::<PyList>(), refs.cast::<PyList>()) else {
        return Ok(None);
    };
    let mut index = LabelIndex::new();
    let (mut hyp_codes, mut hyp_lengths) = (Vec::new(), Vec::with_capacity(hyps.len()));
    let (mut ref_codes, mut ref_lengths) = (Vec::new(), Vec::with_capacity(refs.len()));
    if !index.side(hyps, &mut hyp_codes, &mut hyp_lengths)
        || !index.side(refs, &mut ref_codes, &mut ref_lengths)
    {
        return Ok(None);
    }
    Ok(Some((
        PyArray1::from_vec(py, hyp_codes),
        PyArray1::from_vec(py, ref_codes),
        index.labels,
        PyArray1::from_vec(py, hyp_lengths),
        PyArray1::from_vec(py, ref_lengths),
    )))
}

/// The arrays of [`span_chunk_counts`].
type SpanCounts<'py> = (
    Vec<usize>,
    Bound<'py, PyArray2<i64>>,
    Bound<'py, PyArray2<i64>>,
    Bound<'py, PyArray2<i64>>,
    Bound<'py, PyArray1<i64>>,
);

/// Per-sentence chunk counts of one mode over layout codes (`chunks.count`'s): the type ids
/// that occur in some chunk in `rank` order, the `(n, k)` true positive, predicted and
/// reference tables, and the correctly labelled tokens per sentence (`tokens`: the key
/// compared per token, else the code).
#[pyfunction]
#[pyo3(signature = (hyp, reference, lengths, mode, prefixes, types, table, n_prefixes, rank, tokens=None))]
#[allow(clippy::too_many_arguments)]
fn span_chunk_counts<'py>(
    py: Python<'py>,
    hyp: PyReadonlyArray1<'py, i32>,
    reference: PyReadonlyArray1<'py, i32>,
    lengths: PyReadonlyArray1<'py, i64>,
    mode: &str,
    prefixes: PyReadonlyArray1<'py, i32>,
    types: PyReadonlyArray1<'py, i32>,
    table: PyReadonlyArray1<'py, u8>,
    n_prefixes: usize,
    rank: PyReadonlyArray1<'py, i64>,
    tokens: Option<PyReadonlyArray1<'py, i32>>,
) -> PyResult<SpanCounts<'py>> {
    let mode = Mode::parse(mode).or_value_error()?;
    let rules = Rules {
        prefixes: prefixes.as_slice()?,
        types: types.as_slice()?,
        tokens: tokens.as_ref().map(|t| t.as_slice()).transpose()?,
        table: table.as_slice()?,
        n_prefixes,
        rank: rank.as_slice()?,
    };
    let (hyp, reference, lengths) = (hyp.as_slice()?, reference.as_slice()?, lengths.as_slice()?);
    let counts = py
        .detach(|| count(hyp, reference, lengths, mode, &rules))
        .or_value_error()?;
    let (n, k) = (lengths.len(), counts.types.len());
    Ok((
        counts.types,
        to_array2(py, counts.tp, n, k)?,
        to_array2(py, counts.pred, n, k)?,
        to_array2(py, counts.truth, n, k)?,
        PyArray1::from_vec(py, counts.correct),
    ))
}

/// Adds the span F1 kernels to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(span_label_codes, m)?)?;
    m.add_function(wrap_pyfunction!(span_chunk_counts, m)?)?;
    Ok(())
}
