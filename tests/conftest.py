"""Shared fixtures: the real evaluation data in ../shared/data (skipped when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def read_lines(path: Path) -> list[str]:
    """Lines of a UTF-8 file without their newline (as the CLI reads them)."""
    return path.read_text(encoding="utf-8").split("\n")[:-1]


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The ../shared/data folder; tests that need it skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real evaluation data not found at {SHARED_DATA}")
    return SHARED_DATA


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
