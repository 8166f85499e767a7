"""The report templates compiled once and kept on disk (a Jinja2 bytecode cache).

Compiling the page template takes a fresh process about a fifth of a second, more than rendering
it. The compiled code is stored in ``$NLPEVAL_CACHE_DIR`` (default ``~/.cache/nlpeval``, the folder
of the parsed WordNet index; an empty value turns it off) under a folder named after everything the
code depends on: nlpeval's and Jinja2's versions, the Python version and the environment's options.
Jinja2 keys each file by the template's name and checks the template source's checksum, so an edited
template is compiled again. Files are written atomically (a temporary file and a rename); a cache that
cannot be written, or a file that cannot be read or does not load, is skipped: the template is
compiled as without a cache, and the page is the same byte for byte.
"""

from __future__ import annotations

import hashlib
import io
import sys
import types
from pathlib import Path
from typing import Any

import jinja2
from jinja2.bccache import Bucket

from nlpeval.core.cache import cache_folder, read_private, write_private

__all__ = ["TemplateCache", "template_cache"]


class TemplateCache(jinja2.BytecodeCache):
    """Compiled templates as files ``<key>.cache`` in ``folder`` (created when first written).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     cache = TemplateCache(Path(tmp) / "templates")
    ...     env = jinja2.Environment(loader=jinja2.DictLoader({"t": "{{ x }}!"}), bytecode_cache=cache)
    ...     print(env.get_template("t").render(x=1), len(list(cache.folder.glob("*.cache"))))
    1! 1
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def _file(self, bucket: Bucket) -> Path:
        return self.folder / f"{bucket.key}.cache"

    def load_bytecode(self, bucket: Bucket) -> None:
        data = read_private(self._file(bucket))  # None: missing, corrupt, or not ours alone (never executed)
        if data is None:
            bucket.reset()
            return
        try:
            bucket.load_bytecode(io.BytesIO(data))  # resets itself on a wrong header, checksum or cut-short code
        except Exception:  # missing, unreadable or corrupt (a bad pickle raises anything): compile
            bucket.reset()
            return
        if bucket.code is not None and not isinstance(bucket.code, types.CodeType):
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        # a read-only or full disk means no cache, and the same page
        write_private(self._file(bucket), bucket.bytecode_to_string())

    def clear(self) -> None:
        for path in self.folder.glob("*.cache"):
            path.unlink(missing_ok=True)


def template_cache(options: dict[str, Any]) -> TemplateCache | None:
    """The cache of templates compiled with the environment ``options``, or ``None`` when disk caches
    are off (``NLPEVAL_CACHE_DIR=""``).

    Examples
    --------
    >>> cache = template_cache({"autoescape": True})
    >>> cache is None or cache.folder.name.startswith("report-templates-")
    True
    """
    base = cache_folder()
    if base is None:
        return None
    from nlpeval._version import __version__

    identity = repr((__version__, jinja2.__version__, sys.implementation.cache_tag, sorted(options.items())))
    return TemplateCache(base / f"report-templates-{hashlib.sha256(identity.encode()).hexdigest()[:24]}")
