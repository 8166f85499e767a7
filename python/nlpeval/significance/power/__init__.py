"""Power analysis: how likely a paired test is to detect a true difference between two systems.

:func:`power` simulates test sets from a model of two systems' differences (Card et al. 2020's Laplace
model for BLEU, McNemar's table for accuracy, or pilot data of two systems under any corpus metric),
runs the paired test on each, and reports power, Type-M and Type-S error;
:func:`minimum_detectable_effect` and :func:`required_sample_size` search for the effect or test-set
size that reaches a target power. ``notebook=True`` reproduces Card et al.'s notebooks draw for draw.
"""

from __future__ import annotations

from nlpeval.significance.power.analysis import minimum_detectable_effect, power, required_sample_size
from nlpeval.significance.power.models import PowerSettingError, mcnemar_table
from nlpeval.significance.power.result import PowerResult, PowerSearch

__all__ = [
    "PowerResult",
    "PowerSearch",
    "PowerSettingError",
    "mcnemar_table",
    "minimum_detectable_effect",
    "power",
    "required_sample_size",
]
