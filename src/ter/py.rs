//! Python bindings of the edit-distance kernels: TER statistics, and the
//! Levenshtein statistics and alignments of WER/CER (jiwer's tokens).

use numpy::PyArray2;
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::common::parallel::{detached, PARALLEL_MIN_SEGMENTS};
use crate::common::py::{to_array2, value_error};
use crate::ter;

/// Tokens of one side of an edit-distance pair (`unit`: `word` or `char`).
#[derive(Clone, Copy)]
enum EditUnit {
    Word,
    Char,
}

fn edit_unit(unit: &str) -> PyResult<EditUnit> {
    match unit {
        "word" => Ok(EditUnit::Word),
        "char" => Ok(EditUnit::Char),
        _ => Err(value_error(format!(
            "unknown edit unit {unit:?}; use 'word' or 'char'"
        ))),
    }
}

fn edit_ops(hyp: &str, reference: &str, unit: EditUnit) -> Vec<ter::edit::Op> {
    match unit {
        EditUnit::Word => ter::edit::align(
            &ter::edit::jiwer_words(reference),
            &ter::edit::jiwer_words(hyp),
        ),
        EditUnit::Char => ter::edit::align(
            &ter::edit::jiwer_chars(reference),
            &ter::edit::jiwer_chars(hyp),
        ),
    }
}

/// Edit statistics of (hypothesis, reference) pairs of raw text:
/// `(n, 6)` integers (hits, substitutions, deletions, insertions, reference length, hypothesis length).
#[pyfunction]
fn edit_stats<'py>(
    py: Python<'py>,
    hyps: Vec<String>,
    refs: Vec<String>,
    unit: &str,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let unit = edit_unit(unit)?;
    if hyps.len() != refs.len() {
        return Err(value_error("edit_stats needs one reference per hypothesis"));
    }
    let n = hyps.len();
    let flat = detached(py, || {
        if n >= PARALLEL_MIN_SEGMENTS {
            hyps.par_iter()
                .zip(refs.par_iter())
                .flat_map_iter(|(h, r)| ter::edit::row(&edit_ops(h, r, unit)))
                .collect()
        } else {
            hyps.iter()
                .zip(refs.iter())
                .flat_map(|(h, r)| ter::edit::row(&edit_ops(h, r, unit)))
                .collect()
        }
    });
    to_array2(py, flat, n, ter::edit::ROW_WIDTH)
}

/// One aligned pair: reference tokens, hypothesis tokens, operation codes.
type AlignedTokens = (Vec<String>, Vec<String>, Vec<u8>);

/// Alignments of (hypothesis, reference) pairs of raw text: per pair the reference
/// tokens, the hypothesis tokens and one operation code per aligned position
/// (0 equal, 1 substitute, 2 delete, 3 insert).
#[pyfunction]
fn edit_align(
    py: Python<'_>,
    hyps: Vec<String>,
    refs: Vec<String>,
    unit: &str,
) -> PyResult<Vec<AlignedTokens>> {
    let unit = edit_unit(unit)?;
    if hyps.len() != refs.len() {
        return Err(value_error("edit_align needs one reference per hypothesis"));
    }
    Ok(detached(py, || {
        hyps.par_iter()
            .zip(refs.par_iter())
            .map(|(h, r)| {
                let (r_tokens, h_tokens): (Vec<String>, Vec<String>) = match unit {
                    EditUnit::Word => (
                        ter::edit::jiwer_words(r)
                            .into_iter()
                            .map(str::to_owned)
                            .collect(),
                        ter::edit::jiwer_words(h)
                            .into_iter()
                            .map(str::to_owned)
                            .collect(),
                    ),
                    EditUnit::Char => (
                        ter::edit::jiwer_chars(r)
                            .into_iter()
                            .map(String::from)
                            .collect(),
                        ter::edit::jiwer_chars(h)
                            .into_iter()
                            .map(String::from)
                            .collect(),
                    ),
                };
                let ops = edit_ops(h, r, unit)
                    .into_iter()
                    .map(|op| op as u8)
                    .collect();
                (r_tokens, h_tokens, ops)
            })
            .collect()
    }))
}

/// TER statistics of tokenized segments (tokens separated by whitespace):
/// `(n, 2)` integers, the fewest edits over the references and the sum of the
/// reference lengths.
#[pyfunction]
fn ter_stats<'py>(
    py: Python<'py>,
    hyps: Vec<String>,
    refs: Vec<Vec<String>>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    if hyps.len() != refs.len() {
        return Err(value_error(format!(
            "{} hypotheses but {} reference lists",
            hyps.len(),
            refs.len()
        )));
    }
    let n = hyps.len();
    let flat = py.detach(|| ter::batch_stats(&hyps, &refs));
    to_array2(py, flat, n, 2)
}

/// Adds the edit-distance functions to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(ter_stats, m)?)?;
    m.add_function(wrap_pyfunction!(edit_stats, m)?)?;
    m.add_function(wrap_pyfunction!(edit_align, m)?)?;
    Ok(())
}
