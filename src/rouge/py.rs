//! Python bindings of the ROUGE kernels: tokenizer, stemmer, and statistics of
//! text or of token ids.

use numpy::{PyArray1, PyArray3, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use rayon::prelude::*;

use crate::common::parallel::detached;
use crate::common::py::{type_error, value_error};
use crate::rouge::{self, text::RougeTokenizer, Doc, Interner, Kind};

fn rouge_kinds(kinds: &[(String, f64)]) -> PyResult<Vec<Kind>> {
    kinds
        .iter()
        .map(|(code, param)| {
            Kind::from_code(code, *param)
                .ok_or_else(|| value_error(format!("unknown ROUGE kernel {code:?} ({param})")))
        })
        .collect()
}

fn rouge_array<'py>(
    py: Python<'py>,
    flat: Vec<f64>,
    n_kinds: usize,
) -> PyResult<Bound<'py, PyArray3<f64>>> {
    let rows = flat.len() / (3 * n_kinds.max(1));
    PyArray1::from_vec(py, flat).reshape([rows, n_kinds, 3])
}

/// Tokens of each text with a ROUGE tokenizer (`rouge-score` or `unicode`).
#[pyfunction]
fn rouge_tokenize(
    py: Python<'_>,
    texts: Vec<String>,
    tokenizer: &str,
    stem: bool,
) -> PyResult<Vec<Vec<String>>> {
    let tok = RougeTokenizer::from_name(tokenizer)
        .ok_or_else(|| value_error(format!("unknown ROUGE tokenizer {tokenizer:?}")))?;
    Ok(detached(py, || {
        texts.par_iter().map(|t| tok.tokenize(t, stem)).collect()
    }))
}

/// NLTK's Porter stemmer (NLTK_EXTENSIONS) on lowercase ASCII words.
#[pyfunction]
fn porter_stem(py: Python<'_>, words: Vec<String>) -> Vec<String> {
    detached(py, || {
        words
            .par_iter()
            .map(|w| rouge::text::porter_stem(w))
            .collect()
    })
}

/// Reads ROUGE text input: `hyps` a list of str, `refs` a list whose items are a str
/// (one reference) or a non-empty list of str. Anything else raises `TypeError` (the
/// caller then runs its validator, which names the segment); a lone surrogate raises
/// `UnicodeEncodeError`.
fn rouge_texts(
    hyps: &Bound<'_, PyAny>,
    refs: &Bound<'_, PyAny>,
) -> PyResult<(rouge::Texts, rouge::Texts, Vec<usize>)> {
    let bad = |what: &str| type_error(format!("rouge_stats_text: {what}"));
    let hyps = hyps
        .cast::<PyList>()
        .map_err(|_| bad("hypotheses must be a list"))?;
    let refs = refs
        .cast::<PyList>()
        .map_err(|_| bad("references must be a list"))?;
    if hyps.len() != refs.len() {
        return Err(bad("inputs differ in length"));
    }
    let mut hyp_texts = rouge::Texts::default();
    for item in hyps.iter() {
        let text = item
            .cast::<PyString>()
            .map_err(|_| bad("hypothesis not str"))?;
        hyp_texts.push(text.to_str()?);
    }
    let mut ref_texts = rouge::Texts::default();
    let mut counts = Vec::with_capacity(refs.len());
    for item in refs.iter() {
        if let Ok(text) = item.cast::<PyString>() {
            ref_texts.push(text.to_str()?);
            counts.push(1);
            continue;
        }
        let seg = item
            .cast::<PyList>()
            .map_err(|_| bad("reference item neither str nor list"))?;
        if seg.is_empty() {
            return Err(bad("segment without references"));
        }
        for reference in seg.iter() {
            let text = reference
                .cast::<PyString>()
                .map_err(|_| bad("reference not str"))?;
            ref_texts.push(text.to_str()?);
        }
        counts.push(seg.len());
    }
    Ok((hyp_texts, ref_texts, counts))
}

