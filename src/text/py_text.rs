//! Text arguments borrowed from Python strings (issue 13), for the bindings of the
//! text kernels (`bleu/py.rs`, `chrf/py.rs`): the kernels read the
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
