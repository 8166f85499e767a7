"""Whole process: ``nlpeval score`` against the ``sacrebleu`` command line (start-up included)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from harness import Case


def _command(name: str) -> list[str]:
    found = shutil.which(name)
    return [found] if found else [sys.executable, "-m", name]


def cases(data: Path) -> list[Case]:
    import sacrebleu

    folder = data / "wmt17-en-de"
    ref, system = str(folder / "reference.de"), str(folder / "online-B.0.de")
    ours = [*_command("nlpeval"), "score", "-r", ref, "-m", "bleu,chrf", system]
    theirs = [*_command("sacrebleu"), ref, "-i", system, "-m", "bleu", "chrf"]

    def run(argv: list[str]) -> None:
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)

    return [
        Case(
            "whole process: score -m bleu,chrf, one WMT17 system",
            f"sacrebleu {sacrebleu.__version__} CLI",
            lambda: run(theirs),
            lambda: run(ours),
            3,
            repeat=5,
        ),
    ]
