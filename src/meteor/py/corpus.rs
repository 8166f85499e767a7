//! Python bindings of METEOR 1.5's corpus path without NumPy (`nlpeval score -m meteor`'s
//! fast path) and of the score formula both paths use ([`crate::meteor::corpus`]).

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use rayon::prelude::*;

use super::paraphrases::MeteorParaphrases;
use crate::common::parallel::detached;
use crate::common::py::{split_flat, value_error};
use crate::meteor::align::{align_bounded, Lexicon, Module};
use crate::meteor::corpus::{self, Params, Parts};
use crate::meteor::tokens::{split_intern, Interned, Splitter};

/// The tokens of a batch of METEOR 1.5 texts (split as Java's `StringTokenizer`
/// does) interned as word types, kept natively: `types()` lists the types.
#[pyclass(module = "nlpeval._core", frozen)]
pub struct MeteorTokens {
    interned: Interned,
}

#[pymethods]
impl MeteorTokens {
    #[new]
    fn new(py: Python<'_>, texts: Vec<PyBackedStr>) -> MeteorTokens {
        let interned = py.detach(|| split_intern(&texts, Splitter::Java, false));
        MeteorTokens { interned }
    }

    /// The word types, in first-seen order (a type's id is its position).
    fn types(&self) -> Vec<String> {
        self.interned.types.clone()
    }

    fn __len__(&self) -> usize {
        self.interned.lens.len()
    }
}

fn params(alpha: f64, beta: f64, gamma: f64, delta: f64, weights: Vec<f64>) -> Params {
    Params {
        alpha,
        beta,
        gamma,
        delta,
        weights,
    }
}

/// METEOR 1.5's corpus totals of `tokens` (the hypotheses, then every segment's
/// references: `counts[s]` of them for segment `s`), as `METEOR.segment_stats`
/// sums them: `(totals, None)`, the row of summed statistics followed by the
/// least and most references; or `(None, (pair, candidates))` for the first pair
/// with more than `max_candidates` candidate matches (not aligned). Per type:
/// Java hash, stem hash, synsets (flat with lengths), paraphrase-table id and
/// function-word flag, as for `meteor_align_rows`.
#[pyfunction]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
#[pyo3(signature = (tokens, counts, word_hash, stem_hash, synsets, synset_lens, para_id, is_function, modules, beam, paraphrases, max_candidates, alpha, beta, gamma, delta, weights))]
pub fn meteor_corpus_totals(
    py: Python<'_>,
    tokens: PyRef<'_, MeteorTokens>,
    counts: Vec<usize>,
    word_hash: Vec<i32>,
    stem_hash: Vec<i32>,
    synsets: Vec<i32>,
    synset_lens: Vec<i64>,
    para_id: Vec<i32>,
    is_function: Vec<bool>,
    modules: Vec<u8>,
    beam: usize,
    paraphrases: Option<PyRef<'_, MeteorParaphrases>>,
    max_candidates: Option<u64>,
    alpha: f64,
    beta: f64,
    gamma: f64,
    delta: f64,
    weights: Vec<f64>,
) -> PyResult<(Option<Vec<i64>>, Option<(usize, u64)>)> {
    let modules: Vec<Module> = modules
        .iter()
        .map(|&c| Module::from_code(c).ok_or_else(|| value_error("unknown module")))
        .collect::<PyResult<_>>()?;
    let interned = &tokens.interned;
    let texts = split_flat(&interned.ids, &interned.lens)?;
    let n_hyps = counts.len();
    let n_pairs: usize = counts.iter().sum();
    let types = interned.types.len();
    let synsets = split_flat(&synsets, &synset_lens)?;
    let uses = |m: Module| modules.contains(&m);
    if texts.len() != n_hyps + n_pairs
        || word_hash.len() != types
        || is_function.len() != types
        || (uses(Module::Stem) && stem_hash.len() != types)
        || (uses(Module::Synonym) && synsets.len() != types)
        || (uses(Module::Paraphrase) && para_id.len() != types)
        || weights.len() != modules.len()
        || beam == 0
    {
        return Err(value_error("inconsistent METEOR alignment inputs"));
    }
    let table = paraphrases.as_ref().map(|p| &p.table);
    if table.is_some_and(|t| para_id.iter().any(|&i| i >= t.vocab_len() as i32)) {
        return Err(value_error("paraphrase id out of range"));
    }
    let owner: Vec<usize> = counts
        .iter()
        .enumerate()
        .flat_map(|(s, &c)| std::iter::repeat_n(s, c))
        .collect();
    let limit = max_candidates.unwrap_or(u64::MAX);
    let p = params(alpha, beta, gamma, delta, weights);
    Ok(detached(py, || {
        let lex = Lexicon {
            word_hash: &word_hash,
            stem_hash: &stem_hash,
            synsets: &synsets,
            para_id: &para_id,
            is_function: &is_function,
            paraphrases: table.filter(|_| uses(Module::Paraphrase)),
        };
        let rows: Vec<Result<Vec<i64>, u64>> = (0..n_pairs)
            .into_par_iter()
            .map(|pair| {
                let (h, r) = (texts[owner[pair]], texts[n_hyps + pair]);
                align_bounded(h, r, &modules, beam, &lex, limit).map(|c| c.row())
            })
            .collect();
        if let Some((pair, count)) = rows
            .iter()
            .enumerate()
            .find_map(|(i, r)| r.as_ref().err().map(|&c| (i, c)))
        {
            return (None, Some((pair, count)));
        }
        let rows: Vec<Vec<i64>> = rows.into_iter().map(Result::unwrap).collect();
        (Some(corpus::totals(&rows, &counts, &p)), None)
    }))
}

/// The METEOR 1.5 score and parts of one row of (summed) statistics, given as
/// numbers: `(score, precision, recall, fmean, fragmentation_penalty,
/// hyp_matches, ref_matches)`.
#[pyfunction]
pub fn meteor_row_parts(
    row: Vec<f64>,
    alpha: f64,
    beta: f64,
    gamma: f64,
    delta: f64,
    weights: Vec<f64>,
) -> PyResult<[f64; Parts::COLUMNS]> {
    if row.len() < corpus::row_width(weights.len()) {
        return Err(value_error("row too short for its modules"));
    }
    Ok(corpus::parts(&row, &params(alpha, beta, gamma, delta, weights)).to_array())
}

/// [`meteor_row_parts`] of every row of a 2-D float array: a `(rows, 7)` array.
#[pyfunction]
pub fn meteor_rows_parts<'py>(
    py: Python<'py>,
    rows: PyReadonlyArray2<'py, f64>,
    alpha: f64,
    beta: f64,
    gamma: f64,
    delta: f64,
    weights: Vec<f64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let view = rows.as_array();
    let (n, width) = view.dim();
    if width < corpus::row_width(weights.len()) {
        return Err(value_error("rows too short for their modules"));
    }
    let p = params(alpha, beta, gamma, delta, weights);
    let mut flat = Vec::with_capacity(n * Parts::COLUMNS);
    let mut row = vec![0.0; width];
    for r in view.rows() {
        row.iter_mut().zip(r.iter()).for_each(|(a, &b)| *a = b);
        flat.extend(corpus::parts(&row, &p).to_array());
    }
    PyArray1::from_vec(py, flat).reshape([n, Parts::COLUMNS])
}
