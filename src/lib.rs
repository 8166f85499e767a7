//! Python bindings of the nlpeval kernels (`nlpeval._core`). Glue only: every
//! kernel lives in its own module with its own unit tests.

pub mod ngram;
pub mod text;

use numpy::{PyArray1, PyArray2, PyArray3, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use text::{py_split, Tokenizer};

fn tokenizer_from(name: &str) -> PyResult<Tokenizer> {
    Tokenizer::from_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("unknown native tokenizer {name:?}")))
}

fn to_array2<'py>(
    py: Python<'py>,
    flat: Vec<i64>,
    rows: usize,
    cols: usize,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    PyArray1::from_vec(py, flat).reshape([rows, cols])
}

/// Tokenizes each line natively; returns the space-joined token strings.
#[pyfunction]
fn tokenize(py: Python<'_>, lines: Vec<String>, tokenizer: &str) -> PyResult<Vec<String>> {
    let tok = tokenizer_from(tokenizer)?;
    Ok(py.detach(|| lines.par_iter().map(|line| tok.tokenize(line)).collect()))
}

fn tokenize_batch(
    hyps: &[String],
    refs: &[Vec<String>],
    tok: Tokenizer,
) -> (Vec<String>, Vec<Vec<String>>) {
    let hyps = hyps.par_iter().map(|h| tok.tokenize(h)).collect();
    let refs = refs
        .par_iter()
        .map(|rs| rs.iter().map(|r| tok.tokenize(r)).collect())
        .collect();
    (hyps, refs)
}

fn split_all(texts: &[String]) -> Vec<Vec<&str>> {
    texts.iter().map(|t| py_split(t).collect()).collect()
}

/// BLEU statistics of raw text segments: `(n, 3 + 2 * max_order)` integers.
#[pyfunction]
fn bleu_stats<'py>(
    py: Python<'py>,
    hyps: Vec<String>,
    refs: Vec<Vec<String>>,
    tokenizer: &str,
    max_order: usize,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let tok = tokenizer_from(tokenizer)?;
    let n = hyps.len();
    let flat = py.detach(|| {
        let (hyp_text, ref_text) = tokenize_batch(&hyps, &refs, tok);
        let hyp_tokens: Vec<Vec<&str>> =
            hyp_text.par_iter().map(|t| py_split(t).collect()).collect();
        let ref_tokens: Vec<Vec<Vec<&str>>> = ref_text.par_iter().map(|rs| split_all(rs)).collect();
        ngram::batch_stats::<&str, _, _>(&hyp_tokens, &ref_tokens, max_order)
    });
    to_array2(py, flat, n, ngram::row_width(max_order))
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
    let flat = py.detach(|| ngram::batch_stats::<String, _, _>(&hyps, &refs, max_order));
    to_array2(py, flat, n, ngram::row_width(max_order))
}

/// BLEU statistics of segments given as integer token ids.
#[pyfunction]
fn bleu_stats_ids<'py>(
    py: Python<'py>,
    hyps: Vec<Vec<i64>>,
    refs: Vec<Vec<Vec<i64>>>,
    max_order: usize,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let n = hyps.len();
    let flat = py.detach(|| ngram::batch_stats::<i64, _, _>(&hyps, &refs, max_order));
    to_array2(py, flat, n, ngram::row_width(max_order))
}

/// BLEU statistics of every hypothesis against every candidate:
/// `(n_hyps, n_cands, 3 + 2 * max_order)` integers.
#[pyfunction]
fn bleu_pairwise_stats<'py>(
    py: Python<'py>,
    hyps: Vec<String>,
    cands: Vec<String>,
    tokenizer: &str,
    max_order: usize,
) -> PyResult<Bound<'py, PyArray3<i64>>> {
    let tok = tokenizer_from(tokenizer)?;
    let (n, m) = (hyps.len(), cands.len());
    let flat = py.detach(|| {
        let hyp_text: Vec<String> = hyps.par_iter().map(|h| tok.tokenize(h)).collect();
        let cand_text: Vec<String> = cands.par_iter().map(|c| tok.tokenize(c)).collect();
        let hyp_tokens = split_all(&hyp_text);
        let cand_tokens = split_all(&cand_text);
        let hyp_slices: Vec<&[&str]> = hyp_tokens.iter().map(|t| t.as_slice()).collect();
        let cand_slices: Vec<&[&str]> = cand_tokens.iter().map(|t| t.as_slice()).collect();
        ngram::pairwise_stats(&hyp_slices, &cand_slices, max_order)
    });
    PyArray1::from_vec(py, flat).reshape([n, m, ngram::row_width(max_order)])
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_stats, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_stats_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_stats_ids, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_pairwise_stats, m)?)?;
    Ok(())
}
