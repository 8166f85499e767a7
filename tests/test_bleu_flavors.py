"""BLEU flavors ``nltk`` (NLTK's corpus_bleu / sentence_bleu) and ``hf`` (HF evaluate / Google NMT).

NLTK is the reference of the ``nltk`` flavor. For ``hf`` the references are the
issue's golden example, sacreBLEU's ``Tokenizer13a`` (the code evaluate copied) for
the tokens, and ``bleuscore`` (an independent Rust implementation of evaluate's
BLEU; no PyPI package ships Google's ``compute_bleu`` itself) for the scores.
"""

from __future__ import annotations

import math
import random
import re
import warnings
from pathlib import Path

import bleuscore
import numpy as np
import pytest
from nltk.translate import bleu_score as nltk_bleu

import nlpeval
import textgen
from nlpeval.cli.main import main as cli_main
from nlpeval.core.stats import StatsSchema
from nlpeval.metrics.bleu import make_bleu
from nlpeval.metrics.bleu.hf import hf_13a

METHODS = [f"method{i}" for i in range(8)]
WEIGHTS = [(0.25, 0.25, 0.25, 0.25), (0.5, 0.5), (0.2, 0.2, 0.2, 0.2, 0.2), (0.1, 0.3, 0.5, 0.1)]
HF_KEYS = ("bleu", "precisions", "brevity_penalty", "length_ratio", "translation_length", "reference_length")


def _smoothing(method: str):
    return getattr(nltk_bleu.SmoothingFunction(), method)


