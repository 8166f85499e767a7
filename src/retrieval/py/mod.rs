//! Python bindings of the TREC readers (`nlpeval._core.TrecQrels`, `TrecRun`, `trec_place`): from
//! files (`read`) or from Python mappings (`from_mapping`, [`mappings`]).
//!
//! A reading error is a `ValueError` reading `line: message` (the message alone for the whole
//! file); `nlpeval.ir.native` then reads the file in Python, which raises the project's `file:line`
//! error (or accepts the few forms only Python's `int`/`float` read).

use numpy::{PyArray1, PyArray2, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

mod mappings;

use super::measures::{evaluate, Kind, Spec};
use super::parse::{read_qrels, read_run, Parsed, Qrels, Run};
use super::place::{place, Placed};
use crate::common::py::{to_array2, value_error, OrValueError};

fn queries<T>(parsed: &Parsed<T>) -> Vec<String> {
    parsed.queries.clone()
}

fn first_line<T>(parsed: &Parsed<T>, query: &str) -> Option<usize> {
    parsed
        .queries
        .iter()
        .position(|q| q == query)
        .map(|i| parsed.entries[i].first_line)
}

/// A TREC qrels file, read and checked (`TrecQrels.read(path)`).
#[pyclass(module = "nlpeval._core", frozen)]
pub struct TrecQrels {
    inner: Qrels,
}

#[pymethods]
impl TrecQrels {
    /// Reads `path` (the GIL released); a line over `max_line_bytes` is an error.
    #[staticmethod]
    #[pyo3(signature = (path, max_line_bytes=None))]
    fn read(py: Python<'_>, path: &str, max_line_bytes: Option<usize>) -> PyResult<TrecQrels> {
        let inner = py
            .detach(|| read_qrels(path, max_line_bytes))
            .or_value_error()?;
        Ok(TrecQrels { inner })
    }

    /// `{query: {doc: level}}` read in one pass (`None`: a form left to Python's reader).
    #[staticmethod]
    fn from_mapping(qrels: &Bound<'_, PyAny>) -> Option<TrecQrels> {
        mappings::read_mapping(qrels).map(|inner| TrecQrels { inner })
    }

    /// Query ids in order of first appearance.
    fn queries(&self) -> Vec<String> {
        queries(&self.inner)
    }

    /// The line of a query's first judgement (`None` if it has none).
    fn first_line(&self, query: &str) -> Option<usize> {
        first_line(&self.inner, query)
    }

    /// `{query: number of judgements at or above level}` (trec_eval's R per query for `-l level`).
    fn relevant_counts(&self, level: i64) -> Vec<(String, usize)> {
        let entries = &self.inner.entries;
        let count =
            |e: &super::parse::Entries<i64>| e.values.iter().filter(|&&l| l >= level).count();
        self.inner
            .queries
            .iter()
            .cloned()
            .zip(entries.iter().map(count))
            .collect()
    }

    /// `{query: {doc: relevance}}` in file order.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (query, entries) in self.inner.queries.iter().zip(&self.inner.entries) {
            let inner = PyDict::new(py);
            for (span, level) in entries.docs.iter().zip(&entries.values) {
                inner.set_item(self.inner.doc(*span), level)?;
            }
            out.set_item(query, inner)?;
        }
        Ok(out)
    }

    fn __len__(&self) -> usize {
        self.inner.queries.len()
    }
}

/// A TREC run file, read and checked (`TrecRun.read(path)`).
#[pyclass(module = "nlpeval._core", frozen)]
pub struct TrecRun {
    inner: Run,
}

#[pymethods]
impl TrecRun {
    /// Reads `path` (the GIL released); a line over `max_line_bytes` is an error.
    #[staticmethod]
    #[pyo3(signature = (path, max_line_bytes=None))]
    fn read(py: Python<'_>, path: &str, max_line_bytes: Option<usize>) -> PyResult<TrecRun> {
        let inner = py
            .detach(|| read_run(path, max_line_bytes))
            .or_value_error()?;
        Ok(TrecRun { inner })
    }

    /// Query ids in order of first appearance.
    fn queries(&self) -> Vec<String> {
        queries(&self.inner)
    }

    /// The line of a query's first ranked document (`None` if it has none).
    fn first_line(&self, query: &str) -> Option<usize> {
        first_line(&self.inner, query)
    }

    /// The run tag of the first line (`None` for an empty run).
    #[getter]
    fn tag(&self) -> Option<String> {
        self.inner.tag.clone()
    }

    /// `{query: {doc: score}}` in file order.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (query, entries) in self.inner.queries.iter().zip(&self.inner.entries) {
            let inner = PyDict::new(py);
            for (span, score) in entries.docs.iter().zip(&entries.values) {
                inner.set_item(self.inner.doc(*span), score)?;
            }
            out.set_item(query, inner)?;
        }
        Ok(out)
    }

    fn __len__(&self) -> usize {
        self.inner.queries.len()
    }
}

