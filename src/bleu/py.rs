//! Python bindings of the BLEU kernels: statistics rows of text, token lists and
//! id arrays, their totals, and sentence BLEU of every hypothesis-candidate pair.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::bleu;
use crate::common::parallel::detached;
use crate::common::py::{
    column_sums, one_list_per_hypothesis, split_flat, to_array2, too_large, value_error,
};
use crate::text::py::tokenizer_from;
use crate::text::{self, py_split};

/// BLEU statistics of raw text segments: `(n, 3 + 2 * max_order)` integers.
#[pyfunction]
fn bleu_stats<'py>(
    py: Python<'py>,
    hyps: &Bound<'py, PyAny>,
    refs: &Bound<'py, PyAny>,
    tokenizer: &str,
    max_order: usize,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let (flat, n) = bleu_rows(py, hyps, refs, tokenizer, max_order)?;
    to_array2(py, flat, n, bleu::ngram::row_width(max_order))
}

/// The flat statistics rows of [`bleu_stats`] and their number (borrowed strings, cached
/// references).
fn bleu_rows(
    py: Python<'_>,
    hyps: &Bound<'_, PyAny>,
    refs: &Bound<'_, PyAny>,
    tokenizer: &str,
    max_order: usize,
) -> PyResult<(Vec<i64>, usize)> {
    let tok = tokenizer_from(tokenizer)?;
    let (hyps, (refs, offsets)) = (
        text::py_text::texts(hyps)?,
        text::py_text::nested_texts(refs)?,
    );
    let (hyps, refs) = (hyps.strs()?, refs.strs()?);
    let refs = one_list_per_hypothesis(&hyps, &refs, &offsets)?;
    let flat = py.detach(|| bleu::refs::text_batch_stats_cached(&hyps, refs, tok, max_order));
    Ok((flat, hyps.len()))
}

/// BLEU statistics of segments given as token lists (no tokenization).
#[pyfunction]
fn bleu_stats_tokens<'py>(
    py: Python<'py>,
    hyps: Vec<Vec<String>>,
    refs: Vec<Vec<Vec<String>>>,
    max_order: usize,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let n = hyps.len();
    let flat = py.detach(|| bleu::ngram::batch_stats::<String, _, _>(&hyps, &refs, max_order));
    to_array2(py, flat, n, bleu::ngram::row_width(max_order))
}

/// BLEU statistics of integer ids given as flat arrays: hypothesis `i` is the
/// `i`-th run of `hyp_lens`, its references the next `ref_counts[i]` runs of
/// `ref_lens`. `(n, 3 + 2 * max_order)` integers.
#[pyfunction]
fn bleu_stats_flat<'py>(
    py: Python<'py>,
    hyp_ids: PyReadonlyArray1<'py, i64>,
    hyp_lens: PyReadonlyArray1<'py, i64>,
    ref_ids: PyReadonlyArray1<'py, i64>,
    ref_lens: PyReadonlyArray1<'py, i64>,
    ref_counts: PyReadonlyArray1<'py, i64>,
    max_order: usize,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let hyps = split_flat(hyp_ids.as_slice()?, hyp_lens.as_slice()?)?;
    let refs = split_flat(ref_ids.as_slice()?, ref_lens.as_slice()?)?;
    let counts = ref_counts.as_slice()?;
    if counts.len() != hyps.len() {
        return Err(value_error(
            "one reference count per hypothesis is required",
        ));
    }
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    offsets.push(0usize);
    for &count in counts {
        let count = usize::try_from(count).map_err(|_| value_error("negative count"))?;
        offsets.push(offsets[offsets.len() - 1] + count);
    }
    if offsets[offsets.len() - 1] != refs.len() {
        return Err(value_error("reference counts do not cover the references"));
    }
    let n = hyps.len();
    let flat = py.detach(|| bleu::ngram::id_batch_stats(&hyps, &refs, &offsets, max_order));
    to_array2(py, flat, n, bleu::ngram::row_width(max_order))
}

/// Sentence BLEU (0–1, effective order) of every hypothesis against every
/// candidate as its single reference: an `(n_hyps, n_cands)` float array.
#[pyfunction]
#[pyo3(signature = (hyps, cands, tokenizer, max_order, smooth, smooth_value=None))]
fn bleu_pairwise_scores<'py>(
    py: Python<'py>,
    hyps: Vec<String>,
    cands: Vec<String>,
    tokenizer: &str,
    max_order: usize,
    smooth: &str,
    smooth_value: Option<f64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let tok = tokenizer_from(tokenizer)?;
    let smoothing = bleu::score::Smoothing::from_name(smooth, smooth_value)
        .ok_or_else(|| value_error(format!("unknown smoothing {smooth:?}")))?;
    let (n, m) = (hyps.len(), cands.len());
    let flat = detached(py, || {
        let hyp_text: Vec<String> = hyps.par_iter().map(|h| tok.tokenize_unjoined(h)).collect();
        let cand_text: Vec<String> = cands.par_iter().map(|c| tok.tokenize_unjoined(c)).collect();
        let hyp_tokens = split_all(&hyp_text);
        let cand_tokens = split_all(&cand_text);
        let hyp_slices: Vec<&[&str]> = hyp_tokens.iter().map(|t| t.as_slice()).collect();
        let cand_slices: Vec<&[&str]> = cand_tokens.iter().map(|t| t.as_slice()).collect();
        bleu::ngram::pairwise_map(&hyp_slices, &cand_slices, max_order, |row| {
            bleu::score::bleu(row, max_order, smoothing, true)
        })
    })
    .map_err(|err| too_large(err, n, m))?;
    PyArray1::from_vec(py, flat).reshape([n, m])
}

fn split_all(texts: &[String]) -> Vec<Vec<&str>> {
    texts.iter().map(|t| py_split(t).collect()).collect()
}

/// The totals of [`bleu_stats`]' rows, as a list: what a corpus score needs,
/// without building (or importing) a NumPy array (`nlpeval score`'s fast path).
#[pyfunction]
fn bleu_totals(
    py: Python<'_>,
    hyps: &Bound<'_, PyAny>,
    refs: &Bound<'_, PyAny>,
    tokenizer: &str,
    max_order: usize,
) -> PyResult<Vec<i64>> {
    let (flat, _) = bleu_rows(py, hyps, refs, tokenizer, max_order)?;
    Ok(column_sums(&flat, bleu::ngram::row_width(max_order)))
}

/// Adds the BLEU functions to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bleu_stats, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_stats_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_stats_flat, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_totals, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_pairwise_scores, m)?)?;
    Ok(())
}
