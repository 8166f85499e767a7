"""What the xCOMET error-span tests share (``test_xcomet_spans.py``, ``test_xcomet_report.py``): the tiny xCOMET
checkpoint, unbabel-comet 2.2.7's outputs on it (goldens written by tests/fixtures/neural/make_fixtures.py, stage
``comet-unified``) and the first ``N`` segments of the TED cases they were computed on."""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "neural"
sys.path.insert(0, str(FIXTURES))

import make_fixtures  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)

XCOMET = FIXTURES / "xcomet-tiny"
GOLDEN = json.loads((FIXTURES / "comet_unified_golden.json").read_text(encoding="utf-8"))
N = 32
#: float32 rounding of the tagger's mean probability (other batches than the reference's)
TOLERANCE = 1e-6
#: the tiny checkpoint's window is short: its truncation warnings are expected (``pytestmark = LONG_SEGMENTS``)
LONG_SEGMENTS = pytest.mark.filterwarnings("ignore:.*longer than .* tokens")


@cache
def _cases() -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in make_fixtures.unified_cases(make_fixtures.real_texts())}


def ted(name: str) -> dict[str, list[str]]:
    """The first ``N`` segments of the unified case ``name`` (``"ted-a"``, ``"ted-b"``): ``src``, ``mt``, ``ref``."""
    found = _cases()[name]
    return {side: found[side][:N] for side in ("src", "mt", "ref")}


def golden() -> dict[str, Any]:
    """unbabel-comet's output of xcomet-tiny on ``ted-a`` (all segments)."""
    return next(g for g in GOLDEN["cases"] if g["model"] == "xcomet-tiny" and g["case"] == "ted-a")


def golden_spans() -> list[list[dict]]:
    """unbabel-comet's error spans of the first ``N`` segments of ``ted-a``."""
    return golden()["metadata"]["error_spans"][:N]


def write_case(folder: Path) -> dict[str, str]:
    """``src``, ``mt`` and ``ref`` of :func:`ted` ``("ted-a")`` as line files in ``folder``: side -> path."""
    out = {}
    for side, lines in ted("ted-a").items():
        path = folder / f"{side}.txt"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        out[side] = str(path)
    return out


def score_argv(files: dict[str, str], *extra: str, model: Path = XCOMET, metrics: str = "comet") -> list[str]:
    """``nlpeval score`` of the written case (:func:`write_case`) with ``model``, then ``extra``."""
    return ["score", "-m", metrics, "--comet-model", str(model), "--src", files["src"], "-r", files["ref"],
            files["mt"], *extra]  # fmt: skip


def assert_spans_equal(ours: list[list[dict]], theirs: list[list[dict]]) -> None:
    """Per segment the same spans (confidences within :data:`TOLERANCE`)."""
    assert len(ours) == len(theirs)
    for x, y in zip(ours, theirs, strict=True):
        assert [{k: v for k, v in s.items() if k != "confidence"} for s in x] == [
            {k: v for k, v in s.items() if k != "confidence"} for s in y
        ]
        assert all(abs(a["confidence"] - b["confidence"]) <= TOLERANCE for a, b in zip(x, y, strict=True))
