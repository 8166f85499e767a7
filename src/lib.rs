//! Python bindings of the nlpeval kernels (`nlpeval._core`). Glue only: every
//! kernel lives in its own module with its own unit tests.

pub mod bleu_score;
pub mod chrf;
pub mod edit;
pub mod kendall;
pub mod ngram;
pub mod rouge;
pub mod rouge_text;
pub mod ter;
pub mod text;

use numpy::{PyArray1, PyArray2, PyArray3, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use rouge::{Doc, Interner, Kind};
use rouge_text::RougeTokenizer;
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
    let hyps = hyps.par_iter().map(|h| tok.tokenize_unjoined(h)).collect();
    let refs = refs
        .par_iter()
        .map(|rs| rs.iter().map(|r| tok.tokenize_unjoined(r)).collect())
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
    let smoothing = bleu_score::Smoothing::from_name(smooth, smooth_value)
        .ok_or_else(|| PyValueError::new_err(format!("unknown smoothing {smooth:?}")))?;
    let (n, m) = (hyps.len(), cands.len());
    let flat = py.detach(|| {
        let hyp_text: Vec<String> = hyps.par_iter().map(|h| tok.tokenize_unjoined(h)).collect();
        let cand_text: Vec<String> = cands.par_iter().map(|c| tok.tokenize_unjoined(c)).collect();
        let hyp_tokens = split_all(&hyp_text);
        let cand_tokens = split_all(&cand_text);
        let hyp_slices: Vec<&[&str]> = hyp_tokens.iter().map(|t| t.as_slice()).collect();
        let cand_slices: Vec<&[&str]> = cand_tokens.iter().map(|t| t.as_slice()).collect();
        ngram::pairwise_map(&hyp_slices, &cand_slices, max_order, |row| {
            bleu_score::bleu(row, max_order, smoothing, true)
        })
    });
    PyArray1::from_vec(py, flat).reshape([n, m])
}

fn rouge_kinds(kinds: &[(String, f64)]) -> PyResult<Vec<Kind>> {
    kinds
        .iter()
        .map(|(code, param)| {
            Kind::from_code(code, *param).ok_or_else(|| {
                PyValueError::new_err(format!("unknown ROUGE kernel {code:?} ({param})"))
            })
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
        .ok_or_else(|| PyValueError::new_err(format!("unknown ROUGE tokenizer {tokenizer:?}")))?;
    Ok(py.detach(|| texts.par_iter().map(|t| tok.tokenize(t, stem)).collect()))
}

/// NLTK's Porter stemmer (NLTK_EXTENSIONS) on lowercase ASCII words.
#[pyfunction]
fn porter_stem(py: Python<'_>, words: Vec<String>) -> Vec<String> {
    py.detach(|| {
        words
            .par_iter()
            .map(|w| rouge_text::porter_stem(w))
            .collect()
    })
}

/// ROUGE statistics of text: `(pairs, kinds, 3)` floats `[hits, hyp count, ref count]`,
/// one pair per (segment, reference) in order.
#[pyfunction]
fn rouge_stats_text<'py>(
    py: Python<'py>,
    hyps: Vec<String>,
    refs: Vec<Vec<String>>,
    tokenizer: &str,
    stem: bool,
    kinds: Vec<(String, f64)>,
    split_lines: bool,
) -> PyResult<Bound<'py, PyArray3<f64>>> {
    let tok = RougeTokenizer::from_name(tokenizer)
        .ok_or_else(|| PyValueError::new_err(format!("unknown ROUGE tokenizer {tokenizer:?}")))?;
    let kinds_parsed = rouge_kinds(&kinds)?;
    let flat =
        py.detach(|| rouge::text_batch_stats(&hyps, &refs, tok, stem, &kinds_parsed, split_lines));
    rouge_array(py, flat, kinds_parsed.len())
}

fn id_doc(sents: Vec<Vec<i64>>, flat: Vec<i64>, interner: &mut Interner<i64>) -> Doc {
    Doc {
        sents: sents
            .into_iter()
            .map(|s| s.into_iter().map(|t| interner.id(t)).collect())
            .collect(),
        flat: flat.into_iter().map(|t| interner.id(t)).collect(),
    }
}

/// ROUGE statistics of token ids given by sentence plus flat tokens (for n-grams,
/// skip-bigrams and the clipping of union-LCS hits): `(pairs, kinds, 3)` floats.
#[pyfunction]
fn rouge_stats_ids<'py>(
    py: Python<'py>,
    hyp_sents: Vec<Vec<Vec<i64>>>,
    hyp_flat: Vec<Vec<i64>>,
    ref_sents: Vec<Vec<Vec<Vec<i64>>>>,
    ref_flat: Vec<Vec<Vec<i64>>>,
    kinds: Vec<(String, f64)>,
) -> PyResult<Bound<'py, PyArray3<f64>>> {
    let kinds_parsed = rouge_kinds(&kinds)?;
    let n = hyp_sents.len();
    if hyp_flat.len() != n || ref_sents.len() != n || ref_flat.len() != n {
        return Err(PyValueError::new_err(
            "rouge_stats_ids: inputs differ in length",
        ));
    }
    let flat = py.detach(|| {
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
        rouge::batch_stats(&segments, &kinds_parsed)
    });
    rouge_array(py, flat, kinds_parsed.len())
}

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
        _ => Err(PyValueError::new_err(format!(
            "unknown edit unit {unit:?}; use 'word' or 'char'"
        ))),
    }
}

