//! What every kernel family shares: the process's thread pool and state that
//! must be rebuilt in a child made by `fork`.

pub mod alloc;
pub mod parallel;
pub mod process_local;
pub mod py;
pub mod refcache;
pub mod slots;
