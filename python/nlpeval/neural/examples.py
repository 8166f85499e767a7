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


_PIECES = (
    "▁the",
    "▁cat",
    "▁sat",
    "▁The",
    "▁Die",
    "▁Katze",
    "▁sitzt",
    "▁saß",
    "▁Hallo",
    "▁Hello",
    ".",
    "!",
    "▁",
    "a",
    "e",
    "i",
    "o",
    "u",
    "s",
    "t",
    "n",
    "r",
)


@cache
def tiny_comet() -> Path:
    """A folder holding a tiny random COMET regression checkpoint in unbabel-comet's layout.

    ``hparams.yaml``, ``checkpoints/model.ckpt`` and a 2-layer, 16-dimensional XLM-R encoder (config and
    a small unigram tokenizer) in ``./encoder``. Built once per process in a temporary folder.

    Examples
    --------
    >>> sorted(p.name for p in tiny_comet().iterdir())
    ['checkpoints', 'encoder', 'hparams.yaml']
    """
    torch = require("torch", "the example model")
    transformers = require("transformers", "the example model")
    folder = Path(tempfile.mkdtemp(prefix="nlpeval-example-")) / "tiny-comet"
    atexit.register(shutil.rmtree, folder.parent, ignore_errors=True)
    (folder / "encoder").mkdir(parents=True)
    (folder / "checkpoints").mkdir()
    specials = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
    vocab = specials + [(piece, -1.0 - i) for i, piece in enumerate(_PIECES)] + [("<mask>", 0.0)]
    tokenizer = transformers.XLMRobertaTokenizer(vocab=vocab, model_max_length=60)
    config = transformers.XLMRobertaConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
        pad_token_id=1,
    )
    torch.manual_seed(0)
    encoder = transformers.XLMRobertaModel(config, add_pooling_layer=False)
    state = {f"encoder.model.{k}": v for k, v in encoder.state_dict().items()}
    for i in range(config.num_hidden_layers + 1):
        state[f"layerwise_attention.scalar_parameters.{i}"] = torch.randn(1)
    state["layerwise_attention.gamma"] = torch.ones(1)
    for index, (rows, cols) in ((0, (8, 6 * 16)), (3, (1, 8))):
        state[f"estimator.ff.{index}.weight"] = torch.randn(rows, cols) * 0.1
        state[f"estimator.ff.{index}.bias"] = torch.zeros(rows)
    torch.save({"state_dict": state}, folder / "checkpoints" / "model.ckpt")
    with quiet_transformers():
        tokenizer.save_pretrained(str(folder / "encoder"))
        config.save_pretrained(str(folder / "encoder"))
    (folder / "hparams.yaml").write_text(
        "class_identifier: regression_metric\nencoder_model: XLM-RoBERTa\npretrained_model: ./encoder\n"
        "pool: avg\nlayer: mix\nlayer_transformation: softmax\nlayer_norm: true\nhidden_sizes:\n- 8\n"
        "activations: Tanh\nfinal_activation: null\n",
        encoding="utf-8",
    )
    return folder
