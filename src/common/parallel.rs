//! The thread pool every parallel kernel runs on: one per process, rebuilt in
//! a child made by `fork` (see [`super::process_local`]).
//!
//! Kernels never use rayon's global pool: a child forked after the parent used
//! it would wait forever for workers that were not copied. Every parallel
//! iterator runs inside [`install`], which enters this process's pool (or runs
//! in place when the caller is already one of its workers). Small batches stay
//! on the calling thread ([`PARALLEL_MIN_SEGMENTS`]), so they pay no hand-off.

use super::process_local::ProcessLocal;
use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

/// Batches of at least this many segments are scored on the thread pool; smaller
/// ones (a training loop's batch, a sentence-level call) run on the calling
/// thread, because handing work to the pool and waiting for it costs more than
/// the work (milliseconds on a loaded machine).
pub const PARALLEL_MIN_SEGMENTS: usize = 64;

static POOL: ProcessLocal<ThreadPool> = ProcessLocal::new(build_pool);

fn build_pool() -> ThreadPool {
    // RAYON_NUM_THREADS is honoured as by rayon's global pool (0 or unset: one per CPU)
    ThreadPoolBuilder::new()
        .thread_name(|index| format!("nlpeval-{index}"))
        .build()
        .expect("the operating system refused to start the worker threads")
}

/// Runs `op` on this process's pool (in place when already on one of its threads).
pub fn install<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    POOL.get().install(op)
}

/// Runs `op` on this process's pool with the GIL released: `py.detach(|| install(op))`, how a
/// binding runs a closure that is parallel work itself (`op` must touch no Python object). A
/// binding whose kernel enters the pool on its own (as [`fill_rows`] does, keeping small batches
/// on the calling thread) calls `py.detach` instead.
pub fn detached<R: Send>(py: pyo3::Python<'_>, op: impl FnOnce() -> R + Send) -> R {
    py.detach(|| install(op))
}

/// The number of threads of this process's pool.
pub fn current_num_threads() -> usize {
    POOL.get().current_num_threads()
}

/// Fills the rows of `out` (`width` values each, `width > 0`) with `fill(workspace, (index,
/// row))`: on the thread pool, one workspace per worker, from [`PARALLEL_MIN_SEGMENTS`] rows
/// on; on the calling thread with one workspace below that.
pub fn fill_rows<W, F>(out: &mut [i64], width: usize, fill: F)
where
    W: Default + Send,
    F: Fn(&mut W, (usize, &mut [i64])) + Sync + Send,
{
    if out.len() / width >= PARALLEL_MIN_SEGMENTS {
        install(|| {
            out.par_chunks_mut(width)
                .enumerate()
                .with_min_len(64)
                .for_each_init(W::default, fill)
        });
    } else {
        let mut workspace = W::default();
        out.chunks_mut(width)
            .enumerate()
            .for_each(|item| fill(&mut workspace, item));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_runs_on_the_process_pool_and_nests_in_place() {
        let outer = install(|| {
            let here = rayon::current_thread_index();
            let inner = install(rayon::current_thread_index);
            (here, inner)
        });
        assert!(outer.0.is_some());
        assert_eq!(outer.0, outer.1, "a nested install runs in place");
        assert_eq!(current_num_threads(), POOL.get().current_num_threads());
    }

    /// Every parallel iterator of the crate runs inside [`install`]: in each
    /// function of `src/` that calls a rayon parallel method, the call comes
    /// after an `install(` or `detached(` in the same function, in every folder
    /// (a source scan: rayon's global
    /// pool does not survive `fork`).
    #[test]
    fn every_parallel_call_is_inside_install() {
        let parallel_calls = [
            ".par_iter(",
            ".par_iter_mut(",
            ".into_par_iter(",
            ".par_chunks(",
            ".par_chunks_mut(",
            ".par_bridge(",
            ".par_extend(",
            ".par_sort",
            "rayon::join(",
            "rayon::scope(",
            "rayon::current_num_threads(",
        ];
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
        let mut files = vec![std::path::PathBuf::from(root)];
        let mut offenders = Vec::new();
        let mut scanned = 0;
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            scanned += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            let mut function_start = 0;
            let mut installed = false;
            for (number, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if code.trim_start().starts_with("fn ") || code.contains(" fn ") {
                    function_start = number;
                    installed = false;
                }
                if code.contains("install(") || code.contains("detached(") {
                    installed = true;
                }
                if parallel_calls.iter().any(|call| code.contains(call))
                    && !installed
                    && !path.ends_with("common/parallel.rs")
                {
                    offenders.push(format!(
                        "{}:{} (fn at line {})",
                        path.display(),
                        number + 1,
                        function_start + 1
                    ));
                }
            }
        }
        assert!(scanned > 10);
        assert!(
            offenders.is_empty(),
            "parallel calls outside install: {offenders:#?}"
        );
    }
}
