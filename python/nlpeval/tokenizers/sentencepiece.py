"""SentencePiece tokenization (sacreBLEU's ``spm`` / ``flores101`` / ``flores200``) from a local model."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache


def load_sentencepiece(name: str, model_path: str | os.PathLike[str] | None) -> Callable[[str], str]:
    """A line -> pieces function for the model at ``model_path`` (or ``$NLPEVAL_SPM_MODEL``).

    nlpeval never downloads: the model must be a local file, e.g. the
    ``flores200`` model sacreBLEU caches under ``~/.sacrebleu/models``.
    """
    path = model_path or os.environ.get("NLPEVAL_SPM_MODEL")
    if not path:
        raise ValueError(
            f"tokenizer {name!r} needs a local SentencePiece model: pass spm_model=PATH "
            "(CLI: --spm-model PATH) or set NLPEVAL_SPM_MODEL; nlpeval does not download models"
        )
    if not os.path.isfile(path):
        raise ValueError(f"SentencePiece model not found: {os.fspath(path)}")
    try:
        import sentencepiece
    except ImportError:
        raise ImportError(f"tokenizer {name!r} needs sentencepiece: pip install 'nlpeval[spm]'") from None
    processor = sentencepiece.SentencePieceProcessor()
    processor.Load(os.fspath(path))

    @lru_cache(maxsize=2**16)
    def pieces(line: str) -> str:
        return " ".join(processor.EncodeAsPieces(line))

    return pieces
