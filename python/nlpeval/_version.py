"""The installed version of nlpeval.

Read from the ``nlpeval-<version>.dist-info`` folder next to the package when there is exactly
one (an ordinary install), which avoids importing ``importlib.metadata`` (tens of milliseconds
at start-up); otherwise (editable installs, unusual layouts) through ``importlib.metadata``.
"""

from __future__ import annotations

import os


def _installed_version(site: str | None = None) -> str:
    """The version in the one ``nlpeval-*.dist-info`` of ``site`` (default: the package's parent folder).

    Examples
    --------
    >>> _installed_version("/nonexistent") == __version__
    True
    """
    if site is None:
        site = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        found = [n for n in os.listdir(site) if n.startswith("nlpeval-") and n.endswith(".dist-info")]
    except OSError:
        found = []
    if len(found) == 1:
        try:
            with open(os.path.join(site, found[0], "METADATA"), encoding="utf-8") as metadata:
                for line in metadata:
                    if line.startswith("Version:"):
                        return line[len("Version:") :].strip()
                    if not line.strip():
                        break
        except OSError:
            pass
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nlpeval")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
        return "0.0.0+unknown"


__version__ = _installed_version()
