//! Generation metrics' kernels (issue 26): SARI, NIST, RIBES, GLEU (span F1 is in
//! `spans/`). Each
//! submodule is one metric's counting, exact against the Python reference path.

pub mod gleu;
pub mod ngrams;
pub mod nist;
pub mod py;
pub mod ribes;
pub mod sari;
