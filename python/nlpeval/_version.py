"""The installed version of nlpeval.

Read from the first ``nlpeval-<version>.dist-info`` folder found next to the package or on
``sys.path`` (where ``importlib.metadata`` looks too), which avoids importing
``importlib.metadata`` and scanning every installed distribution (tens of milliseconds at
start-up). ``importlib.metadata`` answers only when one folder holds several such entries;
without any (a source tree on ``PYTHONPATH``) the version is ``0.0.0+unknown``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

UNKNOWN = "0.0.0+unknown"


def _metadata_version(folder: str) -> str | None:
    try:
        with open(os.path.join(folder, "METADATA"), encoding="utf-8") as metadata:
            for line in metadata:
                if line.startswith("Version:"):
                    return line[len("Version:") :].strip()
                if not line.strip():
                    break
    except OSError:
        pass
    return None


def _installed_version(paths: Sequence[str] | None = None) -> str:
    """The version in the first ``nlpeval-*.dist-info`` of ``paths`` (default: the package's parent, ``sys.path``).

    Examples
    --------
    >>> _installed_version(["/nonexistent"])
    '0.0.0+unknown'
    """
    if paths is None:
        paths = [os.path.dirname(os.path.dirname(os.path.abspath(__file__))), *sys.path]
    for path in paths:
        try:
            found = [n for n in os.listdir(path or ".") if n.startswith("nlpeval-") and n.endswith(".dist-info")]
        except OSError:
            continue
        if len(found) == 1:
            version = _metadata_version(os.path.join(path or ".", found[0]))
            if version:
                return version
        if found:  # several installs in one folder, or no readable METADATA: the standard answer
            from importlib.metadata import PackageNotFoundError
            from importlib.metadata import version as metadata_version

            try:
                return metadata_version("nlpeval")
            except PackageNotFoundError:  # pragma: no cover - a broken install
                return UNKNOWN
    return UNKNOWN


__version__ = _installed_version()
