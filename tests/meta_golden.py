"""The goldens of mt-metrics-eval for the meta-evaluation tests, and the live oracle when it is present.

``tests/fixtures/meta/make_golden.py`` wrote ``golden.json`` from google-research/mt-metrics-eval;
:func:`reference_getter` returns, for a part of it, the goldens and (when ``../shared/oracles``
holds the checkout) the same values computed now by the oracle. Nothing is skipped when it is absent.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "meta"


@cache
def golden_module() -> Any:
    spec = importlib.util.spec_from_file_location("nlpeval_meta_make_golden", FIXTURES / "make_golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def golden() -> dict[str, Any]:
    return json.loads((FIXTURES / "golden.json").read_text(encoding="utf-8"))


@cache
def _live(part: str, mqm_dir: Path) -> dict[str, Any] | None:
    oracle = golden_module().find_oracle()
    if oracle is None:
        return None
    return golden_module().oracle_results(oracle, mqm_dir, (part,))[part]


def reference_getter(mqm_dir: Path) -> Callable[[str], list[dict[str, Any]]]:
    """``get(part)``: the golden values of ``part``, then the live oracle's when its checkout is present."""

    def get(part: str) -> list[dict[str, Any]]:
        out = [golden()[part]]
        live = _live(part, mqm_dir)
        if live is not None:
            out.append(live)
        return out

    return get


def _plain(value: Any) -> Any:
    return golden_module()._plain(value)


def assert_close(ours: Any, expected: Any, where: str, *, exact: bool = False) -> None:
    """Equal to 1e-12 (or exactly), with NaN ('nan' in the goldens) equal to NaN."""
    ours = _plain(ours)
    if isinstance(expected, list):
        assert isinstance(ours, list) and len(ours) == len(expected), (where, ours, expected)
        for i, (a, b) in enumerate(zip(ours, expected, strict=True)):
            assert_close(a, b, f"{where}[{i}]", exact=exact)
        return
    if isinstance(expected, str) and expected != "nan":
        assert ours == expected, (where, ours, expected)
        return
    if expected == "nan" or ours == "nan":
        assert ours == expected, (where, ours, expected)
        return
    if exact:
        assert ours == expected, (where, ours, expected)
    else:
        assert abs(float(ours) - float(expected)) <= 1e-12, (where, ours, expected)
