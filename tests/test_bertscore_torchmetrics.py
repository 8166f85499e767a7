"""BERTScore ``flavor="torchmetrics"``: parity with torchmetrics 1.9's ``bert_score`` run live (it is installed
in the test environment) on the tiny fixture models, WMT17 / MQM TED texts and adversarial segments: last layer by
default, special tokens zeroed, its idf and baseline rows, several references, empty strings (NaN precision or
recall, as torchmetrics).

torchmetrics 1.9 pairs the wrong sentences whenever its length sort is not its own inverse: it sorts each side by
token count, embeds, then indexes the sorted embeddings with the sorting permutation again (``emb[sorting_indices]``)
instead of its inverse, so output ``i`` is the score of ``preds[s(s(i))]`` against ``target[t(t(i))]``
(``test_torchmetrics_pairs_sentences_by_the_sort_applied_twice`` shows it). nlpeval scores the pairs it is given;
the parity tests feed nlpeval the pairs torchmetrics actually scored (its own sort, computed by its own helper)."""

from __future__ import annotations

import sys
import warnings
from functools import cache
from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "neural"
sys.path.insert(0, str(FIXTURES))

import make_fixtures  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)

from torchmetrics.functional.text.bert import bert_score  # noqa: E402
from torchmetrics.functional.text.helper_embedding_metric import _preprocess_text  # noqa: E402

from nlpeval.metrics.bertscore import BERTScore, bertscore  # noqa: E402

TOLERANCE = 1e-6
#: the tiny models' token limits (tokenizer model_max_length), passed to torchmetrics as max_length
LIMITS = {"bert-tiny": 64, "roberta-tiny": 48}


@cache
def texts() -> dict[str, list[str]]:
    return make_fixtures.real_texts()


@cache
def tokenizer(model: str):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(FIXTURES / model))


def live(model: str, hyps: list[str], refs: list, **options) -> np.ndarray:
    """torchmetrics' bert_score as an (n, 3) array of P, R, F."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = bert_score(
            hyps, refs, model_name_or_path=str(FIXTURES / model), max_length=LIMITS[model], truncation=True, **options
        )
    return np.stack([out["precision"].numpy(), out["recall"].numpy(), out["f1"].numpy()], axis=1).astype(np.float64)


def twice_sorted(model: str, sentences: list[str]) -> list[int]:
    """``s(s(i))`` for torchmetrics' own length sort ``s`` of ``sentences``."""
    order = _preprocess_text(sentences, tokenizer(model), LIMITS[model], True)[1]
    assert order is not None
    return [int(order[int(order[i])]) for i in range(len(sentences))]


def as_scored(model: str, hyps: list[str], refs: list[str]) -> tuple[list[str], list[str]]:
    """The (hypothesis, reference) pairs torchmetrics scores at each output position."""
    return [hyps[i] for i in twice_sorted(model, hyps)], [refs[i] for i in twice_sorted(model, refs)]


def close(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert ours.shape == theirs.shape
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))
    assert np.nanmax(np.abs(ours - theirs)) <= TOLERANCE


def case(name: str) -> tuple[list[str], list[str]]:
    t = texts()
    if name == "wmt":
        return t["wmt_a"][:80], t["wmt_ref"][:80]
    if name == "ted":
        return t["ted_b"][:80], t["ted_ref"][:80]
    return list(make_fixtures.ADVERSARIAL_HYP), list(make_fixtures.ADVERSARIAL_REF)


@pytest.mark.filterwarnings("ignore::nlpeval.metrics.bertscore.TruncationWarning")
@pytest.mark.parametrize("idf", [False, True], ids=["no-idf", "idf"])
@pytest.mark.parametrize("data", ["wmt", "ted", "adversarial"])
@pytest.mark.parametrize("model", ["bert-tiny", "roberta-tiny"])
def test_parity_with_torchmetrics_live(model: str, data: str, idf: bool) -> None:
    hyps, refs = case(data)
    theirs = live(model, hyps, refs, idf=idf)
    pair_hyps, pair_refs = as_scored(model, hyps, refs)
    ours = bertscore(pair_hyps, pair_refs, model=FIXTURES / model, flavor="torchmetrics", idf=idf, segments=True)
    close(ours.segments, theirs)
    assert "flavor:torchmetrics" in ours.signature


@pytest.mark.filterwarnings("ignore::nlpeval.metrics.bertscore.TruncationWarning")
def test_layer_and_baseline_rows_as_torchmetrics() -> None:
    hyps, refs = case("ted")
    hyps, refs = hyps[:60], refs[:60]
    pair_hyps, pair_refs = as_scored("bert-tiny", hyps, refs)
    baseline = FIXTURES / "bert-tiny.baseline.tsv"
    for layers in (None, 2):  # None: the last layer and the baseline file's last row
        theirs = live(
            "bert-tiny", hyps, refs, num_layers=layers, rescale_with_baseline=True, baseline_path=str(baseline)
        )
        ours = BERTScore(
            model=FIXTURES / "bert-tiny",
            num_layers=layers,
            flavor="torchmetrics",
            rescale_with_baseline=True,
            baseline_path=baseline,
        )(pair_hyps, pair_refs, segments=True)
        close(ours.segments, theirs)
    plain = bertscore(pair_hyps, pair_refs, model=FIXTURES / "bert-tiny", flavor="torchmetrics", segments=True)
    close(plain.segments, live("bert-tiny", hyps, refs, num_layers=4))  # the last of 4 layers


