"""NumPy's legacy ``RandomState`` draws made by the native core, number for number.

mt-metrics-eval's PERM-BOTH test (``np.random.binomial(1, 0.5, n)``) and Card et al.'s power
notebooks (``np.random.rand(n) > 0.5``) decide every resample from legacy MT19937 uniforms. The
core continues the generator from its state (``key``, ``pos``), makes the same numbers, and the
state it hands back is set on the ``RandomState``, which then continues exactly as after NumPy's
own calls. Without the kernels (an older build of the core), or when a once-per-process check
against NumPy's ``random_sample`` fails, these functions return None and callers draw with NumPy.

Examples
--------
>>> import numpy as np
>>> a, b = np.random.RandomState(5), np.random.RandomState(5)
>>> flags = uniform_above(a, 1000, 0.5)
>>> flags is None or (flags.tolist() == (b.random_sample(1000) > 0.5).tolist() and a.rand() == b.rand())
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

_CHECKED: bool | None = None


def _kernel(name: str) -> Any:
    from nlpeval import _native

    return getattr(_native, name, None)


def _state(rs: np.random.RandomState) -> tuple[Any, np.ndarray, int] | None:
    generator = getattr(rs, "_bit_generator", None)
    state = getattr(generator, "state", None)
    if not isinstance(state, dict) or state.get("bit_generator") != "MT19937":
        return None
    inner = state["state"]
    return generator, np.ascontiguousarray(inner["key"], dtype=np.uint32), int(inner["pos"])


def _set(generator: Any, key: np.ndarray, pos: int) -> None:
    generator.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}


def _ready() -> bool:
    """The kernels exist and give NumPy's numbers (checked once per process)."""
    global _CHECKED
    if _CHECKED is None:
        above, effects = _kernel("mt19937_above"), _kernel("mt19937_swap_effects")
        ok = above is not None and effects is not None
        if ok:
            a, b = np.random.RandomState(20241127), np.random.RandomState(20241127)
            a.random_sample(5)
            state = _state(a)
            ok = state is not None
            if state is not None:
                generator, key, pos = state
                flags, key, pos = above(key, pos, 1500, 0.5)
                _set(generator, key, pos)
                b.random_sample(5)
                ok = bool(np.array_equal(flags, b.random_sample(1500) > 0.5) and a.random_sample() == b.random_sample())
        _CHECKED = ok
    return _CHECKED


def uniform_above(rs: np.random.RandomState, n: int, threshold: float) -> np.ndarray | None:
    """``rs.random_sample(n) > threshold`` (bool), leaving ``rs`` where that call leaves it; None when
    the core cannot draw them (then nothing is drawn)."""
    if not _ready():
        return None
    state = _state(rs)
    if state is None:
        return None
    generator, key, pos = state
    flags, key, pos = _kernel("mt19937_above")(key, pos, int(n), float(threshold))
    _set(generator, key, pos)
    return np.asarray(flags)


def swap_effects(rs: np.random.RandomState, samples: np.ndarray, rows: int, threshold: float) -> np.ndarray | None:
    """``[np.sum(samples * (rs.rand(len(samples)) > threshold)) for _ in range(rows)]`` (BLEU.ipynb's
    randomizations of one trial), leaving ``rs`` where those calls leave it; None when the core cannot
    draw them (then nothing is drawn)."""
    if not _ready():
        return None
    state = _state(rs)
    if state is None:
        return None
    generator, key, pos = state
    values = np.ascontiguousarray(samples, dtype=np.float64)
    effects, key, pos = _kernel("mt19937_swap_effects")(key, pos, values, int(rows), float(threshold))
    _set(generator, key, pos)
    return np.asarray(effects)
