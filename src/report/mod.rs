//! Kernels of the system-comparison report and the statistics around it:
//! resampled totals and bucket tables (`kernels`), Kendall's tau per group
//! (`kendall`), sentence scores from statistics rows (`sentence_scores`).

pub mod kendall;
pub mod kernels;
pub mod sentence_scores;