fn edit_ops(hyp: &str, reference: &str, unit: EditUnit) -> Vec<edit::Op> {
    match unit {
        EditUnit::Word => edit::align(&edit::jiwer_words(reference), &edit::jiwer_words(hyp)),
        EditUnit::Char => edit::align(&edit::jiwer_chars(reference), &edit::jiwer_chars(hyp)),
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
        return Err(PyValueError::new_err(
            "edit_stats needs one reference per hypothesis",
        ));
    }
    let n = hyps.len();
    let flat = py.detach(|| {
        hyps.par_iter()
            .zip(refs.par_iter())
            .flat_map_iter(|(h, r)| edit::row(&edit_ops(h, r, unit)))
            .collect()
    });
    to_array2(py, flat, n, edit::ROW_WIDTH)
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
        return Err(PyValueError::new_err(
            "edit_align needs one reference per hypothesis",
        ));
    }
    Ok(py.detach(|| {
        hyps.par_iter()
            .zip(refs.par_iter())
            .map(|(h, r)| {
                let (r_tokens, h_tokens): (Vec<String>, Vec<String>) = match unit {
                    EditUnit::Word => (
                        edit::jiwer_words(r)
                            .into_iter()
                            .map(str::to_owned)
                            .collect(),
                        edit::jiwer_words(h)
                            .into_iter()
                            .map(str::to_owned)
                            .collect(),
                    ),
                    EditUnit::Char => (
                        edit::jiwer_chars(r).into_iter().map(String::from).collect(),
                        edit::jiwer_chars(h).into_iter().map(String::from).collect(),
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

fn chrf_config(
    char_order: usize,
    word_order: usize,
    whitespace: bool,
    factor: f64,
    eps_smoothing: bool,
) -> PyResult<chrf::ChrfConfig> {
    if char_order + word_order == 0 || char_order + word_order > 255 {
        return Err(PyValueError::new_err(
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
    hyps: Vec<String>,
    refs: Vec<Vec<String>>,
    char_order: usize,
    word_order: usize,
    whitespace: bool,
    factor: f64,
    eps_smoothing: bool,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let cfg = chrf_config(char_order, word_order, whitespace, factor, eps_smoothing)?;
    if hyps.len() != refs.len() {
        return Err(PyValueError::new_err(
            "one list of references per hypothesis is required",
        ));
    }
    let n = hyps.len();
    let flat = py.detach(|| chrf::batch_stats(&hyps, &refs, &cfg));
    to_array2(py, flat, n, cfg.row_width())
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
    let flat = py.detach(|| chrf::pairwise_scores(&hyps, &cands, &cfg));
    PyArray1::from_vec(py, flat).reshape([n, m])
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
        return Err(PyValueError::new_err(format!(
            "{} hypotheses but {} reference lists",
            hyps.len(),
            refs.len()
        )));
    }
    let n = hyps.len();
    let flat = py.detach(|| ter::batch_stats(&hyps, &refs));
    to_array2(py, flat, n, 2)
}

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
        return Err(PyValueError::new_err("x and y differ in length"));
    }
    let ranges = kendall::group_ranges(offsets, x.len()).map_err(PyValueError::new_err)?;
    let groups = ranges.len();
    let (counts, sums) = py.detach(|| kendall::batch_group_stats(x, y, &ranges));
    Ok((
        to_array2(py, counts, groups, kendall::COLUMNS)?,
        PyArray1::from_vec(py, sums).reshape([groups, kendall::SUM_COLUMNS])?,
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
        return Err(PyValueError::new_err(
            "x, y and the weight rows differ in length",
        ));
    }
    let weights = weights.as_slice()?;
    let ranges = kendall::group_ranges(offsets, x.len()).map_err(PyValueError::new_err)?;
    let groups = ranges.len();
    let flat = py.detach(|| kendall::batch_weighted_group_stats(x, y, &ranges, weights, rows));
    PyArray1::from_vec(py, flat).reshape([rows, groups, kendall::WEIGHTED_COLUMNS])
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_stats, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_stats_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_stats_ids, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_pairwise_scores, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(porter_stem, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_stats_text, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_stats_ids, m)?)?;
    m.add_function(wrap_pyfunction!(edit_stats, m)?)?;
    m.add_function(wrap_pyfunction!(edit_align, m)?)?;
    m.add_function(wrap_pyfunction!(chrf_stats, m)?)?;
    m.add_function(wrap_pyfunction!(chrf_pairwise_scores, m)?)?;
    m.add_function(wrap_pyfunction!(ter_stats, m)?)?;
    m.add_function(wrap_pyfunction!(kendall_group_stats, m)?)?;
    m.add_function(wrap_pyfunction!(kendall_weighted_stats, m)?)?;
    Ok(())
}
