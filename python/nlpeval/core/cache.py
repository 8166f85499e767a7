"""The folder of nlpeval's on-disk caches (parsed WordNet index, paraphrase tables, compiled templates).

``$NLPEVAL_CACHE_DIR`` names it (default ``~/.cache/nlpeval``); set to an empty string, it turns every
disk cache off. Caches are written atomically and a cache that cannot be read or written is skipped.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from nlpeval.core.files import write_atomically

if TYPE_CHECKING:
    import numpy as np

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


def map_file(path: Path) -> np.ndarray:
    """The bytes of ``path``, memory-mapped read-only (``OSError``/``ValueError`` when missing or empty).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder, "x.bin")
    ...     _ = path.write_bytes(b"abc")
    ...     bytes(map_file(path))
    b'abc'
    """
    import numpy as np

    return np.memmap(path, dtype=np.uint8, mode="r")


def write_cache_file(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` through a temporary file and a rename; ``False`` when it cannot be written.

    Concurrent readers see the old file or the whole new one, never part of one; a folder
    that cannot be created or written (read-only, a file in the way) skips the cache.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_cache_file(Path(folder, "a", "x.bin"), b"abc"), sorted(os.listdir(Path(folder, "a")))
    (True, ['x.bin'])
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(str(path), data)
    except OSError:
        return False
    return True
