//! Text arguments borrowed from Python strings (issue 13): the kernels read the
//! UTF-8 of each `str` in place instead of copying it into a `String`.
//!
//! Each string is held by a strong reference for the duration of the call, so
//! its bytes stay valid while the GIL is released even if another thread
//! mutates the list that held it (a `str` itself is immutable).

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

/// The strings of a call: borrowed from a list of `str`, or copied from any
/// other sequence PyO3 can convert.
pub enum Texts<'py> {
    Borrowed(Vec<Bound<'py, PyString>>),
    Owned(Vec<String>),
}

impl<'py> Texts<'py> {
    /// The UTF-8 text of each string (`UnicodeEncodeError` for a lone surrogate).
    pub fn strs(&self) -> PyResult<Vec<&str>> {
        match self {
            Texts::Borrowed(items) => items.iter().map(|s| s.to_str()).collect(),
            Texts::Owned(items) => Ok(items.iter().map(String::as_str).collect()),
        }
    }
}

fn borrowed<'py>(list: &Bound<'py, PyList>) -> Option<Vec<Bound<'py, PyString>>> {
    let mut items = Vec::with_capacity(list.len());
    for item in list.iter() {
        items.push(item.cast_into::<PyString>().ok()?);
    }
    Some(items)
}

/// A sequence of `str` (e.g. the hypotheses).
pub fn texts<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Texts<'py>> {
    if let Ok(list) = obj.cast::<PyList>() {
        if let Some(items) = borrowed(list) {
            return Ok(Texts::Borrowed(items));
        }
    }
    Ok(Texts::Owned(obj.extract()?))
}

/// A sequence whose items are each a `str` (the one reference of the
/// segment) or a sequence of `str` (its references), flattened: segment `i`
/// has `texts[offsets[i]..offsets[i + 1]]`.
pub fn nested_texts<'py>(obj: &Bound<'py, PyAny>) -> PyResult<(Texts<'py>, Vec<usize>)> {
    if let Ok(list) = obj.cast::<PyList>() {
        let mut items = Vec::with_capacity(list.len());
        let mut offsets = Vec::with_capacity(list.len() + 1);
        offsets.push(0);
        let mut fast = true;
        for segment in list.iter() {
            let segment = match segment.cast_into::<PyString>() {
                Ok(one) => {
                    items.push(one);
                    offsets.push(items.len());
                    continue;
                }
                Err(error) => error.into_inner(),
            };
            match segment.cast::<PyList>().ok().and_then(borrowed) {
                Some(mut refs) => {
                    items.append(&mut refs);
                    offsets.push(items.len());
                }
                None => {
                    fast = false;
                    break;
                }
            }
        }
        if fast {
            return Ok((Texts::Borrowed(items), offsets));
        }
    }
    let mut offsets = vec![0];
    let mut flat = Vec::new();
    for segment in obj.try_iter()? {
        let segment = segment?;
        if let Ok(one) = segment.cast::<PyString>() {
            flat.push(one.to_str()?.to_owned());
        } else {
            flat.extend(segment.extract::<Vec<String>>()?);
        }
        offsets.push(flat.len());
    }
    Ok((Texts::Owned(flat), offsets))
}

/// Counters of the reference caches: `{kernel: {"entries", "bytes", "hits", "misses"}}`.
#[pyfunction]
pub fn refcache_info(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    let out = pyo3::types::PyDict::new(py);
    for (name, info) in [
        ("bleu", crate::bleu::refs::cache().info()),
        ("chrf", crate::chrf::refs::cache().info()),
    ] {
        let d = pyo3::types::PyDict::new(py);
        d.set_item("entries", info.entries)?;
        d.set_item("bytes", info.bytes)?;
        d.set_item("hits", info.hits)?;
        d.set_item("misses", info.misses)?;
        out.set_item(name, d)?;
    }
    Ok(out)
}

/// Empties the reference caches and zeroes their counters.
#[pyfunction]
pub fn refcache_clear() {
    crate::bleu::refs::cache().clear();
    crate::chrf::refs::cache().clear();
}

/// Sets the bounds of each reference cache (`None`: keep), evicting what no
/// longer fits, and returns the previous `(max_entries, max_bytes)`.
#[pyfunction]
#[pyo3(signature = (max_entries=None, max_bytes=None))]
pub fn refcache_limits(max_entries: Option<usize>, max_bytes: Option<usize>) -> (usize, usize) {
    let old = crate::common::refcache::limits();
    crate::common::refcache::set_limits(max_entries.unwrap_or(old.0), max_bytes.unwrap_or(old.1));
    crate::bleu::refs::cache().trim();
    crate::chrf::refs::cache().trim();
    old
}

/// The number of worker threads of this process's pool (rebuilt after `fork`).
#[pyfunction]
pub fn native_threads() -> usize {
    crate::common::parallel::current_num_threads()
}
