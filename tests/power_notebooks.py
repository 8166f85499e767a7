"""Run the code cells of Card et al. (2020)'s power notebooks (``shared/oracles/nlp-power-analysis``).

The notebooks are not installable: this module reads their code cells from the ipynb JSON and executes
them, with the parameters of a cell replaced by name (``n_trials = 500`` -> ``n_trials = 20``) so that a
reduced run goes through the very same code. Used by ``tests/fixtures/power/make_goldens.py`` (full runs,
written as golden files) and by ``tests/test_power.py`` (small live runs when the oracle is present).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GOLDENS = HERE / "fixtures" / "power"
#: the oracle beside the repository (``../shared``) or two levels up from a worktree (``/work/wt/NAME``)
CANDIDATES = [parent / "shared" / "oracles" / "nlp-power-analysis" for parent in (HERE.parents[1], HERE.parents[2])]


def oracle() -> Path | None:
    """The notebooks' folder, or None when no oracle is beside the repository."""
    return next((path for path in CANDIDATES if (path / "notebooks_for_power_calculations").is_dir()), None)


def code_cells(name: str, root: Path | None = None) -> list[str]:
    """The code cells of ``notebooks_for_power_calculations/<name>``, IPython magics dropped."""
    folder = (root or oracle()) / "notebooks_for_power_calculations"  # type: ignore[operator]
    notebook = json.loads((folder / name).read_text(encoding="utf-8"))
    cells = []
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            source = "".join(cell["source"])
            cells.append("\n".join(line for line in source.splitlines() if not line.lstrip().startswith("%")))
    return cells


def printed_outputs(name: str, root: Path | None = None) -> list[str]:
    """The text each code cell printed when the notebook was saved."""
    folder = (root or oracle()) / "notebooks_for_power_calculations"  # type: ignore[operator]
    notebook = json.loads((folder / name).read_text(encoding="utf-8"))
    return [
        "".join("".join(out.get("text", "")) for out in cell.get("outputs", []))
        for cell in notebook["cells"]
        if cell["cell_type"] == "code"
    ]


def with_parameters(source: str, **values: Any) -> str:
    """``source`` with each ``name = ...`` assignment at the start of a line set to ``values[name]``."""
    for name, value in values.items():
        source, count = re.subn(rf"(?m)^{name}\s*=\s*[^#\n]*", f"{name} = {value!r}", source)
        if count != 1:
            raise ValueError(f"no single assignment of {name} in the cell")
    return source


def run_cells(cells: list[str]) -> tuple[dict[str, Any], str]:
    """Execute cells in one namespace; return the namespace and what they printed."""
    namespace: dict[str, Any] = {"__name__": "notebook"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for cell in cells:
            exec(compile(cell, "<notebook>", "exec"), namespace)
    return namespace, out.getvalue()


def bleu(root: Path | None = None, **parameters: Any) -> dict[str, Any]:
    """BLEU.ipynb's simulation (its own seed line included) with some parameters replaced."""
    cells = code_cells("BLEU.ipynb", root)
    cells[1] = with_parameters(cells[1], **parameters)
    namespace, printed = run_cells(cells[:2])
    import numpy as np

    delta = namespace["delta_bleu"]
    sig = namespace["sig_diffs"]
    return {
        "parameters": {
            k: namespace[k] for k in ("p_zero", "N", "delta_bleu", "b_zero", "n_trials", "n_randomizations")
        },
        "seed": int(re.search(r"np\.random\.seed\((\d+)\)", cells[1]).group(1)),  # type: ignore[union-attr]
        "mean_observed_difference": float(np.mean(namespace["all_diffs"])),
        "power": float(namespace["power"]),
        "type_m": float(np.mean(np.abs(sig)) / np.abs(delta)) if sig else None,
        "type_s": float(np.mean(np.sign(sig) != np.sign(delta))) if sig else None,
        "printed": printed,
        "observed_differences": [float(d) for d in namespace["all_diffs"]],
        "significant": [d in set(sig) for d in namespace["all_diffs"]],
    }


def accuracy_compute_power(table: list[list[float]], n: int, r: int, seed: int, alpha: float = 0.05) -> dict[str, Any]:
    """accuracy.ipynb's ``compute_power`` on one table after ``np.random.seed(seed)`` (the notebook sets no seed)."""
    import numpy as np

    cells = code_cells("accuracy.ipynb")
    namespace, _ = run_cells(cells[:2])
    np.random.seed(seed)
    power, mean_effect, type_m, type_s = namespace["compute_power"](np.array(table), n, alpha=alpha, r=r)
    return {
        "table": table,
        "n": n,
        "r": r,
        "seed": seed,
        "alpha": alpha,
        "power": float(power),
        "mean_effect": float(mean_effect),
        "type_m": float(type_m),
        "type_s": float(type_s),
    }


def accuracy_tables() -> dict[str, tuple[list[list[float]], int]]:
    """The three tables accuracy.ipynb builds (cells 2 and 3), with their dataset sizes, from its own code."""
    import numpy as np

    cells = code_cells("accuracy.ipynb")
    tables: dict[str, tuple[list[list[float]], int]] = {}

    def capture(label: str) -> Any:
        def compute_power(prob_table: Any, dataset_size: int, alpha: float = 0.05, r: int = 5000) -> tuple:
            tables[f"{label}{sum(k.startswith(label) for k in tables)}"] = (
                np.asarray(prob_table).tolist(),
                dataset_size,
            )
            return (np.nan, np.nan, np.nan, np.nan)

        return compute_power

    namespace, _ = run_cells(cells[:1])
    for label, cell in (("bounds", cells[2]), ("agreement", cells[3])):
        namespace["compute_power"] = capture(label)
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(cell, "<notebook>", "exec"), namespace)
    return tables
