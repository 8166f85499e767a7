"""Inter-annotator agreement: Cohen's, Fleiss' and Krippendorff's coefficients, raw agreement, rating summaries.

Every coefficient returns a :class:`~nlpeval.Score` (value, components, signature)
with an optional seeded bootstrap confidence interval over units
(``n_bootstrap=1000``). Undefined values (no variation to agree on) follow
``zero_division``: NaN with an :class:`~nlpeval.UndefinedMetricWarning` by default.

Orientation: :func:`cohen_kappa` takes two label sequences; :func:`fleiss_kappa`
and :func:`percent_agreement` take units x raters; :func:`krippendorff_alpha` and
:func:`rating_summary` take raters x units (the ``krippendorff`` package's layout).

Examples
--------
>>> from nlpeval import agreement
>>> round(agreement.cohen_kappa([1, 2, 2, 3], [1, 2, 3, 3]).score, 4)
0.6364
"""

from __future__ import annotations

from nlpeval.agreement.cohen import cohen_kappa
from nlpeval.agreement.fleiss import fleiss_kappa
from nlpeval.agreement.krippendorff import krippendorff_alpha
from nlpeval.agreement.percent import percent_agreement
from nlpeval.agreement.summary import RaterSummary, RatingSummary, rating_summary

__all__ = [
    "RaterSummary",
    "RatingSummary",
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "percent_agreement",
    "rating_summary",
]
