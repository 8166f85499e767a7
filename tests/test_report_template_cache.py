"""The compiled-template cache of the HTML report: same page cold, warm, corrupt, unwritable or off."""

from __future__ import annotations

import io
import marshal
import pickle
import types
from pathlib import Path

import jinja2
import pytest
from jinja2.bccache import bc_magic

from nlpeval.core.cache import CACHE_ENV, read_private, write_private
from nlpeval.reports import html
from nlpeval.reports.demo import demo_report
from nlpeval.reports.html.template_cache import TemplateCache, template_cache


@pytest.fixture(scope="module")
def model():
    return demo_report(n_bootstrap=20)


@pytest.fixture(scope="module")
def uncached_page(model) -> str:
    """The page rendered with no bytecode cache at all (plain Jinja2 compile)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV, "")
        html._environment.cache_clear()
        assert html._environment().bytecode_cache is None
        page = html.render_html(model)
    html._environment.cache_clear()
    return page


def _render(model, monkeypatch: pytest.MonkeyPatch, folder: str) -> tuple[str, jinja2.Environment]:
    monkeypatch.setenv(CACHE_ENV, folder)
    html._environment.cache_clear()  # a fresh environment: as a new process
    try:
        env = html._environment()
        return html.render_html(model), env
    finally:
        html._environment.cache_clear()


def _cache_files(env: jinja2.Environment) -> list[Path]:
    cache = env.bytecode_cache
    assert isinstance(cache, TemplateCache)
    return sorted(cache.folder.glob("*.cache"))


def test_cold_and_warm_pages_are_identical(model, uncached_page, tmp_path, monkeypatch):
    cold, env = _render(model, monkeypatch, str(tmp_path))
    files = _cache_files(env)
    assert len(files) == 2  # page.html.j2 and macros.html.j2
    assert env.bytecode_cache.folder.parent == tmp_path
    stamps = [f.stat().st_mtime_ns for f in files]
    warm, env = _render(model, monkeypatch, str(tmp_path))
    assert cold == warm == uncached_page
    assert [f.stat().st_mtime_ns for f in _cache_files(env)] == stamps  # loaded, not written again


def test_warm_environment_loads_compiled_code(model, tmp_path, monkeypatch):
    _render(model, monkeypatch, str(tmp_path))
    compiled = []
    original = jinja2.Environment.compile

    def counting(self, *args, **kwargs):
        compiled.append(args[1] if len(args) > 1 else kwargs.get("name"))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    html._environment.cache_clear()
    try:
        html._environment().get_template("page.html.j2")
    finally:
        html._environment.cache_clear()
    assert compiled == []


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not a cache file",
        bc_magic,  # cut short after the header
        bc_magic + b"\x80\x04garbage",  # a broken pickle
        None,  # right header and checksum, code cut short
        "wrong-object",  # right header and checksum, a marshalled object that is not code
    ],
    ids=["empty", "garbage", "header-only", "bad-pickle", "truncated-code", "not-code"],
)
def test_corrupt_cache_files_are_ignored_and_rewritten(model, uncached_page, tmp_path, monkeypatch, content):
    _, env = _render(model, monkeypatch, str(tmp_path))
    for path in _cache_files(env):
        good = read_private(path)  # the template's bytecode inside nlpeval's private-cache envelope
        assert good is not None
        if content is None:
            broken = good[: len(good) // 2]
        elif content == "wrong-object":
            handle = io.BytesIO(good)
            handle.read(len(bc_magic))
            pickle.load(handle)  # the template's checksum
            broken = good[: handle.tell()] + marshal.dumps(("not", "code"))
        else:
            broken = content
        write_private(path, broken)  # a valid envelope around broken bytecode: Jinja's own checks must catch it
    page, env = _render(model, monkeypatch, str(tmp_path))
    assert page == uncached_page
    for path in _cache_files(env):  # compiled again and stored whole
        with io.BytesIO(read_private(path)) as handle:
            assert handle.read(len(bc_magic)) == bc_magic
            pickle.load(handle)
            assert isinstance(marshal.load(handle), types.CodeType)


def test_unwritable_cache_folder_still_renders(model, uncached_page, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    page, _ = _render(model, monkeypatch, str(blocker / "cache"))  # mkdir fails: not a directory
    assert page == uncached_page
    assert not (blocker / "cache").exists()


def test_cache_off_with_empty_variable(monkeypatch):
    monkeypatch.setenv(CACHE_ENV, "")
    assert template_cache({"autoescape": True}) is None


def test_edited_template_is_compiled_again(tmp_path):
    cache = TemplateCache(tmp_path)
    first = jinja2.Environment(loader=jinja2.DictLoader({"t": "{{ x }}!"}), bytecode_cache=cache)
    assert first.get_template("t").render(x=1) == "1!"
    second = jinja2.Environment(loader=jinja2.DictLoader({"t": "{{ x }}?"}), bytecode_cache=cache)
    assert second.get_template("t").render(x=1) == "1?"


def test_folder_depends_on_environment_options(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    one = template_cache({"autoescape": True})
    other = template_cache({"autoescape": False})
    assert one is not None and other is not None
    assert one.folder != other.folder
    assert one.folder == template_cache({"autoescape": True}).folder
