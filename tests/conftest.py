"""Shared fixtures: the real evaluation data (committed copies of ../shared/data, see tests/realdata.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from realdata import data_dir, read_lines


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
