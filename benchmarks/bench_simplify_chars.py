"""SARI, CharacTER, EED and CharCut (issue 26) against their reference tools, on WMT17 en-de.

* SARI ``hf``: HF evaluate 0.4.6's ``sari`` script (``tests/data/evaluate_sari_v0.4.6.py.txt``, the script the
  Hub serves to ``evaluate.load("sari")``), loaded with ``evaluate.load`` from that local file (offline; its
  module cache in a temporary folder) and called through ``compute`` as a user does; a second row times the
  script's ``_compute`` alone (no Arrow conversion). Triples: source = WMT17 German reference, output =
  uedin-nmt, references = online-B and KIT (3,004 segments).
* SARI ``easse``: EASSE is not installable here (own venv), so it has no row; its speed is that of the same
  statistics plus a sum.
* CharacTER: the ``cer`` package 1.2 (``calculate_cer`` per segment, as evaluate's ``character`` calls it, on
  whitespace words), 3,004 segments.
* EED: torchmetrics 1.9 ``extended_edit_distance`` (pure Python, 20-40 s for the corpus), on 500 segments.
* CharCut: the ``charcut`` package 1.1.1 ``calculate_charcut``, 3,004 segments.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from harness import Case, wmt17_systems

SCRIPT = Path(__file__).resolve().parents[1] / "tests" / "data" / "evaluate_sari_v0.4.6.py.txt"


def _evaluate_sari():  # type: ignore[no-untyped-def]
    """evaluate.load of the committed sari script (a .py copy in a temporary folder), offline."""
    cache = Path(tempfile.mkdtemp(prefix="nlpeval-bench-hf-"))
    os.environ.setdefault("HF_MODULES_CACHE", str(cache / "modules"))
    os.environ["HF_DATASETS_OFFLINE"] = os.environ["HF_HUB_OFFLINE"] = "1"
    script = cache / "sari" / "sari.py"
    script.parent.mkdir(parents=True)
    shutil.copyfile(SCRIPT, script)
    import evaluate

    return evaluate.load(str(script), cache_dir=str(cache / "cache")), evaluate


def cases(data: Path) -> list[Case]:
    import importlib.util
    from importlib.machinery import SourceFileLoader

    import nlpeval

    reference, systems = wmt17_systems()
    src, out = reference, systems["uedin-nmt.4722"]
    refs = [[a, b] for a, b in zip(systems["online-B.0"], systems["KIT.4950"], strict=True)]
    metric, _ = _evaluate_sari()
    loader = SourceFileLoader("evaluate_sari_script", str(SCRIPT))
    spec = importlib.util.spec_from_loader("evaluate_sari_script", loader)
    assert spec is not None
    script = importlib.util.module_from_spec(spec)
    loader.exec_module(script)

    from cer import calculate_cer
    from charcut import calculate_charcut
    from torchmetrics.functional.text import extended_edit_distance

    hyps, gold = out, reference
    eed_hyps, eed_refs = hyps[:500], gold[:500]
    return [
        Case(
            "SARI (hf), WMT17 3,004 triples x 2 refs",
            "evaluate 0.4.6 sari: evaluate.load(script).compute",
            lambda: metric.compute(sources=src, predictions=out, references=refs),
            lambda: nlpeval.sari(out, refs, sources=src),
            target=20.0,
            repeat=2,
        ),
        Case(
            "SARI (hf), WMT17 3,004 triples x 2 refs, script's _compute only",
            "evaluate 0.4.6 sari script: Sari._compute",
            lambda: script.Sari._compute(None, src, out, refs),
            lambda: nlpeval.sari(out, refs, sources=src),
            repeat=2,
        ),
        Case(
            "CharacTER, WMT17 3,004 segments",
            "cer 1.2 calculate_cer (evaluate's character)",
            lambda: [calculate_cer(h.split(), r.split()) for h, r in zip(hyps, gold, strict=True)],
            lambda: nlpeval.character(hyps, gold),
            repeat=2,
        ),
        Case(
            "EED, WMT17 500 segments",
            "torchmetrics 1.9 extended_edit_distance",
            lambda: extended_edit_distance(eed_hyps, eed_refs),
            lambda: nlpeval.eed(eed_hyps, eed_refs),
            repeat=1,
        ),
        Case(
            "CharCut, WMT17 3,004 segments",
            "charcut 1.1.1 calculate_charcut",
            lambda: calculate_charcut(hyps, gold),
            lambda: nlpeval.charcut(hyps, gold),
            repeat=1,
        ),
    ]
