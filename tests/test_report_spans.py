"""The sequence labelling report (``nlpeval report --task spans``, ``--conll``, ``report -m span_f1``): a task page
with the leaderboard under span F1's display label (values equal to seqeval 1.2.2 run live), paired tests, "Span F1
by type" and per-sentence examples (each sentence's F1 equal to seqeval's on that sentence), and none of the
generation report's sections; CoNLL files read as ``nlpeval spans`` reads them, errors with file:line; the page in
headless Chromium."""

from __future__ import annotations

import html
import json
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from seqeval.metrics import f1_score

import nlpeval
from nlpeval.cli.main import main
from nlpeval.reports.build import report
from nlpeval.reports.html import render_html
from nlpeval.reports.render import render
from nlpeval.reports.spans import span_report
from report_html_browser import browser_session
from span_f1_data import corpus

N_BOOTSTRAP = 40


@pytest.fixture(autouse=True)
def _quiet() -> None:
    warnings.simplefilter("ignore")  # seqeval warns on 0/0


def _data() -> tuple[dict[str, list[list[str]]], list[list[str]]]:
    hyps, refs = corpus(70, "IOB2", 150, 0.0)
    other = corpus(71, "IOB2", 150, 0.0)[0]
    other = [o[: len(r)] + ["O"] * (len(r) - len(o)) for o, r in zip(other, refs, strict=True)]
    return {"A": hyps, "B": other}, refs


@pytest.fixture(scope="module")
def model() -> Any:
    systems, refs = _data()
    warnings.simplefilter("ignore")
    return span_report(refs, systems, n_bootstrap=N_BOOTSTRAP, n_randomization=30, seed=3, max_examples=10)


def test_the_page_is_a_labelling_report(model: Any) -> None:
    systems, refs = _data()
    assert model.task == "spans" and model.systems == ("A", "B")
    assert model.length is None and model.sentences is None and model.ngrams == () and model.buckets == ()
    assert model.leaderboard.metrics == ("span_f1",)
    assert [m.label for m in model.provenance.metrics] == ["span F1"]
    cells = {c.system: c for c in model.leaderboard.cells}
    for name, hyps in systems.items():
        assert cells[name].estimate.value == pytest.approx(f1_score(refs, hyps), abs=1e-12)
    (test,) = model.leaderboard.vs_baseline
    assert (test.system, test.other) == ("B", "A") and test.p_bootstrap is not None and test.p_randomization is not None
    assert test.difference == pytest.approx(f1_score(refs, systems["B"]) - f1_score(refs, systems["A"]), abs=1e-12)
    (section,) = model.span_f1
    assert section.n_bootstrap == N_BOOTSTRAP and {r.system for r in section.rows} == {"A", "B"}
    text = render(model, "text")
    assert "span F1" in text.split("--- Leaderboard")[1].splitlines()[1]
    assert "Length and sanity" not in text and "sentBLEU" not in text and "n-gram" not in text.lower()


def test_examples_are_the_lowest_and_highest_sentences_with_seqevals_f1(model: Any) -> None:
    systems, refs = _data()
    examples = model.examples.examples
    assert model.examples.metric == "span_f1" and len(examples) == 10
    means = []
    for example in examples:
        i = example.id
        assert example.references == (" ".join(refs[i]),)
        assert example.hypotheses == tuple(" ".join(systems[n][i]) for n in ("A", "B"))
        for value, name in zip(example.scores["span_f1"], ("A", "B"), strict=True):
            if value is not None:
                assert value == pytest.approx(f1_score([refs[i]], [systems[name][i]]), abs=1e-12)
        means.append(np.nanmean([np.nan if v is None else v for v in example.scores["span_f1"]]))
    assert means[:5] == sorted(means[:5]) and max(means[:5]) <= min(means[5:])


