"""Run a piece of the report on a second thread while the caller does pure-Python work.

The report's resampling kernels are native and release the GIL (``py.detach``): started on a worker
thread, they run on the second core while the main thread builds the n-gram, sentence and example
sections. The worker runs in a copy of the caller's context, so it sees the same
:func:`~nlpeval.reports.analyses.resampling.shared_draws` cache.

Not :mod:`concurrent.futures`: one thread needs none of its pool machinery, and importing it
(with :mod:`logging`) costs ~15 ms of a ~0.4 s report process.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")


class Background(Generic[T]):
    """``function(*args, **kwargs)`` started on its own thread; :meth:`result` waits for it.

    Parameters
    ----------
    function : callable
        What to run (in a copy of the current :mod:`contextvars` context).
    *args, **kwargs
        Its arguments.

    Examples
    --------
    >>> job = Background(sum, [1, 2, 3])
    >>> job.result()
    6
    >>> Background(int, "x").result()
    Traceback (most recent call last):
    ...
    ValueError: invalid literal for int() with base 10: 'x'
    """

    def __init__(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> None:
        self._value: T | None = None
        self._error: BaseException | None = None
        context = contextvars.copy_context()

        def target() -> None:
            try:
                self._value = context.run(function, *args, **kwargs)
            except BaseException as exc:  # re-raised by result() on the caller's thread
                self._error = exc

        self._thread = threading.Thread(target=target, name="nlpeval-report", daemon=True)
        self._thread.start()

    def result(self) -> T:
        """The function's return value (waits for the thread); its exception is raised here instead."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return cast(T, self._value)  # set by target() when no error was raised
