"""Shared fixtures: the real evaluation data (committed copies of ../shared/data, see tests/realdata.py).

Every cache the tests cause is written under one temporary folder, never the user's: nlpeval's own
(``$NLPEVAL_CACHE_DIR``: the parsed WordNet index, the METEOR paraphrase table of 186 MB, compiled
report templates), matplotlib's (``$MPLCONFIGDIR``) and the browser's
(``$XDG_CACHE_HOME``, ``$XDG_CONFIG_HOME``). The controller process makes the folder; pytest-xdist
workers and the subprocesses tests start inherit the variables; the folder goes when the run ends.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from realdata import data_dir, read_lines

#: the variable that marks a run's cache folder (set once, by the first process that imports this)
TEST_CACHE_ROOT = "NLPEVAL_TEST_CACHE_ROOT"
#: the variables every cache the tests cause reads, each a folder under the run's cache folder
CACHE_VARIABLES = {
    "NLPEVAL_CACHE_DIR": "nlpeval",
    "MPLCONFIGDIR": "matplotlib",
    "XDG_CACHE_HOME": "xdg-cache",
    "XDG_CONFIG_HOME": "xdg-config",
    "SACREBLEU": "sacrebleu",  # sacreBLEU's home: its SentencePiece model cache, looked in by nlpeval
}


def _temporary_caches() -> None:
    root = os.environ.get(TEST_CACHE_ROOT)
    if root is None or not os.path.isdir(root):
        root = tempfile.mkdtemp(prefix="nlpeval-test-caches-")
        os.environ[TEST_CACHE_ROOT] = root
        atexit.register(shutil.rmtree, root, ignore_errors=True)
    for variable, name in CACHE_VARIABLES.items():
        os.environ[variable] = os.path.join(root, name)


_temporary_caches()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The folder of the real data sets (``wmt17-en-de/``, ``compare-mt/``, ``mqm-ted-ende/``)."""
    return data_dir()


@pytest.fixture(scope="session")
def wmt17(shared_data: Path) -> dict[str, list[str]]:
    """WMT17 en-de: ``{"reference": [...], "<system>": [...], ...}`` (16 systems)."""
    folder = shared_data / "wmt17-en-de"
    return {path.name.removesuffix(".de"): read_lines(path) for path in sorted(folder.glob("*.de"))}


@pytest.fixture(scope="session")
def compare_mt(shared_data: Path) -> dict[str, list[str]]:
    """compare-mt data: ``{"ted.ref.eng": [...], "sum.sys1.eng": [...], ...}``."""
    folder = shared_data / "compare-mt"
    return {path.name: read_lines(path) for path in sorted(folder.iterdir()) if path.is_file()}
