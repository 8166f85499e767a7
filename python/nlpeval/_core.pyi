"""Type stubs of the native core. Private: use the public nlpeval API."""

import numpy as np
import numpy.typing as npt

def tokenize(lines: list[str], tokenizer: str) -> list[str]: ...
def bleu_stats(hyps: list[str], refs: list[list[str]], tokenizer: str, max_order: int) -> npt.NDArray[np.int64]: ...
def bleu_stats_tokens(hyps: list[list[str]], refs: list[list[list[str]]], max_order: int) -> npt.NDArray[np.int64]: ...
def bleu_stats_flat(
    hyp_ids: npt.NDArray[np.int64],
    hyp_lens: npt.NDArray[np.int64],
    ref_ids: npt.NDArray[np.int64],
    ref_lens: npt.NDArray[np.int64],
    ref_counts: npt.NDArray[np.int64],
    max_order: int,
) -> npt.NDArray[np.int64]: ...
def flatten_id_lists(seqs: object) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None: ...
def flatten_reference_lists(
    items: object,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]] | None: ...
def receive_text(hyps: list[str], refs: list[list[str]]) -> int: ...
def trim_ids(
    ids: npt.NDArray[np.int64], lens: npt.NDArray[np.int64], pad_id: int | None = None, eos_id: int | None = None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def ter_stats(hyps: list[str], refs: list[list[str]]) -> npt.NDArray[np.int64]: ...
def bleu_pairwise_scores(
    hyps: list[str], cands: list[str], tokenizer: str, max_order: int, smooth: str, smooth_value: float | None = None
) -> npt.NDArray[np.float64]: ...
def rouge_tokenize(texts: list[str], tokenizer: str, stem: bool) -> list[list[str]]: ...
def porter_stem(words: list[str]) -> list[str]: ...
def rouge_stats_text(
    hyps: list[str],
    refs: list[str | list[str]],
    tokenizer: str,
    stem: bool,
    kinds: list[tuple[str, float]],
    split_lines: bool,
    max_cells: int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]: ...
def rouge_stats_ids(
    hyp_sents: list[list[list[int]]],
    hyp_flat: list[list[int]],
    ref_sents: list[list[list[list[int]]]],
    ref_flat: list[list[list[int]]],
    kinds: list[tuple[str, float]],
    max_cells: int | None = None,
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
def meteor_split_intern(
    texts: list[str], java: bool, lower_ascii: bool
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.int64], list[str]]: ...
def meteor_normalize(lines: list[str], keep_punctuation: bool, prefixes: dict[str, int]) -> list[str]: ...
def meteor_snowball_stems(words: list[str]) -> list[str]: ...
def meteor_word_keys(words: list[str], stem: bool) -> tuple[list[int], list[int]]: ...
def meteor_align_rows(
    hyp_tokens: npt.NDArray[np.uint32],
    hyp_lens: npt.NDArray[np.int64],
    ref_tokens: npt.NDArray[np.uint32],
    ref_lens: npt.NDArray[np.int64],
    word_hash: npt.NDArray[np.int32],
    stem_hash: npt.NDArray[np.int32],
    synsets: npt.NDArray[np.int32],
    synset_lens: npt.NDArray[np.int64],
    para_id: npt.NDArray[np.int32],
    is_function: npt.NDArray[np.bool_],
    modules: list[int],
    beam: int,
    paraphrases: MeteorParaphrases | None = None,
) -> npt.NDArray[np.int64]: ...
def nltk_porter_stems(words: list[str]) -> list[str]: ...
def nltk_meteor_scores(
    hyp_tokens: npt.NDArray[np.uint32],
    hyp_lens: npt.NDArray[np.int64],
    ref_tokens: npt.NDArray[np.uint32],
    ref_lens: npt.NDArray[np.int64],
    ref_counts: npt.NDArray[np.int64],
    stem_of: npt.NDArray[np.uint32],
    synonyms: npt.NDArray[np.uint32],
    synonym_lens: npt.NDArray[np.int64],
    params: tuple[float, float, float],
) -> npt.NDArray[np.float64]: ...

class MeteorParaphrases:
    @staticmethod
    def from_text(data: bytes) -> MeteorParaphrases: ...
    @staticmethod
    def from_parts(
        vocab: list[str],
        tokens: npt.NDArray[np.uint16] | npt.NDArray[np.uint32],
        ref_lens: npt.NDArray[np.uint8],
        par_lens: npt.NDArray[np.uint8],
        trie: tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint32], npt.NDArray[np.uint32], npt.NDArray[np.uint32]]
        | None = None,
    ) -> MeteorParaphrases: ...
    def parts(
        self,
    ) -> tuple[
        list[str],
        npt.NDArray[np.uint32],
        npt.NDArray[np.uint8],
        npt.NDArray[np.uint8],
        tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint32], npt.NDArray[np.uint32], npt.NDArray[np.uint32]],
    ]: ...
    def lookup(self, words: list[str]) -> list[int]: ...
    def __len__(self) -> int: ...
