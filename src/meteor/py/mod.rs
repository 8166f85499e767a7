//! Python bindings of the METEOR kernels. Here: NLTK's METEOR (stems, scores) and
//! METEOR 1.5's tokenization, stems, word keys and alignment rows; in submodules, one
//! per Python-facing concern too big to sit here: METEOR 1.5's NumPy-free corpus path
//! (`corpus`, with its `MeteorTokens` class) and the two classes over cached tables,
//! `MeteorParaphrases` (`paraphrases`) and `WordNetIndex` (`wordnet`). `register`
//! adds them all.

pub mod corpus;
pub mod paraphrases;
pub mod wordnet;

use numpy::{Element, PyArray1, PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::common::parallel::detached;
use crate::common::py::{split_flat, to_array2, value_error};
use crate::meteor;
use crate::text;
use paraphrases::MeteorParaphrases;

/// `split_flat` of a flat array and its lengths, both NumPy arrays.
fn split_arrays<'a, T: Element>(
    flat: &'a PyReadonlyArray1<'_, T>,
    lens: &PyReadonlyArray1<'_, i64>,
) -> PyResult<Vec<&'a [T]>> {
    split_flat(flat.as_slice()?, lens.as_slice()?)
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
            _ => Err(value_error("prefix kinds are 1 or 2")),
        })
        .collect::<PyResult<std::collections::HashMap<String, Prefix>>>()?;
    Ok(detached(py, || {
        lines
            .par_iter()
            .map(|l| meteor::normalize::normalize_line(l, keep_punctuation, &prefixes))
            .collect()
    }))
}

/// Snowball English stems as METEOR 1.5's Java stemmer computes them.
#[pyfunction]
fn meteor_snowball_stems(py: Python<'_>, words: Vec<String>) -> Vec<String> {
    detached(py, || {
        words
            .par_iter()
            .map(|w| meteor::snowball::stem(w))
            .collect()
    })
}

/// METEOR 1.5 word keys: Java `hashCode` of each word and, if `stem`, of its Snowball stem.
#[pyfunction]
fn meteor_word_keys(py: Python<'_>, words: Vec<String>, stem: bool) -> (Vec<i32>, Vec<i32>) {
    detached(py, || {
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
    detached(py, || {
        words.par_iter().map(|w| text::porter::stem(w)).collect()
    })
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
    let hyps = split_arrays(&hyp_tokens, &hyp_lens)?;
    let refs = split_arrays(&ref_tokens, &ref_lens)?;
    let per_segment = split_flat(&refs, ref_counts.as_slice()?)?;
    let stem_of = stem_of.as_slice()?;
    let synonyms_of = split_arrays(&synonyms, &synonym_lens)?;
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
        return Err(value_error("inconsistent NLTK METEOR inputs"));
    }
    let (alpha, beta, gamma) = params;
    let scores = detached(py, || {
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
        .map(|&c| Module::from_code(c).ok_or_else(|| value_error("unknown module")))
        .collect::<PyResult<_>>()?;
    let hyps = split_arrays(&hyp_tokens, &hyp_lens)?;
    let refs = split_arrays(&ref_tokens, &ref_lens)?;
    let word_hash = word_hash.as_slice()?;
    let stem_hash = stem_hash.as_slice()?;
    let synsets = split_arrays(&synsets, &synset_lens)?;
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
        return Err(value_error("inconsistent METEOR alignment inputs"));
    }
    if hyps
        .iter()
        .chain(&refs)
        .any(|s| s.iter().any(|&t| t as usize >= types))
    {
        return Err(value_error("word type id out of range"));
    }
    let table = paraphrases.as_ref().map(|p| &p.table);
    if table.is_some_and(|t| para_id.iter().any(|&i| i >= t.vocab_len() as i32)) {
        return Err(value_error("paraphrase id out of range"));
    }
    let width = 5 + 4 * modules.len();
    let n = hyps.len();
    let flat = detached(py, || {
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

/// Adds the METEOR functions and classes to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(meteor_split_intern, m)?)?;
    m.add_function(wrap_pyfunction!(meteor_normalize, m)?)?;
    m.add_function(wrap_pyfunction!(meteor_snowball_stems, m)?)?;
    m.add_function(wrap_pyfunction!(meteor_word_keys, m)?)?;
    m.add_function(wrap_pyfunction!(nltk_porter_stems, m)?)?;
    m.add_function(wrap_pyfunction!(nltk_meteor_scores, m)?)?;
    m.add_function(wrap_pyfunction!(meteor_align_rows, m)?)?;
    m.add_function(wrap_pyfunction!(corpus::meteor_corpus_totals, m)?)?;
    m.add_function(wrap_pyfunction!(corpus::meteor_row_parts, m)?)?;
    m.add_function(wrap_pyfunction!(corpus::meteor_rows_parts, m)?)?;
    m.add_class::<corpus::MeteorTokens>()?;
    m.add_class::<MeteorParaphrases>()?;
    m.add_class::<wordnet::WordNetIndex>()?;
    Ok(())
}
