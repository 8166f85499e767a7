"""METEOR 1.5 paraphrase tables: finding, loading and caching them.

The table is the one METEOR 1.5 distributes (``paraphrase-en.gz``: gzip-compressed
three-line records ``probability / phrase / paraphrase``). It is found at the
``paraphrases=`` argument, the ``NLPEVAL_METEOR_PARAPHRASES`` environment variable,
or inside an installed ``pycocoevalcap`` package (which ships METEOR 1.5 with its
English table). Nothing is downloaded.

Parsing the 270 MB of text takes a second or two, so a parsed copy is kept in
memory for the process and, unless ``NLPEVAL_CACHE_DIR`` is set to an empty
string, in ``$NLPEVAL_CACHE_DIR`` (default ``~/.cache/nlpeval``) as one file in
the native table's own byte layout (``meteor-paraphrases-<key>.bin``, keyed by
the table's path, size and modification time and by the layout's version). The
file is memory-mapped and used where it lies: opening it reads its header, and
a process then reads only the pages of the records its words reach. It is
written atomically (a temporary file and a rename); a cache that cannot be
written (a read-only folder) is skipped, and one that does not open (another
version, cut short, a damaged header) is parsed again and replaced.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.util
import os
from pathlib import Path

from nlpeval._native import MeteorParaphrases
from nlpeval.core.cache import CACHE_ENV, cache_folder, write_cache_file  # noqa: F401 (CACHE_ENV: re-exported)

#: Environment variable naming the paraphrase table.
PARAPHRASE_ENV = "NLPEVAL_METEOR_PARAPHRASES"
_CACHE_FORMAT = 3


class ParaphraseTableNotFoundError(FileNotFoundError):
    """The paraphrase module was asked for but no table was given or found.

    Examples
    --------
    >>> issubclass(ParaphraseTableNotFoundError, OSError)
    True
    """


def _pycocoevalcap_table() -> Path | None:
    try:
        spec = importlib.util.find_spec("pycocoevalcap")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder, "meteor", "data", "paraphrase-en.gz")
        if candidate.is_file():
            return candidate
    return None


def find_paraphrases(path: str | os.PathLike[str] | None = None) -> Path:
    """The paraphrase table to use: ``path``, ``$NLPEVAL_METEOR_PARAPHRASES`` or pycocoevalcap's.

    Raises
    ------
    ParaphraseTableNotFoundError
        When there is none, saying how to provide one.

    Examples
    --------
    >>> find_paraphrases("/nonexistent/paraphrase-en.gz")
    Traceback (most recent call last):
    ...
    nlpeval.metrics.meteor.paraphrase.ParaphraseTableNotFoundError: paraphrase table /nonexistent/... does not exist
    """
    if path is None:
        env = os.environ.get(PARAPHRASE_ENV)
        if env:
            path = env
    if path is not None:
        candidate = Path(path)
        if not candidate.is_file():
            raise ParaphraseTableNotFoundError(f"paraphrase table {candidate} does not exist")
        return candidate
    found = _pycocoevalcap_table()
    if found is None:
        raise ParaphraseTableNotFoundError(
            "METEOR's paraphrase module needs METEOR 1.5's paraphrase table (paraphrase-en.gz): "
            "pip install 'nlpeval[meteor]' (it brings pycocoevalcap, which ships the table), pass "
            f"paraphrases=PATH or set {PARAPHRASE_ENV}, or leave 'paraphrase' out of the modules"
        )
    return found


def _cache_file(table: Path) -> Path | None:
    base = cache_folder()
    if base is None:
        return None
    stat = table.stat()
    key = f"{_CACHE_FORMAT}|{MeteorParaphrases.format}|{table.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    return base / f"meteor-paraphrases-{hashlib.sha256(key.encode()).hexdigest()[:24]}.bin"


def _parse(table: Path) -> MeteorParaphrases:
    raw = table.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return MeteorParaphrases.from_text(raw)


def _read_cache(cache: Path) -> MeteorParaphrases | None:
    """The table in ``cache``, mapped in place (natively, no NumPy); ``None`` when it is missing or does not open."""
    try:
        return MeteorParaphrases.open(str(cache))
    except (OSError, ValueError):
        return None


def _write_cache(cache: Path, table: MeteorParaphrases) -> None:
    """Store ``table`` in ``cache`` atomically; a cache that cannot be written is skipped."""
    write_cache_file(cache, table.to_bytes())


@functools.lru_cache(maxsize=2)
def _load(path: str, size: int, mtime_ns: int) -> MeteorParaphrases:
    table = Path(path)
    cache = _cache_file(table)
    if cache is not None:
        loaded = _read_cache(cache)
        if loaded is not None:
            return loaded
    parsed = _parse(table)
    if cache is not None:
        _write_cache(cache, parsed)
    return parsed


def load_paraphrases(path: str | os.PathLike[str] | None = None) -> MeteorParaphrases:
    """The parsed paraphrase table (cached in memory and on disk).

    Parameters
    ----------
    path : path, optional
        The table; found as described in the module docstring when omitted.
    """
    table = find_paraphrases(path).resolve()
    stat = table.stat()
    return _load(str(table), stat.st_size, stat.st_mtime_ns)