/// ROUGE statistics of text: `(pairs, kinds, 3)` floats `[hits, hyp count, ref count]`,
/// one pair per (segment, reference) in order, and the number of references of each
/// segment. `refs` items are a str or a list of str (see `rouge_texts`). A pair whose
/// super-linear work exceeds `max_cells` (see `rouge::pair_cells`; `None`: no bound)
/// raises `ValueError` with the message `rouge-pair-too-large <segment> <reference> <cells> <limit>`.
#[pyfunction]
#[pyo3(signature = (hyps, refs, tokenizer, stem, kinds, split_lines, max_cells=None))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn rouge_stats_text<'py>(
    py: Python<'py>,
    hyps: &Bound<'py, PyAny>,
    refs: &Bound<'py, PyAny>,
    tokenizer: &str,
    stem: bool,
    kinds: Vec<(String, f64)>,
    split_lines: bool,
    max_cells: Option<u64>,
) -> PyResult<(Bound<'py, PyArray3<f64>>, Bound<'py, PyArray1<i64>>)> {
    let tok = RougeTokenizer::from_name(tokenizer)
        .ok_or_else(|| value_error(format!("unknown ROUGE tokenizer {tokenizer:?}")))?;
    let kinds_parsed = rouge_kinds(&kinds)?;
    let (hyp_texts, ref_texts, counts) = rouge_texts(hyps, refs)?;
    let limit = max_cells.unwrap_or(u64::MAX);
    let flat = py
        .detach(|| {
            rouge::text_batch_stats(
                &hyp_texts,
                &ref_texts,
                &counts,
                tok,
                stem,
                &kinds_parsed,
                split_lines,
                limit,
            )
        })
        .map_err(rouge_too_large)?;
    let counts: Vec<i64> = counts.into_iter().map(|c| c as i64).collect();
    Ok((
        rouge_array(py, flat, kinds_parsed.len())?,
        PyArray1::from_vec(py, counts),
    ))
}

fn rouge_too_large(err: rouge::PairTooLarge) -> PyErr {
    value_error(format!(
        "rouge-pair-too-large {} {} {} {}",
        err.segment, err.reference, err.cells, err.limit
    ))
}

fn id_doc(sents: Vec<Vec<i64>>, flat: Vec<i64>, interner: &mut Interner<i64>) -> Doc {
    Doc::new(
        sents
            .into_iter()
            .map(|s| s.into_iter().map(|t| interner.id(t)).collect())
            .collect(),
        flat.into_iter().map(|t| interner.id(t)).collect(),
    )
}

/// ROUGE statistics of token ids given by sentence plus flat tokens (for n-grams,
/// skip-bigrams and the clipping of union-LCS hits): `(pairs, kinds, 3)` floats.
#[pyfunction]
#[pyo3(signature = (hyp_sents, hyp_flat, ref_sents, ref_flat, kinds, max_cells=None))]
fn rouge_stats_ids<'py>(
    py: Python<'py>,
    hyp_sents: Vec<Vec<Vec<i64>>>,
    hyp_flat: Vec<Vec<i64>>,
    ref_sents: Vec<Vec<Vec<Vec<i64>>>>,
    ref_flat: Vec<Vec<Vec<i64>>>,
    kinds: Vec<(String, f64)>,
    max_cells: Option<u64>,
) -> PyResult<Bound<'py, PyArray3<f64>>> {
    let kinds_parsed = rouge_kinds(&kinds)?;
    let n = hyp_sents.len();
    if hyp_flat.len() != n || ref_sents.len() != n || ref_flat.len() != n {
        return Err(value_error("rouge_stats_ids: inputs differ in length"));
    }
    let flat = detached(py, || {
        let segments: Vec<(Doc, Vec<Doc>)> = hyp_sents
            .into_par_iter()
            .zip(hyp_flat)
            .zip(ref_sents.into_par_iter().zip(ref_flat))
            .map(|((hs, hf), (rs, rf))| {
                let mut interner = Interner::default();
                let hyp = id_doc(hs, hf, &mut interner);
                let refs = rs
                    .into_iter()
                    .zip(rf)
                    .map(|(s, f)| id_doc(s, f, &mut interner))
                    .collect();
                (hyp, refs)
            })
            .collect();
        rouge::batch_stats(&segments, &kinds_parsed, max_cells.unwrap_or(u64::MAX))
    })
    .map_err(rouge_too_large)?;
    rouge_array(py, flat, kinds_parsed.len())
}

/// Adds the ROUGE functions to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(rouge_tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(porter_stem, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_stats_text, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_stats_ids, m)?)?;
    Ok(())
}
