"""The report says each thing once, on one scale, and shows all of it: WMT17 pages with 2, 4 and 16 systems in Chromium.

Set ``NLPEVAL_UPDATE_SCREENSHOT=1`` to also write ``docs/report-wmt17-{2,4,16}.png`` (the top of each page)
and ``docs/report-wmt17-16-heatmap.png``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import nlpeval
from nlpeval.reports.html import render_html
from nlpeval.reports.render import render
from report_html_browser import browser_fixture

ROOT = Path(__file__).resolve().parents[1]
SIZES = (2, 4, 16)

#: every <text> of every chart, as a box in its SVG's user space, when it leaves the viewBox
CLIPPED_TEXT_JS = """
const out = [];
for (const svg of document.querySelectorAll('svg[viewBox]')) {
  const vb = svg.viewBox.baseVal;
  const toSvg = svg.getCTM().inverse();
  for (const t of svg.querySelectorAll('text')) {
    const bb = t.getBBox();
    if (!bb.width) continue;
    const m = toSvg.multiply(t.getCTM());
    const pts = [[bb.x, bb.y], [bb.x + bb.width, bb.y], [bb.x, bb.y + bb.height], [bb.x + bb.width, bb.y + bb.height]]
      .map(([x, y]) => new DOMPoint(x, y).matrixTransform(m));
    const xs = pts.map(p => p.x), ys = pts.map(p => p.y);
    if (Math.min(...xs) < vb.x - 0.5 || Math.max(...xs) > vb.x + vb.width + 0.5 ||
        Math.min(...ys) < vb.y - 0.5 || Math.max(...ys) > vb.y + vb.height + 0.5)
      out.push([svg.getAttribute('aria-label'), t.textContent]);
  }
}
return out;
"""


@pytest.fixture(scope="module")
def models(wmt17: dict[str, list[str]]) -> dict[int, nlpeval.reports.model.Report]:
    names = sorted(name for name in wmt17 if name != "reference")
    refs = wmt17["reference"]
    return {
        k: nlpeval.report({name: wmt17[name] for name in names[:k]}, refs, n_bootstrap=30, n_randomization=0, seed=3)
        for k in SIZES
    }


browser = browser_fixture()


@pytest.fixture(scope="module")
def pages(models, tmp_path_factory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("wmt17-pages")
    out = {}
    for k, model in models.items():
        out[k] = folder / f"wmt17-{k}.html"
        out[k].write_text(render_html(model), encoding="utf-8")
    return out


@pytest.mark.parametrize("k", SIZES)
def test_each_analysis_once_on_the_leaderboards_scale(models, k: int) -> None:
    model = models[k]
    titles = [t.title for t in model.buckets]
    assert len(titles) == len(set(titles)), titles
    assert not [t for t in titles if "compare-mt" in t]  # compare-mt's definitions: the compare-mt preset's
    assert titles.count("BLEU by reference length") == 1
    sentence_bleu = next(t for t in model.buckets if t.title == "segments by sentence BLEU")
    # BLEU's leaderboard is on 0-100 (sacreBLEU's), so are its sentence buckets
    assert [r.label for r in sentence_bleu.rows][:3] == ["<10", "[10,20)", "[20,30)"]
    for table in model.buckets:
        for row in table.rows:
            if row.few:
                assert all(c.marker is None for c in row.cells), (table.title, row.label)
    text = render(model, "text")
    assert "n=0" not in text and "(1 pairs)" not in text
    assert text.count("--- All pairs") == (k > 2)


def test_the_compare_mt_preset_keeps_its_own_bleu(wmt17) -> None:
    names = sorted(name for name in wmt17 if name != "reference")[:2]
    model = nlpeval.report(
        {n: wmt17[n] for n in names}, wmt17["reference"], preset="compare-mt", n_bootstrap=20, n_randomization=0
    )
    titles = [t.title for t in model.buckets]
    assert titles.count("BLEU (compare-mt) by reference length") == 1
    assert "segments by sentence BLEU (compare-mt)" in titles and "BLEU by reference length" not in titles


@pytest.mark.parametrize("k", SIZES)
def test_the_page_shows_everything_once(browser, pages, models, k: int) -> None:
    load = browser.open(pages[k])
    assert browser.js(CLIPPED_TEXT_JS) == []
    # bucket tables: one title each, no significance marker on a "few" row, no "n=0" cell
    titles = browser.js("return Array.from(document.querySelectorAll('#buckets h3')).map(h => h.textContent.trim())")
    assert len(titles) == len(set(titles)) and titles
    assert browser.js("return document.querySelectorAll('#buckets tr.few .marker').length") == 0
    assert browser.js("return document.querySelectorAll('tr.few').length") > 0
    cells = browser.js("return Array.from(document.querySelectorAll('#buckets td .n')).map(e => e.textContent)")
    assert cells and "n=0" not in cells
    # the signatures wrap inside their cells (nothing cut, no sideways scrolling)
    sigs = browser.js(
        "return Array.from(document.querySelectorAll('code.signature')).map(c => "
        "[c.textContent, c.scrollWidth <= c.clientWidth + 1, c.getClientRects().length, "
        "c.closest('.table-wrap').scrollWidth <= c.closest('.table-wrap').clientWidth + 1])"
    )
    assert len(sigs) == len(models[k].provenance.metrics)
    for text, fits, lines, wrap_fits in sigs:
        assert text.endswith(f"version:nlpeval-{nlpeval.__version__}") and fits and wrap_fits, text
        assert lines >= 1
    # the two Holm families are named where their p-values are
    lead = browser.js("return document.querySelector('#leaderboard p.lead').textContent")
    assert re.search(rf"over the {k - 1} tests? against the baseline", lead)
    summary = browser.js("var s = document.querySelector('details.pairs summary'); return s && s.textContent")
    heatmaps = browser.js("return document.querySelectorAll('#heatmaps ~ .chart-grid svg').length")
    if k == 2:
        assert summary is None  # the one pair is the leaderboard's test against the baseline
        assert heatmaps == 0 and browser.js("return document.getElementById('heatmaps')") is None  # nor a heatmap
    else:
        assert f"over all {k * (k - 1) // 2} pairs" in summary
        assert heatmaps == len(models[k].leaderboard.metrics)
    page_text = browser.js("return document.body.textContent")
    assert "(1 pairs)" not in page_text and "over all 1 pairs" not in page_text
    browser.collect(load)
    assert load.errors == [] and load.foreign_requests == []
    if os.environ.get("NLPEVAL_UPDATE_SCREENSHOT"):
        browser.driver.set_window_size(1366, 1000)
        browser.js("window.scrollTo(0, 0)")
        browser.screenshot(ROOT / "docs" / f"report-wmt17-{k}.png")
        browser.driver.set_window_size(1366, 900)
        if k == 16:  # the p-value heatmap: sixteen names, none clipped
            heatmap = browser.driver.find_element("css selector", "#heatmaps ~ .chart-grid svg")
            heatmap.screenshot(str(ROOT / "docs" / "report-wmt17-16-heatmap.png"))


def test_sixteen_systems_get_sixteen_distinct_colours(browser, pages) -> None:
    browser.open(pages[16])
    colours = browser.js(
        "return Array.from(document.querySelectorAll('#leaderboard svg')[0].querySelectorAll('[fill]'))"
        ".map(e => e.getAttribute('fill'))"
    )
    from nlpeval.reports.html.svg import PALETTE

    assert len(set(PALETTE[:16])) == 16
    assert len({c for c in colours if c in PALETTE}) == 16
    # the table's swatches are the charts' colours
    swatches = browser.js(
        "return Array.from(document.querySelectorAll('#leaderboard-table .swatch')).map(e => getComputedStyle(e).backgroundColor)"
    )
    rgb = [f"rgb({int(c[1:3], 16)}, {int(c[3:5], 16)}, {int(c[5:7], 16)})" for c in PALETTE[:16]]
    assert swatches == rgb


def test_the_page_is_deterministic(models, wmt17) -> None:
    names = sorted(name for name in wmt17 if name != "reference")[:4]
    again = nlpeval.report(
        {name: wmt17[name] for name in names}, wmt17["reference"], n_bootstrap=30, n_randomization=0, seed=3
    )
    assert render_html(again) == render_html(models[4])  # same inputs and seed: the same bytes
