//! Python bindings of the nlpeval kernels (`nlpeval._core`). Glue only: every
//! kernel lives in its family's folder with its own unit tests.

pub mod bleu;
pub mod chrf;
pub mod common;
pub mod gen;
pub mod meta;
pub mod meteor;
pub mod report;
pub mod retrieval;
pub mod rouge;
pub mod ter;
pub mod text;

use meteor::py_paraphrases::MeteorParaphrases;
use numpy::{PyArray1, PyArray2, PyArray3, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyString};
use rayon::prelude::*;
use rouge::text::RougeTokenizer;
use rouge::{Doc, Interner, Kind};
use text::{py_split, Tokenizer};

pub use common::parallel::{fill_rows, PARALLEL_MIN_SEGMENTS};

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
    Ok(crate::common::parallel::detached(py, || {
        lines.par_iter().map(|line| tok.tokenize(line)).collect()
    }))
}

fn split_all(texts: &[String]) -> Vec<Vec<&str>> {
    texts.iter().map(|t| py_split(t).collect()).collect()
}

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

/// The references of a call as a [`common::refcache::RefsView`], checked to have one list per hypothesis.
fn one_list_per_hypothesis<'a>(
    hyps: &[&str],
    refs: &'a [&'a str],
    offsets: &'a [usize],
) -> PyResult<common::refcache::RefsView<'a>> {
    if offsets.len() != hyps.len() + 1 {
        return Err(PyValueError::new_err(
            "one list of references per hypothesis is required",
        ));
    }
    Ok(common::refcache::RefsView { refs, offsets })
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
        return Err(PyValueError::new_err(
            "one reference count per hypothesis is required",
        ));
    }
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    offsets.push(0usize);
    for &count in counts {
        let count = usize::try_from(count).map_err(|_| PyValueError::new_err("negative count"))?;
        offsets.push(offsets[offsets.len() - 1] + count);
    }
    if offsets[offsets.len() - 1] != refs.len() {
        return Err(PyValueError::new_err(
            "reference counts do not cover the references",
        ));
    }
    let n = hyps.len();
    let flat = py.detach(|| bleu::ngram::id_batch_stats(&hyps, &refs, &offsets, max_order));
    to_array2(py, flat, n, bleu::ngram::row_width(max_order))
}