def _nltk_corpus(hyps, refs, weights, method, auto_reweigh=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return nltk_bleu.corpus_bleu(
            refs, hyps, weights=weights, smoothing_function=_smoothing(method), auto_reweigh=auto_reweigh
        )


def _nltk_sentence(refs, hyp, weights, method, auto_reweigh=False):
    """NLTK's sentence_bleu, NaN where it raises (method6's assertion)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return nltk_bleu.sentence_bleu(
                refs, hyp, weights=weights, smoothing_function=_smoothing(method), auto_reweigh=auto_reweigh
            )
        except AssertionError:
            return math.nan


def _tokens(hyps, refs):
    return [h.split() for h in hyps], [[r.split() for r in ([seg] if isinstance(seg, str) else seg)] for seg in refs]


def _close(ours: float, theirs: float, rel: float = 1e-12) -> bool:
    if math.isnan(theirs):
        return math.isnan(ours)
    return ours == pytest.approx(theirs, rel=rel, abs=0.0)


def _check_nltk(hyps, refs, weights, method, *, sentences: int, auto_reweigh=False, as_tokens=False):
    tok_hyps, tok_refs = _tokens(hyps, refs)
    inputs = (tok_hyps, tok_refs) if as_tokens else (hyps, refs)
    try:
        theirs = _nltk_corpus(tok_hyps, tok_refs, weights, method, auto_reweigh)
    except AssertionError:
        with pytest.raises(ValueError, match="method6"):
            nlpeval.bleu(*inputs, flavor="nltk", weights=weights, smooth=method, auto_reweigh=auto_reweigh)
        theirs = None
    if theirs is not None:
        ours = nlpeval.bleu(
            *inputs, flavor="nltk", weights=weights, smooth=method, auto_reweigh=auto_reweigh, segments=True
        )
        assert _close(ours.score, theirs), (method, weights, ours.score, theirs)
        segments = ours.segments
    else:
        metric = make_bleu(flavor="nltk", weights=weights, smooth=method, auto_reweigh=auto_reweigh)
        segments = metric.segment_values(metric.segment_stats(*inputs))
    for i in range(sentences):
        expected = _nltk_sentence(tok_refs[i], tok_hyps[i], weights, method, auto_reweigh)
        assert _close(float(segments[i]), expected), (method, weights, i, segments[i], expected)


# --------------------------------------------------------------------------- NLTK: real data


# every method with every weight vector (method6 needs 3 orders: its ValueError is tested below)
TED_CASES = [(m, w) for m in METHODS for w in WEIGHTS if not (m == "method6" and len(w) < 3)]


@pytest.mark.parametrize(("method", "weights"), TED_CASES, ids=[f"{m}-{len(w)}:{w[0]}" for m, w in TED_CASES])
def test_nltk_parity_ted(compare_mt, method, weights):
    hyps, refs = compare_mt["ted.sys1.eng"][:600], compare_mt["ted.ref.eng"][:600]
    _check_nltk(hyps, refs, weights, method, sentences=150)


@pytest.mark.parametrize("method", ["method0", "method3", "method5", "method6", "method7"])
def test_nltk_parity_wmt17_token_lists(wmt17, method):
    hyps, refs = wmt17["online-B.0"][:500], wmt17["reference"][:500]
    _check_nltk(hyps, refs, (0.25, 0.25, 0.25, 0.25), method, sentences=100, as_tokens=True)


def test_nltk_whole_ted_corpus_default(compare_mt):
    tok_hyps, tok_refs = _tokens(compare_mt["ted.sys2.eng"], compare_mt["ted.ref.eng"])
    ours = nlpeval.bleu(compare_mt["ted.sys2.eng"], compare_mt["ted.ref.eng"], flavor="nltk")
    assert ours.score == nltk_bleu.corpus_bleu(tok_refs, tok_hyps)


# --------------------------------------------------------------------------- NLTK: adversarial text


@pytest.mark.parametrize("method", METHODS)
def test_nltk_parity_adversarial_multi_reference(method):
    weights = (0.25, 0.25, 0.25, 0.25)
    for seed in range(3):
        hyps, refs = textgen.corpus(seed, n=120, max_refs=3)
        _check_nltk(hyps, refs, weights, method, sentences=120)
        _check_nltk(hyps, refs, (0.3, 0.3, 0.2, 0.1, 0.1), method, sentences=40, as_tokens=True)


@pytest.mark.parametrize("method", METHODS)
def test_nltk_auto_reweigh_short_segments(method):
    rng = random.Random(7)
    hyps, refs = [], []
    for _ in range(150):
        words = [rng.choice(["a", "b", "c", "the", "cat"]) for _ in range(rng.randint(1, 5))]
        hyps.append(" ".join(words))
        refs.append(
            [" ".join(rng.sample([*words, "x", "a"], k=min(len(words) + 1, 4))) for _ in range(rng.randint(1, 3))]
        )
    _check_nltk(hyps, refs, (0.25, 0.25, 0.25, 0.25), method, sentences=150, auto_reweigh=True)
    _check_nltk(hyps[:3], refs[:3], (0.25, 0.25, 0.25, 0.25), method, sentences=0, auto_reweigh=True)


def test_nltk_auto_reweigh_compares_weights_by_value():
    # NLTK only re-weighs the tuple (0.25,)*4; a list of the same values is not re-weighed
    # there. nlpeval stores weights as a tuple, so both re-weigh (documented deviation).
    hyp, ref = ["a b c"], ["a b c"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuple_ref = nltk_bleu.corpus_bleu(
            [[["a", "b", "c"]]], [["a", "b", "c"]], weights=(0.25,) * 4, auto_reweigh=True
        )
        list_ref = nltk_bleu.corpus_bleu([[["a", "b", "c"]]], [["a", "b", "c"]], weights=[0.25] * 4, auto_reweigh=True)
    assert tuple_ref == 1.0 and list_ref < 1e-70
    for weights in ((0.25,) * 4, [0.25] * 4):
        assert nlpeval.bleu(hyp, ref, flavor="nltk", weights=weights, auto_reweigh=True).score == tuple_ref


def test_nltk_token_ids_match_nltk_on_ints():
    rng = np.random.default_rng(3)
    hyps = [rng.integers(1, 12, size=rng.integers(0, 15)).tolist() for _ in range(80)]
    refs = [
        [rng.integers(1, 12, size=rng.integers(1, 15)).tolist() for _ in range(rng.integers(1, 4))] for _ in range(80)
    ]
    for method in METHODS:
        for weights in ((0.25,) * 4, (0.5, 0.5)):
            if method == "method6" and len(weights) < 3:
                continue
            expected = _nltk_corpus(hyps, refs, weights, method)
            ours = nlpeval.bleu(hyps, refs, flavor="nltk", weights=weights, smooth=method, segments=True)
            assert _close(ours.score, expected)
            assert "tok:ids" in ours.signature
            for i in range(0, 80, 7):
                assert _close(float(ours.segments[i]), _nltk_sentence(refs[i], hyps[i], weights, method))


# --------------------------------------------------------------------------- NLTK: quirks and options


def test_nltk_methods_5_to_7_use_the_last_segment():
    hyps = ["the cat sat on the mat today", "a dog"]
    refs = ["the cat sat on the mat today", "a dog barked"]
    flipped_hyps, flipped_refs = hyps[::-1], refs[::-1]
    for method in ("method5", "method6", "method7"):
        forward = nlpeval.bleu(hyps, refs, flavor="nltk", smooth=method, weights=(0.4, 0.3, 0.3)).score
        backward = nlpeval.bleu(flipped_hyps, flipped_refs, flavor="nltk", smooth=method, weights=(0.4, 0.3, 0.3)).score
        assert forward != backward  # NLTK's order dependence, reproduced
        assert _close(forward, _nltk_corpus(*_tokens(hyps, refs), (0.4, 0.3, 0.3), method))
        assert _close(backward, _nltk_corpus(*_tokens(flipped_hyps, flipped_refs), (0.4, 0.3, 0.3), method))


@pytest.mark.parametrize("method", ["method0", "method5", "method6", "method7"])
def test_nltk_streaming_equals_one_shot(compare_mt, method):
    hyps, refs = compare_mt["ted.sys1.eng"][:300], compare_mt["ted.ref.eng"][:300]
    metric = make_bleu(flavor="nltk", smooth=method)
    acc = metric.accumulator()
    for start in range(0, 300, 70):
        acc.update(hyps[start : start + 70], refs[start : start + 70])
    assert acc.compute().score == metric(hyps, refs).score
    left, right = metric.accumulator(), metric.accumulator()
    left.update(hyps[:100], refs[:100])
    right.update(hyps[100:], refs[100:])
    assert left.merge(right).compute().score == metric(hyps, refs).score


def test_last_merge_rule():
    schema = StatsSchema.of("a", last="last")
    rows = np.array([[1, 5], [2, 7], [3, 4]])
    assert schema.reduce(rows).tolist() == [6, 4]
    assert schema.combine(schema.reduce(rows[:1]), schema.reduce(rows[1:])).tolist() == [6, 4]
    assert schema.combine(schema.reduce(rows), schema.identity()).tolist() == [6, 4]
    assert schema.combine(schema.identity(), schema.reduce(rows)).tolist() == [6, 4]
    assert schema.resampled_totals(rows, np.array([[2, 0], [0, 1]])).tolist() == [[4, 5], [3, 7]]


def test_nltk_method6_undefined_is_an_error_and_nan_segments():
    hyps, refs = ["a b c d", "a b c d e f"], ["a b x d", "a b c d e f"]
    with pytest.raises(AssertionError):
        nltk_bleu.sentence_bleu([refs[0].split()], hyps[0].split(), smoothing_function=_smoothing("method6"))
    with pytest.raises(ValueError, match="trigram"):
        nlpeval.bleu(hyps[:1], refs[:1], flavor="nltk", smooth="method6")
    score = nlpeval.bleu(hyps, refs, flavor="nltk", smooth="method6", segments=True)
    assert math.isnan(score.segments[0])
    assert score.segments[1] == _nltk_sentence([refs[1].split()], hyps[1].split(), (0.25,) * 4, "method6")


@pytest.mark.parametrize(("method", "value"), [("method1", 0.01), ("method4", 3.0), ("method6", 2.0), ("method7", 7.0)])
def test_nltk_smooth_value_sets_the_method_parameter(method, value):
    hyps, refs = textgen.corpus(11, n=80, max_refs=2)
    parameter = {"method1": "epsilon", "method4": "k", "method6": "alpha", "method7": "k"}[method]
    smoothing = getattr(nltk_bleu.SmoothingFunction(**{parameter: value}), method)
    tok_hyps, tok_refs = _tokens(hyps, refs)
    ours = nlpeval.bleu(hyps, refs, flavor="nltk", smooth=method, smooth_value=value, segments=True)
    assert _close(ours.score, nltk_bleu.corpus_bleu(tok_refs, tok_hyps, smoothing_function=smoothing))
    assert f"smooth:{method}[{value:g}]" in ours.signature
    for i in range(80):
        try:
            expected = nltk_bleu.sentence_bleu(tok_refs[i], tok_hyps[i], smoothing_function=smoothing)
        except AssertionError:
            expected = math.nan
        assert _close(float(ours.segments[i]), expected)


def test_nltk_max_order_gives_uniform_weights():
    hyps, refs = textgen.corpus(5, n=60)
    tok_hyps, tok_refs = _tokens(hyps, refs)
    ours = nlpeval.bleu(hyps, refs, flavor="nltk", max_order=3, smooth="method1")
    expected = nltk_bleu.corpus_bleu(tok_refs, tok_hyps, weights=(1 / 3,) * 3, smoothing_function=_smoothing("method1"))
    assert ours.score == expected
    assert ours.components["weights"] == [1 / 3] * 3


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"flavor": "nltk", "smooth": "floor"}, "method1"),
        ({"flavor": "nltk", "smooth": "add-k"}, "method2"),
        ({"flavor": "nltk", "smooth": "method9"}, "method0"),
        ({"flavor": "nltk", "smooth": "method3", "smooth_value": 0.5}, "no smooth_value"),
        ({"flavor": "nltk", "smooth": "method6", "weights": (0.5, 0.5)}, "3 n-gram orders"),
        ({"flavor": "nltk", "weights": (0.5, 0.5), "max_order": 3}, "disagrees"),
        ({"flavor": "nltk", "weights": ()}, "empty"),
        ({"flavor": "nltk", "lowercase": True}, "lowercase"),
        ({"flavor": "nltk", "effective_order": True}, "effective_order"),
        ({"flavor": "nltk", "tokenize": "intl"}, "whitespace"),
        ({"flavor": "hf", "weights": (0.5, 0.5)}, "weights"),
        ({"flavor": "hf", "smooth": "floor"}, "add-one"),
        ({"flavor": "hf", "smooth": "add-k", "smooth_value": 0.5}, "adds exactly one"),
        ({"flavor": "hf", "tokenize": "intl"}, "hf"),
        ({"flavor": "hf", "auto_reweigh": True}, "auto_reweigh"),
        ({"flavor": "hf", "lowercase": True}, "lowercase"),
        ({"flavor": "sacrebleu", "auto_reweigh": True}, "auto_reweigh"),
        ({"flavor": "moses"}, "unknown BLEU flavor"),
    ],
)
def test_options_a_flavor_does_not_have(options, message):
    with pytest.raises(ValueError, match=message):
        nlpeval.bleu(["a b c"], ["a b c"], **options)


def test_shared_default_smooth_means_each_flavors_default():
    hyps, refs = ["the cat sat on the mat"], ["the cat sat on a mat"]
    assert (
        nlpeval.bleu(hyps, refs, flavor="nltk").score == nlpeval.bleu(hyps, refs, flavor="nltk", smooth="method0").score
    )
    assert "smooth:method0" in nlpeval.bleu(hyps, refs, flavor="nltk").signature
    assert "smooth:none" in nlpeval.bleu(hyps, refs, flavor="hf").signature
    assert "smooth:add-one" in nlpeval.bleu(hyps, refs, flavor="hf", smooth=True).signature


def test_nltk_input_errors_name_the_segment():
    with pytest.raises(nlpeval.InputError, match="segment 1"):
        nlpeval.bleu([["a", "b"], ["c"]], [[["a", "b"]], ["c"]], flavor="nltk")
    with pytest.raises(nlpeval.InputError, match="segment 0"):
        nlpeval.bleu(["a b"], [[]], flavor="nltk")


# --------------------------------------------------------------------------- HF


def test_hf_golden_example():
    predictions = [
        "Transformers Transformers are fast plus efficient",
        "Good Morning",
        "I am waiting for new Transformers",
    ]
    references = [
        [
            "HuggingFace Transformers are quick, efficient and awesome",
            "Transformers are awesome because they are fast to execute",
        ],
        ["Good Morning Transformers", "Morning Transformers"],
        ["People are eagerly waiting for new Transformer models", "People are very excited about new Transformers"],
    ]
    result = nlpeval.bleu(predictions, references, flavor="hf", max_order=2).to_dict()
    assert result["bleu"] == 0.5037930378757725
    assert result["precisions"] == [0.7142857142857143, 0.5454545454545454]
    assert result["brevity_penalty"] == 0.8071177470053892
    assert result["length_ratio"] == 0.8235294117647058
    assert result["translation_length"] == 14
    assert result["reference_length"] == 17
    assert result["score"] == result["bleu"]


def _bleuscore(hyps, refs, *, max_order=4, smooth=False):
    refs = [[r] if isinstance(r, str) else list(r) for r in refs]
    return bleuscore.compute(refs, list(hyps), max_order=max_order, smooth=smooth)


def _assert_hf_equal(ours: dict, theirs: dict) -> None:
    for key in HF_KEYS:
        assert ours[key] == theirs[key], (key, ours[key], theirs[key])


@pytest.mark.parametrize(("max_order", "smooth"), [(4, False), (4, True), (2, False), (1, True)])
def test_hf_parity_real_data(compare_mt, wmt17, max_order, smooth):
    pairs = [(compare_mt["ted.sys1.eng"], compare_mt["ted.ref.eng"])]
    pairs += [(wmt17[name], wmt17["reference"]) for name in ("online-B.0", "uedin-nmt.4722")]
    for hyps, refs in pairs:
        ours = nlpeval.bleu(hyps, refs, flavor="hf", max_order=max_order, smooth=smooth)
        _assert_hf_equal(ours.to_dict(), _bleuscore(hyps, refs, max_order=max_order, smooth=smooth))


def _without_ascii_separators(text: str) -> str:
    # bleuscore splits on Rust's whitespace, which lacks Python's \x1c-\x1f
    return re.sub("[\x1c-\x1f]", " ", text)


@pytest.mark.parametrize("smooth", [False, True])
def test_hf_parity_adversarial(smooth):
    for seed in range(8):
        hyps, refs = textgen.corpus(100 + seed, n=80, max_refs=3)
        hyps = [_without_ascii_separators(h) for h in hyps]
        refs = [[_without_ascii_separators(r) for r in seg] for seg in refs]
        for max_order in (1, 2, 4):
            ours = nlpeval.bleu(hyps, refs, flavor="hf", max_order=max_order, smooth=smooth, segments=True)
            _assert_hf_equal(ours.to_dict(), _bleuscore(hyps, refs, max_order=max_order, smooth=smooth))
        for i in range(len(hyps)):
            theirs = _bleuscore(hyps[i : i + 1], refs[i : i + 1], smooth=smooth)
            if theirs["translation_length"] and theirs["reference_length"]:  # see test_hf_zero_lengths
                assert ours.segments[i] == theirs["bleu"]


def test_hf_tokens_are_evaluates_tokenizer13a():
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a  # evaluate ships a copy of this code

    tokenizer = Tokenizer13a()
    lines = [line for seed in range(10) for h, r in zip(*textgen.corpus(seed, n=60), strict=True) for line in (h, *r)]
    lines += ["co-\n", "co-\n\n", "x -\n \n", "a-<skipped>\n", "1-\n2", "e-mail- \n", "&amp;quot; \n"]
    assert [t.split() for t in hf_13a(lines)] == [tokenizer(line).split() for line in lines]


def test_hf_zero_lengths_follow_current_evaluate():
    # evaluate's nmt_bleu.py: if reference_length == 0 or translation_length == 0: ratio = bp = 0
    # (older copies of compute_bleu raise ZeroDivisionError; bleuscore gives nan/inf and bp 1).
    for hyps, refs in ((["", "a"], [" ", ""]), ([""], ["a b"]), (["a b"], [""])):
        result = nlpeval.bleu(hyps, refs, flavor="hf", smooth=True).to_dict()
        assert (result["length_ratio"], result["brevity_penalty"], result["bleu"]) == (0.0, 0.0, 0.0)


def test_hf_token_lists_and_ids_are_used_as_they_are():
    hyps = [["The", "cat", "sat", "."], ["a", "b"]]
    refs = [[["The", "cat", "sat", "."]], [["a", "b", "c"], ["a"]]]
    expected = nlpeval.bleu(["The cat sat .", "a b"], [["The cat sat ."], ["a b c", "a"]], flavor="hf", max_order=2)
    ours = nlpeval.bleu(hyps, refs, flavor="hf", max_order=2)
    assert ours.to_dict()["bleu"] == expected.score
    ids = nlpeval.bleu([[1, 2, 3, 4], [5, 6]], [[[1, 2, 3, 4]], [[5, 6, 7], [5]]], flavor="hf", max_order=2)
    assert ids.score == expected.score and "tok:ids" in ids.signature


# --------------------------------------------------------------------------- worked examples, every flavor

CAT_HYP, CAT_REF = "the cat is running in the fields", "the cat is walking in the garden"


@pytest.mark.parametrize("flavor", ["sacrebleu", "nltk", "hf"])
def test_worked_example_counts(flavor):
    for hyp, ref in (([CAT_HYP], [CAT_REF]), ([[1, 2, 3, 7, 5, 1, 1]], [[1, 2, 3, 4, 5, 1, 2]])):
        components = nlpeval.bleu(hyp, ref, flavor=flavor).components
        assert components["counts"] == [5, 3, 1, 0]
        assert components["totals"] == [7, 6, 5, 4]
    repeated = nlpeval.bleu(["the the the the the the the"], [CAT_REF], flavor=flavor).components
    assert repeated["counts"][0] / repeated["totals"][0] == 2 / 7


@pytest.mark.parametrize("flavor", ["nltk", "hf"])
def test_worked_example_precisions(flavor):
    for hyp, ref in (([CAT_HYP], [CAT_REF]), ([[1, 2, 3, 7, 5, 1, 1]], [[1, 2, 3, 4, 5, 1, 2]])):
        assert nlpeval.bleu(hyp, ref, flavor=flavor).components["precisions"] == [5 / 7, 3 / 6, 1 / 5, 0 / 4]
    assert nlpeval.bleu(["the the the the the the the"], [CAT_REF], flavor=flavor).components["precisions"][0] == 2 / 7
    assert float(nltk_bleu.modified_precision([CAT_REF.split()], ["the"] * 7, 1)) == 2 / 7


# --------------------------------------------------------------------------- CLI


def test_cli_bleu_flavors(tmp_path: Path, capsys):
    hyps, refs = textgen.corpus(21, n=40, max_refs=1)
    hyps = [h.replace("\n", " ") for h in hyps]
    refs = [seg[0].replace("\n", " ") for seg in refs]
    sys_file, ref_file = tmp_path / "sys.txt", tmp_path / "ref.txt"
    sys_file.write_text("".join(f"{h}\n" for h in hyps), encoding="utf-8")
    ref_file.write_text("".join(f"{r}\n" for r in refs), encoding="utf-8")
    cases = [
        (["--bleu-flavor", "nltk"], {"flavor": "nltk"}),
        (
            ["--bleu-flavor", "nltk", "--smooth", "method7", "--bleu-weights", "0.5,0.5"],
            {"flavor": "nltk", "smooth": "method7", "weights": (0.5, 0.5)},
        ),
        (
            ["--bleu-flavor", "nltk", "--auto-reweigh", "--smooth", "method2"],
            {"flavor": "nltk", "auto_reweigh": True, "smooth": "method2"},
        ),
        (
            ["--bleu-flavor", "hf", "--smooth", "add-k", "--max-order", "2"],
            {"flavor": "hf", "smooth": "add-k", "max_order": 2},
        ),
    ]
    import json

    for args, options in cases:
        assert cli_main(["score", "-r", str(ref_file), "-m", "bleu", "-f", "json", *args, str(sys_file)]) == 0
        result = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["bleu"]
        expected = nlpeval.bleu(hyps, refs, **options)
        assert result["score"] == expected.score
        assert result["signature"] == expected.signature
    assert (
        cli_main(
            ["score", "-r", str(ref_file), "-m", "bleu", "--bleu-flavor", "hf", "--bleu-weights", "1", str(sys_file)]
        )
        == 2
    )
    assert "weights is not an option" in capsys.readouterr().err


def test_hf_whitespace_tokenizer_is_str_split():
    hyps, refs = textgen.corpus(33, n=80, max_refs=3)
    split = nlpeval.bleu(hyps, refs, flavor="hf", tokenize="none", segments=True)
    tokens = nlpeval.bleu(
        [h.split() for h in hyps], [[r.split() for r in seg] for seg in refs], flavor="hf", segments=True
    )
    assert split.to_dict()["bleu"] == tokens.score and split.signature.replace("tok:none", "tok:13a") != split.signature
    assert split.segments.tolist() == tokens.segments.tolist()
    assert split.score != nlpeval.bleu(hyps, refs, flavor="hf").score  # 13a splits punctuation
