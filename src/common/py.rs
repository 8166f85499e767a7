//! What every family's bindings (`<family>/py.rs`) share: the one way a kernel's
//! error becomes a Python exception, and the conversions between Python arguments
//! and the kernels' flat arrays. Also the bindings of the crate-wide state (the
//! reference caches and the thread pool).
//!
//! Errors: a binding never builds an exception type itself. Invalid arguments and
//! kernel errors become `ValueError` through [`value_error`] (or `.or_value_error()`
//! on a `Result` whose error prints the message), inputs of the wrong Python type
//! `TypeError` through [`type_error`], and a matrix too large to allocate
//! `MemoryError` through [`too_large`].

use std::fmt::Display;

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;

use super::alloc::TooLarge;
use super::refcache::{Managed, RefsView};

/// A `ValueError` with `message`: how a binding refuses an argument or reports a
/// kernel's error.
pub fn value_error(message: impl Display) -> PyErr {
    PyValueError::new_err(message.to_string())
}

/// A `TypeError` with `message`: an argument of the wrong Python type.
pub fn type_error(message: impl Display) -> PyErr {
    PyTypeError::new_err(message.to_string())
}

/// The `MemoryError` of an `n` x `m` score matrix too large to allocate.
pub fn too_large(err: TooLarge, n: usize, m: usize) -> PyErr {
    PyMemoryError::new_err(format!(
        "the {n} x {m} score matrix is too large: {err}; score the hypotheses in blocks of rows"
    ))
}

/// A kernel's `Result` as a binding's: the error's text becomes a `ValueError`.
pub trait OrValueError<T> {
    fn or_value_error(self) -> PyResult<T>;
}

impl<T, E: Display> OrValueError<T> for Result<T, E> {
    fn or_value_error(self) -> PyResult<T> {
        self.map_err(value_error)
    }
}

/// `flat` as a `(rows, cols)` NumPy array.
pub fn to_array2<'py, T: numpy::Element>(
    py: Python<'py>,
    flat: Vec<T>,
    rows: usize,
    cols: usize,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    PyArray1::from_vec(py, flat).reshape([rows, cols])
}

/// Splits `flat` into consecutive slices of the given lengths.
pub fn split_flat<'a, T>(flat: &'a [T], lens: &[i64]) -> PyResult<Vec<&'a [T]>> {
    let mut out = Vec::with_capacity(lens.len());
    let mut pos = 0usize;
    for &len in lens {
        let len = usize::try_from(len).map_err(|_| value_error("negative length"))?;
        let end = pos
            .checked_add(len)
            .filter(|&e| e <= flat.len())
            .ok_or_else(|| value_error("lengths exceed the flat array"))?;
        out.push(&flat[pos..end]);
        pos = end;
    }
    if pos != flat.len() {
        return Err(value_error("lengths do not cover the flat array"));
    }
    Ok(out)
}

/// The references of a call as a [`RefsView`], checked to have one list per hypothesis.
pub fn one_list_per_hypothesis<'a>(
    hyps: &[&str],
    refs: &'a [&'a str],
    offsets: &'a [usize],
) -> PyResult<RefsView<'a>> {
    if offsets.len() != hyps.len() + 1 {
        return Err(value_error(
            "one list of references per hypothesis is required",
        ));
    }
    Ok(RefsView { refs, offsets })
}

/// Column sums of `rows` of `width` integers (a batch's totals).
pub fn column_sums(flat: &[i64], width: usize) -> Vec<i64> {
    let mut totals = vec![0i64; width];
    for row in flat.chunks_exact(width) {
        for (total, value) in totals.iter_mut().zip(row) {
            *total += value;
        }
    }
    totals
}

/// Every kernel's reference cache by name (the keys of `refcache_info`).
fn caches() -> [(&'static str, &'static dyn Managed); 3] {
    [
        ("bleu", crate::bleu::refs::cache()),
        ("chrf", crate::chrf::refs::cache()),
        ("gleu", crate::gen::gleu::cache()),
    ]
}

/// Counters of the reference caches: `{kernel: {"entries", "bytes", "hits", "misses"}}`.
#[pyfunction]
pub fn refcache_info(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    let out = pyo3::types::PyDict::new(py);
    for (name, info) in caches().map(|(name, cache)| (name, cache.info())) {
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
    for (_, cache) in caches() {
        cache.clear();
    }
}

/// Sets the bounds of each reference cache (`None`: keep), evicting what no
/// longer fits, and returns the previous `(max_entries, max_bytes)`.
#[pyfunction]
#[pyo3(signature = (max_entries=None, max_bytes=None))]
pub fn refcache_limits(max_entries: Option<usize>, max_bytes: Option<usize>) -> (usize, usize) {
    let old = super::refcache::limits();
    super::refcache::set_limits(max_entries.unwrap_or(old.0), max_bytes.unwrap_or(old.1));
    for (_, cache) in caches() {
        cache.trim();
    }
    old
}

/// The number of worker threads of this process's pool (rebuilt after `fork`).
#[pyfunction]
pub fn native_threads() -> usize {
    super::parallel::current_num_threads()
}

/// Adds the crate-wide functions (caches, thread pool) to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(refcache_info, m)?)?;
    m.add_function(wrap_pyfunction!(refcache_clear, m)?)?;
    m.add_function(wrap_pyfunction!(refcache_limits, m)?)?;
    m.add_function(wrap_pyfunction!(native_threads, m)?)?;
    Ok(())
}

// No test here builds a `PyErr`: `cargo test` links like the wheel, without libpython
// (PYO3_BUILD_EXTENSION_MODULE in .ci/run), so a test may not reach the Python C API.
#[cfg(test)]
mod tests {
    use super::*;

    /// Every `static` reference cache of the crate (a source scan), so that a new
    /// kernel's cache cannot be left out of the counters, `clear` and the limits.
    #[test]
    fn caches_lists_every_reference_cache_of_the_crate() {
        let mut files = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src"
        ))];
        let mut statics = 0;
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                statics += text
                    .lines()
                    .filter(|line| line.starts_with("static ") && line.contains(": RefCache<"))
                    .count();
            }
        }
        let listed = caches();
        assert_eq!(
            statics,
            listed.len(),
            "a static RefCache missing from caches()"
        );
        let mut names: Vec<_> = listed.iter().map(|(name, _)| *name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), listed.len(), "two caches under one name");
        for (left, (_, a)) in listed.iter().enumerate() {
            for (_, b) in &listed[left + 1..] {
                assert!(!std::ptr::addr_eq(*a, *b), "one cache listed twice");
            }
        }
    }

    #[test]
    fn column_sums_add_rows() {
        assert_eq!(column_sums(&[1, 2, 3, 4, 5, 6], 3), vec![5, 7, 9]);
        assert_eq!(column_sums(&[], 2), vec![0, 0]);
    }
}
