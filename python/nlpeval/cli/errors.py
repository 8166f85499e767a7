"""Errors of the command line."""

from __future__ import annotations


class UsageError(Exception):
    """A problem with the command line or its input files (exit code 2, one line, no traceback)."""
