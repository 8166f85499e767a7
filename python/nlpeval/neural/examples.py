"""Tiny randomly initialised models for the documentation's examples (built locally, never downloaded).

Their scores mean nothing; they show the API at a glance and run in a second.
"""

from __future__ import annotations

import atexit
import shutil
import string
import tempfile
from functools import cache
from pathlib import Path

from nlpeval.neural.deps import quiet_transformers, require

_WORDS = ["the", "a", "cat", "dog", "sat", "on", "mat", "rug", "is", "was", "and", "of", "to", "in", "it"]


@cache
def tiny_bert() -> Path:
    """A folder holding a 2-layer, 16-dimensional random BERT and its WordPiece vocabulary.

    Built once per process in a temporary folder (removed at exit).

    Examples
    --------
    >>> (tiny_bert() / "config.json").is_file()
    True
    """
    torch = require("torch", "the example model")
    transformers = require("transformers", "the example model")
    folder = Path(tempfile.mkdtemp(prefix="nlpeval-example-")) / "tiny-bert"
    folder.mkdir()
    atexit.register(shutil.rmtree, folder.parent, ignore_errors=True)
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    pieces = list(string.ascii_lowercase) + ["##" + c for c in string.ascii_lowercase] + list(".,!?")
    (folder / "vocab.txt").write_text("\n".join(specials + _WORDS + pieces) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizer(str(folder / "vocab.txt"), model_max_length=64)
    config = transformers.BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
    )
    torch.manual_seed(0)
    with quiet_transformers():
        tokenizer.save_pretrained(str(folder))
        transformers.BertModel(config).save_pretrained(str(folder))
    return folder
