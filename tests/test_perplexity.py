"""Perplexity from log-probabilities, against values computed independently from the definitions."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlpeval
from nlpeval.cli.main import main as cli_main


def _reference(sequences, base):
    """Per-sequence perplexities, corpus and mean perplexity with plain Python loops."""
    per_seq = []
    total_nll = 0.0
    total_tokens = 0
    for seq in sequences:
        nll = -sum(seq)  # in units of log-base
        per_seq.append(base ** (nll / len(seq)))
        total_nll += nll
        total_tokens += len(seq)
    corpus = base ** (total_nll / total_tokens)
    mean = math.prod(per_seq) ** (1 / len(per_seq))
    return per_seq, corpus, mean


@pytest.mark.parametrize("base", [math.e, 2, 10])
def test_matches_the_definitions(base):
    rng = np.random.default_rng(int(base * 10))
    for _ in range(30):
        lengths = rng.integers(1, 40, int(rng.integers(1, 12)))
        probs = [rng.uniform(0.01, 1.0, n) for n in lengths]
        logs = [(np.log(p) / math.log(base)).tolist() for p in probs]
        per_seq, corpus, mean = _reference(logs, base)
        score = nlpeval.perplexity(logs, base=base, segments=True)
        assert score.score == pytest.approx(corpus, rel=1e-12)
        assert score.components["mean_perplexity"] == pytest.approx(mean, rel=1e-12)
        np.testing.assert_allclose(score.segments, per_seq, rtol=1e-12)
        assert score.components["tokens"] == int(lengths.sum())
        # the perplexity does not depend on the base of the input
        nats = nlpeval.perplexity([np.log(p) for p in probs])
        assert nats.score == pytest.approx(score.score, rel=1e-12)


def test_issue_contract():
    s = nlpeval.perplexity([[math.log(0.5), math.log(0.25)], [math.log(0.5)]], base=math.e, segments=True)
    assert isinstance(s, nlpeval.Score)
    assert s.score == pytest.approx(math.exp((math.log(2) * 2 + math.log(4)) / 3), rel=1e-15)
    assert s.components["mean_perplexity"] == pytest.approx(math.sqrt(math.sqrt(8) * 2), rel=1e-15)
    assert s.segments.tolist() == pytest.approx([math.sqrt(8), 2.0], rel=1e-15)
    assert nlpeval.perplexity([[-1.0, -1.0]], base=2).score == 2.0
    assert nlpeval.perplexity([[-1.0]], base=10).score == pytest.approx(10.0, rel=1e-15)


def test_no_overflow():
    # a product of probabilities underflows to 0 and math.exp(nll) overflows; log space does neither
    long = [[-50.0] * 10_000]
    assert math.prod(math.exp(v) for v in long[0]) == 0.0
    assert nlpeval.perplexity(long).score == pytest.approx(math.exp(50.0), rel=1e-12)
    with pytest.raises(OverflowError):
        math.exp(-sum(long[0]))
    huge = nlpeval.perplexity([[-800.0], [-1.0]], segments=True)
    assert huge.score == pytest.approx(math.exp(400.5), rel=1e-12)
    assert math.isinf(huge.segments[0])
    assert huge.components["mean_perplexity"] == pytest.approx(math.exp(400.5), rel=1e-12)
    assert nlpeval.perplexity([[-math.inf, -1.0]]).score == math.inf


def test_bad_input_names_the_sequence():
    with pytest.raises(nlpeval.InputError, match="segment 1: has no log-probabilities"):
        nlpeval.perplexity([[-1.0], []])
    with pytest.raises(nlpeval.InputError, match=r"segment 2: contains 0.5 > 0"):
        nlpeval.perplexity([[-1.0], [-2.0, -3.0], [-1.0, 0.5]])
    with pytest.raises(nlpeval.InputError, match="segment 0: contains NaN"):
        nlpeval.perplexity([[float("nan")]])
    with pytest.raises(nlpeval.InputError, match="list of sequences"):
        nlpeval.perplexity(np.array([-1.0, -2.0]))
    with pytest.raises(ValueError, match="base"):
        nlpeval.perplexity([[-1.0]], base=1)


def test_bootstrap_interval_from_the_stats():
    metric = nlpeval.Perplexity()
    stats = metric.segment_stats([[-1.0, -2.0], [-0.5], [-3.0, -0.1, -0.2], [-1.5]])
    score = metric.score_from_stats(stats, n_bootstrap=200, seed=1)
    assert score.ci is not None and score.ci.low <= score.score <= score.ci.high
    assert "bs:200" in score.signature


sequences = st.lists(
    st.lists(st.floats(min_value=-30, max_value=0, allow_nan=False), min_size=1, max_size=8), min_size=1, max_size=8
)


@settings(max_examples=60, deadline=None)
@given(parts=st.lists(sequences, min_size=1, max_size=4))
def test_streaming_equals_one_shot(parts):
    acc = nlpeval.Perplexity().accumulator()
    for part in parts:
        acc.update(part)
    everything = [seq for part in parts for seq in part]
    one_shot = nlpeval.perplexity(everything)
    streamed = acc.compute()
    assert streamed.score == pytest.approx(one_shot.score, rel=1e-12)
    assert streamed.components["mean_perplexity"] == pytest.approx(one_shot.components["mean_perplexity"], rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(a=sequences, b=sequences, c=sequences)
def test_merge_is_associative_and_commutative(a, b, c):
    def acc(data):
        return nlpeval.Perplexity(base=2).accumulator().update(data)

    left = acc(a).merge(acc(b)).merge(acc(c)).compute()
    right = acc(a).merge(acc(b).merge(acc(c))).compute()
    swapped = acc(c).merge(acc(a)).merge(acc(b)).compute()
    for other in (right, swapped):
        assert other.score == pytest.approx(left.score, rel=1e-12)
        assert other.components["tokens"] == left.components["tokens"]
    acc_reset = acc(a)
    acc_reset.reset()
    with pytest.raises(ValueError):
        acc_reset.compute()


def test_cli_logprobs(tmp_path, capsys):
    path = tmp_path / "lp.txt"
    path.write_text("-1.0 -2.0\n-0.5\n", encoding="utf-8")
    assert cli_main(["perplexity", "--logprobs", str(path), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = nlpeval.perplexity([[-1.0, -2.0], [-0.5]])
    assert out == {"perplexity": {"score": expected.score, "mean_perplexity": expected.components["mean_perplexity"]}}
    assert cli_main(["perplexity", "--logprobs", str(path), "--base", "2", "--segments"]) == 0
    text = capsys.readouterr().out
    assert "perplexity (corpus)" in text and "base:2" in text
    for fmt in ("csv", "markdown", "latex", "text"):
        assert cli_main(["perplexity", "--logprobs", str(path), "--format", fmt]) == 0
        assert f"{expected.score:.4f}" in capsys.readouterr().out or fmt == "csv"


def test_cli_errors_name_file_and_line(tmp_path, capsys):
    path = tmp_path / "lp.txt"
    path.write_text("-1.0\n-0.5 0.7\n", encoding="utf-8")
    assert cli_main(["perplexity", "--logprobs", str(path)]) == 2
    assert f"{path}:2: contains 0.7 > 0" in capsys.readouterr().err
    path.write_text("-1.0\n\n", encoding="utf-8")
    assert cli_main(["perplexity", "--logprobs", str(path)]) == 2
    assert f"{path}:2: no log-probabilities" in capsys.readouterr().err
    assert cli_main(["perplexity", "--model", str(tmp_path / "missing")]) == 2
    assert "--model needs --text" in capsys.readouterr().err


# ----------------------------------------------------------------------------- a local causal LM (extra "lm")


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    """A tiny randomly initialised GPT-2 and a word-level tokenizer, saved to a local folder by the test."""
    import torch
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = [
        "the",
        "a",
        "cat",
        "dog",
        "sat",
        "on",
        "mat",
        "and",
        "ran",
        "fast",
        "slow",
        "red",
        "blue",
        "big",
        "small",
        "house",
        "tree",
        "it",
        "is",
        "was",
    ]
    vocab = {"[UNK]": 0, "[PAD]": 1, **{w: i + 2 for i, w in enumerate(words)}}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]", pad_token="[PAD]")
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=len(vocab), n_positions=16, n_embd=16, n_layer=2, n_head=2)
    model = transformers.GPT2LMHeadModel(config).eval()
    folder = tmp_path_factory.mktemp("tiny-gpt2")
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    rng = np.random.default_rng(0)
    texts = [" ".join(rng.choice(words, int(n))) for n in (1, 2, 5, 16, 17, 40, 3)]
    return torch, model, tokenizer, folder, texts


def _guide_nll(torch, model, ids, max_length, stride):
    """The transformers perplexity guide's sliding-window loop for one text, counting the scored tokens exactly."""
    nll_sum, n_tokens, prev_end = 0.0, 0, 0
    seq_len = ids.shape[1]
    for begin in range(0, seq_len, stride):
        end = min(begin + max_length, seq_len)
        trg_len = end - prev_end
        input_ids = ids[:, begin:end]
        target_ids = input_ids.clone()
        target_ids[:, :-trg_len] = -100
        with torch.no_grad():
            loss = model(input_ids, labels=target_ids).loss
        scored = int((target_ids[:, 1:] != -100).sum())
        if scored:
            nll_sum += float(loss) * scored
            n_tokens += scored
        prev_end = end
        if end == seq_len:
            break
    return nll_sum, n_tokens


