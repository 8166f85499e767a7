"""The report pages whose bytes are pinned by ``tests/test_report_identity.py``.

Each case is one ``nlpeval.report(...)`` call on the committed real data (``tests/realdata.py``): compare-mt's
TED (default metrics, and the compare-mt preset), compare-mt's summaries (ROUGE, quantile buckets) and WMT17
en-de (4 systems with labels and quantile buckets; 2 systems); and one IR and one classification report on
generated data. Every case is rendered in every format
(HTML, JSON, Markdown, text, LaTeX). The seeds are fixed and the nlpeval version is set to ``GOLDEN_VERSION``
while building (signatures and the provenance carry the version; nothing else in a page depends on the time
or a path). BLAS runs on one thread while building: with OpenBLAS's threads, float sums of resampled
statistics (ROUGE's) differ in the last bit with the number of cores, which the JSON shows (17 digits). The
pages were checked equal across processes, thread counts and fresh caches on the development machine; another
CPU family (another OpenBLAS kernel) could still change the JSON's last digits.

The goldens are ``tests/fixtures/report_identity/goldens.json`` (the sha256 of every page) and
``tests/fixtures/report_identity/<case>.<format>.xz`` (the JSON, Markdown, text and LaTeX pages, for a readable
diff when a hash differs);
``python tests/fixtures/report_identity/make_goldens.py`` writes both (run it from the repository root with
``PYTHONPATH=python``, only when a change of the pages is intended, and say so in the commit).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from realdata import data_dir, read_lines

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "report_identity"
FORMATS = ("html", "json", "markdown", "text", "latex")
GOLDEN_VERSION = "0.0.0+golden"


def _compare_mt(prefix: str) -> tuple[dict[str, list[str]], list[str]]:
    folder = data_dir() / "compare-mt"
    systems = {name: read_lines(folder / f"{prefix}.{name}.eng") for name in ("sys1", "sys2")}
    return systems, read_lines(folder / f"{prefix}.ref.eng")


def _wmt17(k: int) -> tuple[dict[str, list[str]], list[str]]:
    folder = data_dir() / "wmt17-en-de"
    names = sorted(path.name.removesuffix(".de") for path in folder.glob("*.de") if path.name != "reference.de")
    return {name: read_lines(folder / f"{name}.de") for name in names[:k]}, read_lines(folder / "reference.de")


def _ted() -> dict[str, Any]:
    systems, refs = _compare_mt("ted")
    return {"hypotheses_by_system": systems, "references": refs, "max_examples": 40}


def _ted_comparemt() -> dict[str, Any]:
    systems, refs = _compare_mt("ted")
    return {"hypotheses_by_system": systems, "references": refs, "preset": "compare-mt", "max_examples": 40}


def _sum() -> dict[str, Any]:
    systems, refs = _compare_mt("sum")
    return {
        "hypotheses_by_system": systems,
        "references": refs,
        "metrics": ("rouge1", "rouge2", "rougeL", "rougeLsum", "bleu"),
        "buckets": "quantile",
        "max_examples": 40,
    }


def _wmt17_4() -> dict[str, Any]:
    systems, refs = _wmt17(4)
    return {
        "hypotheses_by_system": systems,
        "references": refs,
        "labels": [("news", "sport", "politics")[i % 3] for i in range(len(refs))],
        "buckets": "quantile",
        "max_examples": 40,
    }


def _wmt17_2() -> dict[str, Any]:
    systems, refs = _wmt17(2)
    return {"hypotheses_by_system": systems, "references": refs, "metrics": ("bleu", "chrf"), "max_examples": 40}


def _ir() -> Any:
    """``nlpeval report --task ir``'s model: three runs on 40 generated queries."""
    from nlpeval.ir.report import ir_report

    qrels = {f"q{i}": {"a": 1, "b": i % 3, "c": (i * 7) % 2, "d": int(i % 5 == 0)} for i in range(40)}
    runs = {
        "A": {q: ["a", "b", "c", "d"] for q in qrels},
        "B": {q: ["c", "b", "a"] if int(q[1:]) % 2 else ["d", "a"] for q in qrels},
        "C": {q: ["b", "a"] for q in qrels},
    }
    return ir_report(qrels, runs, "map,P@1,ndcg@10,recip_rank", command="nlpeval report --task ir (golden)", **SETTINGS)


def _classification() -> Any:
    """``nlpeval report --task classify``'s model: two classifiers on 60 generated items, with class scores."""
    import numpy as np

    from nlpeval.reports.build import classification_report

    gold = ["a", "b", "c"] * 20
    scores = np.random.default_rng(3).dirichlet(np.ones(3), size=60)
    return classification_report(
        gold,
        {"X": ["a", "b", "a"] * 20, "Y": ["b", "b", "c"] * 20},
        scores_by_system={"X": scores, "Y": scores[::-1]},
        seed=SETTINGS["seed"],
        n_bootstrap=SETTINGS["n_bootstrap"],
        command="nlpeval report --task classify (golden)",
    )


#: case name -> the keyword arguments of ``nlpeval.report`` (besides the shared resampling settings), or the
#: model itself (the IR and classification reports)
CASES: dict[str, Callable[[], Any]] = {
    "ted": _ted,
    "ted-comparemt": _ted_comparemt,
    "sum": _sum,
    "wmt17-4": _wmt17_4,
    "wmt17-2": _wmt17_2,
    "ir": _ir,
    "classification": _classification,
}

#: the resampling settings of every case (small, so the test stays fast; fixed seed)
SETTINGS = {"seed": 7, "n_bootstrap": 200, "n_randomization": 200}


@contextmanager
def golden_version() -> Iterator[None]:
    """Set nlpeval's version to :data:`GOLDEN_VERSION` (signatures and provenance) for the duration."""
    import nlpeval._version
    from nlpeval.core import signature

    saved = nlpeval._version.__version__
    nlpeval._version.__version__ = GOLDEN_VERSION
    signature._built.cache_clear()  # signatures built before carry the real version
    try:
        yield
    finally:
        nlpeval._version.__version__ = saved
        signature._built.cache_clear()


def pages(case: str) -> dict[str, str]:
    """Format -> the rendered page of ``case``."""
    from threadpoolctl import threadpool_limits

    import nlpeval
    from nlpeval.reports.render import render

    # one BLAS thread: OpenBLAS's float sums (ROUGE's statistics) change in the last bit with its thread count
    with golden_version(), threadpool_limits(1, user_api="blas"):
        made = CASES[case]()
        model = (
            nlpeval.report(**made, **SETTINGS, command="nlpeval report (golden)") if isinstance(made, dict) else made
        )
        return {fmt: render(model, fmt) for fmt in FORMATS}


def sha256(text: str) -> str:
    """The hex sha256 of ``text`` as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
