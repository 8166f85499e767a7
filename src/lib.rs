//! The native kernels of nlpeval and their Python module, `nlpeval._core`.
//!
//! `src/` is in folders by metric family (`bleu/`, `caption/`, `chrf/`, `gen/`, `meta/`, `meteor/`,
//! `report/`, `retrieval/`, `rouge/`, `spans/`, `ter/`, `text/`) plus `common/` (the thread pool, fork-safe state,
//! reference caches, fallible allocation). Each family keeps its kernels, with their
//! `cargo test`s, apart from its Python bindings. This file only declares the
//! families and builds the module.
//!
//! # The binding convention
//!
//! * **Where:** a family's bindings are in `<family>/py.rs` (or `<family>/py/mod.rs`
//!   with submodules when they are too many for one file, as for `meteor/` and
//!   `report/`). Only these files use PyO3 and NumPy types; kernels take and return
//!   plain Rust values and have no Python in their tests.
//! * **Registration:** each `py` module has
//!   `pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()>`, which adds its
//!   functions and classes (a `py` module with submodules calls theirs). `_core`
//!   below calls each family's `register`, one line per family, in alphabetical order.
//! * **Errors:** through `common::py` only: `value_error(msg)` for a refused argument,
//!   `.or_value_error()` on a kernel's `Result` whose error prints the message,
//!   `type_error(msg)` for an argument of the wrong Python type and
//!   `too_large(err, n, m)` for a matrix that cannot be allocated (`MemoryError`).
//! * **The GIL:** a binding converts its arguments, then runs the kernel without the GIL,
//!   touching no Python object there, in one of two ways that differ only in who enters
//!   the thread pool: `py.detach(|| kernel(..))` when the kernel enters it itself
//!   (`common::parallel::fill_rows` and the kernels built on it keep small batches on the
//!   calling thread), `common::parallel::detached(py, || ..)` (= `py.detach` around
//!   `install`) when the closure runs parallel iterators itself. No parallel iterator
//!   runs outside `install` (a cargo test scans `src/`).
//! * **Signatures:** the Python-visible names and arguments are the ones in
//!   `python/nlpeval/_core.pyi`. The first Rust argument is `py: Python<'py>`; texts
//!   come as `hyps`/`refs` (`refs`: one str or list of str per segment), token ids as
//!   flat arrays with lengths (`*_ids`/`*_tokens` and `*_lens`), results as NumPy
//!   arrays built with `common::py::to_array2` or as lists for the NumPy-free paths.
//! * **A new family** adds its folder, one `pub mod` line and one `register` line
//!   here, and its stubs to `_core.pyi` (ARCHITECTURE.md, "The Rust core").

pub mod bleu;
pub mod caption;
pub mod chrf;
pub mod common;
pub mod gen;
pub mod meta;
pub mod meteor;
pub mod report;
pub mod retrieval;
pub mod rouge;
pub mod spans;
pub mod ter;
pub mod text;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    bleu::py::register(m)?;
    caption::py::register(m)?;
    chrf::py::register(m)?;
    common::py::register(m)?;
    gen::py::register(m)?;
    meta::py::register(m)?;
    meteor::py::register(m)?;
    report::py::register(m)?;
    retrieval::py::register(m)?;
    rouge::py::register(m)?;
    spans::py::register(m)?;
    ter::py::register(m)?;
    text::py::register(m)?;
    Ok(())
}