type PlacedArrays<'py> = (
    Vec<String>,
    Bound<'py, PyArray2<i64>>,
    Bound<'py, PyArray2<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray2<i64>>,
    Vec<String>,
    Vec<String>,
);

/// `(queries, ranks, rels, num_ret, levels, skipped, unranked)`: the fields of
/// `nlpeval.ir.ranking.Placed` and the run's unjudged and the judgements' unranked queries.
#[pyfunction]
#[pyo3(signature = (qrels, run, complete=false, judged_only=false, float32=true))]
fn trec_place<'py>(
    py: Python<'py>,
    qrels: &TrecQrels,
    run: &TrecRun,
    complete: bool,
    judged_only: bool,
    float32: bool,
) -> PyResult<PlacedArrays<'py>> {
    let placed = py.detach(|| place(&qrels.inner, &run.inner, complete, judged_only, float32));
    arrays(py, placed)
}

/// [`trec_place`] with the run a `{query: {doc: score}}` dict, placed while it is read (`None`: a
/// form left to Python's reader; see [`mappings`]).
#[pyfunction]
#[pyo3(signature = (qrels, run, complete=false, judged_only=false, float32=true))]
fn trec_place_mapping<'py>(
    py: Python<'py>,
    qrels: &TrecQrels,
    run: &Bound<'py, PyAny>,
    complete: bool,
    judged_only: bool,
    float32: bool,
) -> PyResult<Option<PlacedArrays<'py>>> {
    match mappings::place_mapping(&qrels.inner, run, complete, judged_only, float32) {
        Some(placed) => arrays(py, placed).map(Some),
        None => Ok(None),
    }
}

fn arrays(py: Python<'_>, placed: Placed) -> PyResult<PlacedArrays<'_>> {
    let n = placed.queries.len();
    let ranks = to_array2(py, placed.ranks, n, placed.width)?;
    let rels = to_array2(py, placed.rels, n, placed.width)?;
    let levels = to_array2(py, placed.levels, n, placed.depth)?;
    Ok((
        placed.queries,
        ranks,
        rels,
        PyArray1::from_vec(py, placed.num_ret),
        levels,
        placed.skipped,
        placed.unranked,
    ))
}

/// A C-contiguous array's values and its `(rows, columns)`.
fn contiguous<'a>(
    array: &'a PyReadonlyArray2<'_, i64>,
    name: &str,
) -> PyResult<(&'a [i64], usize, usize)> {
    let shape = array.shape();
    let flat = array
        .as_slice()
        .map_err(|_| value_error(format!("{name} must be C-contiguous")))?;
    Ok((flat, shape[0], shape[1]))
}

/// `(queries, measures)` values of trec_eval's measures from the placed arrays (`ranks`, `rels`,
/// `levels` of `nlpeval.ir.ranking.Placed`); `measures` as `(Measure.kind, Measure.k)` pairs.
#[pyfunction]
#[pyo3(signature = (ranks, rels, levels, measures, relevance_level))]
fn trec_measures<'py>(
    py: Python<'py>,
    ranks: PyReadonlyArray2<'py, i64>,
    rels: PyReadonlyArray2<'py, i64>,
    levels: PyReadonlyArray2<'py, i64>,
    measures: Vec<(String, Option<i64>)>,
    relevance_level: i64,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let mut specs = Vec::with_capacity(measures.len());
    for (kind, k) in &measures {
        let parsed = Kind::parse(kind)
            .ok_or_else(|| value_error(format!("unknown measure kind {kind:?}")))?;
        let needs_k = matches!(parsed, Kind::P | Kind::Recall | Kind::Success);
        if k.is_some_and(|k| k < 1)
            || (needs_k && k.is_none())
            || (parsed == Kind::Rprec && k.is_some())
        {
            return Err(value_error(format!("measure {kind}: bad cutoff {k:?}")));
        }
        specs.push(Spec {
            kind: parsed,
            k: *k,
        });
    }
    let (ranks, n, width) = contiguous(&ranks, "ranks")?;
    let (rels, rels_n, rels_width) = contiguous(&rels, "rels")?;
    let (levels, levels_n, depth) = contiguous(&levels, "levels")?;
    if (rels_n, rels_width, levels_n) != (n, width, n) {
        return Err(value_error(
            "ranks, rels and levels must have one row per query",
        ));
    }
    let values = py.detach(|| {
        evaluate(
            ranks,
            rels,
            n,
            width,
            levels,
            depth,
            &specs,
            relevance_level,
        )
    });
    to_array2(py, values, n, specs.len())
}

/// Adds the retrieval classes and functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TrecQrels>()?;
    m.add_class::<TrecRun>()?;
    m.add_function(wrap_pyfunction!(trec_place, m)?)?;
    m.add_function(wrap_pyfunction!(trec_place_mapping, m)?)?;
    m.add_function(wrap_pyfunction!(trec_measures, m)?)?;
    Ok(())
}
