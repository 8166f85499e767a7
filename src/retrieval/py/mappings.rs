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
//!
//! The dicts are walked with `PyDict_Next` and borrowed references (no reference counting per
//! entry); exact `str` keys and exact `float` / `int` values are read without PyO3's checks, any
//! other type through them. Nothing in a walk runs Python code or allocates a Python object, so
//! the walked dicts cannot change while a query's borrowed ids are in use.

use std::ptr::addr_of_mut;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt};

use rustc_hash::FxHashSet;

use super::super::parse::{Entries, Parsed, Qrels, Span};
use super::super::place::{
    assemble, ideal_levels, judged_levels, place_hits, JudgedIds, Placed, Row,
};
use crate::common::parallel::{current_num_threads, PARALLEL_MIN_SEGMENTS};
use std::sync::mpsc;

/// A value of the inner mappings, or `None` to leave the input to Python.
pub trait Value: Sized {
    fn read(value: &Bound<'_, PyAny>) -> Option<Self>;

    /// [`Value::read`] of a borrowed reference, with a fast path for the exact built-in type.
    ///
    /// # Safety
    /// `value` is a valid object and the GIL is held.
    unsafe fn read_ptr(py: Python<'_>, value: *mut ffi::PyObject) -> Option<Self>;
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

    unsafe fn read_ptr(_py: Python<'_>, value: *mut ffi::PyObject) -> Option<Self> {
        if ffi::Py_TYPE(value) != addr_of_mut!(ffi::PyLong_Type) {
            return None;
        }
        let mut overflow = 0;
        let level = ffi::PyLong_AsLongLongAndOverflow(value, &mut overflow);
        (overflow == 0).then_some(level)
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

    unsafe fn read_ptr(py: Python<'_>, value: *mut ffi::PyObject) -> Option<Self> {
        if ffi::Py_TYPE(value) == addr_of_mut!(ffi::PyFloat_Type) {
            // an exact float: no conversion, cannot fail
            let score = ffi::PyFloat_AsDouble(value);
            return (!score.is_nan()).then_some(score);
        }
        Self::read(&Bound::from_borrowed_ptr(py, value))
    }
}

/// The UTF-8 bytes of a borrowed `str` key (subclasses too), valid while the key lives (`None`
/// for another type or a lone surrogate).
///
/// # Safety
/// `key` is a valid object, the GIL is held, and the returned bytes are not used after the key
/// may have been freed (its dict changed or dropped).
unsafe fn key_bytes<'a>(py: Python<'_>, key: *mut ffi::PyObject) -> Option<&'a [u8]> {
    if ffi::Py_TYPE(key) != addr_of_mut!(ffi::PyUnicode_Type) && ffi::PyUnicode_Check(key) == 0 {
        return None;
    }
    let mut size: ffi::Py_ssize_t = 0;
    let data = ffi::PyUnicode_AsUTF8AndSize(key, &mut size);
    if data.is_null() {
        // a lone surrogate: the error is dropped, Python's reader reports the input its way
        drop(PyErr::take(py));
        return None;
    }
    Some(std::slice::from_raw_parts(data.cast::<u8>(), size as usize))
}

/// The entries of an exact `dict`, as borrowed `(key, value)` pointers (`None`: another type).
struct Walk {
    dict: *mut ffi::PyObject,
    pos: ffi::Py_ssize_t,
}

impl Walk {
    /// # Safety
    /// `dict` is a valid object and the GIL is held for the walk's whole life.
    unsafe fn of(dict: *mut ffi::PyObject) -> Option<Walk> {
        (ffi::Py_TYPE(dict) == addr_of_mut!(ffi::PyDict_Type)).then_some(Walk { dict, pos: 0 })
    }

    fn len(&self) -> usize {
        // SAFETY: `dict` is an exact dict (checked in `of`), the GIL held
        unsafe { ffi::PyDict_Size(self.dict) as usize }
    }
}

impl Iterator for Walk {
    type Item = (*mut ffi::PyObject, *mut ffi::PyObject);

