"""The folder of nlpeval's on-disk caches (parsed WordNet index, paraphrase tables, compiled templates).

``$NLPEVAL_CACHE_DIR`` names it (default ``~/.cache/nlpeval``); set to an empty string, it turns every
disk cache off. Caches are written atomically and a cache that cannot be read or written is skipped.

Caches that hold code to execute (compiled report templates) go through
:func:`write_private` / :func:`read_private`: a folder of mode 0700 and files of mode 0600 owned by the
user, each file carrying the SHA-256 of its content. A file planted by someone else, in a folder others
can write, or corrupt or cut short, is never loaded: the caller compiles again.
"""

from __future__ import annotations

import hashlib
import os
import stat
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


_PRIVATE_MAGIC = b"nlpeval-private-1\n"


def _owned_and_closed(path: Path, *, folder: bool) -> bool:
    """Whether ``path`` (not a link) belongs to this user and nobody else may write it (nor read, for a folder)."""
    try:
        status = os.lstat(path)
    except OSError:
        return False
    kind_ok = stat.S_ISDIR(status.st_mode) if folder else stat.S_ISREG(status.st_mode)
    closed = stat.S_IMODE(status.st_mode) & (0o077 if folder else 0o022) == 0
    return kind_ok and closed and status.st_uid == os.getuid()


def write_private(path: Path, data: bytes) -> bool:
    """Write ``data`` for :func:`read_private`: folder 0700, file 0600, content hash; ``False`` if it cannot.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder, "code", "x.bin")
    ...     write_private(path, b"payload"), read_private(path), oct(path.parent.stat().st_mode & 0o777)
    (True, b'payload', '0o700')
    """
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if os.lstat(path.parent).st_uid == os.getuid() and not path.parent.is_symlink():
            os.chmod(path.parent, 0o700)  # our own folder, made by an older version: close it
        if not _owned_and_closed(path.parent, folder=True):
            return False  # someone else's folder, or one others may write: no code cache there
        umask = os.umask(0o077)
        try:
            write_atomically(str(path), _PRIVATE_MAGIC + hashlib.sha256(data).digest() + data)
        finally:
            os.umask(umask)
        os.chmod(path, 0o600)
    except OSError:
        return False
    return True


def read_private(path: Path) -> bytes | None:
    """The content :func:`write_private` stored at ``path``, or ``None`` when missing or not to be trusted.

    Not trusted: a folder or file owned by another user or writable by others, a link, a file without the
    header or whose content does not match its hash (corrupt, cut short or edited).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder, "code", "x.bin")
    ...     _ = write_private(path, b"payload")
    ...     _ = path.write_bytes(path.read_bytes()[:-1] + b"!")  # edited after it was written
    ...     read_private(path) is None
    True
    """
    if not (_owned_and_closed(path.parent, folder=True) and _owned_and_closed(path, folder=False)):
        return None
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    header = len(_PRIVATE_MAGIC)
    if not raw.startswith(_PRIVATE_MAGIC) or len(raw) < header + 32:
        return None
    digest, data = raw[header : header + 32], raw[header + 32 :]
    return data if hashlib.sha256(data).digest() == digest else None
