"""Checked numeric flags: a bad value is refused while the command line is parsed, naming the flag.

``type=count(1)`` and friends raise :class:`argparse.ArgumentTypeError`, which the parser reports as
``nlpeval score: error: argument --bootstrap: expected an integer of at least 0, got '-5'; see nlpeval
score --help`` (exit 2) before any input is read: no silent fallback (``--paired-n 0`` meaning 1000) and
no message from deep inside NumPy naming a Python parameter.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def count(minimum: int) -> Callable[[str], int]:
    """An integer of at least ``minimum`` (resamples, sizes, digits).

    Examples
    --------
    >>> count(1)("3")
    3
    >>> count(1)("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected an integer of at least 1, got '0'
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer of at least {minimum}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer of at least {minimum}, got {text!r}")
        return value

    parse.__name__ = "count"
    return parse


def resamples(text: str) -> int:
    """A number of bootstrap resamples: 0 (none) or at least 2.

    Examples
    --------
    >>> resamples("0"), resamples("1000")
    (0, 1000)
    >>> resamples("1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected 0 (none) or an integer of at least 2, got '1'
    """
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0 or value == 1:
        raise argparse.ArgumentTypeError(f"expected 0 (none) or an integer of at least 2, got {text!r}")
    return value


def seed(text: str) -> int:
    """A random seed: an integer from 0 to 2**32 - 1 (what every generator here accepts).

    Examples
    --------
    >>> seed("12345")
    12345
    >>> seed("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected an integer seed from 0 to 4294967295, got '-1'
    """
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"expected an integer seed from 0 to {2**32 - 1}, got {text!r}")
    return value


def fraction(text: str) -> float:
    """A number strictly between 0 and 1 (a significance level, a confidence level).

    Examples
    --------
    >>> fraction("0.05")
    0.05
    >>> fraction("1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a number between 0 and 1 (exclusive), got '1'
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1 (exclusive), got {text!r}")
    return value


def positive(text: str) -> float:
    """A finite number greater than 0 (a logarithm base, a scale).

    Examples
    --------
    >>> positive("2")
    2.0
    >>> positive("nan")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a finite number greater than 0, got 'nan'
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a finite number greater than 0, got {text!r}")
    return value
