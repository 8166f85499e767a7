"""Real data for the distributed tests: ../shared/data as conftest finds it, or the shared folder two
levels up (a worktree under /work/wt/<name> sits one level deeper than the main checkout)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from conftest import SHARED_DATA, read_lines


def data_dir() -> Path:
    """The shared data folder, or skip the test with the reason."""
    for candidate in (SHARED_DATA, Path(__file__).resolve().parents[3] / "shared" / "data"):
        if candidate.is_dir():
            return candidate
    pytest.skip(f"real evaluation data not found at {SHARED_DATA}")


@cache
def _wmt17(folder: Path) -> dict[str, list[str]]:
    return {path.name.removesuffix(".de"): read_lines(path) for path in sorted(folder.glob("*.de"))}


@cache
def _compare_mt(folder: Path) -> dict[str, list[str]]:
    return {path.name: read_lines(path) for path in sorted(folder.iterdir()) if path.is_file()}


def wmt17() -> dict[str, list[str]]:
    """WMT17 en-de: ``{"reference": [...], "<system>": [...]}``."""
    return _wmt17(data_dir() / "wmt17-en-de")


def compare_mt() -> dict[str, list[str]]:
    """compare-mt: ``{"ted.ref.eng": [...], ...}``."""
    return _compare_mt(data_dir() / "compare-mt")
