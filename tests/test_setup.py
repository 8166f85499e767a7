"""The README's test command is CI's, no test skips, and the tests' caches stay in a temporary folder.

Running the README's test command in a fresh clone takes minutes (CI does it); these checks are the
cheap part that keeps it honest: the README names the script CI runs, the script runs the command the
README describes, no test can skip for want of something the command installs, and every cache the
tests cause is written under the temporary folder ``conftest.py`` makes.
"""

from __future__ import annotations

import ast
import os
import re
import tempfile
from pathlib import Path

from nlpeval.core.cache import cache_folder

ROOT = Path(__file__).resolve().parents[1]
CI = ROOT / ".ci" / "run"

#: the only way a test may skip: {(file, function or ""): (reason, the test that checks the reason)}.
#: Empty: everything a test needs is installed by the README's test command (.ci/run).
ALLOWED_SKIPS: dict[tuple[str, str], tuple[str, str]] = {}

#: pytest's ways to skip (called or used as a decorator)
SKIP_NAMES = {"skip", "skipif", "importorskip", "xfail"}


def _readme_test_command() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"To run every test[^\n]*\n\n```sh\n(.*?)\n```", text, flags=re.S)
    assert match, "the README's set-up section shows the test command after 'To run every test'"
    return match.group(1).strip()


def _ci_test_line() -> str:
    lines = CI.read_text(encoding="utf-8").splitlines()
    marker = next(i for i, line in enumerate(lines) if line.startswith("# The README's test command (keep"))
    command = next(line for line in lines[marker + 1 :] if line and not line.startswith(("#", "set ")))
    return command.strip()


def test_the_readme_test_command_is_the_ci_script() -> None:
    assert _readme_test_command() == "bash .ci/run"
    assert CI.read_text(encoding="utf-8").startswith("#!/usr/bin/env bash\n")


def test_the_readme_describes_what_the_ci_script_runs() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    script = CI.read_text(encoding="utf-8")
    command = _ci_test_line()
    # one build of the test extra, the Rust tests, then pytest -n 2 (other checks may sit between)
    assert command.startswith("pip install -q '.[test]' && cargo test --release && ")
    assert command.endswith(" && python -m pytest -n 2")
    assert f"`{command}`" in text, "the README quotes the command .ci/run runs, character for character"
    packages = re.search(r'^\s*packages="([^"]+)"', script, flags=re.M)
    assert packages, ".ci/run lists its Debian packages in one variable"
    for package in packages.group(1).split():
        assert f"`{package}`" in text, f"the README names {package}, which .ci/run installs"
    # an empty collection is a failure in CI, not a success
    assert 'if [ "$rc" -eq 5 ]' in script and "exit 1" in script


def _skips(path: Path) -> list[tuple[str, int, str]]:
    """(function, line, name) of every pytest skip in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int, str]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = function
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = child.name
            if isinstance(child, ast.Attribute) and child.attr in SKIP_NAMES:
                found.append((function, child.lineno, child.attr))
            if isinstance(child, ast.ImportFrom) and child.module and child.module.startswith(("pytest", "unittest")):
                found.extend((function, child.lineno, a.name) for a in child.names if a.name in SKIP_NAMES)
            visit(child, name)

    visit(tree, "")
    return found


def test_no_test_skips() -> None:
    found = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for function, line, name in _skips(path):
            if (path.name, function) not in ALLOWED_SKIPS:
                found.append(f"{path.name}:{line}: {name} in {function or 'the module'}")
    assert not found, "install what the test needs in .ci/run or the test extra instead of skipping:\n" + "\n".join(
        found
    )
    for (name, _function), (reason, test) in ALLOWED_SKIPS.items():
        assert reason and (ROOT / "tests" / name).is_file() and test in (ROOT / "tests" / name).read_text()


def test_the_skip_finder_finds_skips(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        "import pytest\nfrom pytest import importorskip\n"
        "np = pytest.importorskip('numpy')\n"
        "@pytest.mark.skipif(True, reason='x')\ndef test_a():\n    pytest.skip('no')\n"
        "def test_b():\n    assert '<skipped>' and 'pytest.skip(' \n"
    )
    assert sorted((f, n) for f, _, n in _skips(sample)) == [
        ("", "importorskip"),
        ("", "importorskip"),
        ("test_a", "skip"),
        ("test_a", "skipif"),
    ]


def test_caches_go_to_a_temporary_folder() -> None:
    temporary = Path(tempfile.gettempdir()).resolve()
    home_cache = (Path.home() / ".cache" / "nlpeval").resolve()
    folder = cache_folder()
    assert folder is not None and folder.resolve() != home_cache
    assert temporary in folder.resolve().parents
    for variable in ("NLPEVAL_CACHE_DIR", "MPLCONFIGDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        assert temporary in Path(os.environ[variable]).resolve().parents, variable


def test_every_extra_the_code_or_readme_names_exists() -> None:
    """An error that says ``pip install 'nlpeval[X]'`` must name an extra that pip can install."""
    import re
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib

    root = Path(__file__).resolve().parents[1]
    extras = set(
        tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    )
    texts = [path.read_text(encoding="utf-8") for path in (root / "python" / "nlpeval").rglob("*.py")]
    texts.append((root / "README.md").read_text(encoding="utf-8"))
    named = {name for text in texts for name in re.findall(r"nlpeval\[([a-z0-9_-]+)\]", text)}
    assert {"neural", "meteor", "dask", "lm"} <= named
    assert named <= extras, sorted(named - extras)
