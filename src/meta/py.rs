//! Python bindings of the meta-evaluation kernels.

use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::mt::Mt19937;
use super::power::swap_effects;

type State<'py> = (Bound<'py, PyArray1<u32>>, usize);
/// values, then the generator's state after the draws
type Drawn<'py, T> = (Bound<'py, PyArray1<T>>, Bound<'py, PyArray1<u32>>, usize);

fn state<'py>(py: Python<'py>, gen: &Mt19937) -> State<'py> {
    (PyArray1::from_slice(py, gen.key()), gen.pos())
}

fn generator(key: &PyReadonlyArray1<'_, u32>, pos: usize) -> PyResult<Mt19937> {
    Mt19937::from_state(key.as_slice()?, pos).map_err(PyValueError::new_err)
}

/// `random_sample(n) > threshold` of a legacy `RandomState` whose MT19937 state is `(key, pos)`:
/// the flags (bool) and the state after the draws.
#[pyfunction]
fn mt19937_above<'py>(
    py: Python<'py>,
    key: PyReadonlyArray1<'py, u32>,
    pos: usize,
    n: usize,
    threshold: f64,
) -> PyResult<Drawn<'py, bool>> {
    let mut gen = generator(&key, pos)?;
    let flags = py.detach(|| {
        let mut flags = vec![false; n];
        gen.fill_above(threshold, &mut flags);
        flags
    });
    let (key, pos) = state(py, &gen);
    Ok((PyArray1::from_vec(py, flags), key, pos))
}

/// BLEU.ipynb's randomizations of one trial: `rows` values of
/// `np.sum(samples * (rand(len(samples)) > threshold))`, and the state after the draws.
#[pyfunction]
fn mt19937_swap_effects<'py>(
    py: Python<'py>,
    key: PyReadonlyArray1<'py, u32>,
    pos: usize,
    samples: PyReadonlyArray1<'py, f64>,
    rows: usize,
    threshold: f64,
) -> PyResult<Drawn<'py, f64>> {
    let mut gen = generator(&key, pos)?;
    let samples = samples.as_slice()?;
    let effects = py.detach(|| {
        let mut out = vec![0.0; rows];
        swap_effects(&mut gen, samples, threshold, &mut out);
        out
    });
    let (key, pos) = state(py, &gen);
    Ok((PyArray1::from_vec(py, effects), key, pos))
}

/// pce.py's counts for every pair of systems `i < j` of every matrix: `partial` is
/// `permutations x (matrices * systems)` float32 sums, `totals` is `matrices x systems`;
/// returns `matrices x pairs` counts of `partial[:, i] - partial[:, j] >= totals[i] - totals[j]`.
#[pyfunction]
fn spa_pair_counts<'py>(
    py: Python<'py>,
    partial: PyReadonlyArray2<'py, f32>,
    totals: PyReadonlyArray2<'py, f32>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let systems = totals.shape()[1];
    let mats = totals.shape()[0];
    if partial.shape()[1] != mats * systems {
        return Err(PyValueError::new_err(format!(
            "partial sums have {} columns; totals have {mats} x {systems}",
            partial.shape()[1]
        )));
    }
    let (partial, totals) = (partial.as_slice()?, totals.as_slice()?);
    let counts = py
        .detach(|| super::spa::pair_counts(partial, totals, systems))
        .map_err(PyValueError::new_err)?;
    let pairs = systems * systems.saturating_sub(1) / 2;
    PyArray1::from_vec(py, counts).reshape([mats, pairs])
}

/// Adds the meta-evaluation kernels to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mt19937_above, m)?)?;
    m.add_function(wrap_pyfunction!(mt19937_swap_effects, m)?)?;
    m.add_function(wrap_pyfunction!(spa_pair_counts, m)?)?;
    Ok(())
}
