//! Python bindings of the TREC readers (`nlpeval._core.TrecQrels`, `TrecRun`, `trec_place`).
//!
//! A reading error is a `ValueError` reading `line: message` (the message alone for the whole
//! file); `nlpeval.ir.native` then reads the file in Python, which raises the project's `file:line`
//! error (or accepts the few forms only Python's `int`/`float` read).

use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::parse::{parse_qrels, parse_run, ParseError, Parsed, Qrels, Run};
use super::place::place;
use crate::common::py::{to_array2, OrValueError};

fn read(path: &str, max_line_bytes: Option<usize>) -> Result<Vec<u8>, ParseError> {
    let data = std::fs::read(path).map_err(|err| ParseError {
        line: 0,
        message: format!("cannot read {path}: {err}"),
    })?;
    if let Some(limit) = max_line_bytes {
        let mut start = 0;
        for (number, end) in memchr::memchr_iter(b'\n', &data)
            .chain(std::iter::once(data.len()))
            .enumerate()
        {
            if end - start > limit {
                return Err(ParseError {
                    line: number + 1,
                    message: format!("line longer than {limit} bytes"),
                });
            }
            start = end + 1;
        }
    }
    Ok(data)
}

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
            .detach(|| read(path, max_line_bytes).and_then(parse_qrels))
            .or_value_error()?;
        Ok(TrecQrels { inner })
    }

    /// Query ids in order of first appearance.
    fn queries(&self) -> Vec<String> {
        queries(&self.inner)
    }

    /// The line of a query's first judgement (`None` if it has none).
    fn first_line(&self, query: &str) -> Option<usize> {
        first_line(&self.inner, query)
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
            .detach(|| read(path, max_line_bytes).and_then(parse_run))
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

/// Adds the retrieval classes and functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TrecQrels>()?;
    m.add_class::<TrecRun>()?;
    m.add_function(wrap_pyfunction!(trec_place, m)?)?;
    Ok(())
}
