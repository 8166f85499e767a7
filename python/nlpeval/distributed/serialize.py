"""Versioned binary form of a :class:`~nlpeval.distributed.partial.Partial` (an ``.npz`` archive, no pickle).

Layout (format version 1): ``header`` is UTF-8 JSON stored as a ``uint8`` array with
``format``, ``format_version``, ``nlpeval_version``, ``metric`` (``module:Class``),
``config`` (the metric's dataclass fields; tuples tagged), ``schema`` (fields and merge
rules, checked on load), ``n_segments``, ``seed`` and ``signature`` (for people reading
the file); ``totals`` and, with Poisson resampling, ``boot`` keep their dtype exactly.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import io
import json
import os
import tempfile
import zipfile
from typing import TYPE_CHECKING, Any

import numpy as np

from nlpeval.distributed.errors import PartialFormatError

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric
    from nlpeval.distributed.partial import Partial

FORMAT = "nlpeval-partial"
FORMAT_VERSION = 1


def _encode(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return {"tuple": [_encode(item, where) for item in value]}
    if isinstance(value, list):
        return [_encode(item, where) for item in value]
    raise PartialFormatError(f"cannot serialise {where}={value!r}: only plain values travel in a partial file")


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"tuple"}:
        return tuple(_decode(item) for item in value["tuple"])
    if isinstance(value, list):
        return [_decode(item) for item in value]
    return value


def metric_config(metric: CorpusMetric) -> dict[str, Any]:
    """The metric's constructor options as plain JSON values.

    Examples
    --------
    >>> import nlpeval
    >>> metric_config(nlpeval.TER())
    {'normalized': False, 'no_punct': False, 'asian_support': False, 'case_sensitive': False,
     'max_cells': 10000000000}
    """
    if not dataclasses.is_dataclass(metric):
        raise PartialFormatError(f"cannot serialise {type(metric).__name__}: not a dataclass metric")
    return {
        f.name: _encode(getattr(metric, f.name), f"{type(metric).__name__}.{f.name}")
        for f in dataclasses.fields(metric)
        if f.init
    }


def build_metric(qualified: str, config: dict[str, Any]) -> CorpusMetric:
    """Rebuild a metric from ``module:Class`` and its options (only nlpeval's own classes)."""
    from nlpeval.core.metric import CorpusMetric

    module_name, _, class_name = qualified.partition(":")
    if not module_name.startswith("nlpeval.") or not class_name:
        raise PartialFormatError(f"unknown metric class {qualified!r} in partial")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError):
        raise PartialFormatError(f"unknown metric class {qualified!r} in partial") from None
    if not (isinstance(cls, type) and issubclass(cls, CorpusMetric)):
        raise PartialFormatError(f"{qualified!r} is not a corpus metric")
    return cls(**{key: _decode(value) for key, value in config.items()})


def partial_to_bytes(partial: Partial) -> bytes:
    """Serialise ``partial`` (see the module docstring for the layout)."""
    metric = partial.metric
    schema = metric.schema
    header = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "nlpeval_version": partial.version,
        "metric": f"{type(metric).__module__}:{type(metric).__qualname__}",
        "config": metric_config(metric),
        "schema": {"fields": list(schema.fields), "merge": list(schema.merge)},
        "n_segments": int(partial.n_segments),
        "seed": partial.seed,
        "signature": str(partial.signature()) if partial.n_segments else None,
    }
    arrays = {
        "header": np.frombuffer(json.dumps(header, sort_keys=True).encode("utf-8"), dtype=np.uint8),
        "totals": np.asarray(partial.totals),
    }
    if partial.boot is not None:
        arrays["boot"] = np.asarray(partial.boot)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]  # numpy's stub types the keyword arrays as allow_pickle
    return buffer.getvalue()


def partial_from_bytes(data: bytes, *, source: str = "partial") -> Partial:
    """Read :func:`partial_to_bytes` output; ``source`` names the input in error messages."""
    from nlpeval.distributed.partial import Partial

    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise PartialFormatError(f"{source}: not an nlpeval partial ({exc})") from None
    try:
        header = json.loads(bytes(arrays["header"]).decode("utf-8"))
        if header.get("format") != FORMAT:
            raise KeyError("format")
    except (KeyError, ValueError, UnicodeDecodeError):
        raise PartialFormatError(f"{source}: not an nlpeval partial (no valid header)") from None
    if header["format_version"] != FORMAT_VERSION:
        raise PartialFormatError(
            f"{source}: partial format version {header['format_version']} is not supported "
            f"(this nlpeval reads version {FORMAT_VERSION})"
        )
    try:
        metric = build_metric(header["metric"], header["config"])
    except (TypeError, ValueError) as exc:
        raise PartialFormatError(f"{source}: cannot rebuild the metric: {exc}") from None
    schema = metric.schema
    if [list(schema.fields), list(schema.merge)] != [header["schema"]["fields"], header["schema"]["merge"]]:
        raise PartialFormatError(f"{source}: its statistics fields do not match {metric.name}'s in this nlpeval")
    totals = arrays["totals"]
    boot = arrays.get("boot")
    if totals.shape != (schema.width,) or (boot is not None and (boot.ndim != 2 or boot.shape[1] != schema.width)):
        raise PartialFormatError(f"{source}: statistics of the wrong shape")
    return Partial(metric, totals, int(header["n_segments"]), boot, header["seed"], header["nlpeval_version"])


def save(partial: Partial, path: str) -> None:
    """Write ``partial`` to ``path`` via a temporary file and a rename (never half-written)."""
    data = partial_to_bytes(partial)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".nlpeval-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def load(path: str) -> Partial:
    """Read a partial file written by :func:`save`."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise PartialFormatError(f"cannot read {path}: {exc.strerror}") from None
    return partial_from_bytes(data, source=path)
