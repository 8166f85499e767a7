//! Meta-evaluation kernels: NumPy's legacy `RandomState` stream (MT19937) reproduced
//! draw for draw, so the permutation tests of mt-metrics-eval and the power notebooks can
//! be repeated without NumPy's per-number overhead, with identical results.

pub mod mt;
pub mod power;
pub mod py;
pub mod spa;
