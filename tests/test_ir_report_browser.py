"""``nlpeval report --task ir`` as an HTML page in a real headless Chromium (Debian's chromium and
chromium-driver): the page loads offline (no request but itself, no console error), its scripts run, and
the DOM after the scripts shows trec_eval's numbers (pytrec_eval, live) for every run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytrec_eval

from nlpeval.cli.main import main
from report_html_browser import browser_fixture

RUNS = ("bm25 <b>&amp;.run", "dense.run", "hybrid.run")


browser = browser_fixture()


def _files(folder: Path) -> tuple[Path, list[Path]]:
    rng = np.random.default_rng(25)
    qrels = []
    runs: list[list[str]] = [[] for _ in RUNS]
    for q in range(60):
        judged = rng.choice(80, int(rng.integers(1, 30)), replace=False)
        qrels += [f"q{q} 0 d{d} {int(rng.integers(0, 3)) or 1}" for d in judged]
        for lines, name in zip(runs, RUNS, strict=True):
            for rank, d in enumerate(rng.choice(100, 40, replace=False)):
                lines.append(f"q{q} Q0 d{d} {rank + 1} {round(float(rng.normal()), 2)} {name.split()[0]}")
    path = folder / "qrels.txt"
    path.write_text("\n".join(qrels) + "\n")
    paths = []
    for name, lines in zip(RUNS, runs, strict=True):
        paths.append(folder / name)
        paths[-1].write_text("\n".join(lines) + "\n")
    return path, paths


def test_ir_report_page_in_chromium(browser, tmp_path):
    qrels, runs = _files(tmp_path)
    page = tmp_path / "ir.html"
    argv = ["report", "--task", "ir", "--qrels", str(qrels), *map(str, runs), "-m", "map,ndcg@10,P@10"]
    assert main([*argv, "--bootstrap", "200", "-o", str(page)]) == 0
    load = browser.open(page)
    browser.collect(load)
    assert load.errors == [] and load.foreign_requests == [], (load.errors, load.foreign_requests)
    for section in ("leaderboard", "buckets", "provenance"):
        assert browser.js(f"return !!document.querySelector('section#{section}')"), section
    toc = browser.js("return Array.from(document.querySelectorAll('nav.toc a')).map(a => a.getAttribute('href'))")
    assert toc[0] == "#leaderboard" and "#provenance" in toc
    rows = browser.js(
        "return Array.from(document.querySelectorAll('#leaderboard-table tbody tr')).map("
        "r => [r.cells[0].textContent.trim()].concat(Array.from(r.querySelectorAll('td.num:not(.delta) .val')).map("
        "v => v.textContent)))"
    )
    with open(qrels) as handle:
        judgements = pytrec_eval.parse_qrel(handle)
    evaluator = pytrec_eval.RelevanceEvaluator(judgements, {"map", "ndcg_cut.10", "P.10"})
    expected = {}
    for path in runs:
        with open(path) as handle:
            per_query = evaluator.evaluate(pytrec_eval.parse_run(handle))
        means = [np.mean([v[m] for v in per_query.values()]) * 100 for m in ("map", "ndcg_cut_10", "P_10")]
        expected[path.name] = [f"{value:.2f}" for value in means]
    shown = {name: values for name, *values in rows}
    assert len(shown) == len(RUNS)
    for name, values in expected.items():  # the odd file name is shown as text, never as markup
        (match,) = [key for key in shown if key.startswith(name)]
        assert shown[match] == values, name
    assert browser.js("return document.querySelectorAll('section#leaderboard b').length") == 0
    buckets = browser.js("return document.querySelectorAll('section#buckets tbody tr').length")
    assert buckets >= 4  # one row per bucket of queries by their number of relevant documents
    shot = browser.screenshot(tmp_path / "ir.png", full_page=True)
    assert shot.stat().st_size > 10_000
    browser.collect(load)
    assert load.errors == [] and load.foreign_requests == []