def test_report_of_span_f1_alone_is_the_labelling_report() -> None:
    systems, refs = _data()
    lines = {name: [" ".join(s) for s in hyps] for name, hyps in systems.items()}
    options = {"span_average": "macro"}
    via_report = report(lines, [" ".join(s) for s in refs], metrics=["span_f1"], metric_options=options,
                        n_bootstrap=N_BOOTSTRAP, n_randomization=30, seed=3)  # fmt: skip
    assert via_report.task == "spans" and via_report.length is None
    cells = {c.system: c.estimate.value for c in via_report.leaderboard.cells}
    for name, hyps in systems.items():
        assert cells[name] == pytest.approx(f1_score(refs, hyps, average="macro"), abs=1e-12)
    with pytest.raises(nlpeval.InputError, match="one reference per sentence"):
        report(lines, [[" ".join(s), " ".join(s)] for s in refs], metrics=["span_f1"], n_bootstrap=0)


def test_span_f1_with_what_only_the_generation_report_reads_is_an_error_naming_it() -> None:
    systems, refs = _data()
    lines = {name: [" ".join(s) for s in hyps] for name, hyps in systems.items()}
    gold = [" ".join(s) for s in refs]
    with pytest.raises(ValueError, match=r"scores no other metric \(chrf, bleu\): report span_f1 alone"):
        report(lines, gold, metrics=["span_f1", "chrf", "bleu"], n_bootstrap=0, n_randomization=0)
    with pytest.raises(ValueError, match=r"scores no other metric \(chrf\)"):  # in any order
        report(lines, gold, metrics=["chrf", "span_f1"], n_bootstrap=0, n_randomization=0)
    human = {"system": ["A", "B"] * 2, "item": [0, 0, 1, 1], "score": [1.0, 2.0, 3.0, 4.0]}
    for asked, option in [
        ("labels", {"labels": np.array(["x"] * len(gold))}),  # arrays too (no truth value)
        ("labels", {"labels": ["x"] * len(gold)}),
        ("human scores", {"human": human}),
        ("preset", {"preset": "compare-mt"}),
        ("frequency corpus", {"freq_corpus": ["B-PER O"]}),
        ("quantile buckets", {"buckets": "quantile"}),
    ]:
        with pytest.raises(ValueError, match=f"labelling report, which takes no {asked}$"):
            report(lines, gold, metrics=["span_f1"], n_bootstrap=0, n_randomization=0, **option)
    # the generation report is unchanged for every other metric
    assert report(lines, gold, metrics=["chrf"], buckets="quantile", n_bootstrap=0).task == "generation"


def test_sources_are_the_sentences_words_of_the_labelling_report() -> None:
    systems, refs = _data()
    lines = {name: [" ".join(s) for s in hyps] for name, hyps in systems.items()}
    words = [" ".join(f"w{i}_{j}" for j in range(len(r))) for i, r in enumerate(refs)]
    model = report(lines, [" ".join(s) for s in refs], sources=words, metrics=["span_f1"], n_bootstrap=0,
                   n_randomization=0)  # fmt: skip
    assert model.task == "spans" and model.length is None
    assert model.examples is not None and model.examples.examples
    for example in model.examples.examples:
        assert example.source == words[example.id]
        assert example.references == (" ".join(refs[example.id]),)