@pytest.mark.parametrize(("max_length", "stride"), [(16, 8), (16, 16), (16, 1), (7, 3), (None, None)])
def test_model_perplexity_matches_the_guide(tiny_lm, max_length, stride):
    torch, model, tokenizer, _, texts = tiny_lm
    texts = [t for t in texts if len(t.split()) >= 2]
    window = max_length or 16
    step = stride or window // 2
    nll = tokens = 0.0
    per_text = []
    for text in texts:
        ids = torch.tensor([tokenizer(text)["input_ids"]])
        n, k = _guide_nll(torch, model, ids, window, step)
        nll += n
        tokens += k
        per_text.append(math.exp(n / k))
    score = nlpeval.model_perplexity(
        model, texts, tokenizer=tokenizer, max_length=max_length, stride=stride, batch_size=3, segments=True
    )
    # the guide's loss is float32; our per-token values are float32 log-softmax too
    assert score.score == pytest.approx(math.exp(nll / tokens), rel=1e-5)
    np.testing.assert_allclose(score.segments, per_text, rtol=1e-5)
    assert score.components["tokens"] == tokens
    assert f"ctx:{window}" in score.signature and f"stride:{step}" in score.signature


def test_model_logprobs_are_exact_in_float64(tiny_lm):
    """Batched, padded windows give each token the log-probability of its window, to 1e-12 in float64."""
    torch, model, tokenizer, _, texts = tiny_lm
    double = type(model)(model.config).double().eval()
    double.load_state_dict({k: v.double() for k, v in model.state_dict().items()})
    from nlpeval.lm import token_logprobs

    batched = token_logprobs(double, texts, tokenizer=tokenizer, max_length=8, stride=3, batch_size=4)
    for text, got in zip(texts, batched, strict=True):
        ids = tokenizer(text)["input_ids"]
        expected, prev_end = [], 0
        for begin in range(0, len(ids), 3):
            end = min(begin + 8, len(ids))
            window = torch.tensor([ids[begin:end]])
            with torch.no_grad():
                logp = torch.log_softmax(double(window).logits[0].double(), dim=-1)
            for pos in range(max(1, prev_end - begin), end - begin):
                expected.append(float(logp[pos - 1, ids[begin + pos]]))
            prev_end = end
            if end == len(ids):
                break
        assert len(got) == len(ids) - 1
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_model_from_a_local_folder_and_cli(tiny_lm, tmp_path, capsys):
    _, model, tokenizer, folder, texts = tiny_lm
    long_texts = [t for t in texts if len(t.split()) >= 2]
    from_folder = nlpeval.model_perplexity(str(folder), long_texts, max_length=16, stride=8)
    in_memory = nlpeval.model_perplexity(model, long_texts, tokenizer=tokenizer, max_length=16, stride=8)
    assert from_folder.score == pytest.approx(in_memory.score, rel=1e-12)
    text_file = tmp_path / "texts.txt"
    text_file.write_text("\n".join(long_texts) + "\n", encoding="utf-8")
    args = ["perplexity", "--model", str(folder), "--text", str(text_file), "--stride", "8", "--format", "json"]
    assert cli_main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["perplexity"]["score"] == pytest.approx(from_folder.score, rel=1e-12)
    assert out["perplexity"]["mean_perplexity"] == pytest.approx(from_folder.components["mean_perplexity"], rel=1e-12)
    # a one-token text has nothing to predict: an error naming its line
    text_file.write_text(long_texts[0] + "\ncat\n", encoding="utf-8")
    assert cli_main(["perplexity", "--model", str(folder), "--text", str(text_file)]) == 2
    assert f"{text_file}:2: has no log-probabilities" in capsys.readouterr().err
    # a hub name is never looked up
    with pytest.raises(FileNotFoundError, match="never downloads"):
        nlpeval.model_perplexity("gpt2", long_texts)
