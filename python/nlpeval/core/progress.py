"""Progress bars for long runs: a tqdm bar on stderr when it is a terminal, nothing otherwise.

Long computations (model perplexity, METEOR over a large corpus, bootstrap and
paired tests with many resamples, report generation) report progress through
this one helper. Whether a bar is drawn is decided here, in this order:

1. :func:`set_progress` / :func:`progress_enabled` (the CLI's ``--quiet`` sets it off);
2. the environment variable ``NLPEVAL_PROGRESS`` (``0`` off, ``1`` on);
3. otherwise a bar is drawn only when ``sys.stderr`` is a terminal.

So output piped to a file or another program never contains a bar, and results
never depend on it: the chunked computation behind a bar gives the same numbers.

Examples
--------
>>> with progress_enabled(False):
...     with progress_bar(total=3, desc="demo") as bar:
...         bar.update(3)
>>> with progress_enabled(False):
...     list(track(range(3), desc="demo"))
[0, 1, 2]
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import numpy as np

T = TypeVar("T")

#: explicit setting: None = automatic (environment, then terminal detection)
_enabled: bool | None = None


def set_progress(enabled: bool | None) -> None:
    """Turn progress bars on (``True``), off (``False``) or back to automatic (``None``)."""
    global _enabled
    _enabled = enabled


@contextlib.contextmanager
def progress_enabled(enabled: bool | None) -> Iterator[None]:
    """Within the block, progress bars are on, off, or automatic (``None``).

    Examples
    --------
    >>> with progress_enabled(False):
    ...     progress_active()
    False
    """
    global _enabled
    previous, _enabled = _enabled, enabled
    try:
        yield
    finally:
        _enabled = previous


def _forced() -> bool | None:
    """The explicit or environment setting, or None for automatic."""
    if _enabled is not None:
        return _enabled
    value = os.environ.get("NLPEVAL_PROGRESS", "").strip().lower()
    if value in ("0", "false", "no", "off"):
        return False
    if value in ("1", "true", "yes", "on"):
        return True
    return None


def progress_active() -> bool:
    """Whether a progress bar would be drawn now (see the module notes)."""
    forced = _forced()
    if forced is not None:
        return forced
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())


class _NoBar:
    """Stands in for a bar when progress is off: every call does nothing."""

    def update(self, n: float = 1) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def progress_bar(total: float | None = None, *, desc: str | None = None, unit: str = "it") -> Any:
    """A tqdm bar on stderr (closed on leaving a ``with`` block), or a no-op object when progress is off.

    In automatic mode the bar appears only after half a second, so quick runs stay silent.

    Parameters
    ----------
    total : float or None
        Expected number of units (None: a counter without a percentage).
    desc : str or None
        Label in front of the bar.
    unit : str
        Name of one unit.

    Examples
    --------
    >>> with progress_enabled(False):
    ...     type(progress_bar(10)).__name__
    '_NoBar'
    """
    if not progress_active():
        return _NoBar()
    options = {"total": total, "desc": desc, "unit": unit, "leave": False, "file": sys.stderr, "dynamic_ncols": True}
    if _forced():
        from tqdm import tqdm

        return tqdm(**options)
    return _LateBar(options, delay=0.5)


class _LateBar:
    """A bar that imports tqdm and draws only at the first update after ``delay`` seconds (as tqdm's
    own ``delay`` shows it): a run quicker than that, at a terminal, never imports tqdm (about as
    long to import as a whole ``nlpeval score -m bleu`` run) nor starts its monitor thread."""

    def __init__(self, options: dict[str, Any], *, delay: float) -> None:
        import time

        self._clock = time.monotonic
        self._show_at = self._clock() + delay
        self._options = options
        self._bar: Any = None
        self._postfix: str | None = None
        self.n: float = 0

    def update(self, n: float = 1) -> None:
        if self._bar is not None:
            self._bar.update(n)
            return
        self.n += n
        if self._clock() >= self._show_at:
            from tqdm import tqdm

            self._bar = tqdm(initial=self.n, **self._options)
            if self._postfix is not None:
                self._bar.set_postfix_str(self._postfix)

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        if self._bar is not None:
            self._bar.set_postfix_str(text, refresh=refresh)
        else:
            self._postfix = text

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> _LateBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def track(iterable: Iterable[T], *, total: int | None = None, desc: str | None = None, unit: str = "it") -> Iterator[T]:
    """Iterate with a progress bar (e.g. the sections of a report).

    Examples
    --------
    >>> with progress_enabled(False):
    ...     sum(track([1, 2, 3], desc="sections"))
    6
    """
    if total is None and isinstance(iterable, Sized):
        total = len(iterable)
    with progress_bar(total, desc=desc, unit=unit) as bar:
        for item in iterable:
            yield item
            bar.update(1)


def map_chunks(
    function: Callable[..., Any],
    *sequences: Sequence[Any] | np.ndarray,
    desc: str,
    unit: str = "it",
    chunk: int | None = 1000,
    min_items: int = 0,
) -> Any:
    """``function(*sequences)``, computed in chunks of rows behind a progress bar when progress is on.

    ``function`` must treat its rows independently and return an array (or a tuple of
    arrays) with one leading row per input row; the chunks' results are concatenated,
    so the value is the same with or without a bar. Without a bar, or with fewer than
    ``min_items`` rows, ``function`` is called once on the whole input; ``chunk=None``
    also computes in one call (the bar then only shows start and end), for functions
    whose floating-point results could depend on the chunking (see :func:`exact_chunk`).

    Examples
    --------
    >>> import numpy as np
    >>> with progress_enabled(False):
    ...     map_chunks(lambda a: np.asarray(a) * 2, [1, 2, 3], desc="double").tolist()
    [2, 4, 6]
    """
    n = len(sequences[0])
    if not progress_active() or n < max(min_items, 1):
        return function(*sequences)
    import numpy as np

    if chunk is None:
        with progress_bar(n, desc=desc, unit=unit) as bar:
            result = function(*sequences)
            bar.update(n)
        return result
    parts = []
    with progress_bar(n, desc=desc, unit=unit) as bar:
        for start in range(0, n, chunk):
            parts.append(function(*(seq[start : start + chunk] for seq in sequences)))
            bar.update(min(chunk, n - start))
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate(column) for column in zip(*parts, strict=True))
    return np.concatenate(parts)


def exact_chunk(chunk: int, *rows: Any) -> int | None:
    """``chunk`` when all ``rows`` hold integer statistics, ``None`` when some hold floating-point ones.

    Integer sums are exact in any grouping, so resamples can be computed chunk by
    chunk behind a bar; a matrix product of floats may round differently when BLAS
    sees fewer rows, so float statistics are computed in one call (same numbers
    with or without a bar).

    Examples
    --------
    >>> import numpy as np
    >>> exact_chunk(100, np.zeros((2, 3), dtype=np.int64)), exact_chunk(100, np.zeros(2, dtype=int), np.zeros(3))
    (100, None)
    """
    return chunk if all(r.dtype.kind in "iub" for r in rows) else None
