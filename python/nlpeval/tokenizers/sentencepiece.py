"""SentencePiece tokenization (sacreBLEU's ``spm``/``flores101``/``flores200``/``spBLEU-1K``) from a local model.

nlpeval never downloads a model. The model file is looked for, in order, at the
path given (``spm_model=``, CLI ``--spm-model``), at ``$NLPEVAL_SPM_MODEL``, and in
sacreBLEU's cache (``$SACREBLEU/models`` or ``~/.sacrebleu/models``) under the file
name sacreBLEU 2.6.0 gives it when it downloads it at first use.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple


class SpmModel(NamedTuple):
    """Where sacreBLEU 2.6.0 gets a tokenizer's model and what its signature shows."""

    url: str
    signature: str

    @property
    def file_name(self) -> str:
        """The file name in sacreBLEU's cache (the URL's last part, as sacreBLEU names it)."""
        return os.path.basename(self.url)


_FLORES101 = SpmModel("https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model", "flores101")

#: sacreBLEU 2.6.0's SentencePiece tokenizers (``sacrebleu/tokenizers/tokenizer_spm.py``).
SPM_MODELS: dict[str, SpmModel] = {
    "spm": _FLORES101,
    "flores101": _FLORES101,
    "flores200": SpmModel("https://tinyurl.com/flores200sacrebleuspm", "flores200"),
    "spBLEU-1K": SpmModel("https://www.dlnlp.ai/spBLEU-1K/spbleu-1k_tokenizer_spm.model", "spBLEU-1K"),
}


def sacrebleu_cache_path(name: str) -> str:
    """Where sacreBLEU keeps the model of tokenizer ``name`` once it has downloaded it.

    Examples
    --------
    >>> import os
    >>> os.path.basename(sacrebleu_cache_path("spBLEU-1K"))
    'spbleu-1k_tokenizer_spm.model'
    """
    home = os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))
    return os.path.join(home, "models", SPM_MODELS[name].file_name)


def find_model(name: str, model_path: str | os.PathLike[str] | None) -> str:
    """The local model file of tokenizer ``name``, or a one-line ``ValueError`` saying where to put it."""
    path = model_path or os.environ.get("NLPEVAL_SPM_MODEL")
    if path:
        if not os.path.isfile(path):
            raise ValueError(f"SentencePiece model not found: {os.fspath(path)}")
        return os.fspath(path)
    cached = sacrebleu_cache_path(name)
    if os.path.isfile(cached):
        return cached
    raise ValueError(
        f"tokenizer {name!r} needs a local SentencePiece model and nlpeval does not download models: "
        f"looked in sacreBLEU's cache at {cached}; download {SPM_MODELS[name].url} to that path "
        "(or run sacreBLEU once with this tokenizer), pass spm_model=PATH (CLI: --spm-model PATH) "
        "or set NLPEVAL_SPM_MODEL"
    )


def load_sentencepiece(name: str, model_path: str | os.PathLike[str] | None) -> Callable[[str], str]:
    """A line -> pieces function for tokenizer ``name`` (model from :func:`find_model`).

    The pieces are joined by single spaces, as sacreBLEU's ``TokenizerSPM`` does.
    """
    path = find_model(name, model_path)
    try:
        import sentencepiece
    except ImportError:
        raise ImportError(f"tokenizer {name!r} needs sentencepiece: pip install 'nlpeval[spm]'") from None
    processor = sentencepiece.SentencePieceProcessor()
    processor.Load(path)

    @lru_cache(maxsize=2**16)
    def pieces(line: str) -> str:
        return " ".join(processor.EncodeAsPieces(line))

    return pieces