@pytest.mark.filterwarnings("ignore::nlpeval.metrics.bertscore.TruncationWarning")
def test_several_references_take_each_maximum_as_torchmetrics() -> None:
    t = texts()
    hyps = t["wmt_a"][:40]
    refs = [[t["wmt_ref"][i], t["wmt_b"][i], t["wmt_c"][i]][: 1 + i % 3] for i in range(40)]
    theirs = live("bert-tiny", hyps, refs, idf=True)
    # torchmetrics flattens the groups, scores the flat pairs (in its twice-sorted pairing, which mixes the groups'
    # hypotheses) and takes P, R and F each at its maximum over a group's positions: score the pairs it scored
    flat_hyps = [h for h, group in zip(hyps, refs, strict=True) for _ in group]
    flat_refs = [r for group in refs for r in group]
    pair_hyps, pair_refs = as_scored("bert-tiny", flat_hyps, flat_refs)
    # idf: torchmetrics counts the flattened references, the same multiset nlpeval counts
    flat = bertscore(pair_hyps, pair_refs, model=FIXTURES / "bert-tiny", flavor="torchmetrics", idf=True, segments=True)
    bounds = np.cumsum([0] + [len(group) for group in refs])
    grouped = np.stack([flat.segments[bounds[i] : bounds[i + 1]].max(axis=0) for i in range(len(refs))])
    close(grouped, theirs)
    # nlpeval's own multi-reference scoring takes the same per-group maxima over correctly paired references
    ours = bertscore(hyps, refs, model=FIXTURES / "bert-tiny", flavor="torchmetrics", idf=True, segments=True)
    aligned = bertscore(
        flat_hyps, flat_refs, model=FIXTURES / "bert-tiny", flavor="torchmetrics", idf=True, segments=True
    )
    expected = np.stack([aligned.segments[bounds[i] : bounds[i + 1]].max(axis=0) for i in range(len(refs))])
    assert np.array_equal(ours.segments, expected)


def test_torchmetrics_pairs_sentences_by_the_sort_applied_twice() -> None:
    sentences = ["the cat sat on the mat today", "a", "the dog", "a b c d e f g h", "x y z"]
    reverse = list(reversed(sentences))
    theirs = live("bert-tiny", sentences, reverse)
    ours = bertscore(sentences, reverse, model=FIXTURES / "bert-tiny", flavor="torchmetrics", segments=True)
    assert ours.segments[2, 2] == pytest.approx(1.0, abs=1e-6)  # "the dog" against itself
    assert abs(theirs[2, 2] - 1.0) > 0.01  # torchmetrics scored another pair at position 2
    pair_hyps, pair_refs = as_scored("bert-tiny", sentences, reverse)
    close(
        bertscore(pair_hyps, pair_refs, model=FIXTURES / "bert-tiny", flavor="torchmetrics", segments=True).segments,
        theirs,
    )


def test_empty_strings_give_torchmetrics_nan_and_zero() -> None:
    hyps, refs = ["", "the cat", "", "x"], ["the cat", "", "", "y"]
    ours = bertscore(hyps, refs, model=FIXTURES / "bert-tiny", flavor="torchmetrics", segments=True).segments
    assert np.isnan(ours[0, 0]) and ours[0, 1] == 0 and ours[0, 2] == 0  # empty hypothesis: P = 0/0
    assert ours[1, 0] == 0 and np.isnan(ours[1, 1]) and ours[1, 2] == 0  # empty reference: R = 0/0
    pair_hyps, pair_refs = as_scored("bert-tiny", hyps, refs)
    close(
        bertscore(pair_hyps, pair_refs, model=FIXTURES / "bert-tiny", flavor="torchmetrics", segments=True).segments,
        live("bert-tiny", hyps, refs),
    )


def test_flavors_differ_and_are_recorded() -> None:
    hyps, refs = case("wmt")
    tm = bertscore(hyps[:30], refs[:30], model=FIXTURES / "roberta-tiny", flavor="torchmetrics", num_layers=2)
    bs = bertscore(hyps[:30], refs[:30], model=FIXTURES / "roberta-tiny", num_layers=2)
    assert tm.score != bs.score
    assert "flavor:torchmetrics" in tm.signature and "flavor:bert_score" in bs.signature
    with pytest.raises(ValueError, match="unknown BERTScore flavor"):
        BERTScore(model=FIXTURES / "bert-tiny", flavor="evaluate")


@pytest.mark.filterwarnings("ignore::nlpeval.metrics.bertscore.TruncationWarning")
def test_parity_with_the_torchmetrics_module_live() -> None:
    from torchmetrics.text import BERTScore as TorchmetricsBERTScore

    hyps, refs = case("ted")
    hyps, refs = hyps[:40], refs[:40]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = TorchmetricsBERTScore(
            model_name_or_path=str(FIXTURES / "roberta-tiny"), max_length=LIMITS["roberta-tiny"], truncation=True
        )
        module.update(hyps, refs)
        out = module.compute()
    theirs = np.stack([out["precision"].numpy(), out["recall"].numpy(), out["f1"].numpy()], axis=1).astype(np.float64)
    pair_hyps, pair_refs = as_scored("roberta-tiny", hyps, refs)  # the module sorts as the function does
    ours = bertscore(pair_hyps, pair_refs, model=FIXTURES / "roberta-tiny", flavor="torchmetrics", segments=True)
    close(ours.segments, theirs)
