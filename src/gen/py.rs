//! Python bindings of the generation metrics' kernels (`nlpeval._core`).

use super::{gleu, nist, ribes, sari};
use crate::common::parallel::detached;
use crate::common::py::{to_array2, value_error};
use crate::common::refcache::RefsView;
use crate::text::py_text::texts;
use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;

/// The segments of a SARI call: `counts[i]` references of `refs` (flat) per segment.
fn sari_segments<'a>(
    sources: &'a [&'a str],
    outputs: &'a [&'a str],
    refs: &'a [&'a str],
    counts: &[usize],
) -> PyResult<Vec<sari::Segment<'a>>> {
    if sources.len() != outputs.len() || counts.len() != outputs.len() {
        return Err(value_error(
            "one source and one reference count per output are required",
        ));
    }
    if counts.iter().sum::<usize>() != refs.len() {
        return Err(value_error(
            "the reference counts do not add up to the references given",
        ));
    }
    let mut start = 0;
    Ok(sources
        .iter()
        .zip(outputs)
        .zip(counts)
        .map(|((source, output), &count)| {
            let seg = sari::Segment {
                source,
                output,
                refs: &refs[start..start + count],
            };
            start += count;
            seg
        })
        .collect())
}

/// `score` of the segments of a SARI call (the Python lists borrowed as `&str`).
fn with_sari_segments<R>(
    sources: &Bound<'_, PyAny>,
    outputs: &Bound<'_, PyAny>,
    refs: &Bound<'_, PyAny>,
    counts: &[usize],
    score: impl FnOnce(&[sari::Segment<'_>]) -> PyResult<R>,
) -> PyResult<R> {
    let (sources, outputs, refs) = (texts(sources)?, texts(outputs)?, texts(refs)?);
    let (sources, outputs, refs) = (sources.strs()?, outputs.strs()?, refs.strs()?);
    score(&sari_segments(&sources, &outputs, &refs, counts)?)
}

/// evaluate's `SARIsent` rows `(sari, keep, delete, add)`, `(n, 4)` float64, of
/// normalised lines (tokens: `str.split(" ")`).
#[pyfunction]
fn sari_hf_rows<'py>(
    py: Python<'py>,
    sources: &Bound<'py, PyAny>,
    outputs: &Bound<'py, PyAny>,
    refs: &Bound<'py, PyAny>,
    counts: Vec<usize>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    with_sari_segments(sources, outputs, refs, &counts, |segments| {
        let flat = detached(py, || sari::hf_rows(segments, sari::Split::Space));
        to_array2(py, flat, segments.len(), sari::HF_WIDTH)
    })
}

/// EASSE's `compute_ngram_stats` counts, `(n, 36)` int64, of normalised lines
/// (tokens: `str.split()`).
#[pyfunction]
fn sari_easse_rows<'py>(
    py: Python<'py>,
    sources: &Bound<'py, PyAny>,
    outputs: &Bound<'py, PyAny>,
    refs: &Bound<'py, PyAny>,
    counts: Vec<usize>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    with_sari_segments(sources, outputs, refs, &counts, |segments| {
        let flat = detached(py, || sari::easse_rows(segments, sari::Split::Python));
        to_array2(py, flat, segments.len(), sari::EASSE_WIDTH)
    })
}

/// Token sequences of a call: lines split like Python's `str.split()` when
/// `lens` is None, else flat tokens cut into sequences of `lens` tokens.
fn sequences<'a>(
    items: &'a [&'a str],
    lens: Option<&[usize]>,
    side: &str,
) -> PyResult<Vec<Vec<&'a str>>> {
    match lens {
        None => Ok(items
            .iter()
            .map(|line| super::ngrams::split_words(line))
            .collect()),
        Some(lens) => {
            if lens.iter().sum::<usize>() != items.len() {
                return Err(value_error(format!(
                    "the {side} lengths do not add up to the tokens given"
                )));
            }
            let mut start = 0;
            Ok(lens
                .iter()
                .map(|&len| {
                    let seq = items[start..start + len].to_vec();
                    start += len;
                    seq
                })
                .collect())
        }
    }
}

/// An error unless `counts` gives one reference count per hypothesis, adding up to
/// the references given.
fn check_counts(counts: &[usize], hyps: usize, refs: usize) -> PyResult<()> {
    if counts.len() != hyps || counts.iter().sum::<usize>() != refs {
        return Err(value_error(
            "one reference count per hypothesis, adding up to the references given, is required",
        ));
    }
    Ok(())
}