    fn next(&mut self) -> Option<Self::Item> {
        let mut key = std::ptr::null_mut();
        let mut value = std::ptr::null_mut();
        // SAFETY: `dict` is a dict (checked in `of`), the GIL held; the references are borrowed
        let more = unsafe { ffi::PyDict_Next(self.dict, &mut self.pos, &mut key, &mut value) };
        (more != 0).then_some((key, value))
    }
}

/// A `str` key as an owned `String` (`None` as [`key_bytes`]).
///
/// # Safety
/// As [`key_bytes`].
unsafe fn owned_key(py: Python<'_>, key: *mut ffi::PyObject) -> Option<String> {
    let bytes = key_bytes(py, key)?;
    // SAFETY: PyUnicode_AsUTF8AndSize returns valid UTF-8
    Some(std::str::from_utf8_unchecked(bytes).to_string())
}

/// `{query: {doc: value}}` in the mappings' order, or `None` (left to Python: see the module docs).
pub fn read_mapping<T: Value>(outer: &Bound<'_, PyAny>) -> Option<Parsed<T>> {
    let py = outer.py();
    // SAFETY: `outer` is alive for the call and the GIL is held; the walk runs no Python code
    unsafe {
        let walk = Walk::of(outer.as_ptr())?;
        let mut text = String::new();
        let mut queries = Vec::with_capacity(walk.len());
        let mut entries = Vec::with_capacity(walk.len());
        for (query, inner) in walk {
            let query = owned_key(py, query)?;
            let inner = Walk::of(inner)?;
            let mut docs = Vec::with_capacity(inner.len());
            let mut values = Vec::with_capacity(inner.len());
            for (doc, value) in inner {
                values.push(T::read_ptr(py, value)?);
                let doc = key_bytes(py, doc)?;
                let len = u32::try_from(doc.len()).ok()?;
                docs.push(Span {
                    start: text.len(),
                    len,
                    arena: 0,
                });
                text.push_str(std::str::from_utf8_unchecked(doc));
            }
            queries.push(query);
            entries.push(Entries {
                docs,
                values,
                first_line: 0,
            });
        }
        Some(Parsed {
            arenas: vec![text],
            queries,
            entries,
            tag: None,
        })
    }
}

/// One query's walked ranking: its scores, the ids of the judged queries' documents (borrowed from
/// the run's `str` objects) and its judged documents as `(position, level)`.
#[derive(Default)]
struct Walked<'a> {
    query: String,
    slot: usize,
    values: Vec<f64>,
    found: Vec<(u32, i64)>,
    ids: Vec<&'a [u8]>,
}

/// Walks one inner dict into `into` (its judged documents looked up in `levels`, ids kept only for a
/// judged query); `None` when its form is left to Python.
///
/// # Safety
/// `inner` is a valid object and the GIL is held; `into.ids` borrow the dict's keys.
unsafe fn walk_query<'a>(
    py: Python<'_>,
    inner: *mut ffi::PyObject,
    levels: Option<&JudgedIds<'_>>,
    into: &mut Walked<'a>,
) -> Option<()> {
    let inner = Walk::of(inner)?;
    into.values.clear();
    into.found.clear();
    into.ids.clear();
    into.values.reserve(inner.len());
    for (doc, value) in inner {
        into.values.push(f64::read_ptr(py, value)?);
        let doc = key_bytes(py, doc)?;
        if let Some(levels) = levels {
            if let Some(level) = levels.get(doc) {
                into.found.push((into.ids.len() as u32, level));
            }
            into.ids.push(doc);
        }
    }
    Some(())
}

/// The placed row of a walked query.
fn place_walked(qrels: &Qrels, walked: &Walked<'_>, judged_only: bool, float32: bool) -> Row {
    let ids = &walked.ids;
    let (hits, num_ret) = place_hits(
        &walked.found,
        &walked.values,
        |i| ids[i],
        judged_only,
        float32,
    );
    Row {
        hits,
        num_ret,
        ideal: ideal_levels(&qrels.entries[walked.slot]),
    }
}

/// Queries handed to the placing thread at a time.
const BATCH: usize = 32;

