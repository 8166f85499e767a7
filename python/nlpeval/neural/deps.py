"""torch and transformers, imported on first use with a message naming the extra that installs them."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def require(module: str, metric: str) -> Any:
    """Import ``module`` (``"torch"`` or ``"transformers"``) or raise an ImportError naming the extra.

    Examples
    --------
    >>> require("math", "BERTScore").sqrt(4.0)
    2.0
    """
    # transformers reads these at import: an import made here must never reach the Hub, whatever the user set
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    try:
        return __import__(module)
    except ImportError as exc:
        raise ImportError(
            f"{metric} needs {module}: install nlpeval's neural extra (pip install 'nlpeval[neural]') "
            f"or torch and transformers yourself"
        ) from exc


def transformers_version() -> str:
    """The installed transformers version (recorded in neural metrics' signatures)."""
    return str(require("transformers", "a neural metric").__version__)


@contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence transformers' progress bars and info logging while loading (restored afterwards)."""
    logging = require("transformers", "a neural metric").utils.logging
    level = logging.get_verbosity()
    bars = logging.is_progress_bar_enabled()
    logging.set_verbosity_error()
    logging.disable_progress_bar()
    try:
        yield
    finally:
        logging.set_verbosity(level)
        if bars:
            logging.enable_progress_bar()
