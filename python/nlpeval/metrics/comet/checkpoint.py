"""COMET checkpoints from local files: ``hparams.yaml`` + ``checkpoints/model.ckpt`` + the encoder.

The layout unbabel-comet writes (``<model>/hparams.yaml``, ``<model>/checkpoints/model.ckpt``); ``model``
may name the folder, the checkpoint file, or a hub name (``Unbabel/wmt22-comet-da``) already in the local
Hugging Face cache. The encoder named by ``pretrained_model`` (config + tokenizer) is resolved the same
way; a relative ``pretrained_model`` (``./encoder``) resolves against the folder holding ``hparams.yaml``.
Only tensors are read from the checkpoint (``torch.load(weights_only=True)``): no Lightning, no pickle code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nlpeval.neural.deps import require
from nlpeval.neural.local import ModelNotFoundError, require_file, resolve_model

#: COMET model classes nlpeval rebuilds
SUPPORTED = ("regression_metric", "referenceless_regression_metric", "unified_metric", "xcomet_metric")

#: encoders (``encoder_model`` in ``hparams.yaml``) nlpeval builds with stock transformers classes
ENCODER_MODELS = ("XLM-RoBERTa", "XLM-RoBERTa-XL")


@dataclass(frozen=True)
class CometCheckpoint:
    """A located COMET checkpoint: its folder, weights file, hyper-parameters and encoder folder."""

    folder: Path
    weights: Path
    hparams: dict[str, Any]
    encoder: Path

    @classmethod
    def locate(cls, model: str | Path) -> CometCheckpoint:
        """Find the checkpoint of ``model`` (folder, ``.ckpt`` file or cached hub name) and its encoder."""
        yaml = require("yaml", "COMET")
        path = resolve_model(model, metric="COMET")
        if path.is_file():
            weights, folder = path, path.parent.parent
        else:
            folder = path
            weights = require_file(
                folder / "checkpoints", ("model.ckpt",), metric="COMET", what=f"checkpoint of {str(model)!r}"
            )
        hparams_file = require_file(folder, ("hparams.yaml",), metric="COMET", what="hparams.yaml")
        hparams = yaml.safe_load(hparams_file.read_text(encoding="utf-8"))
        kind = hparams.get("class_identifier")
        if kind not in SUPPORTED:
            raise ValueError(f"COMET model class {kind!r} is not supported yet (supported: {', '.join(SUPPORTED)})")
        if hparams.get("encoder_model", "XLM-RoBERTa") not in ENCODER_MODELS:
            raise ValueError(
                f"COMET encoder {hparams.get('encoder_model')!r} is not supported yet ({', '.join(ENCODER_MODELS)})"
            )
        pretrained = str(hparams.get("pretrained_model", "xlm-roberta-large"))
        if pretrained.startswith(("./", "../")) or Path(pretrained).parts[:1] in ((".",), ("..",)):
            encoder = (folder / pretrained).resolve()
            if not encoder.exists():
                raise ModelNotFoundError(
                    f"COMET encoder {pretrained!r} of {hparams_file} not found: looked for {encoder} "
                    "(a relative pretrained_model resolves against the folder holding hparams.yaml)"
                )
        else:
            encoder = resolve_model(pretrained, metric="COMET", what="encoder")
        require_file(encoder, ("config.json",), metric="COMET", what="encoder configuration")
        return cls(folder, weights, hparams, encoder)

    @property
    def kind(self) -> str:
        """The model class (``class_identifier``): ``regression_metric``, ``unified_metric`` or ``xcomet_metric``."""
        return str(self.hparams["class_identifier"])

    @property
    def encoder_model(self) -> str:
        """COMET's encoder family (``encoder_model``): ``XLM-RoBERTa`` or ``XLM-RoBERTa-XL``."""
        return str(self.hparams.get("encoder_model", "XLM-RoBERTa"))

    @property
    def input_segments(self) -> tuple[str, ...]:
        """The inputs a unified model reads (xCOMET: always mt, src, ref; COMET's default too)."""
        if self.kind == "xcomet_metric":
            return ("mt", "src", "ref")
        if self.kind == "referenceless_regression_metric":
            return ("mt", "src")
        return tuple(self.hparams.get("input_segments") or ("mt", "src", "ref"))

    def state_dict(self) -> dict[str, Any]:
        """The checkpoint's tensors (``state_dict``), read without executing pickled code."""
        torch = require("torch", "COMET")
        try:
            try:  # mapped, not read into memory: the model's parameters are the only copy made
                loaded = torch.load(self.weights, map_location="cpu", weights_only=True, mmap=True)
            except RuntimeError:  # a checkpoint in torch's legacy (non-zip) format cannot be mapped
                loaded = torch.load(self.weights, map_location="cpu", weights_only=True)
        except Exception as exc:
            raise ValueError(f"cannot read the COMET checkpoint {self.weights} as tensors only: {exc}") from None
        return loaded.get("state_dict", loaded)
