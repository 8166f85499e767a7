"""The cache of prepared references shared by the BLEU, chrF and GLEU kernels.

Scoring several systems against the same references (a WMT evaluation, a checkpoint sweep, a
fixed validation set) used to tokenise and decode the references once per system. The native
kernels now prepare them once (BLEU: the tokens of every reference as ids of one vocabulary;
chrF/chrF++: the code points and word ids; GLEU: the words as ids) and keep them in a small LRU
cache, so a later call with *the same reference text* skips that work. Nothing is needed to use
it: ``nlpeval.bleu``, ``nlpeval.chrf``, ``nlpeval.gleu``, the metric objects and the CLI all go
through it.

- Prepared on second sight: the first call with a reference set takes the direct kernel (for a
  one-off call it is faster than preparing: ``sentence BLEU, 3,004 pairs`` in ``BENCHMARKS.md``)
  and keeps only a 64-bit fingerprint of the text; the second call with the same text prepares
  and caches it, later calls reuse it. The fingerprint decides only *when* to prepare, never what
  is served, and a training loop's ever-new batches never fill the cache.

- Exact: an entry is found only by the reference bytes themselves (every segment's references
  compared in full, not by object identity nor by a hash alone) and by every option that shapes
  the prepared statistics (BLEU's tokenizer; chrF's whitespace rule and whether it counts words).
  Lowercasing and pretokenizers change the text the kernel receives, so they are part of the
  key. A list mutated in place is new text: never served stale. Results are identical with the
  cache on or off (the tests compare them).
- Bounded: at most :func:`cache_limits` entries and bytes per kernel (8 entries and 256 MiB by
  default; prepared references take about 4-6 times the size of their text). Batches of fewer
  than 64 segments are not cached (a training loop's batches change every step).
- Thread-safe: the kernels run in parallel and Python threads may call concurrently; entries are
  shared read-only.
"""

from __future__ import annotations

from typing import Any

from nlpeval import _native


def cache_info() -> dict[str, dict[str, int]]:
    """Entries, bytes held, hits and misses of each kernel's cache (``bleu``, ``chrf``, ``gleu``).

    Returns
    -------
    dict
        ``{"bleu": {"entries", "bytes", "hits", "misses"}, "chrf": {...}, "gleu": {...}}``; a call that finds no
        entry is a miss, whether it saw the references for the first time or prepared them.

    Examples
    --------
    >>> import nlpeval
    >>> from nlpeval.metrics.reference_cache import cache_info, clear_cache
    >>> clear_cache()
    >>> refs = [f"the cat sat on mat number {i}" for i in range(100)]
    >>> for system in ("a cat sat on the mat", "the cat is on the mat", "a cat on a mat"):
    ...     _ = nlpeval.bleu([system] * 100, refs)
    >>> info = cache_info()["bleu"]  # seen, then prepared, then reused
    >>> info["entries"], info["misses"], info["hits"]
    (1, 2, 1)
    """
    info: dict[str, dict[str, int]] = _native.refcache_info()
    return info


def clear_cache() -> None:
    """Drop every prepared reference set and zero the counters.

    Examples
    --------
    >>> from nlpeval.metrics.reference_cache import cache_info, clear_cache
    >>> clear_cache()
    >>> cache_info()["chrf"]["entries"]
    0
    """
    _native.refcache_clear()


def cache_limits(max_entries: int | None = None, max_bytes: int | None = None) -> tuple[int, int]:
    """Set the bounds of each kernel's cache (evicting what no longer fits); return the previous bounds.

    Parameters
    ----------
    max_entries : int, optional
        Reference sets kept per kernel (least recently used evicted first); 0 turns caching off.
        ``None`` keeps the current value.
    max_bytes : int, optional
        Bytes kept per kernel (the prepared statistics and the copy of the text they were made
        from); a set larger than this is used for its call and not kept. ``None`` keeps the
        current value.

    Returns
    -------
    tuple of int
        The bounds before the call.

    Examples
    --------
    >>> from nlpeval.metrics.reference_cache import cache_limits
    >>> previous = cache_limits(max_entries=0)  # off: every call prepares its references
    >>> cache_limits(*previous)
    (0, 268435456)
    >>> cache_limits() == previous
    True
    """
    for name, value in (("max_entries", max_entries), ("max_bytes", max_bytes)):
        _check_bound(name, value)
    previous: tuple[int, int] = _native.refcache_limits(max_entries, max_bytes)
    return previous


def _check_bound(name: str, value: Any) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative int or None; got {value!r}")


__all__ = ["cache_info", "cache_limits", "clear_cache"]
