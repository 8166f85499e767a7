"""The provenance every report records (version, command, resampling settings, inputs, metrics, options),
built in one place for the generation, classification and retrieval reports."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from nlpeval.reports.model import InputFile, MetricInfo, Provenance
from nlpeval.reports.settings import Resampling


def sha256_lines(lines: Iterable[str]) -> str:
    """The sha256 of ``lines``, each followed by a newline (the digest of an in-memory input).

    Examples
    --------
    >>> sha256_lines(["a"]) == hashlib.sha256(b"a\\n").hexdigest()
    True
    """
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.encode("utf-8", "surrogatepass"))
        digest.update(b"\n")
    return digest.hexdigest()


def memory_inputs(sides: Iterable[tuple[str, str, Sequence[str]]]) -> list[InputFile]:
    """:class:`InputFile` records (no path) of in-memory texts given as ``(role, name, lines)``.

    Examples
    --------
    >>> [(f.role, f.name, f.lines) for f in memory_inputs([("system", "A", ["x", "y"])])]
    [('system', 'A', 2)]
    """
    return [InputFile(role, name, None, len(lines), sha256_lines(lines)) for role, name, lines in sides]


def metric_info(name: str, label: str, signature: object, scale: float, higher_is_better: bool) -> MetricInfo:
    """The provenance record of one reported metric (its signature as text)."""
    return MetricInfo(name, label, str(signature), scale, higher_is_better)


def provenance(
    resampling: Resampling,
    *,
    command: str | None,
    inputs: Sequence[InputFile],
    metrics: Iterable[MetricInfo] = (),
    options: Mapping[str, Any] | None = None,
    preset: str | None = None,
) -> Provenance:
    """The :class:`Provenance` of a report made with ``resampling`` by the running nlpeval.

    Examples
    --------
    >>> record = provenance(Resampling(seed=3), command="test", inputs=[])
    >>> record.seed, record.n_bootstrap, record.options
    (3, 1000, {})
    """
    from nlpeval._version import __version__

    return Provenance(
        nlpeval_version=__version__,
        command=command,
        seed=resampling.seed,
        n_bootstrap=resampling.n_bootstrap,
        n_randomization=resampling.n_randomization,
        confidence=resampling.confidence,
        alpha=resampling.alpha,
        preset=preset,
        inputs=tuple(inputs),
        metrics=tuple(metrics),
        options=dict(options or {}),
    )
