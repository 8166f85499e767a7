//! State that belongs to one process and is rebuilt, not inherited, in a child
//! made by `fork`.
//!
//! `fork` copies the memory of the parent but only the thread that called it.
//! A thread pool copied that way names worker threads that do not exist in the
//! child, and a lock held by another thread of the parent at the moment of the
//! fork stays held forever in the child. [`ProcessLocal`] keeps one value per
//! process id: the first access in a new process builds a fresh value, and the
//! inherited one is leaked (never dropped: dropping a thread pool signals
//! threads that are not there, and dropping it from the child would touch
//! locks that may be held). Access takes no lock, so it cannot deadlock in a
//! child whatever the parent's threads were doing.

use arc_swap::ArcSwapOption;
use std::sync::Arc;

/// A value of type `T` per process, built by `init` on first use in each process.
pub struct ProcessLocal<T> {
    slot: ArcSwapOption<Owned<T>>,
    init: fn() -> T,
}

struct Owned<T> {
    pid: u32,
    value: T,
}

/// A handle on the current process's value.
pub struct Handle<T>(Arc<Owned<T>>);

impl<T> std::ops::Deref for Handle<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0.value
    }
}

impl<T> ProcessLocal<T> {
    pub const fn new(init: fn() -> T) -> Self {
        ProcessLocal {
            slot: ArcSwapOption::const_empty(),
            init,
        }
    }

    /// The value of this process, built now if this process has none yet.
    pub fn get(&self) -> Handle<T> {
        let pid = std::process::id();
        loop {
            let current = self.slot.load_full();
            if let Some(owned) = &current {
                if owned.pid == pid {
                    return Handle(Arc::clone(owned));
                }
            }
            let fresh = Arc::new(Owned {
                pid,
                value: (self.init)(),
            });
            let previous = self
                .slot
                .compare_and_swap(&current, Some(Arc::clone(&fresh)));
            let swapped = match (&*previous, &current) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            };
            if swapped {
                // One reference of every value ever installed is leaked, so no
                // value is ever dropped (see the module docs).
                std::mem::forget(Arc::clone(&fresh));
                return Handle(fresh);
            }
            // another thread of this process installed its value first: use that one
        }
    }

    /// Whether the current process has built its value (for tests and counters).
    pub fn is_built(&self) -> bool {
        matches!(&*self.slot.load(), Some(owned) if owned.pid == std::process::id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static BUILT: AtomicUsize = AtomicUsize::new(0);

    fn count() -> usize {
        BUILT.fetch_add(1, Ordering::SeqCst) + 1
    }

    #[test]
    fn one_value_per_process_even_when_threads_race_for_it() {
        static LOCAL: ProcessLocal<usize> = ProcessLocal::new(count);
        assert!(!LOCAL.is_built());
        let seen: Vec<usize> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8).map(|_| scope.spawn(|| *LOCAL.get())).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(LOCAL.is_built());
        assert!(seen.iter().all(|&v| v == seen[0]), "{seen:?}");
        assert_eq!(*LOCAL.get(), seen[0]);
    }
}
