"""Type stubs of the native core. Private: use the public nlpeval API."""

import numpy as np
import numpy.typing as npt

def tokenize(lines: list[str], tokenizer: str) -> list[str]: ...
def bleu_stats(hyps: list[str], refs: list[list[str]], tokenizer: str, max_order: int) -> npt.NDArray[np.int64]: ...
def bleu_stats_tokens(hyps: list[list[str]], refs: list[list[list[str]]], max_order: int) -> npt.NDArray[np.int64]: ...
def bleu_stats_ids(hyps: list[list[int]], refs: list[list[list[int]]], max_order: int) -> npt.NDArray[np.int64]: ...
def ter_stats(hyps: list[str], refs: list[list[str]]) -> npt.NDArray[np.int64]: ...
def bleu_pairwise_scores(
    hyps: list[str], cands: list[str], tokenizer: str, max_order: int, smooth: str, smooth_value: float | None = None
) -> npt.NDArray[np.float64]: ...
def rouge_tokenize(texts: list[str], tokenizer: str, stem: bool) -> list[list[str]]: ...
def porter_stem(words: list[str]) -> list[str]: ...
def rouge_stats_text(
    hyps: list[str],
    refs: list[list[str]],
    tokenizer: str,
    stem: bool,
    kinds: list[tuple[str, float]],
    split_lines: bool,
) -> npt.NDArray[np.float64]: ...
def rouge_stats_ids(
    hyp_sents: list[list[list[int]]],
    hyp_flat: list[list[int]],
    ref_sents: list[list[list[list[int]]]],
    ref_flat: list[list[list[int]]],
    kinds: list[tuple[str, float]],
) -> npt.NDArray[np.float64]: ...
def edit_stats(hyps: list[str], refs: list[str], unit: str) -> npt.NDArray[np.int64]: ...
def edit_align(hyps: list[str], refs: list[str], unit: str) -> list[tuple[list[str], list[str], bytes]]: ...
def chrf_stats(
    hyps: list[str],
    refs: list[list[str]],
    char_order: int,
    word_order: int,
    whitespace: bool,
    factor: float,
    eps_smoothing: bool,
) -> npt.NDArray[np.int64]: ...
def chrf_pairwise_scores(
    hyps: list[str],
    cands: list[str],
    char_order: int,
    word_order: int,
    whitespace: bool,
    factor: float,
    eps_smoothing: bool,
) -> npt.NDArray[np.float64]: ...
def kendall_group_stats(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]: ...
def kendall_weighted_stats(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.int64],
    weights: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]: ...
