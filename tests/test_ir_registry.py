"""Retrieval measures in the metric registry (``inputs="retrieval"``): listed by ``nlpeval metrics`` and
``nlpeval explain``, built as :class:`RetrievalMeasure`, refused by the text commands with a line naming
``nlpeval ir``."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytrec_eval

import nlpeval
from nlpeval.cli.main import main
from nlpeval.core.errors import InputError
from nlpeval.ir import measures as ir_measures
from nlpeval.ir.api import RetrievalMeasure
from nlpeval.metrics import registry


def _spellings() -> list[tuple[str, str | None]]:
    """Every alias ``Measure.parse`` knows, with and without cutoffs as its rule allows, in several cases
    (the name, and the canonical name it parses to; ``None`` where parsing refuses it)."""
    out = []
    for stem, kind in ir_measures._ALIASES.items():
        rule = ir_measures._KINDS[kind][2]
        forms = [f"{stem}{sep}10" for sep in "@_."] if rule != "no" else []
        if rule != "required":
            forms.append(stem)
        for form in forms:
            for spelled in dict.fromkeys([form, form.upper(), form.capitalize()]):
                try:
                    canonical: str | None = ir_measures.Measure.parse(spelled).name
                except InputError:
                    canonical = None
                out.append((spelled, canonical))
    return out


@pytest.mark.parametrize(("name", "canonical"), _spellings())
def test_every_spelling_of_a_measure_is_a_retrieval_entry_that_builds_that_measure(name, canonical):
    if name.lower() == "ap":  # a bare AP is classification's average precision, not a -m name
        with pytest.raises(registry.UnknownMetricError):
            registry.get(name)
        return
    entry = registry.get(name)
    assert entry.family == "retrieval" and entry.inputs == "retrieval" and entry.card == "retrieval"
    if canonical is None:  # the pattern is lenient on case; the measure's parser has the last word
        with pytest.raises(InputError):
            registry.build(name)
        return
    metric = registry.build(name)
    assert isinstance(metric, RetrievalMeasure) and metric.measure == canonical


def test_text_entries_keep_the_default_inputs_and_no_text_name_is_a_retrieval_name():
    for entry in registry.entries():
        assert entry.inputs in registry.INPUTS
        if entry.family != "retrieval":
            assert entry.inputs == "text", entry.name
            assert registry.text_entry(entry.name if entry.pattern is None else "rouge2") is not None
    with pytest.raises(InputError):
        registry.build("P@0")  # the pattern takes any digits; the cutoff must be >= 1


def test_a_registry_measure_scores_as_trec_eval():
    qrels = {f"q{i}": {"a": 1 + i % 2, "b": i % 3, "c": 1} for i in range(8)}
    run = {f"q{i}": {"a": 0.1 * i, "b": 0.5, "c": 0.3, "x": 0.4} for i in range(8)}
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.2", "map"}).evaluate(run)
    for name, trec in (("NDCG@2", "ndcg_cut_2"), ("map", "map")):
        metric = registry.build(name)
        stats = metric.segment_stats(run, qrels)
        assert metric.segment_values(stats).tolist() == [reference[q][trec] for q in sorted(qrels)]
        assert metric.score_from_stats(stats).score == nlpeval.retrieval(qrels, run, name)[name].score


def test_score_refuses_a_retrieval_measure_with_one_line_naming_nlpeval_ir(tmp_path: Path, capsys):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("a b c\n")
    hyp.write_text("a b d\n")
    code = main(["score", "-m", "bleu,ndcg@10", "-r", str(ref), str(hyp)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert err == (
        "nlpeval score: error: ndcg@10 is a retrieval measure: it scores a ranked run against qrels, not texts; "
        "use nlpeval ir -q QRELS RUN -m ndcg@10 (Python: nlpeval.retrieval(qrels, run, 'ndcg@10'))\n"
    )


def test_the_other_text_consumers_refuse_it_too():
    from nlpeval.integrations._metrics import default_metric
    from nlpeval.reports.metrics import build_metrics

    for call in (lambda: build_metrics(("bleu", "map")), lambda: default_metric("map")):
        with pytest.raises(registry.MetricInputsError, match=r"^map is a retrieval measure: .* nlpeval ir -q"):
            call()


def test_metrics_and_explain_list_the_measures(capsys):
    assert main(["metrics"]) == 0
    out = capsys.readouterr().out
    assert "  nlpeval ir -m: P@<k>, recall@<k>, Rprec, mrr[@<k>], map[@<k>], ndcg[@<k>]" in out
    assert "nlpeval score -m: P@" not in out
    for name in ("ndcg@10", "P@5", "mrr", "map_cut_100"):
        assert main(["explain", name]) == 0
        assert capsys.readouterr().out.startswith("Retrieval measures (trec_eval)")
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    help_text = capsys.readouterr().out
    assert "BLEU options" in help_text and "Retrieval options" not in help_text  # no flags of nlpeval ir in score
