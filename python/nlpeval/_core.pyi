"""Type stubs of the native core. Private: use the public nlpeval API."""

import numpy as np
import numpy.typing as npt

def tokenize(lines: list[str], tokenizer: str) -> list[str]: ...
def bleu_stats(
    hyps: list[str], refs: list[list[str]], tokenizer: str, max_order: int
) -> npt.NDArray[np.int64]: ...
def bleu_stats_tokens(
    hyps: list[list[str]], refs: list[list[list[str]]], max_order: int
) -> npt.NDArray[np.int64]: ...
def bleu_stats_ids(
    hyps: list[list[int]], refs: list[list[list[int]]], max_order: int
) -> npt.NDArray[np.int64]: ...
def bleu_pairwise_stats(
    hyps: list[str], cands: list[str], tokenizer: str, max_order: int
) -> npt.NDArray[np.int64]: ...
