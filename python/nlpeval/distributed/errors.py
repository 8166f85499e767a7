"""Errors of the distributed path (plain one-argument exceptions, so they pickle across processes)."""

from __future__ import annotations


class IncompatiblePartialsError(ValueError):
    """Two partials cannot be merged: different metrics, configurations, versions or resampling."""


class NotDecomposableError(ValueError):
    """The metric's score is not a function of merged statistics, so it cannot be computed in pieces."""


class PartitionInputError(ValueError):
    """Bad input found in one partition of a distributed collection (the message names partition and row).

    The partition reader sets what it knows of the bad row on the error (``None`` when unknown), so the command
    line can name ``file:line`` (``nlpeval.cli.dask_inputs.locate``).
    """

    #: the partition's index and the row's position in it
    partition: int | None = None
    row: int | None = None
    #: where the row came from, as the input said (e.g. ``file:row`` of a data file), else None
    location: object = None
    #: the message without the position; the side (``"references"``...) and the reference's index it names
    detail: str | None = None
    side: str | None = None
    reference: int | None = None


class PartialFormatError(ValueError):
    """Bytes or a file that are not a readable nlpeval partial."""