/// Sentence BLEU (0–1, effective order) of every hypothesis against every
/// candidate as its single reference: an `(n_hyps, n_cands)` float array.
/// The `MemoryError` of a score matrix too large to allocate.
fn pairwise_memory_error(too_large: common::alloc::TooLarge, n: usize, m: usize) -> PyErr {
    pyo3::exceptions::PyMemoryError::new_err(format!(
        "the {n} x {m} score matrix is too large: {too_large}; score the hypotheses in blocks of rows"
    ))
}

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
        .ok_or_else(|| PyValueError::new_err(format!("unknown smoothing {smooth:?}")))?;
    let (n, m) = (hyps.len(), cands.len());
    let flat = crate::common::parallel::detached(py, || {
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
    .map_err(|too_large| pairwise_memory_error(too_large, n, m))?;
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
    Ok(crate::common::parallel::detached(py, || {
        texts.par_iter().map(|t| tok.tokenize(t, stem)).collect()
    }))
}

/// NLTK's Porter stemmer (NLTK_EXTENSIONS) on lowercase ASCII words.
#[pyfunction]
fn porter_stem(py: Python<'_>, words: Vec<String>) -> Vec<String> {
    crate::common::parallel::detached(py, || {
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
    let bad = |what: &str| PyTypeError::new_err(format!("rouge_stats_text: {what}"));
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
        .ok_or_else(|| PyValueError::new_err(format!("unknown ROUGE tokenizer {tokenizer:?}")))?;
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
    PyValueError::new_err(format!(
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
        return Err(PyValueError::new_err(
            "rouge_stats_ids: inputs differ in length",
        ));
    }
    let flat = crate::common::parallel::detached(py, || {
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
        return Err(PyValueError::new_err(
            "edit_stats needs one reference per hypothesis",
        ));
    }
    let n = hyps.len();
    let flat = crate::common::parallel::detached(py, || {
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
        return Err(PyValueError::new_err(
            "edit_align needs one reference per hypothesis",
        ));
    }
    Ok(crate::common::parallel::detached(py, || {
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
    hyps: &Bound<'py, PyAny>,
    refs: &Bound<'py, PyAny>,
    char_order: usize,
    word_order: usize,
    whitespace: bool,
    factor: f64,
    eps_smoothing: bool,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let cfg = chrf_config(char_order, word_order, whitespace, factor, eps_smoothing)?;
    let (flat, n) = chrf_rows(py, hyps, refs, &cfg)?;
    to_array2(py, flat, n, cfg.row_width())
}

/// The flat statistics rows of [`chrf_stats`] and their number (borrowed strings, cached
/// references).
fn chrf_rows(
    py: Python<'_>,
    hyps: &Bound<'_, PyAny>,
    refs: &Bound<'_, PyAny>,
    cfg: &chrf::ChrfConfig,
) -> PyResult<(Vec<i64>, usize)> {
    let (hyps, (refs, offsets)) = (
        text::py_text::texts(hyps)?,
        text::py_text::nested_texts(refs)?,
    );
    let (hyps, refs) = (hyps.strs()?, refs.strs()?);
    let refs = one_list_per_hypothesis(&hyps, &refs, &offsets)?;
    let flat = py.detach(|| chrf::refs::batch_stats_cached(&hyps, refs, cfg));
    Ok((flat, hyps.len()))
}

/// Column sums of `rows` of `width` integers (a batch's totals).
fn column_sums(flat: &[i64], width: usize) -> Vec<i64> {
    let mut totals = vec![0i64; width];
    for row in flat.chunks_exact(width) {
        for (total, value) in totals.iter_mut().zip(row) {
            *total += value;
        }
    }
    totals
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

/// The totals of [`chrf_stats`]' rows, as a list (see [`bleu_totals`]).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn chrf_totals(
    py: Python<'_>,
    hyps: &Bound<'_, PyAny>,
    refs: &Bound<'_, PyAny>,
    char_order: usize,
    word_order: usize,
    whitespace: bool,
    factor: f64,
    eps_smoothing: bool,
) -> PyResult<Vec<i64>> {
    let cfg = chrf_config(char_order, word_order, whitespace, factor, eps_smoothing)?;
    let (flat, _) = chrf_rows(py, hyps, refs, &cfg)?;
    Ok(column_sums(&flat, cfg.row_width()))
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
    let flat = py
        .detach(|| chrf::pairwise_scores(&hyps, &cands, &cfg))
        .map_err(|too_large| pairwise_memory_error(too_large, n, m))?;
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
    let ranges = report::kendall::group_ranges(offsets, x.len()).map_err(PyValueError::new_err)?;
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
        return Err(PyValueError::new_err(
            "x, y and the weight rows differ in length",
        ));
    }
    let weights = weights.as_slice()?;
    let ranges = report::kendall::group_ranges(offsets, x.len()).map_err(PyValueError::new_err)?;
    let groups = ranges.len();
    let flat =
        py.detach(|| report::kendall::batch_weighted_group_stats(x, y, &ranges, weights, rows));
    PyArray1::from_vec(py, flat).reshape([rows, groups, report::kendall::WEIGHTED_COLUMNS])
}

/// Splits texts (Python's `str.split` or, with `java`, Java's `StringTokenizer`) and
/// interns the tokens (ASCII ones lowercased with `lower_ascii`): `(flat ids, tokens per text, types)`.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn meteor_split_intern<'py>(
    py: Python<'py>,
    texts: Vec<pyo3::pybacked::PyBackedStr>,
    java: bool,
    lower_ascii: bool,
) -> (
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<i64>>,
    Vec<String>,
) {
    let splitter = if java {
        meteor::tokens::Splitter::Java
    } else {
        meteor::tokens::Splitter::Python
    };
    let interned = py.detach(|| meteor::tokens::split_intern(&texts, splitter, lower_ascii));
    (
        PyArray1::from_vec(py, interned.ids),
        PyArray1::from_vec(py, interned.lens),
        interned.types,
    )
}

/// METEOR 1.5's `-norm` tokenization of each line (not lowercased); `prefixes`
/// maps nonbreaking prefixes to 1 (always) or 2 (before numbers only).
#[pyfunction]
fn meteor_normalize(
    py: Python<'_>,
    lines: Vec<String>,
    keep_punctuation: bool,
    prefixes: std::collections::HashMap<String, u8>,
) -> PyResult<Vec<String>> {
    use meteor::normalize::Prefix;
    let prefixes = prefixes
        .into_iter()
        .map(|(k, v)| match v {
            1 => Ok((k, Prefix::Any)),
            2 => Ok((k, Prefix::NumericOnly)),
            _ => Err(PyValueError::new_err("prefix kinds are 1 or 2")),
        })
        .collect::<PyResult<std::collections::HashMap<String, Prefix>>>()?;
    Ok(crate::common::parallel::detached(py, || {
        lines
            .par_iter()
            .map(|l| meteor::normalize::normalize_line(l, keep_punctuation, &prefixes))
            .collect()
    }))
}

/// Snowball English stems as METEOR 1.5's Java stemmer computes them.
#[pyfunction]
fn meteor_snowball_stems(py: Python<'_>, words: Vec<String>) -> Vec<String> {
    crate::common::parallel::detached(py, || {
        words
            .par_iter()
            .map(|w| meteor::snowball::stem(w))
            .collect()
    })
}

/// METEOR 1.5 word keys: Java `hashCode` of each word and, if `stem`, of its Snowball stem.
#[pyfunction]
fn meteor_word_keys(py: Python<'_>, words: Vec<String>, stem: bool) -> (Vec<i32>, Vec<i32>) {
    crate::common::parallel::detached(py, || {
        let hashes = words
            .par_iter()
            .map(|w| meteor::java::string_hash(w))
            .collect();
        let stems = if stem {
            words
                .par_iter()
                .map(|w| {
                    let units: Vec<u16> = w.encode_utf16().collect();
                    meteor::java::units_hash(&meteor::snowball::stem_units(&units))
                })
                .collect()
        } else {
            Vec::new()
        };
        (hashes, stems)
    })
}

/// NLTK Porter stems of words already lowercased with `str.lower`.
#[pyfunction]
fn nltk_porter_stems(py: Python<'_>, words: Vec<String>) -> Vec<String> {
    crate::common::parallel::detached(py, || {
        words.par_iter().map(|w| text::porter::stem(w)).collect()
    })
}

/// Splits `flat` into consecutive slices of the given lengths.
fn split_flat<'a, T>(flat: &'a [T], lens: &[i64]) -> PyResult<Vec<&'a [T]>> {
    let mut out = Vec::with_capacity(lens.len());
    let mut pos = 0usize;
    for &len in lens {
        let len = usize::try_from(len).map_err(|_| PyValueError::new_err("negative length"))?;
        let end = pos
            .checked_add(len)
            .filter(|&e| e <= flat.len())
            .ok_or_else(|| PyValueError::new_err("lengths exceed the flat array"))?;
        out.push(&flat[pos..end]);
        pos = end;
    }
    if pos != flat.len() {
        return Err(PyValueError::new_err("lengths do not cover the flat array"));
    }
    Ok(out)
}

/// NLTK METEOR of each segment (best over its references), from interned word ids.
/// Token sequences are flat arrays with their lengths; `ref_counts` gives each
/// segment's number of references, `synonyms`/`synonym_lens` each stem's synonyms.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn nltk_meteor_scores<'py>(
    py: Python<'py>,
    hyp_tokens: PyReadonlyArray1<'py, u32>,
    hyp_lens: PyReadonlyArray1<'py, i64>,
    ref_tokens: PyReadonlyArray1<'py, u32>,
    ref_lens: PyReadonlyArray1<'py, i64>,
    ref_counts: PyReadonlyArray1<'py, i64>,
    stem_of: PyReadonlyArray1<'py, u32>,
    synonyms: PyReadonlyArray1<'py, u32>,
    synonym_lens: PyReadonlyArray1<'py, i64>,
    params: (f64, f64, f64),
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let hyps = split_flat(hyp_tokens.as_slice()?, hyp_lens.as_slice()?)?;
    let refs = split_flat(ref_tokens.as_slice()?, ref_lens.as_slice()?)?;
    let per_segment = split_flat(&refs, ref_counts.as_slice()?)?;
    let stem_of = stem_of.as_slice()?;
    let synonyms_of = split_flat(synonyms.as_slice()?, synonym_lens.as_slice()?)?;
    let keys = synonyms_of.len() as u32;
    if hyps.len() != per_segment.len()
        || synonyms_of.len() >= meteor::nltk::TAKEN as usize
        || stem_of.iter().any(|&k| k >= keys)
        || synonyms_of.iter().any(|s| s.iter().any(|&k| k >= keys))
        || hyps
            .iter()
            .chain(&refs)
            .any(|s| s.iter().any(|&w| w as usize >= stem_of.len()))
    {
        return Err(PyValueError::new_err("inconsistent NLTK METEOR inputs"));
    }
    let (alpha, beta, gamma) = params;
    let scores = crate::common::parallel::detached(py, || {
        let lex = meteor::nltk::Lexicon {
            stem_of,
            synonyms_of: &synonyms_of,
        };
        hyps.par_iter()
            .zip(per_segment.par_iter())
            .map_init(meteor::nltk::Scratch::default, |scratch, (h, rs)| {
                rs.iter()
                    .map(|r| {
                        let counts = meteor::nltk::align(h, r, &lex, scratch);
                        meteor::nltk::score(&counts, alpha, beta, gamma)
                    })
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .collect::<Vec<f64>>()
    });
    Ok(PyArray1::from_vec(py, scores))
}

/// METEOR 1.5 alignment counts of hypothesis–reference pairs of word-type ids
/// (flat arrays with lengths): `(pairs, 5 + 4 * len(modules))` integers (see
/// `meteor::align::Counts::row`). Per type: Java hash, stem hash, synsets
/// (flat with lengths), paraphrase-table id and function-word flag. A pair
/// with more than `max_candidates` candidate matches is not aligned: its row
/// is `-1`, the candidate count, then zeros.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (hyp_tokens, hyp_lens, ref_tokens, ref_lens, word_hash, stem_hash, synsets, synset_lens, para_id, is_function, modules, beam, paraphrases=None, max_candidates=None))]
fn meteor_align_rows<'py>(
    py: Python<'py>,
    hyp_tokens: PyReadonlyArray1<'py, u32>,
    hyp_lens: PyReadonlyArray1<'py, i64>,
    ref_tokens: PyReadonlyArray1<'py, u32>,
    ref_lens: PyReadonlyArray1<'py, i64>,
    word_hash: PyReadonlyArray1<'py, i32>,
    stem_hash: PyReadonlyArray1<'py, i32>,
    synsets: PyReadonlyArray1<'py, i32>,
    synset_lens: PyReadonlyArray1<'py, i64>,
    para_id: PyReadonlyArray1<'py, i32>,
    is_function: PyReadonlyArray1<'py, bool>,
    modules: Vec<u8>,
    beam: usize,
    paraphrases: Option<PyRef<'py, MeteorParaphrases>>,
    max_candidates: Option<u64>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    use meteor::align::Module;
    let modules: Vec<Module> = modules
        .iter()
        .map(|&c| Module::from_code(c).ok_or_else(|| PyValueError::new_err("unknown module")))
        .collect::<PyResult<_>>()?;
    let hyps = split_flat(hyp_tokens.as_slice()?, hyp_lens.as_slice()?)?;
    let refs = split_flat(ref_tokens.as_slice()?, ref_lens.as_slice()?)?;
    let word_hash = word_hash.as_slice()?;
    let stem_hash = stem_hash.as_slice()?;
    let synsets = split_flat(synsets.as_slice()?, synset_lens.as_slice()?)?;
    let para_id = para_id.as_slice()?;
    let is_function = is_function.as_slice()?;
    let types = word_hash.len();
    let uses = |m: Module| modules.contains(&m);
    if hyps.len() != refs.len()
        || is_function.len() != types
        || (uses(Module::Stem) && stem_hash.len() != types)
        || (uses(Module::Synonym) && synsets.len() != types)
        || (uses(Module::Paraphrase) && para_id.len() != types)
        || beam == 0
    {
        return Err(PyValueError::new_err(
            "inconsistent METEOR alignment inputs",
        ));
    }
    if hyps
        .iter()
        .chain(&refs)
        .any(|s| s.iter().any(|&t| t as usize >= types))
    {
        return Err(PyValueError::new_err("word type id out of range"));
    }
    let table = paraphrases.as_ref().map(|p| &p.table);
    if table.is_some_and(|t| para_id.iter().any(|&i| i >= t.vocab_len() as i32)) {
        return Err(PyValueError::new_err("paraphrase id out of range"));
    }
    let width = 5 + 4 * modules.len();
    let n = hyps.len();
    let flat = crate::common::parallel::detached(py, || {
        let lex = meteor::align::Lexicon {
            word_hash,
            stem_hash,
            synsets: &synsets,
            para_id,
            is_function,
            paraphrases: table.filter(|_| uses(Module::Paraphrase)),
        };
        let rows: Vec<Vec<i64>> = hyps
            .par_iter()
            .zip(refs.par_iter())
            .map(|(h, r)| {
                let limit = max_candidates.unwrap_or(u64::MAX);
                match meteor::align::align_bounded(h, r, &modules, beam, &lex, limit) {
                    Ok(counts) => counts.row(),
                    // a pair over the limit: -1 and its candidate count, not aligned
                    Err(count) => {
                        let mut row = vec![0; width];
                        row[0] = -1;
                        row[1] = i64::try_from(count).unwrap_or(i64::MAX);
                        row
                    }
                }
            })
            .collect();
        rows.concat()
    });
    to_array2(py, flat, n, width)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    gen::py::register(m)?;
    retrieval::py::register(m)?;
    m.add_function(wrap_pyfunction!(tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_stats, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_stats_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_stats_flat, m)?)?;
    m.add_function(wrap_pyfunction!(flatten_id_lists, m)?)?;
    m.add_function(wrap_pyfunction!(flatten_reference_lists, m)?)?;
    m.add_function(wrap_pyfunction!(trim_ids, m)?)?;
    m.add_function(wrap_pyfunction!(receive_text, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_pairwise_scores, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(porter_stem, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_stats_text, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_stats_ids, m)?)?;
    m.add_function(wrap_pyfunction!(edit_stats, m)?)?;
    m.add_function(wrap_pyfunction!(edit_align, m)?)?;
    m.add_function(wrap_pyfunction!(chrf_stats, m)?)?;
    m.add_function(wrap_pyfunction!(chrf_pairwise_scores, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_totals, m)?)?;
    m.add_function(wrap_pyfunction!(chrf_totals, m)?)?;
    m.add_function(wrap_pyfunction!(text::py_text::refcache_info, m)?)?;
    m.add_function(wrap_pyfunction!(text::py_text::native_threads, m)?)?;
    m.add_function(wrap_pyfunction!(text::py_text::refcache_clear, m)?)?;
    m.add_function(wrap_pyfunction!(text::py_text::refcache_limits, m)?)?;
    m.add_function(wrap_pyfunction!(ter_stats, m)?)?;
    m.add_function(wrap_pyfunction!(kendall_group_stats, m)?)?;
    m.add_function(wrap_pyfunction!(kendall_weighted_stats, m)?)?;
    m.add_function(wrap_pyfunction!(meteor_split_intern, m)?)?;
    m.add_function(wrap_pyfunction!(meteor_normalize, m)?)?;
    m.add_function(wrap_pyfunction!(meteor_snowball_stems, m)?)?;
    m.add_function(wrap_pyfunction!(meteor_word_keys, m)?)?;
    m.add_function(wrap_pyfunction!(nltk_porter_stems, m)?)?;
    m.add_function(wrap_pyfunction!(nltk_meteor_scores, m)?)?;
    m.add_function(wrap_pyfunction!(meteor_align_rows, m)?)?;
    m.add_function(wrap_pyfunction!(
        meteor::py_corpus::meteor_corpus_totals,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(meteor::py_corpus::meteor_row_parts, m)?)?;
    m.add_function(wrap_pyfunction!(meteor::py_corpus::meteor_rows_parts, m)?)?;
    m.add_class::<meteor::py_corpus::MeteorTokens>()?;
    m.add_function(wrap_pyfunction!(
        report::sentence_scores::bleu_row_scores,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        report::sentence_scores::bleu_totals_values,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        report::sentence_scores::chrf_row_scores,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        report::sentence_scores::chrf_totals_parts,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(report::sentence_scores::bleu_summary, m)?)?;
    m.add_function(wrap_pyfunction!(report::sentence_scores::chrf_summary, m)?)?;
    m.add_function(wrap_pyfunction!(
        report::sentence_scores::with_reference_counts,
        m
    )?)?;
    report::kernels::register(m)?;
    meta::py::register(m)?;
    m.add_class::<MeteorParaphrases>()?;
    m.add_class::<meteor::wordnet_index::WordNetIndex>()?;
    Ok(())
}
