"""The integrations and data-file readers stay optional: importing nlpeval loads none of their heavy dependencies."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("torch", "torchmetrics", "transformers", "fastai", "pyarrow", "pandas")


def test_import_nlpeval_loads_no_heavy_dependency():
    code = (
        "import sys, nlpeval, nlpeval.integrations, nlpeval.cli.datafiles, nlpeval.cli.main\n"
        "nlpeval.cli.main.build_parser()\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_lazy_names_resolve_to_their_modules():
    import nlpeval.integrations as integrations

    assert sorted(dir(integrations)) == sorted(integrations._LAZY)
    for name, module in integrations._LAZY.items():
        assert getattr(integrations, name).__module__ == module
