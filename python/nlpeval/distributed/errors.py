"""Errors of the distributed path (plain one-argument exceptions, so they pickle across processes)."""

from __future__ import annotations


class IncompatiblePartialsError(ValueError):
    """Two partials cannot be merged: different metrics, configurations, versions or resampling."""


class NotDecomposableError(ValueError):
    """The metric's score is not a function of merged statistics, so it cannot be computed in pieces."""


class PartitionInputError(ValueError):
    """Bad input found in one partition of a distributed collection (the message names partition and row)."""


class PartialFormatError(ValueError):
    """Bytes or a file that are not a readable nlpeval partial."""
