"""A report's title: :data:`DEFAULT_TITLE` when none is given, and a task report's own title in its place.

The one rule every report kind follows (``nlpeval report --task ir|classify|qa|mc|spans``, ``report -m span_f1``
and :func:`nlpeval.report` of span F1): a title the user gives wins; the generic default gives way to the task's.
Imports nothing, so the command line's parser can read :data:`DEFAULT_TITLE` at no start-up cost.
"""

from __future__ import annotations

#: the title of :func:`nlpeval.report` and of ``nlpeval report`` when ``--title`` is not given
DEFAULT_TITLE = "System comparison"


def task_title(title: str, task: str) -> str:
    """``title``, or ``task`` (the task report's own title) when ``title`` is :data:`DEFAULT_TITLE`.

    Parameters
    ----------
    title : str
        The title asked for (``--title``; the default when not given).
    task : str
        The task report's title, e.g. ``"Sequence labelling comparison"``.

    Returns
    -------
    str

    Examples
    --------
    >>> task_title(DEFAULT_TITLE, "Run comparison"), task_title("TREC runs", "Run comparison")
    ('Run comparison', 'TREC runs')
    """
    return task if title == DEFAULT_TITLE else title
