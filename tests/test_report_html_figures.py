"""Paper figures of the report (matplotlib, ``--figures DIR``): files, formats, determinism, lazy import."""

from __future__ import annotations

import subprocess
import sys

import pytest

from nlpeval.reports.demo import demo_report
from nlpeval.reports.figures import heatmap_figures, write_figures


@pytest.fixture(scope="module")
def small_model() -> dict:
    """The demo report with its first bucket table (figures are slow to draw: keep the test lean)."""
    model = demo_report(n_bootstrap=50).to_dict()
    model["buckets"] = model["buckets"][:1]
    model["leaderboard"]["matrices"] = model["leaderboard"]["matrices"][:1]
    return model


def test_figures_written_and_deterministic(small_model, tmp_path):
    first = write_figures(small_model, tmp_path / "a", formats=("pdf", "png"))
    names = [p.name for p in first]
    tables = [t["id"] for t in small_model["buckets"]]
    assert len(small_model["systems"]) == 2  # one pair: the leaderboard's own test, so no p-value heatmap
    expected = ["leaderboard"] + [f"buckets-{t}" for t in tables]
    assert names == [f"{stem}.{fmt}" for stem in expected for fmt in ("pdf", "png")]
    for path in first:
        data = path.read_bytes()
        assert data.startswith(b"%PDF" if path.suffix == ".pdf" else b"\x89PNG"), path.name
        assert len(data) > 2_000
    second = write_figures(small_model, tmp_path / "b", formats=("pdf", "png"))
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]
    assert b"CreationDate" not in first[0].read_bytes()


def test_heatmap_drawn_from_three_systems_on(small_model, tmp_path):
    """The p-value heatmap appears once there is more than the one pair the leaderboard already tests."""
    metric = small_model["leaderboard"]["metrics"][0]
    three = {
        "systems": ["A", "B", "C"],
        "leaderboard": {
            "metrics": [metric],
            "matrices": [
                {
                    "metric": metric,
                    "systems": ["A", "B", "C"],
                    "p_values": [[None, 0.01, 0.5], [0.01, None, 0.2], [0.5, 0.2, None]],
                },
                {"metric": "chrf", "systems": ["A", "B"], "p_values": [[None, 0.04], [0.04, None]]},
            ],
        },
    }
    assert [p.name for p in heatmap_figures(three, tmp_path, ("png",))] == [f"pvalues-{metric}.png"]
    assert (tmp_path / f"pvalues-{metric}.png").read_bytes().startswith(b"\x89PNG")
    assert not (tmp_path / "pvalues-chrf.png").exists()


def test_no_figures_without_sections(tmp_path):
    assert write_figures({"systems": [], "buckets": [], "leaderboard": None}, tmp_path) == []


def test_importing_the_report_modules_does_not_import_matplotlib():
    code = (
        "import sys, nlpeval.reports.figures, nlpeval.reports.html;"
        "assert 'matplotlib' not in sys.modules and 'jinja2' not in sys.modules and 'selenium' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
