"""Engine-neutral distributed evaluation: partial results that merge exactly.

See :class:`~nlpeval.distributed.partial.Partial`; the Dask adapter is :mod:`nlpeval.dask`.
Nothing here imports an engine.
"""

from __future__ import annotations

from nlpeval.distributed.curves import ScoreHistogram
from nlpeval.distributed.decomposable import NOT_DECOMPOSABLE, is_decomposable
from nlpeval.distributed.errors import (
    IncompatiblePartialsError,
    NotDecomposableError,
    PartialFormatError,
    PartitionInputError,
)
from nlpeval.distributed.partial import Partial

__all__ = [
    "NOT_DECOMPOSABLE",
    "IncompatiblePartialsError",
    "NotDecomposableError",
    "Partial",
    "PartialFormatError",
    "PartitionInputError",
    "ScoreHistogram",
    "is_decomposable",
]
