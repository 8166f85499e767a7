"""The folder of nlpeval's on-disk caches (parsed WordNet index, paraphrase tables, compiled templates).

``$NLPEVAL_CACHE_DIR`` names it (default ``~/.cache/nlpeval``); set to an empty string, it turns every
disk cache off. Caches are written atomically and a cache that cannot be read or written is skipped.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Environment variable naming the cache folder ("" disables the disk caches).
CACHE_ENV = "NLPEVAL_CACHE_DIR"


def cache_folder() -> Path | None:
    """The folder of nlpeval's parsed-data caches, or ``None`` when ``NLPEVAL_CACHE_DIR`` is empty.

    Examples
    --------
    >>> folder = cache_folder()
    >>> folder is None or folder.is_absolute() or folder == Path(os.environ[CACHE_ENV])
    True
    """
    folder = os.environ.get(CACHE_ENV)
    if folder == "":
        return None
    return Path(folder) if folder else Path.home() / ".cache" / "nlpeval"
