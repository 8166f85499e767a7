"""A small report of the bundled demo data (two English systems, 20 segments), for renderers and tests."""

from __future__ import annotations

from importlib import resources

from nlpeval.reports.model import Report


def demo_lines(name: str) -> list[str]:
    """Lines of a bundled demo file (``ref.en``, ``system-a.en``, ``system-b.en``)."""
    text = (resources.files("nlpeval") / "data" / "demo" / name).read_text(encoding="utf-8")
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def demo_report(*, n_bootstrap: int = 200, seed: int = 12345) -> Report:
    """The report of the demo systems (bleu, chrf, ter; fast: well under a second).

    Examples
    --------
    >>> model = demo_report()
    >>> model.systems, model.leaderboard.metrics
    (('system-a', 'system-b'), ('bleu', 'chrf', 'ter'))
    """
    from nlpeval.reports.build import report

    return report(
        {"system-a": demo_lines("system-a.en"), "system-b": demo_lines("system-b.en")},
        demo_lines("ref.en"),
        n_bootstrap=n_bootstrap,
        n_randomization=n_bootstrap,
        seed=seed,
        title="nlpeval demo",
        command="nlpeval demo --report demo.html",
    )
