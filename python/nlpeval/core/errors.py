"""Errors and warnings raised by nlpeval."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input data, with the segment (and side) it was found in.

    Parameters
    ----------
    message : str
        What is wrong, in one line.
    segment : int or None
        Zero-based index of the offending segment, if the problem is in one.
    side : {"hypotheses", "references"} or None
        Which input holds the offending segment.
    reference : int or None
        For ``side="references"``, the zero-based position of the reference
        within the segment's list of references.

    Examples
    --------
    >>> err = InputError("is None, expected str", segment=3, side="hypotheses")
    >>> str(err)
    'hypotheses: segment 3: is None, expected str'
    >>> isinstance(err, ValueError)
    True
    """

    def __init__(
        self,
        message: str,
        *,
        segment: int | None = None,
        side: str | None = None,
        reference: int | None = None,
    ) -> None:
        self.message = message
        self.segment = segment
        self.side = side
        self.reference = reference
        super().__init__(self._describe())

    def _describe(self) -> str:
        where = []
        if self.side is not None:
            where.append(self.side)
        if self.segment is not None:
            seg = f"segment {self.segment}"
            if self.reference is not None:
                seg += f" (reference {self.reference})"
            where.append(seg)
        return ": ".join([*where, self.message])


class UndefinedMetricWarning(UserWarning):
    """A ratio was 0/0 and was replaced according to the ``zero_division`` policy."""
