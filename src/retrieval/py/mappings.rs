//! Python mappings (`{query: {doc: level}}`, `{query: {doc: score}}`) read into the layout of the
//! TREC readers ([`Parsed`]): one pass over each `dict` under the GIL, every document id copied
//! into one text buffer (spans per query, as a file's ids are), levels as `i64`, scores as `f64`.
//!
//! Only the common, unambiguous forms are read here: exact `dict`s, `str` keys (subclasses too)
//! that encode to UTF-8, `int` levels that fit an `i64` (not `bool`), `float` (or subclass, such as
//! NumPy's `float64`) or `int` scores that are not NaN. Anything else (a list of documents, another
//! mapping type, a NaN, a key of another type, a lone surrogate) makes the reader answer `None`, and
//! `nlpeval.ir` reads that input in Python, which accepts it or raises its own message naming the
//! query and document: so errors and accepted inputs stay exactly those of the Python reader.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyString};

use rustc_hash::FxHashSet;

use super::super::parse::{Entries, Parsed, Qrels, Span};
use super::super::place::{assemble, ideal_levels, judged_levels, place_hits, Placed, Row};

/// A value of the inner mappings, or `None` to leave the input to Python.
pub trait Value: Sized {
    fn read(value: &Bound<'_, PyAny>) -> Option<Self>;
}

impl Value for i64 {
    /// An exact `int` within `i64` (a `bool` and NumPy integers go to Python).
    fn read(value: &Bound<'_, PyAny>) -> Option<Self> {
        if value.is_exact_instance_of::<PyInt>() {
            value.extract::<i64>().ok()
        } else {
            None
        }
    }
}

impl Value for f64 {
    /// A `float` (or subclass) or an exact `int` that `float()` reads, unless NaN.
    fn read(value: &Bound<'_, PyAny>) -> Option<Self> {
        let score = if let Ok(float) = value.cast::<PyFloat>() {
            float.value()
        } else if value.is_exact_instance_of::<PyInt>() {
            value.extract::<f64>().ok()?
        } else {
            return None;
        };
        (!score.is_nan()).then_some(score)
    }
}

/// The UTF-8 of a `str` key (`None` for another type or a lone surrogate).
fn key<'a>(key: &'a Bound<'_, PyAny>) -> Option<std::borrow::Cow<'a, str>> {
    key.cast::<PyString>().ok()?.to_str().ok().map(Into::into)
}

/// `{query: {doc: value}}` in the mappings' order, or `None` (left to Python: see the module docs).
pub fn read_mapping<T: Value>(outer: &Bound<'_, PyAny>) -> Option<Parsed<T>> {
    let outer = outer.cast_exact::<PyDict>().ok()?;
    let mut text = String::new();
    let mut queries = Vec::with_capacity(outer.len());
    let mut entries = Vec::with_capacity(outer.len());
    for (query, inner) in outer.iter() {
        let query = key(&query)?.into_owned();
        let inner = inner.cast_exact::<PyDict>().ok()?;
        let mut docs = Vec::with_capacity(inner.len());
        let mut values = Vec::with_capacity(inner.len());
        for (doc, value) in inner.iter() {
            values.push(T::read(&value)?);
            let doc = key(&doc)?;
            let len = u32::try_from(doc.len()).ok()?;
            docs.push(Span {
                start: text.len(),
                len,
            });
            text.push_str(&doc);
        }
        queries.push(query);
        entries.push(Entries {
            docs,
            values,
            first_line: 0,
        });
    }
    Some(Parsed {
        text,
        queries,
        entries,
        tag: None,
    })
}

/// A run mapping `{query: {doc: score}}` placed against read judgements in one pass over it (under
/// the GIL, as a conversion): each query's documents are looked up in its judgements while walked,
/// its ids kept in one reused buffer for the ties, and the query placed at once, so nothing of the
/// size of the run is allocated. `None` when the run's form is left to Python (the module docs);
/// every query is walked, also those without judgements, so a NaN anywhere is found as Python finds it.
pub fn place_mapping(
    qrels: &Qrels,
    run: &Bound<'_, PyAny>,
    complete: bool,
    judged_only: bool,
    float32: bool,
) -> Option<Placed> {
    let run = run.cast_exact::<PyDict>().ok()?;
    let judged_index = qrels.index();
    let mut rows: Vec<(String, Row)> = Vec::with_capacity(run.len());
    let mut ranked: FxHashSet<String> = FxHashSet::default();
    let mut skipped = Vec::new();
    // one query's ranking: scores, ids (spans into `text`), judged documents (position, level)
    let mut values: Vec<f64> = Vec::new();
    let mut text = String::new();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut found: Vec<(u32, i64)> = Vec::new();
    for (query, inner) in run.iter() {
        let query = key(&query)?.into_owned();
        let inner = inner.cast_exact::<PyDict>().ok()?;
        let slot = judged_index.get(query.as_str()).copied();
        let levels = slot.map(|s| judged_levels(qrels, &qrels.entries[s], judged_only));
        values.clear();
        text.clear();
        spans.clear();
        found.clear();
        for (doc, value) in inner.iter() {
            values.push(f64::read(&value)?);
            let doc = key(&doc)?;
            if let Some(levels) = &levels {
                if let Some(&level) = levels.get(doc.as_ref()) {
                    found.push((spans.len() as u32, level));
                }
                spans.push((text.len(), text.len() + doc.len()));
                text.push_str(&doc);
            }
        }
        let Some(slot) = slot else {
            skipped.push(query);
            continue;
        };
        let (hits, num_ret) = place_hits(
            &found,
            &values,
            |i| &text.as_bytes()[spans[i].0..spans[i].1],
            judged_only,
            float32,
        );
        let ideal = ideal_levels(&qrels.entries[slot]);
        ranked.insert(query.clone());
        rows.push((
            query,
            Row {
                hits,
                num_ret,
                ideal,
            },
        ));
    }
    let unranked: Vec<String> = qrels
        .queries
        .iter()
        .filter(|q| !ranked.contains(q.as_str()))
        .cloned()
        .collect();
    if complete {
        for (query, entries) in qrels.queries.iter().zip(&qrels.entries) {
            if !ranked.contains(query.as_str()) {
                let ideal = ideal_levels(entries);
                rows.push((
                    query.clone(),
                    Row {
                        hits: Vec::new(),
                        num_ret: 0,
                        ideal,
                    },
                ));
            }
        }
    }
    rows.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let (queries, rows): (Vec<String>, Vec<Row>) = rows.into_iter().unzip();
    Some(assemble(queries, &rows, skipped, unranked))
}
