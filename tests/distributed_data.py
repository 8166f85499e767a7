"""Real data for the distributed tests (the committed copies, see tests/realdata.py)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from realdata import data_dir, read_lines


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