def test_cli_span_f1_with_another_metric_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    systems, refs = _data()
    paths = []
    for name, sequences in [("ref", refs), *systems.items()]:
        paths.append(tmp_path / f"{name}.tags")
        paths[-1].write_text("".join(" ".join(s) + "\n" for s in sequences), encoding="utf-8")
    code = main(["report", "-m", "span_f1,bleu", "-r", *map(str, paths), "-o", str(tmp_path / "r.html")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "scores no other metric (bleu)" in err
    assert not (tmp_path / "r.html").exists()


def _conll(path: Path, words: list[list[str]], gold: list[list[str]], pred: list[list[str]]) -> Path:
    text = "-DOCSTART- -X- O O\n\n"
    for ws, gs, ps in zip(words, gold, pred, strict=True):
        text += "".join(f"{w} NN {g} {p}\n" for w, g, p in zip(ws, gs, ps, strict=True)) + "\n"
    path.write_text(text, encoding="utf-8")
    return path


def _conll_files(tmp_path: Path) -> tuple[dict[str, Path], list[list[str]]]:
    systems, refs = _data()
    refs = [r for r in refs if r]  # a CoNLL file has no empty sentences
    keep = [i for i, r in enumerate(_data()[1]) if r]
    words = [[f"w{i}_{j}" for j in range(len(r))] for i, r in enumerate(refs)]
    files = {name: _conll(tmp_path / f"{name}.conll", words, refs, [hyps[i] for i in keep])
             for name, hyps in systems.items()}  # fmt: skip
    return files, refs


def test_cli_conll_files(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    files, _ = _conll_files(tmp_path)
    out = tmp_path / "r.json"
    argv = ["report", "--conll", str(files["A"]), str(files["B"]), "--span-mode", "conlleval", "--skip-docstart"]
    assert main([*argv, "--bootstrap", "20", "--randomization", "20", "-o", str(out)]) == 0, capsys.readouterr().err
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["task"] == "spans" and record["length"] is None and record["span_f1"][0]["mode"] == "conlleval"
    cells = {c["system"]: c["estimate"]["value"] for c in record["leaderboard"]["cells"]}
    for name in ("A", "B"):  # the file read by nlpeval spans' reader, scored as conlleval.pl (tests/test_span_f1.py)
        data = nlpeval.read_conll(files[name], skip_docstart=True)
        want = nlpeval.span_f1(data.predictions, data.references, mode="conlleval")
        assert cells[f"{name}.conll"] == pytest.approx(want.score, abs=1e-12)
    example = record["examples"]["examples"][0]
    n_labels = len(example["references"][0].split())
    assert example["source"].split() == [f"w{example['id']}_{j}" for j in range(n_labels)]  # the file's words
    # lenient (the default): seqeval's F1
    assert main(["report", "--conll", str(files["A"]), "--skip-docstart", "--bootstrap", "0", "-f", "json"]) == 0
    data = nlpeval.read_conll(files["A"], skip_docstart=True)
    value = json.loads(capsys.readouterr().out)["leaderboard"]["cells"][0]["estimate"]["value"]
    assert value == pytest.approx(f1_score(data.references, data.predictions), abs=1e-12)


def test_cli_label_lines_and_span_flags(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    systems, refs = _data()
    paths = {}
    for name, sequences in [("ref", refs), *systems.items()]:
        paths[name] = tmp_path / f"{name}.tags"
        paths[name].write_text("".join(" ".join(s) + "\n" for s in sequences), encoding="utf-8")
    common = ["-r", str(paths["ref"]), str(paths["A"]), str(paths["B"]), "--bootstrap", "0", "-f", "json"]
    for argv in (["report", "--task", "spans", *common], ["report", "-m", "span_f1", *common]):
        assert main([*argv, "--span-average", "weighted"]) == 0, capsys.readouterr().err
        record = json.loads(capsys.readouterr().out)
        assert record["task"] == "spans"
        cells = {c["system"]: c["estimate"]["value"] for c in record["leaderboard"]["cells"]}
        assert cells["A.tags"] == pytest.approx(f1_score(refs, systems["A"], average="weighted"), abs=1e-12)


def _page_titles(path: Path) -> tuple[str, str]:
    """The page's ``<title>`` (the head's; the figures have their own) and ``<h1>`` texts."""
    page = path.read_text(encoding="utf-8")
    (title,) = re.findall(r"<title>(.*?)</title>", page.split("</head>")[0], flags=re.S)
    (heading,) = re.findall(r"<h1[^>]*>(.*?)</h1>", page, flags=re.S)
    return html.unescape(title), html.unescape(heading)


def test_cli_span_f1_page_has_the_labelling_title_unless_one_is_given(tmp_path: Path) -> None:
    systems, refs = _data()
    paths = {}
    for name, sequences in [("ref", refs), *systems.items()]:
        paths[name] = tmp_path / f"{name}.tags"
        paths[name].write_text("".join(" ".join(s) + "\n" for s in sequences), encoding="utf-8")
    common = ["-r", str(paths["ref"]), str(paths["A"]), str(paths["B"]), "--bootstrap", "0", "--randomization", "0"]
    given = "NER taggers & friends"
    for route in (["-m", "span_f1"], ["--task", "spans"], ["--task", "spans", "-m", "span_f1"]):
        for title, want in (([], "Sequence labelling comparison"), (["--title", given], given)):
            page = tmp_path / "spans.html"
            assert main(["report", *route, *common, *title, "-o", str(page)]) == 0
            assert _page_titles(page) == (want, want), (route, title)
    # the generation report keeps its own default, and a given title
    texts = tmp_path / "ref.txt"
    texts.write_text("a b c\nd e f\n", encoding="utf-8")
    for title, want in (([], "System comparison"), (["--title", given], given)):
        page = tmp_path / "chrf.html"
        argv = ["report", "-m", "chrf", "-r", str(texts), str(texts), "--bootstrap", "0", *title, "-o", str(page)]
        assert main(argv) == 0
        assert _page_titles(page) == (want, want)
    # the library: report(metrics=["span_f1"]) as the command line
    lines = {name: [" ".join(s) for s in hyps] for name, hyps in systems.items()}
    gold = [" ".join(s) for s in refs]
    for title, want in (({}, "Sequence labelling comparison"), ({"title": given}, given)):
        model = report(lines, gold, metrics=["span_f1"], n_bootstrap=0, n_randomization=0, **title)
        assert model.title == want


def test_cli_errors_name_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    files, _ = _conll_files(tmp_path)
    lines = files["B"].read_text(encoding="utf-8").splitlines()
    bad = next(i for i, line in enumerate(lines) if line.endswith(" O") and not line.startswith("-DOCSTART-"))
    fields = lines[bad].split()
    changed = list(lines)
    changed[bad] = " ".join([*fields[:2], "B-NEW", fields[3]])
    files["B"].write_text("\n".join(changed) + "\n", encoding="utf-8")
    argv = ["report", "--conll", str(files["A"]), str(files["B"]), "--bootstrap", "0"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{files['B']}:{bad + 1}: the gold tags differ from {files['A']}:" in err[0]
    changed = list(lines)
    changed[bad] = " ".join([*fields[:3], "E-PER"])  # no prefix of IOB2
    files["B"].write_text("\n".join(changed) + "\n", encoding="utf-8")
    argv = ["report", "--conll", str(files["A"]), str(files["B"]), "--span-mode", "strict", "--span-scheme", "IOB2"]
    assert main([*argv, "--bootstrap", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{files['B']}:{bad + 1}: system 'B.conll': label 'E-PER' has no prefix" in err[0]
    assert main(["report", "--conll", str(files["A"]), "-r", str(files["A"])]) == 2
    assert "give no -r REF" in capsys.readouterr().err
    assert main(["report", "--task", "spans", "-r", str(files["A"])]) == 2
    assert "--task spans needs --conll" in capsys.readouterr().err
    assert main(["report", "--conll", str(files["A"]), "-m", "bleu"]) == 2
    assert "reports span F1 only" in capsys.readouterr().err


def test_the_page_in_headless_chromium(model: Any, tmp_path: Path) -> None:
    path = tmp_path / "labelling.html"
    path.write_text(render_html(model), encoding="utf-8")
    with browser_session() as browser:
        load = browser.open(path)
        browser.collect(load)
        assert load.errors == [] and load.foreign_requests == []
        sections = browser.js("return [...document.querySelectorAll('main section, section')].map(s => s.id)")
        assert [s for s in dict.fromkeys(sections) if s] == ["leaderboard", "span_f1", "examples", "provenance"]
        header = browser.js("return document.querySelector('#leaderboard table thead').textContent")
        assert "span F1" in header and "span_f1" not in header
        shown = browser.js("return document.querySelectorAll('#examples .example, #examples article').length")
        assert shown >= 1
        shot = browser.screenshot(tmp_path / "labelling.png", full_page=True)
        assert shot.stat().st_size > 10_000
