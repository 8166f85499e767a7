"""Options that several families declare (one :class:`~nlpeval.metrics.registry.Option` object each)."""

from __future__ import annotations

from nlpeval.metrics.registry import Option

#: case-insensitive scoring (BLEU, chrF, WER/CER/MER/WIL/WIP, METEOR)
LOWERCASE = Option("lowercase", "--lowercase", "flag", False, "case-insensitive scoring", short="-lc")
