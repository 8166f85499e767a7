//! Kernels of the system-comparison report and the statistics around it:
//! resampled totals and bucket tables (`kernels`), Kendall's tau per group
//! (`kendall`); their bindings, with sentence scores from statistics rows, in `py`.

pub mod kendall;
pub mod kernels;
pub mod py;
