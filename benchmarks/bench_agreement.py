"""Agreement and correlation: Krippendorff's alpha (the issue's 5 x 40,000 case), Fleiss, Cohen, SciPy correlations."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from harness import Case


def _reliability(raters: int, units: int, missing: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, units)
    data = np.where(rng.random((raters, units)) < 0.6, truth, rng.integers(1, 6, (raters, units))).astype(float)
    data[rng.random(data.shape) < missing] = np.nan
    return data


def cases(data: Path) -> list[Case]:
    from importlib.metadata import version

    import krippendorff
    import scipy
    import sklearn
    import statsmodels
    from scipy import stats
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    from nlpeval import agreement, correlation

    reliability = _reliability(5, 40_000, 0.1)
    levels = ("nominal", "ordinal", "interval", "ratio")

    def alpha_ref() -> None:
        for level in levels:
            krippendorff.alpha(reliability, level_of_measurement=level)

    def alpha_ours() -> None:
        for level in levels:
            agreement.krippendorff_alpha(reliability, level=level)

    complete = _reliability(5, 40_000, 0.0, seed=1).T.astype(int)

    def fleiss_ref() -> None:
        fleiss_kappa(aggregate_raters(complete)[0])

    def fleiss_ours() -> None:
        agreement.fleiss_kappa(complete)

    a, b = complete[:, 0], complete[:, 1]

    def cohen_ref() -> None:
        for weights in (None, "linear", "quadratic"):
            cohen_kappa_score(a, b, weights=weights)

    def cohen_ours() -> None:
        for weights in (None, "linear", "quadratic"):
            agreement.cohen_kappa(a, b, weights=weights)

    rng = np.random.default_rng(2)
    x = rng.integers(0, 100, 200_000).astype(float)
    y = np.round(x / 10 + rng.normal(size=200_000), 1)

    def correlations_ref() -> None:
        stats.pearsonr(x, y)
        stats.spearmanr(x, y)
        stats.kendalltau(x, y)

    def correlations_ours() -> None:
        correlation.pearson(x, y)
        correlation.spearman(x, y)
        correlation.kendall(x, y)

    systems, items = 16, 3004
    human = rng.normal(size=(systems, items))
    metric = np.round(human + rng.normal(size=(systems, items)), 1)

    def per_item_ref() -> None:
        # the per-item loop of mt-metrics-eval's average_by="item"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.nanmean([stats.kendalltau(metric[:, i], human[:, i]).statistic for i in range(items)])

    def per_item_ours() -> None:
        correlation.meta_evaluate(metric, human, level="segment", method="kendall", group_by="item")

    return [
        Case(
            "Krippendorff alpha, 5 x 40,000, 10% missing, 4 levels",
            f"krippendorff {version('krippendorff')}",
            alpha_ref,
            alpha_ours,
            1.0,
        ),
        Case(
            "Fleiss kappa, 40,000 units x 5 raters", f"statsmodels {statsmodels.__version__}", fleiss_ref, fleiss_ours
        ),
        Case("Cohen kappa, 40,000 items, 3 weightings", f"scikit-learn {sklearn.__version__}", cohen_ref, cohen_ours),
        Case(
            "Pearson + Spearman + Kendall, 200,000 pairs with ties",
            f"scipy {scipy.__version__}",
            correlations_ref,
            correlations_ours,
        ),
        Case(
            "segment-level Kendall per item, 16 systems x 3,004 items",
            f"scipy {scipy.__version__} loop",
            per_item_ref,
            per_item_ours,
        ),
    ]
