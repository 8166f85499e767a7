"""METEOR's English resources on other languages: one warning per process; the ``meteor`` extra brings its table."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import tomllib

import nlpeval
from nlpeval.metrics.meteor import language, paraphrase
from nlpeval.metrics.meteor.language import MeteorLanguageWarning

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that has not warned yet."""
    monkeypatch.setattr(language, "_warned", False)
    monkeypatch.setattr(language, "_english_seen", False)


def _caught(call) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [w for w in caught if issubclass(w.category, MeteorLanguageWarning)]


def test_german_references_warn_once(fresh, wmt17) -> None:
    hyps, refs = wmt17["FBK.4870"][:60], wmt17["reference"][:60]
    for flavor, options in (("meteor1.5", {"modules": ("exact",)}), ("nltk", {})):
        language._warned = False
        first = _caught(lambda flavor=flavor, options=options: nlpeval.meteor(hyps, refs, flavor=flavor, **options))
        assert len(first) == 1 and "do not look English" in str(first[0].message)
        assert (
            _caught(lambda flavor=flavor, options=options: nlpeval.meteor(hyps, refs, flavor=flavor, **options)) == []
        )


@pytest.mark.parametrize("name", ["ted", "sum"])
def test_english_references_do_not_warn(fresh, compare_mt, name: str) -> None:
    hyps, refs = compare_mt[f"{name}.sys1.eng"][:200], compare_mt[f"{name}.ref.eng"][:200]
    assert _caught(lambda: nlpeval.meteor(hyps, refs, modules=("exact",))) == []
    assert language._english_seen  # later batches skip the check


def test_too_little_text_says_nothing(fresh) -> None:
    assert _caught(lambda: nlpeval.meteor(["Katze"], ["Die Katze"], modules=("exact",))) == []
    assert not language._warned and not language._english_seen


def test_the_cli_warns_in_one_line(tmp_path: Path, wmt17) -> None:
    (tmp_path / "ref.de").write_text("\n".join(wmt17["reference"][:80]) + "\n", encoding="utf-8")
    (tmp_path / "sys.de").write_text("\n".join(wmt17["FBK.4870"][:80]) + "\n", encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(Path(nlpeval.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")])
        ),
    }
    args = [sys.executable, "-m", "nlpeval", "score", "-r", "ref.de", "-m", "meteor", "--meteor-modules", "exact"]
    args += ["sys.de", "sys.de"]
    run = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    (line,) = run.stderr.strip().splitlines()  # once, for two systems
    assert line.startswith("nlpeval score: warning: METEOR uses English resources")
    run = subprocess.run([*args[:7], "bleu", "sys.de"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert run.returncode == 0 and run.stderr == ""


def test_the_meteor_extra_brings_the_paraphrase_table(monkeypatch: pytest.MonkeyPatch) -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert any(req.startswith("pycocoevalcap") for req in extras["meteor"])
    monkeypatch.delenv(paraphrase.PARAPHRASE_ENV, raising=False)
    found = paraphrase.find_paraphrases()  # from pycocoevalcap (the test extra installs it too)
    assert found.name == "paraphrase-en.gz" and "pycocoevalcap" in found.parts
    monkeypatch.setattr(paraphrase, "_pycocoevalcap_table", lambda: None)
    with pytest.raises(paraphrase.ParaphraseTableNotFoundError, match=r"pip install 'nlpeval\[meteor\]'"):
        paraphrase.find_paraphrases()
