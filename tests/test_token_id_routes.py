"""Token-id input routes (issue 13): padded arrays, tensors, lists of arrays and int lists all give
the values of the per-row path and of sacreBLEU / NLTK on the same ids; bad rows are named."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sacrebleu
from nltk.translate.bleu_score import corpus_bleu

import nlpeval
from nlpeval.core.errors import InputError
from nlpeval.core.token_ids import flat_token_ids, validate_token_ids
from nlpeval.metrics.bleu import TokenIdBLEU

PAD, EOS = 0, 2


def _corpus(seed: int, n: int = 300, vocab: int = 40) -> tuple[list[list[int]], list[list[int]]]:
    """Hypotheses and references of 8-40 ids over a small vocabulary (many matches), no PAD/EOS."""
    rng = np.random.default_rng(seed)
    hyps, refs = [], []
    for _ in range(n):
        hyp = rng.integers(3, vocab, size=int(rng.integers(8, 41))).tolist()
        ref = [t if rng.random() < 0.6 else int(rng.integers(3, vocab)) for t in hyp]
        refs.append(ref[: int(rng.integers(8, len(ref) + 1))])
        hyps.append(hyp)
    return hyps, refs


def _padded(seqs: list[list[int]], width: int = 44, eos: bool = False, dtype: type = np.int64) -> np.ndarray:
    out = np.full((len(seqs), width), PAD, dtype=dtype)
    for row, seq in zip(out, seqs, strict=True):
        tail = [EOS, 7, 7] if eos else []  # ids after EOS must be ignored
        row[: len(seq) + len(tail)] = seq + tail
    return out


def _sacrebleu(hyps: list[list[int]], refs: list[list[list[int]]]) -> float:
    streams = [[" ".join(map(str, seg[k])) for seg in refs] for k in range(len(refs[0]))]
    return sacrebleu.corpus_bleu([" ".join(map(str, h)) for h in hyps], streams, tokenize="none").score / 100


def test_padded_arrays_with_pad_and_eos_match_sacrebleu_and_nltk() -> None:
    hyps, refs = _corpus(1)
    hyp_array, ref_array = _padded(hyps, eos=True), _padded(refs, eos=True, dtype=np.int32)
    ours = nlpeval.bleu(hyp_array, ref_array, pad_id=PAD, eos_id=EOS)
    assert ours.score == pytest.approx(_sacrebleu(hyps, [[r] for r in refs]), abs=1e-12)
    assert ours.score == nlpeval.bleu(hyps, refs).score
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nltk_ours = nlpeval.bleu(hyp_array, ref_array, pad_id=PAD, eos_id=EOS, flavor="nltk").score
        assert nltk_ours == pytest.approx(corpus_bleu([[r] for r in refs], hyps), rel=1e-15)


def test_every_route_gives_the_rows_of_the_per_row_path() -> None:
    hyps, refs = _corpus(2, n=120)
    hyp_array, ref_array = _padded(hyps), _padded(refs)
    expected = validate_token_ids(hyps, refs)
    routes = {
        "padded arrays": (hyp_array, ref_array),
        "lists of arrays, mixed dtypes": (
            [np.asarray(h, dtype=np.int16 if i % 2 else np.uint32) for i, h in enumerate(hyps)],
            [np.asarray(r, dtype=np.int64) for r in refs],
        ),
        "tuples of lists": (tuple(hyps), tuple(refs)),
        "int lists": (hyps, refs),
    }
    for name, (h, r) in routes.items():
        flat_h, flat_r = flat_token_ids(h, r, pad_id=PAD)
        assert flat_h.to_lists() == expected[0], name
        assert flat_r.grouped() == expected[1], name
        assert nlpeval.bleu(h, r, pad_id=PAD).score == nlpeval.bleu(hyps, refs).score, name


def test_several_references_as_a_3d_array_or_nested_lists() -> None:
    hyps, refs = _corpus(3, n=80)
    _, refs2 = _corpus(4, n=80)
    nested = [[a, b] for a, b in zip(refs, refs2, strict=True)]
    stacked = np.stack([_padded(refs), _padded(refs2)], axis=1)
    expected = _sacrebleu(hyps, nested)
    assert nlpeval.bleu(_padded(hyps), stacked, pad_id=PAD).score == pytest.approx(expected, abs=1e-12)
    assert nlpeval.bleu(hyps, nested).score == pytest.approx(expected, abs=1e-12)
    per_segment_arrays = [np.stack([_padded([a])[0], _padded([b])[0]]) for a, b in zip(refs, refs2, strict=True)]
    assert nlpeval.bleu(hyps, per_segment_arrays, pad_id=PAD).score == pytest.approx(expected, abs=1e-12)


def test_large_and_negative_ids_take_the_interned_path_with_the_same_counts() -> None:
    hyps, refs = _corpus(5, n=60)
    shift = [[t * 10_007 - 50_000 for t in h] for h in hyps], [[t * 10_007 - 50_000 for t in r] for r in refs]
    assert nlpeval.bleu(*shift).score == nlpeval.bleu(hyps, refs).score
    assert nlpeval.bleu(np.asarray(_padded(shift[0], dtype=np.int64)), _padded(shift[1]), pad_id=PAD).score == (
        nlpeval.bleu(hyps, refs).score
    )


class _CpuTensor:
    """The part of a CPU tensor's interface the id route uses (torch is an optional extra, not a
    test dependency): ``ndim``/``shape`` mark it as array-like, ``detach().cpu().numpy()`` reads it."""

    def __init__(self, values: np.ndarray) -> None:
        self._values = values
        self.ndim, self.shape = values.ndim, values.shape
        self.calls: list[str] = []

    def __len__(self) -> int:
        return len(self._values)

    def __getitem__(self, index: int) -> np.ndarray:  # a row, as ``tensor[i]`` (read to detect ids)
        return self._values[index]

    def detach(self) -> _CpuTensor:
        self.calls.append("detach")
        return self

    def cpu(self) -> _CpuTensor:
        self.calls.append("cpu")
        return self

    def numpy(self) -> np.ndarray:
        self.calls.append("numpy")
        return self._values


def test_tensors_are_detached_and_read_once() -> None:
    hyps, refs = _corpus(6, n=50)
    tensor_h, tensor_r = _CpuTensor(_padded(hyps, eos=True)), _CpuTensor(_padded(refs, eos=True))
    ours = nlpeval.bleu(tensor_h, tensor_r, pad_id=PAD, eos_id=EOS)
    assert ours.score == nlpeval.bleu(hyps, refs).score
    assert tensor_h.calls == ["detach", "cpu", "numpy"] and tensor_r.calls == ["detach", "cpu", "numpy"]


def test_accumulator_updates_of_padded_batches_equal_one_call() -> None:
    hyps, refs = _corpus(7, n=96)
    hyp_array, ref_array = _padded(hyps), _padded(refs)
    acc = TokenIdBLEU(pad_id=PAD).accumulator()
    for start in range(0, 96, 8):
        acc.update(hyp_array[start : start + 8], ref_array[start : start + 8])
    assert acc.compute().score == nlpeval.bleu(hyps, refs).score
    assert acc.compute().score == pytest.approx(_sacrebleu(hyps, [[r] for r in refs]), abs=1e-12)


@pytest.mark.parametrize(
    ("hyps", "refs", "message"),
    [
        ([[1, 2], [3, 4.5], [5]], [[1], [2], [3]], "hypotheses: segment 1"),
        ([[1, 2], [3, 4], [5]], [[1], [[2], ["x"]], [3]], "references: segment 1"),
        (np.ones((3, 4)), [[1], [2], [3]], "hypotheses: segment 0"),
        (np.ones((3, 4), dtype=bool), [[1], [2], [3]], "hypotheses: segment 0"),
        ([[1, 2], [3, 4]], [[1], [2], [3]], "2 hypotheses but 3 references"),
        ([[1, 2], [3]], [[1], []], None),
    ],
)
def test_bad_rows_are_named(hyps: object, refs: object, message: str | None) -> None:
    if message is None:  # an empty reference list is one empty reference, as on the per-row path
        assert nlpeval.bleu(hyps, refs).score == nlpeval.bleu([[1, 2], [3]], [[[1]], [[]]]).score
        return
    with pytest.raises(InputError, match=message):
        nlpeval.bleu(hyps, refs)
