"""The real evaluation data the tests read, from compact copies committed under ``tests/data/``.

Each data set is an ``xz``-compressed tar of the folder of the same name in the steering repository's
``shared/data`` (licences in ``tests/data/README.md``). The first call extracts them once per process into a
temporary folder, so a fresh clone needs no sibling folder. When ``../shared/data`` is beside the clone, every
extracted file is compared with its live copy, and a difference fails loudly (the committed copy is stale).
"""

from __future__ import annotations

import atexit
import shutil
import tarfile
import tempfile
from functools import cache
from pathlib import Path

ARCHIVES = Path(__file__).resolve().parent / "data"
DATASETS = ("wmt17-en-de", "compare-mt", "mqm-ted-ende")
#: the live folder, beside the main checkout or beside a worktree one level deeper
LIVE_CANDIDATES = (
    Path(__file__).resolve().parents[2] / "shared" / "data",
    Path(__file__).resolve().parents[3] / "shared" / "data",
)


def read_lines(path: Path) -> list[str]:
    """Lines of a UTF-8 file without their newline (as the CLI reads them)."""
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def _check_against_live(extracted: Path) -> None:
    live = next((folder for folder in LIVE_CANDIDATES if folder.is_dir()), None)
    if live is None:
        return
    for name in DATASETS:
        if not (live / name).is_dir():
            continue
        for path in sorted((live / name).iterdir()):
            if path.name == "README.md" or not path.is_file():
                continue
            copy = extracted / name / path.name
            if not copy.is_file() or copy.read_bytes() != path.read_bytes():
                raise RuntimeError(
                    f"tests/data/{name}.tar.xz is stale: {path.name} differs from {path}; rebuild it with "
                    f"tar --sort=name -C {live} -cf - {name} | xz -9e > tests/data/{name}.tar.xz"
                )


@cache
def data_dir() -> Path:
    """The folder holding ``wmt17-en-de/``, ``compare-mt/`` and ``mqm-ted-ende/`` (extracted once per process)."""
    folder = Path(tempfile.mkdtemp(prefix="nlpeval-test-data-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    for name in DATASETS:
        with tarfile.open(ARCHIVES / f"{name}.tar.xz") as archive:
            archive.extractall(folder, filter="data")
    _check_against_live(folder)
    return folder