/// A run mapping `{query: {doc: score}}` placed against read judgements in one pass over it (under
/// the GIL, as a conversion): each query's documents are looked up in its judgements while walked,
/// their ids borrowed from the dict for the ties, and the query placed, so nothing of the size of
/// the run is allocated. `None` when the run's form is left to Python (the module docs); every
/// query is walked, also those without judgements, so a NaN anywhere is found as Python finds it.
///
/// From [`PARALLEL_MIN_SEGMENTS`] queries on, with more than one worker thread, the walked queries
/// are placed on a second thread in batches while the calling thread walks on (the walk must hold
/// the GIL; placing reads only Rust data and the borrowed ids' bytes). The ids stay valid: the
/// calling thread holds the GIL and runs no Python code until every batch is placed, so no `str`
/// of the run can be freed or changed meanwhile.
pub fn place_mapping<'r>(
    qrels: &Qrels,
    run: &'r Bound<'_, PyAny>,
    complete: bool,
    judged_only: bool,
    float32: bool,
) -> Option<Placed> {
    let py = run.py();
    // SAFETY: `run` is alive for the call and the GIL is held
    let walk = unsafe { Walk::of(run.as_ptr())? };
    let judged_index = qrels.index();
    let mut ranked: FxHashSet<String> = FxHashSet::default();
    let mut skipped = Vec::new();
    let queries = walk.len();
    // walks every query; `placed` receives each judged one (`None`: a form left to Python)
    let walk_all = |placed: &mut dyn FnMut(&mut Walked<'r>)| -> Option<()> {
        let mut walked: Walked<'r> = Walked::default();
        for (query, inner) in walk {
            // SAFETY: borrowed references of the run dict, the GIL held (see above)
            let query = unsafe { owned_key(py, query)? };
            let slot = judged_index.get(query.as_str()).copied();
            let levels = slot.map(|s| judged_levels(qrels, &qrels.entries[s], judged_only));
            unsafe { walk_query(py, inner, levels.as_ref(), &mut walked)? };
            let Some(slot) = slot else {
                skipped.push(query);
                continue;
            };
            ranked.insert(query.clone());
            walked.query = query;
            walked.slot = slot;
            placed(&mut walked);
        }
        Some(())
    };
    let mut rows: Vec<(String, Row)> = Vec::with_capacity(queries);
    if queries >= PARALLEL_MIN_SEGMENTS && current_num_threads() > 1 {
        rows = std::thread::scope(|scope| {
            let (to_placer, batches) = mpsc::sync_channel::<Vec<Walked<'r>>>(2);
            let (give_back, returned) = mpsc::channel::<Vec<Walked<'r>>>();
            let placer = scope.spawn(move || {
                let mut rows = Vec::with_capacity(queries);
                for mut batch in batches {
                    for walked in &mut batch {
                        let row = place_walked(qrels, walked, judged_only, float32);
                        rows.push((std::mem::take(&mut walked.query), row));
                    }
                    let _ = give_back.send(batch);
                }
                rows
            });
            let mut batch: Vec<Walked<'r>> = Vec::with_capacity(BATCH);
            let mut spare: Vec<Walked<'r>> = Vec::new();
            let done = walk_all(&mut |walked| {
                let mut next = spare.pop().unwrap_or_default();
                std::mem::swap(&mut next, walked);
                batch.push(next);
                if batch.len() == BATCH {
                    let full =
                        std::mem::replace(&mut batch, returned.try_recv().unwrap_or_default());
                    spare.append(&mut batch);
                    // the placer ends only when the channel closes, so the send succeeds
                    let _ = to_placer.send(full);
                }
            });
            if done.is_some() && !batch.is_empty() {
                let _ = to_placer.send(batch);
            }
            drop(to_placer);
            let rows = placer.join().expect("the placing thread panicked");
            done.map(|()| rows)
        })?;
    } else {
        walk_all(&mut |walked| {
            let row = place_walked(qrels, walked, judged_only, float32);
            rows.push((walked.query.clone(), row));
        })?;
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
