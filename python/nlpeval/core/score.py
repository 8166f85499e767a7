"""The frozen result every metric returns."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from nlpeval.core.plain_score import score_dict

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class ConfidenceInterval:
    """A bootstrap confidence interval of a corpus score.

    Attributes
    ----------
    low, high : float
        Interval bounds on the score's scale.
    mean : float
        Mean of the resampled scores.
    level : float
        Confidence level, e.g. 0.95.
    n_resamples : int
        Number of bootstrap resamples.
    seed : int or None
        Seed of the resampling generator.
    """

    low: float
    high: float
    mean: float
    level: float
    n_resamples: int
    seed: int | None

    @property
    def half_width(self) -> float:
        """Half the interval width (sacreBLEU's "±" figure)."""
        return 0.5 * (self.high - self.low)

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python representation."""
        return {
            "low": self.low,
            "high": self.high,
            "mean": self.mean,
            "level": self.level,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
        }


def _plain(value: Any) -> Any:
    # NumPy is imported only by the code that made NumPy values: a score built from plain Python
    # numbers (``nlpeval score``'s NumPy-free path) leaves it unimported
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, (numpy.ndarray, numpy.generic)):
        return value.tolist() if isinstance(value, numpy.ndarray) else value.item()
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


@dataclass(frozen=True)
class Score:
    """A metric's result: the value, how it was obtained, and its parts.

    Attributes
    ----------
    name : str
        Metric name, e.g. ``"bleu"``.
    score : float
        The corpus value on the 0–1 scale (TER may exceed 1).
    signature : str
        Reproducibility signature (settings, flavor, version).
    components : Mapping
        Named parts of the score (for BLEU: precisions, brevity penalty, lengths…).
    segments : numpy.ndarray or None
        Per-segment values when asked for (read-only).
    ci : ConfidenceInterval or None
        Bootstrap confidence interval when asked for.
    error_spans : tuple or None
        Per-segment error spans of a metric that tags them (xCOMET): one tuple of spans per segment, each a
        mapping with ``text``, ``start``, ``end``, ``severity`` and ``confidence``.

    Examples
    --------
    >>> s = Score("bleu", 0.25, "nrefs:1|version:x", {"hyp_len": 7})
    >>> float(s), s.components["hyp_len"]
    (0.25, 7)
    >>> s.to_dict()["score"]
    0.25
    """

    name: str
    score: float
    signature: str
    components: Mapping[str, Any] = field(default_factory=dict)
    segments: np.ndarray | None = None
    ci: ConfidenceInterval | None = None
    error_spans: tuple[tuple[Mapping[str, Any], ...], ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "score", float(self.score))
        object.__setattr__(self, "components", MappingProxyType(dict(self.components)))
        if self.segments is not None:
            import numpy as np

            segments = np.array(self.segments, copy=True)
            segments.setflags(write=False)
            object.__setattr__(self, "segments", segments)

    def __float__(self) -> float:
        return self.score

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: name, score, signature, components, optional segments and CI."""
        out = score_dict(self.name, self.score, self.signature, _plain(dict(self.components)))
        if self.ci is not None:
            out["ci"] = self.ci.to_dict()
        if self.segments is not None:
            out["segments"] = self.segments.tolist()
        if self.error_spans is not None:
            out["error_spans"] = [[dict(span) for span in segment] for segment in self.error_spans]
        return out

    def __str__(self) -> str:
        text = f"{self.name} = {self.score:.4f}"
        if self.ci is not None:
            text += f" (±{self.ci.half_width:.4f})"
        return f"{text} [{self.signature}]"
