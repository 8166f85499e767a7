"""The report's second thread (``nlpeval.reports.background``): same report as the serial path, errors surface."""

from __future__ import annotations

import pytest

from nlpeval.core.errors import InputError
from nlpeval.reports import build
from nlpeval.reports.analyses.resampling import Resamples, shared_draws
from nlpeval.reports.background import Background
from nlpeval.reports.render import render


class _Serial:
    """The serial path: the function runs at once on the calling thread."""

    def __init__(self, function, *args, **kwargs):
        self._value = function(*args, **kwargs)

    def result(self):
        return self._value


def _report(**options):
    hyps = {
        "A": ["the cat sat on the mat", "a b c d e", "x y z", "one two three four", "the dog", "a b"] * 3,
        "B": ["the cat is on the mat", "a b c e", "x y z w", "one three four", "a dog", "b a"] * 3,
        "C": ["cat on mat", "a b c d e f", "x z", "one two four", "the the dog", "a b"] * 3,
    }
    refs = ["the cat sat on the mat", "a b c d e", "x y z", "one two three four", "the dog", "a b"] * 3
    return build.report(hyps, refs, n_bootstrap=200, n_randomization=100, command="test", **options)


@pytest.mark.parametrize("preset", [None, "compare-mt"])
def test_threaded_report_equals_serial(monkeypatch, preset):
    threaded = render(_report(preset=preset), "json")
    monkeypatch.setattr(build, "Background", _Serial)
    serial = render(_report(preset=preset), "json")
    assert threaded == serial
    assert '"vs_baseline"' in threaded


def test_worker_error_surfaces_unchanged(monkeypatch):
    error = InputError("boom", segment=3, side="hypotheses")

    def failing(*_args, **_kwargs):
        raise error

    monkeypatch.setattr(build, "_resampled_sections", failing)
    with pytest.raises(InputError) as caught:
        _report(preset="compare-mt")
    assert caught.value is error
    assert (caught.value.message, caught.value.segment) == ("boom", 3)


def test_worker_sees_the_shared_draws():
    with shared_draws():
        first = Resamples.draw(10, 50, 7)
        again = Background(Resamples.draw, 10, 50, 7).result()
    assert again is first
    assert Background(divmod, 7, 2).result() == (3, 1)
