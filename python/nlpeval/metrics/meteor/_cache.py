"""Cache files of METEOR's parsed resources: written atomically, read memory-mapped.

Both the paraphrase table and WordNet's lemma index are cached as one file each in
the native side's own byte layout (see ``src/meteor/paraphrase.rs`` and
``src/meteor/wordnet_index.rs``), which the native side uses where it lies.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


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


def write_atomically(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` through a temporary file and a rename; ``False`` when it cannot be written.

    Concurrent readers see the old file or the whole new one, never part of one; a folder
    that cannot be created or written (read-only, a file in the way) skips the cache.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_atomically(Path(folder, "a", "x.bin"), b"abc"), sorted(os.listdir(Path(folder, "a")))
    (True, ['x.bin'])
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=".nlpeval-", suffix=".tmp")
    except OSError:
        return False
    try:
        os.chmod(tmp, 0o644)  # mkstemp's file is private; a cache is readable like ~/.cache's other files
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
        return True
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