/// `score` of the hypotheses' and references' token sequences of a NIST or RIBES
/// call (see [`sequences`]), `counts` checked.
fn with_sequences<R>(
    (hyps, hyp_lens): (&Bound<'_, PyAny>, Option<&[usize]>),
    (refs, ref_lens): (&Bound<'_, PyAny>, Option<&[usize]>),
    counts: &[usize],
    score: impl FnOnce(&[Vec<&str>], &[Vec<&str>]) -> PyResult<R>,
) -> PyResult<R> {
    let (hyps, refs) = (texts(hyps)?, texts(refs)?);
    let (hyps, refs) = (hyps.strs()?, refs.strs()?);
    let hyp_seqs = sequences(&hyps, hyp_lens, "hypothesis")?;
    let ref_seqs = sequences(&refs, ref_lens, "reference")?;
    check_counts(counts, hyp_seqs.len(), ref_seqs.len())?;
    score(&hyp_seqs, &ref_seqs)
}

/// NLTK NIST rows (`nist_schema(n)`, float64) of every segment: `hyps` and `refs`
/// are lines (split on whitespace) or, with `hyp_lens`/`ref_lens`, flat tokens;
/// `counts[i]` references per segment.
#[pyfunction]
#[pyo3(signature = (hyps, refs, counts, n, hyp_lens=None, ref_lens=None))]
fn nist_rows<'py>(
    py: Python<'py>,
    hyps: &Bound<'py, PyAny>,
    refs: &Bound<'py, PyAny>,
    counts: Vec<usize>,
    n: usize,
    hyp_lens: Option<Vec<usize>>,
    ref_lens: Option<Vec<usize>>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    if n == 0 {
        return Err(value_error("n must be positive"));
    }
    let (hyps, refs) = ((hyps, hyp_lens.as_deref()), (refs, ref_lens.as_deref()));
    with_sequences(hyps, refs, &counts, |hyp_seqs, ref_seqs| {
        let flat = detached(py, || nist::rows(hyp_seqs, ref_seqs, &counts, n));
        to_array2(py, flat, hyp_seqs.len(), nist::width(n))
    })
}

/// NLTK's `sentence_ribes` of every segment (float64), input as for [`nist_rows`].
#[pyfunction]
#[pyo3(signature = (hyps, refs, counts, alpha, beta, hyp_lens=None, ref_lens=None))]
#[allow(clippy::too_many_arguments)]
fn ribes_values<'py>(
    py: Python<'py>,
    hyps: &Bound<'py, PyAny>,
    refs: &Bound<'py, PyAny>,
    counts: Vec<usize>,
    alpha: f64,
    beta: f64,
    hyp_lens: Option<Vec<usize>>,
    ref_lens: Option<Vec<usize>>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (hyps, refs) = ((hyps, hyp_lens.as_deref()), (refs, ref_lens.as_deref()));
    with_sequences(hyps, refs, &counts, |hyp_seqs, ref_seqs| {
        let values = detached(py, || {
            ribes::values(hyp_seqs, ref_seqs, &counts, alpha, beta)
        });
        Ok(PyArray1::from_vec(py, values))
    })
}

/// NLTK GLEU rows `(n_match, n_all)` of every segment, `(n, 2)` int64: `hyps` and `refs`
/// (flat, `counts[i]` per segment) are lines split on whitespace. `None` when `max_len > 4`
/// or the references' vocabulary is too large (the caller's general path then scores them).
#[pyfunction]
fn gleu_rows<'py>(
    py: Python<'py>,
    hyps: &Bound<'py, PyAny>,
    refs: &Bound<'py, PyAny>,
    counts: Vec<usize>,
    min_len: usize,
    max_len: usize,
) -> PyResult<Option<Bound<'py, PyArray2<i64>>>> {
    if min_len == 0 || max_len == 0 {
        return Err(value_error("min_len and max_len must be positive"));
    }
    let (hyps, refs) = (texts(hyps)?, texts(refs)?);
    let (hyps, refs) = (hyps.strs()?, refs.strs()?);
    check_counts(&counts, hyps.len(), refs.len())?;
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    offsets.push(0);
    for &count in &counts {
        offsets.push(offsets[offsets.len() - 1] + count);
    }
    let view = RefsView {
        refs: &refs,
        offsets: &offsets,
    };
    match py.detach(|| gleu::rows(&hyps, view, min_len, max_len)) {
        Some(flat) => Ok(Some(to_array2(py, flat, hyps.len(), 2)?)),
        None => Ok(None),
    }
}

/// Adds the generation kernels to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sari_hf_rows, m)?)?;
    m.add_function(wrap_pyfunction!(sari_easse_rows, m)?)?;
    m.add_function(wrap_pyfunction!(nist_rows, m)?)?;
    m.add_function(wrap_pyfunction!(gleu_rows, m)?)?;
    m.add_function(wrap_pyfunction!(ribes_values, m)?)?;
    Ok(())
}
