"""The HTML report page: rendered in a real headless Chromium (Debian's), offline, escaped, deterministic.

One browser session serves the whole module. Set ``NLPEVAL_UPDATE_SCREENSHOT=1`` to also
write the README's screenshot ``docs/report.png`` (from the bundled demo data).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from nlpeval.reports.build import report
from nlpeval.reports.demo import demo_report
from nlpeval.reports.html import render_html
from nlpeval.reports.html.data import script_json
from report_html_browser import Browser, PageLoad, browser_fixture

ROOT = Path(__file__).resolve().parents[1]
PAGE_SIZE = 20

ODD_SYSTEMS = ["sys <b>A</b> & co", "نظام-ب", "系统😀"]
ODD_TEXTS = [
    "<script>alert(1)</script>",
    "</script><script>window.__pwned = 1</script>",
    "a &amp; b &lt; c &",
    "the <UNK> sat on the <UNK>",
    '<img src=x onerror="window.__pwned=1">',
    "مرحبا بالعالم، هذا اختبار",
    "שלום עולם זה מבחן",
    "这是一个测试句子，包含中文。",
    "emoji 😀👍🏽 and 🇩🇪 flags",
    "",
    "long " * 400 + "end",
    "tab\tand  two  spaces",
    "line\u2028separator and \u2029 paragraph",
    "<!-- comment --> ]]> {{ jinja }} {% raw %}",
]


def _odd_model():
    n = 45
    refs, hyps = [], {name: [] for name in ODD_SYSTEMS}
    for i in range(n):
        odd = ODD_TEXTS[i % len(ODD_TEXTS)]
        refs.append(f"reference {i} says {odd} today")
        hyps[ODD_SYSTEMS[0]].append(odd)
        hyps[ODD_SYSTEMS[1]].append(f"reference {i} says {odd}" if i % 3 else "")
        hyps[ODD_SYSTEMS[2]].append(f"{odd} reference {i} today")
    labels = ["<label & co>" if i % 2 else "نص" for i in range(n)]
    return report(hyps, refs, labels=labels, n_bootstrap=30, n_randomization=30, seed=7, title="odd <title> & text")


browser = browser_fixture()


@pytest.fixture(scope="module")
def demo_model():
    return demo_report(n_bootstrap=100)


@pytest.fixture(scope="module")
def odd_model():
    return _odd_model()


@pytest.fixture(scope="module")
def demo_path(tmp_path_factory, demo_model) -> Path:
    path = tmp_path_factory.mktemp("html") / "demo.html"
    path.write_text(render_html(demo_model), encoding="utf-8")
    return path


@pytest.fixture
def demo_page(browser, demo_path) -> PageLoad:
    """The demo page, freshly loaded for each test (no state left by another test)."""
    return browser.open(demo_path)


@pytest.fixture(scope="module")
def odd_page(tmp_path_factory, browser, odd_model) -> tuple[Path, PageLoad]:
    path = tmp_path_factory.mktemp("html") / "odd.html"
    path.write_text(render_html(odd_model), encoding="utf-8")
    return path, browser.open(path)


def _clean(browser: Browser, load: PageLoad) -> None:
    browser.collect(load)
    assert load.errors == [], load.errors
    assert load.foreign_requests == [], load.foreign_requests


def _matching(browser: Browser) -> int:
    return int(browser.js("return document.getElementById('ex-list').getAttribute('data-matching')"))


def _cards(browser: Browser) -> int:
    return browser.js("return document.querySelectorAll('#ex-list .ex-card').length")


def _type(browser: Browser, element_id: str, value: str) -> None:
    browser.js(
        "var e = document.getElementById(arguments[0]); e.value = arguments[1];"
        "e.dispatchEvent(new Event('input', {bubbles: true}));",
        element_id,
        value,
    )


# ---------------------------------------------------------------------------- renders, offline


def test_demo_page_renders_every_section(browser, demo_page, demo_model, tmp_path):
    _clean(browser, demo_page)
    for section in ("leaderboard", "length", "sentences", "buckets", "ngrams", "examples", "provenance"):
        assert browser.js(f"return !!document.querySelector('section#{section}')"), section
    toc = browser.js("return Array.from(document.querySelectorAll('nav.toc a')).map(a => a.getAttribute('href'))")
    assert toc[0] == "#leaderboard" and "#examples" in toc
    assert browser.js("return document.querySelectorAll('svg.chart').length") >= 10
    assert browser.js("return document.querySelectorAll('table.sortable').length") >= 8
    # the leaderboard shows each system's corpus score with its interval
    rows = browser.js(
        "return Array.from(document.querySelectorAll('#leaderboard-table tbody tr')).map("
        "r => [r.cells[0].textContent.trim(), r.cells[1].querySelector('.val').textContent])"
    )
    board = demo_model.leaderboard
    expected = {c.system: f"{c.estimate.value * 100:.2f}" for c in board.cells if c.metric == "bleu"}
    assert [name.split()[0] for name, _ in rows] == list(board.systems)
    assert {name.split()[0]: value for name, value in rows} == expected
    # the best system per metric (lowest TER, highest BLEU/chrF)
    cards = browser.js(
        "return Array.from(document.querySelectorAll('.best-card')).map(c => c.querySelector('.best-system').textContent)"
    )
    best = []
    for metric in board.metrics:
        scores = {c.system: c.estimate.value for c in board.cells if c.metric == metric}
        best.append((min if metric == "ter" else max)(scores, key=scores.get))
    assert cards == best
    # the scatter plots' points come from the embedded sentence scores (not drawn twice in the page)
    drawn = browser.js(
        "return Array.from(document.querySelectorAll('g.scatter-points')).map(g => +g.getAttribute('data-drawn'))"
    )
    assert drawn == [demo_model.examples.total] * len(demo_model.sentences.metrics)
    # the example browser ran: one card per segment (20 demo segments fit one page)
    assert _cards(browser) == len(demo_model.examples.examples) == 20
    assert browser.js("return document.getElementById('ex-page').textContent") == "page 1 of 1"
    shot = browser.screenshot(tmp_path / "report.png")
    assert shot.stat().st_size > 10_000
    if os.environ.get("NLPEVAL_UPDATE_SCREENSHOT"):
        (ROOT / "docs").mkdir(exist_ok=True)
        browser.driver.set_window_size(1366, 1040)
        browser.js("window.scrollTo(0, 0)")
        browser.screenshot(ROOT / "docs" / "report.png")
        browser.driver.set_window_size(1366, 900)


def test_page_has_a_csp_that_forbids_requests(demo_model):
    page = render_html(demo_model)
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page).group(1)
    assert policy.startswith("default-src 'none'")
    assert "img-src data:" in policy and "connect-src" not in policy and "unsafe-eval" not in policy
    assert not re.search(r"(?:src|href)=\"(?:https?:)?//", page)
    assert " style=" not in page  # no inline style attributes (the policy would block them)


def test_sorting_a_column(browser, demo_page, demo_model):
    board = demo_model.leaderboard
    ter = {c.system: c.estimate.value for c in board.cells if c.metric == "ter"}
    column = 1 + 2 * board.metrics.index("ter")

    def order() -> list[str]:
        return browser.js(
            "return Array.from(document.querySelectorAll('#leaderboard-table tbody tr')).map("
            "r => r.cells[0].querySelector('span[dir]').textContent)"
        )

    header = f"document.querySelectorAll('#leaderboard-table thead th')[{column}]"
    browser.js(f"{header}.click()")
    assert order() == sorted(ter, key=lambda s: -ter[s])
    assert browser.js(f"return {header}.getAttribute('aria-sort')") == "descending"
    browser.js(f"{header}.click()")
    assert order() == sorted(ter, key=lambda s: ter[s])
    # two systems: their one pair is the leaderboard's test against the baseline, not repeated in a table
    assert browser.js("return document.querySelector('#pairs-table')") is None
    _clean(browser, demo_page)


def test_sorting_a_numeric_column(browser, odd_model, tmp_path):
    # numeric, not text order: the pairwise table (three systems) sorted by p-value
    path = tmp_path / "three.html"
    path.write_text(render_html(odd_model), encoding="utf-8")
    load = browser.open(path)
    browser.js("document.querySelectorAll('#pairs-table thead th')[5].click()")
    values = browser.js(
        "return Array.from(document.querySelectorAll('#pairs-table tbody tr')).map(r => r.cells[5].getAttribute('data-v'))"
    )
    numbers = [float(v) for v in values]
    assert len(numbers) == 9 and numbers == sorted(numbers, reverse=True)
    _clean(browser, load)


def test_regex_filter_counts(browser, demo_page, demo_model):
    examples = demo_model.examples.examples

    def expected(pattern: str) -> int:
        rx = re.compile(pattern, re.IGNORECASE)
        return sum(any(rx.search(t) for t in (*e.references, *e.hypotheses)) for e in examples)

    for pattern in ("rain|snow", r"\bthe\b", "villages?"):
        _type(browser, "ex-regex", pattern)
        assert _matching(browser) == expected(pattern) > 0, pattern
        assert _cards(browser) == min(PAGE_SIZE, expected(pattern))
    # an invalid pattern shows a message and throws nothing
    _type(browser, "ex-regex", "(unclosed[")
    assert browser.js("return document.getElementById('ex-error').hidden") is False
    assert "regular expression" in browser.js("return document.getElementById('ex-error').textContent")
    assert _matching(browser) == len(examples)
    _type(browser, "ex-regex", "")
    assert browser.js("return document.getElementById('ex-error').hidden") is True
    _clean(browser, demo_page)


def test_beats_filter_and_sort(browser, demo_page, demo_model):
    examples = demo_model.examples.examples
    bleu = [(round(e.scores["bleu"][0] * 100, 2), round(e.scores["bleu"][1] * 100, 2)) for e in examples]
    _type(browser, "ex-beats", "30")
    assert _matching(browser) == sum(1 for a, b in bleu if round(a - b, 2) >= 30)
    _type(browser, "ex-beats", "")
    browser.js("var s = document.getElementById('ex-sort'); s.value = 'diff-asc'; s.dispatchEvent(new Event('change'))")
    shown = browser.js("return Array.from(document.querySelectorAll('#ex-list .ex-id')).map(e => e.textContent)")
    order = sorted(range(len(examples)), key=lambda i: (round(bleu[i][0] - bleu[i][1], 2), i))
    assert shown == [f"Segment #{examples[i].id}" for i in order]
    browser.js("var s = document.getElementById('ex-sort'); s.value = 'id'; s.dispatchEvent(new Event('change'))")
    _clean(browser, demo_page)


def test_ngram_click_filters_examples(browser, demo_page, demo_model):
    comparison = demo_model.ngrams[0]
    entry = comparison.system_better[0]
    browser.js(
        "Array.from(document.querySelectorAll('button.ngram-link')).find("
        "b => b.getAttribute('data-ngram') === arguments[0] && b.getAttribute('data-pair') === '0').click()",
        entry.ngram,
    )
    words = entry.ngram.split()
    systems = list(demo_model.systems)
    a, b = systems.index(comparison.system), systems.index(comparison.other)

    def has(text: str) -> bool:
        toks = text.split()
        return any(toks[k : k + len(words)] == words for k in range(len(toks)))

    want = sum(1 for e in demo_model.examples.examples if has(e.hypotheses[a]) or has(e.hypotheses[b]))
    assert _matching(browser) == want > 0
    assert browser.js("return document.getElementById('ex-ngram-filter').hidden") is False
    browser.js("document.querySelector('#ex-ngram-filter button').click()")
    assert _matching(browser) == len(demo_model.examples.examples)
    _clean(browser, demo_page)


# ---------------------------------------------------------------------------- escaping and odd text


def test_odd_text_is_shown_verbatim_and_nothing_executes(browser, odd_page, odd_model):
    path, load = odd_page
    _clean(browser, load)
    assert browser.js("return window.__pwned === undefined && typeof alert === 'function'")
    # exactly the page's two scripts; nothing injected
    assert browser.js("return document.scripts.length") == 2
    assert browser.js("return document.querySelectorAll('img, b, iframe, object, embed').length") == 0
    assert browser.js("return document.title") == "odd <title> & text"
    # 45 segments, pages of 20: page 1 shows 20, then 20, then 5
    assert _matching(browser) == 45 and _cards(browser) == PAGE_SIZE
    browser.js("var c = document.getElementById('ex-all-systems'); if (!c.checked) c.click();")
    texts = browser.js(
        "return Array.from(document.querySelectorAll('#ex-list .ex-card')).map("
        "c => Array.from(c.querySelectorAll('.ex-row.hyp .ex-text')).map(t => t.textContent))"
    )
    examples = odd_model.examples.examples
    assert texts == [list(e.hypotheses) for e in examples[:PAGE_SIZE]]
    refs = browser.js("return Array.from(document.querySelectorAll('.ex-row.ref .ex-text')).map(t => t.textContent)")
    assert refs == [e.references[0] for e in examples[:PAGE_SIZE]]
    roles = browser.js(
        "return Array.from(document.querySelectorAll('.ex-card')[0].querySelectorAll('.ex-row.hyp .ex-role')).map(r => r.textContent)"
    )
    assert roles == [ODD_SYSTEMS[0] + " (A)", ODD_SYSTEMS[1] + " (B)", ODD_SYSTEMS[2]]
    assert browser.js("return Array.from(document.querySelectorAll('.ex-text')).every(t => t.dir === 'auto')")
    # system names in tables are text too, with dir=auto
    names = browser.js(
        "return Array.from(document.querySelectorAll('#leaderboard-table tbody th span[dir=auto]')).map(s => s.textContent)"
    )
    assert names == ODD_SYSTEMS
    # pagination
    browser.js("document.getElementById('ex-next').click()")
    assert _cards(browser) == PAGE_SIZE
    browser.js("document.getElementById('ex-next').click()")
    assert _cards(browser) == 5
    assert browser.js("return document.getElementById('ex-next').disabled")
    assert browser.js("return document.getElementById('ex-page').textContent") == "page 3 of 3"
    first = browser.js("return document.querySelector('.ex-card .ex-id').textContent")
    assert first == f"Segment #{examples[40].id}"
    browser.js("document.getElementById('ex-first').click()")
    # regex over odd text: literal markup is searchable as text
    _type(browser, "ex-regex", "<UNK>")
    assert _matching(browser) == sum(1 for e in examples if "<UNK>" in " ".join((*e.hypotheses, *e.references)))
    _type(browser, "ex-regex", "</script>")
    assert _matching(browser) == sum(1 for e in examples if "</script>" in " ".join((*e.hypotheses, *e.references)))
    _type(browser, "ex-regex", "")
    # label filter with markup in the label
    browser.js(
        "var s = document.getElementById('ex-label'); s.value = '<label & co>'; s.dispatchEvent(new Event('change'))"
    )
    assert _matching(browser) == sum(1 for e in examples if e.label == "<label & co>")
    browser.js("var s = document.getElementById('ex-label'); s.value = ''; s.dispatchEvent(new Event('change'))")
    # odd whitespace (tabs, double spaces, U+2028): the highlighted words are the model's matched words
    marks = browser.js(
        "return Array.from(document.querySelectorAll('.ex-card')).map(c => Array.from("
        "c.querySelectorAll('.ex-row.hyp')[0].querySelectorAll('.ex-text span.hl-m')).map(s => "
        "[+s.getAttribute('data-t'), s.textContent]))"
    )
    for example, shown in zip(examples, marks, strict=False):
        words = example.hypotheses[0].strip().split(" ")
        want = [w for p, flag in enumerate(example.matched[0]) if flag == "1" for w in words[p].split()]
        assert [w for _, w in shown] == want, example.id
        assert all(example.hypotheses[0].split()[t] == w for t, w in shown)
    # scatter plots keyed by odd system names
    drawn = browser.js(
        "return Array.from(document.querySelectorAll('g.scatter-points')).map(g => g.getAttribute('data-drawn'))"
    )
    assert drawn and all(d == str(len(examples)) for d in drawn)
    browser.screenshot(path.with_suffix(".png"))
    _clean(browser, load)


def test_embedded_json_cannot_break_out():
    text = script_json({"t": "</script><!--<script>\u2028\u2029&"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text and "\u2029" not in text
    assert json.loads(text) == {"t": "</script><!--<script>\u2028\u2029&"}


def test_real_unk_tokens_show_as_text(browser, shared_data, tmp_path):
    folder = shared_data / "compare-mt"
    lines = {
        name: (folder / name).read_text(encoding="utf-8").split("\n")[:-1]
        for name in ("sum.ref.eng", "sum.sys1.eng", "sum.sys2.eng")
    }
    model = report(
        {"sys1": lines["sum.sys1.eng"], "sys2": lines["sum.sys2.eng"]},
        lines["sum.ref.eng"],
        metrics=("bleu",),
        n_bootstrap=20,
        n_randomization=20,
        all_pairs=False,
    )
    page = render_html(model)
    assert "<UNK>" not in page  # escaped everywhere: &lt;UNK&gt; in markup, \u003cUNK\u003e in the JSON
    path = tmp_path / "sum.html"
    path.write_text(page, encoding="utf-8")
    load = browser.open(path)
    _clean(browser, load)
    total = browser.js(
        "var d = JSON.parse(document.getElementById('report-data').textContent);"
        "var n = 0; d.hyps[0].forEach(i => { n += d.strings[i].split('<UNK>').length - 1; }); return n;"
    )
    assert total == sum(line.count("<UNK>") for line in lines["sum.sys1.eng"]) == 539
    _type(browser, "ex-regex", "<UNK>")
    with_unk = sum(1 for i in range(2000) if any("<UNK>" in lines[k][i] for k in lines))
    assert _matching(browser) == with_unk
    shown = browser.js(
        "return Array.from(document.querySelectorAll('.ex-row.hyp .ex-text')).map(t => t.textContent).join(' ')"
    )
    assert shown.count("<UNK>") > 0
    assert browser.js("return document.getElementsByTagName('unk').length") == 0
    _clean(browser, load)


# ---------------------------------------------------------------------------- determinism and size


def test_same_model_same_bytes(demo_model):
    assert render_html(demo_model) == render_html(demo_model)
    assert render_html(demo_report(n_bootstrap=100)) == render_html(demo_model)
    assert render_html(demo_model.to_dict()) == render_html(demo_model)


def test_sixteen_systems_page_stays_small(wmt17):
    """16 WMT17 systems x 3,004 segments: the page (all examples embedded) stays under 15 MB."""
    reference = wmt17["reference"] if "reference" in wmt17 else wmt17[sorted(wmt17)[0]]
    systems = [name for name in sorted(wmt17) if name != "reference"][:16]
    n = len(reference)
    examples = [
        {
            "id": i,
            "source": None,
            "references": [reference[i]],
            "hypotheses": [wmt17[s][i] for s in systems],
            "scores": {
                m: [((i * 7919 + k * 104729) % 10007) / 10007 for k in range(len(systems))]
                for m in ("bleu", "chrf", "ter")
            },
            "label": None,
        }
        for i in range(n)
    ]
    model = {
        "schema_version": "1.0",
        "title": "WMT17",
        "task": "generation",
        "systems": systems,
        "provenance": {
            "metrics": [
                {"name": m, "label": m, "signature": "", "scale": 100.0, "higher_is_better": m != "ter"}
                for m in ("bleu", "chrf", "ter")
            ],
            "inputs": [],
        },
        "leaderboard": None,
        "length": None,
        "sentences": None,
        "buckets": [],
        "ngrams": [],
        "examples": {"total": n, "max_examples": None, "metric": "bleu", "examples": examples},
    }
    page = render_html(model)
    size = len(page.encode("utf-8"))
    assert len(systems) == 16 and n == 3004
    assert size < 15_000_000, size


# ---------------------------------------------------------------------------- task sections


def _task_model():
    from nlpeval.reports import model as m

    def est(value: float, n: int = 40) -> m.Estimate:
        return m.Estimate(value=value, n=n, low=value - 0.05, high=value + 0.05)

    labels = ("pos", "neg", "<neutral>")
    systems = []
    for name, shift in (("clf <A>", 0), ("clf B", 1)):
        confusion = ((10 - shift, 2, 1), (1, 12, 2 + shift), (0, 3, 9))
        classes = tuple(
            m.ClassMetrics(
                label=lab, precision=est(0.7 + 0.05 * k), recall=est(0.6 + 0.1 * k), f1=est(0.65), support=13
            )
            for k, lab in enumerate(labels)
        )
        curves = tuple(
            m.Curve(
                kind=kind,
                label=lab,
                x=(0.0, 0.3, 1.0),
                y=(0.0, 0.8, 1.0) if kind == "roc" else (1.0, 0.7, 0.4),
                area=0.8,
            )
            for kind in ("pr", "roc")
            for lab in labels
        )
        systems.append(
            m.ClassificationSystem(
                system=name, accuracy=est(0.78), macro_f1=est(0.74), confusion=confusion, classes=classes, curves=curves
            )
        )
    classification = m.ClassificationSection(
        labels=labels,
        systems=tuple(systems),
        mcnemar=(
            m.McNemarTest(system="clf B", other="clf <A>", only_system=3, only_other=7, p_value=0.34, p_holm=0.34),
        ),
    )
    infos = tuple(m.MetricInfo(name=n, label=n, signature=f"{n}|sig") for n in ("rouge1", "rougeLsum"))
    summarization = m.SummarizationSection(
        metrics=("rouge1", "rougeLsum"),
        cells=tuple(
            m.LeaderboardCell(system=s, metric=n, estimate=est(0.4 + 0.01 * k))
            for k, s in enumerate(("clf <A>", "clf B"))
            for n in ("rouge1", "rougeLsum")
        ),
        lsum_sentence_splitter="one sentence per line (newlines)",
    )
    provenance = m.Provenance(
        nlpeval_version="test",
        command="nlpeval report --task classify",
        seed=1,
        n_bootstrap=10,
        n_randomization=10,
        confidence=0.95,
        alpha=0.05,
        preset=None,
        inputs=(m.InputFile(role="gold", name="gold.txt", path=None, lines=40, sha256="0" * 64),),
        metrics=infos,
    )
    return m.Report(
        schema_version=m.SCHEMA_VERSION,
        title="tasks",
        task="classify",
        systems=("clf <A>", "clf B"),
        provenance=provenance,
        leaderboard=None,
        length=None,
        sentences=None,
        buckets=(),
        ngrams=(),
        examples=None,
        classification=classification,
        summarization=summarization,
        warnings=("a <warning> & more",),
    )


def test_classification_and_summarisation_sections(browser, tmp_path):
    model = _task_model()
    path = tmp_path / "tasks.html"
    path.write_text(render_html(model), encoding="utf-8")
    load = browser.open(path)
    _clean(browser, load)
    toc = browser.js("return Array.from(document.querySelectorAll('nav.toc a')).map(a => a.getAttribute('href'))")
    assert toc == ["#classification", "#summarization", "#provenance"]
    matrices = browser.js(
        "return Array.from(document.querySelectorAll('table.confusion')).map(t => "
        "Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).slice(1).map(c => +c.textContent)))"
    )
    assert matrices == [[list(row) for row in s.confusion] for s in model.classification.systems]
    assert browser.js("return document.querySelectorAll('#classification svg.chart').length") == 4
    assert browser.js("return document.querySelector('.callout.warn li').textContent") == "a <warning> & more"
    cells = browser.js(
        "return Array.from(document.querySelectorAll('#summarization tbody tr')).map("
        "r => Array.from(r.cells).map(c => c.querySelector('.val') ? c.querySelector('.val').textContent : c.textContent))"
    )
    assert cells == [["clf <A>", "40.00", "40.00"], ["clf B", "41.00", "41.00"]]
    assert browser.js("return document.scripts.length") == 1  # no example data: only the page's script
    _clean(browser, load)


def test_bucket_filter_agrees_with_the_bucket_tables(browser, demo_page, demo_model):
    """Choosing a bucket lists as many segments as the bucket table counts for system A (the baseline)."""
    offered = browser.js(
        "return Array.from(document.querySelectorAll('#ex-bucket option')).filter(o => o.value).map(o => o.value)"
    )
    data = browser.js("return JSON.parse(document.getElementById('report-data').textContent).buckets")
    tables = {t.id: t for t in demo_model.buckets}
    checked = set()
    for value in offered:
        t, r = (int(k) for k in value.split(":"))
        table = tables[data[t]["id"]]
        row = table.rows[r]
        browser.js(
            "var s = document.getElementById('ex-bucket'); s.value = arguments[0]; s.dispatchEvent(new Event('change'))",
            value,
        )
        want = next(c.estimate.n for c in row.cells if c.system == demo_model.systems[0])
        if table.statistic == "count":
            want = int(next(c.estimate.value for c in row.cells if c.system == demo_model.systems[0]))
        assert _matching(browser) == want, (table.id, row.label)
        listed = browser.js(
            "return Array.from(document.querySelectorAll('#ex-list .ex-card')).map(c => +c.id.slice(3))"
        )
        members = table.segment_buckets or table.segment_buckets_by_system[demo_model.systems[0]]
        assert listed == [i for i, b in enumerate(members) if b == r], (table.id, row.label)
        if table.by == "ref-length":  # independently: compare-mt's reference length and cutoffs
            lengths = [len(e.references[0].strip().split(" ")) for e in demo_model.examples.examples]
            low, high = row.lower, row.upper
            assert listed == [
                i for i, n in enumerate(lengths) if (low is None or n >= low) and (high is None or n < high)
            ]
        checked.add(table.by.split(":")[0])
    assert {"ref-length", "length-diff", "sentence-score"} <= checked
    browser.js("var s = document.getElementById('ex-bucket'); s.value = ''; s.dispatchEvent(new Event('change'))")
    _clean(browser, demo_page)


def test_max_examples_and_print_styles(browser, tmp_path):
    from nlpeval.reports.demo import demo_lines

    model = report(
        {"a": demo_lines("system-a.en"), "b": demo_lines("system-b.en")},
        demo_lines("ref.en"),
        metrics=("bleu",),
        n_bootstrap=20,
        n_randomization=20,
        max_examples=5,
    )
    path = tmp_path / "max.html"
    path.write_text(render_html(model), encoding="utf-8")
    load = browser.open(path)
    assert _cards(browser) == _matching(browser) == 5
    summary = browser.js("return document.getElementById('ex-summary').textContent")
    assert summary.startswith("5 segments of 20")
    # printing: controls and the contents bar are hidden, every section stays
    browser.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        hidden = browser.js(
            "return ['ex-controls'].map(id => getComputedStyle(document.getElementById(id)).display)"
            ".concat([getComputedStyle(document.querySelector('nav.toc')).display])"
        )
        assert hidden == ["none", "none"]
        assert browser.js("return getComputedStyle(document.getElementById('leaderboard')).display") == "block"
    finally:
        browser.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    _clean(browser, load)


def _expected_matched(hyp: str, ref: str) -> list[int]:
    """compare-mt's clipped word matching, written out: a word occurring k times in the (first) reference
    matches its first k occurrences in the output (positions among the output's words)."""
    left: dict[str, int] = {}
    for w in ref.strip().split(" "):
        left[w] = left.get(w, 0) + 1
    out = []
    for k, w in enumerate(hyp.split()):
        if left.get(w, 0) > 0:
            left[w] -= 1
            out.append(k)
    return out


def _expected_ngram_marks(hyp: str, mine: list[str], theirs: list[str]) -> dict[int, set[str]]:
    """Token position -> classes: every occurrence of a salient n-gram (``mine``: in this system's favour)."""
    toks = hyp.split()
    marks: dict[int, set[str]] = {}
    for grams, cls in ((mine, "hl-up"), (theirs, "hl-down")):
        for gram in grams:
            words = gram.split(" ")
            for k in range(len(toks) - len(words) + 1):
                if toks[k : k + len(words)] == words:
                    for t in range(k, k + len(words)):
                        marks.setdefault(t, set()).add(cls)
    return marks


def test_highlights_are_the_models(browser, demo_page, demo_model):
    """Matched words and salient n-grams shown for A and B equal the model's (``Example.matched``,
    ``NgramComparison.spans``) and an independent computation of each."""
    shown = browser.js(
        "return Array.from(document.querySelectorAll('.ex-card')).slice(0, 10).map(c => "
        "Array.from(c.querySelectorAll('.ex-row.hyp')).map(r => Array.from(r.querySelectorAll('.ex-text span')).map("
        "s => [+s.getAttribute('data-t'), s.textContent, s.className])))"
    )
    comparison = demo_model.ngrams[0]
    assert (comparison.system, comparison.other) == demo_model.systems
    better = [e.ngram for e in comparison.system_better]
    worse = [e.ngram for e in comparison.other_better]
    n_marked = 0
    for example, rows in zip(demo_model.examples.examples[:10], shown, strict=True):
        for side, spans in enumerate(rows):
            hyp = example.hypotheses[side]
            words = hyp.split()
            matched = [t for t, _, cls in spans if "hl-m" in cls.split()]
            positions = [k for k, flag in enumerate(example.matched[side]) if flag == "1"]
            assert matched == positions == _expected_matched(hyp, example.references[0])
            assert all(words[t] == text for t, text, _ in spans)
            mine, theirs = (better, worse) if side == 0 else (worse, better)
            want = _expected_ngram_marks(hyp, mine, theirs)
            got = {t: {c for c in cls.split() if c in ("hl-up", "hl-down")} for t, _, cls in spans}
            got = {t: c for t, c in got.items() if c}
            assert set(got) == set(want), (example.id, side)
            for t, classes in want.items():
                if len(classes) == 1:
                    assert got[t] == classes, (example.id, side, t)
            model_spans = {
                (start + k)
                for seg, sd, start, entry in comparison.spans
                if seg == example.id and sd == side
                for k in range(len((better + worse)[entry].split(" ")))
            }
            assert model_spans == set(want)
            n_marked += len(got)
    assert n_marked > 0
    _clean(browser, demo_page)


@pytest.mark.parametrize(
    ("systems", "references", "metrics"),
    [
        ({"only": ["a b c", "d e"]}, ["a b c", "d f"], ("bleu",)),
        ({"a": ["", "", ""], "b": ["x y", "", "z"]}, ["x y", "q", "z"], ("bleu", "wer")),
    ],
    ids=["one-system", "empty-outputs"],
)
def test_edge_reports_render_cleanly(browser, tmp_path, systems, references, metrics):
    model = report(systems, references, metrics=metrics, n_bootstrap=20, n_randomization=20)
    path = tmp_path / "edge.html"
    path.write_text(render_html(model), encoding="utf-8")
    load = browser.open(path)
    assert _cards(browser) == len(references)
    texts = browser.js("return Array.from(document.querySelectorAll('.ex-row.hyp .ex-text')).map(t => t.textContent)")
    assert texts == [h for i in range(len(references)) for h in (hyps[i] for hyps in systems.values())]
    browser.js("document.getElementById('ex-align').click()")
    aligned = "wer" in metrics  # the alignment is jiwer's, offered with a WER-family metric
    assert browser.js("return document.getElementById('ex-align').parentNode.hidden") is not aligned
    assert browser.js("return document.querySelectorAll('.align').length") == (len(texts) if aligned else 0)
    _clean(browser, load)


def test_word_alignment_is_jiwers(browser, tmp_path):
    """With WER in the report, the browser shows jiwer's own alignment (operations, words, counts)."""
    import jiwer  # a test dependency (the WER reference)

    from nlpeval.reports.demo import demo_lines

    refs = demo_lines("ref.en")
    systems = {"a": demo_lines("system-a.en"), "b": demo_lines("system-b.en")}
    model = report(systems, refs, metrics=("wer",), n_bootstrap=10, n_randomization=10)
    path = tmp_path / "wer.html"
    path.write_text(render_html(model), encoding="utf-8")
    load = browser.open(path)
    browser.js("document.getElementById('ex-align').click()")
    shown = browser.js(
        "return Array.from(document.querySelectorAll('.ex-card')).map(c => Array.from(c.querySelectorAll('.align'))"
        ".map(a => Array.from(a.querySelectorAll('.col')).map(col => Array.from(col.children).map(x => x.textContent))))"
    )
    names = {"equal": "", "substitute": "S", "delete": "D", "insert": "I"}
    for i, cards in enumerate(shown):
        for s, cols in enumerate(cards):
            out = jiwer.process_words(refs[i], list(systems.values())[s][i])
            ref_words, hyp_words = out.references[0], out.hypotheses[0]
            want = []
            for chunk in out.alignments[0]:
                for k in range(max(chunk.ref_end_idx - chunk.ref_start_idx, chunk.hyp_end_idx - chunk.hyp_start_idx)):
                    r = ref_words[chunk.ref_start_idx + k] if chunk.type != "insert" else "\u2205"
                    h = hyp_words[chunk.hyp_start_idx + k] if chunk.type != "delete" else "\u2205"
                    want.append([r, h, names[chunk.type]])
            assert cols == want, (i, s)
    _clean(browser, load)


def test_real_classification_report(browser, tmp_path):
    from nlpeval.reports.build import classification_report

    gold = ["pos", "neg", "<neu>", "pos", "neg", "pos", "<neu>", "neg"] * 8
    preds = {
        "a": [g if i % 4 else "pos" for i, g in enumerate(gold)],
        "b <&>": [g if i % 3 else "neg" for i, g in enumerate(gold)],
    }
    model = classification_report(gold, preds, n_bootstrap=30, seed=1)
    path = tmp_path / "classify.html"
    path.write_text(render_html(model), encoding="utf-8")
    load = browser.open(path)
    matrices = browser.js(
        "return Array.from(document.querySelectorAll('table.confusion')).map(t => "
        "Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).slice(1).map(c => +c.textContent)))"
    )
    assert matrices == [[list(row) for row in s.confusion] for s in model.classification.systems]
    headers = browser.js("return Array.from(document.querySelectorAll('#classification h3')).map(h => h.textContent)")
    assert headers[:2] == ["a", "b <&>"]
    _clean(browser, load)


def test_script_uses_no_html_sinks():
    """User text reaches the DOM through textContent only: the script has no HTML-parsing sink."""
    from importlib import resources

    script = (resources.files("nlpeval.reports.html") / "static" / "report.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "</script"):
        assert sink not in script, sink


def test_same_bytes_across_processes():
    """No set or dict order leaks into the page: two interpreters with different hash seeds agree."""
    import subprocess
    import sys

    code = (
        "import hashlib; from nlpeval.reports.demo import demo_report; from nlpeval.reports.html import render_html;"
        "print(hashlib.sha256(render_html(demo_report(n_bootstrap=20)).encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1


def test_agreement_with_humans_section_renders(browser, tmp_path):
    """``report(human=...)`` (odd system names, unjudged cells, a system without human scores): the section
    and its table render, sort, and log no console error."""
    rng = np.random.default_rng(3)
    refs = [f"reference {i} says {ODD_TEXTS[i % len(ODD_TEXTS)]} today" for i in range(30)]
    hyps = {name: [r if (i + k) % 3 else r.upper() for i, r in enumerate(refs)] for k, name in enumerate(ODD_SYSTEMS)}
    hyps["unjudged <sys>"] = [r[::-1] for r in refs]
    human = {name: rng.integers(-5, 1, 30).astype(float).tolist() for name in ODD_SYSTEMS}
    human[ODD_SYSTEMS[1]][4] = None
    model = report(hyps, refs, human=human, n_bootstrap=20, n_randomization=20, seed=7)
    path = tmp_path / "human.html"
    path.write_text(render_html(model), encoding="utf-8")
    load = browser.open(path)
    _clean(browser, load)
    assert browser.js("return !!document.querySelector('section#human_agreement')")
    toc = browser.js("return Array.from(document.querySelectorAll('nav.toc a')).map(a => a.getAttribute('href'))")
    assert "#human_agreement" in toc
    rows = browser.js("return document.querySelectorAll('#human-agreement-table tbody tr').length")
    assert rows == len(model.human_agreement.rows) == 3
    text = browser.js("return document.querySelector('section#human_agreement').textContent")
    assert "unjudged <sys>" in text and "SPA" in text
    header = "document.querySelectorAll('#human-agreement-table th')[1]"
    browser.js(f"{header}.click()")
    assert browser.js(f"return {header}.getAttribute('aria-sort')") in ("ascending", "descending")
    _clean(browser, load)
