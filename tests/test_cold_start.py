"""Cold starts: the on-disk WordNet index cache, lazy imports, and the lazily built command line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nlpeval import _version
from nlpeval.metrics.meteor import wordnet as wordnet_module
from nlpeval.metrics.meteor.wordnet import WordNet

PYTHON_PATH = str(Path(wordnet_module.__file__).resolve().parents[3])

# A tiny WordNet in the database's own format: "dog" (two noun synsets, one verb synset),
# "canine" (noun and adjective), "run" (a verb) and the exception "ran -> run".
_HEADER = "  1 This software and database is being provided to you, the LICENSEE, by WordNet 3.0 Copyright\n"
_INDEX = {
    "noun": ["dog n 2 1 @ 2 1 00000100 00000200", "canine n 1 1 @ 1 0 00000100"],
    "verb": ["dog v 1 1 @ 1 0 00000100", "run v 1 0 1 0 00000200"],
    "adj": ["canine a 1 0 1 0 00000100"],
    "adv": [],
}
_EXCEPTIONS = {"noun": [], "verb": ["ran run"], "adj": [], "adv": []}


def _tiny_wordnet(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for suffix, lines in _INDEX.items():
        (folder / f"index.{suffix}").write_text(_HEADER + "".join(f"{line}  \n" for line in lines))
        (folder / f"{suffix}.exc").write_text("".join(f"{line}\n" for line in _EXCEPTIONS[suffix]))
        (folder / f"data.{suffix}").write_text(_HEADER)
    return folder


@pytest.fixture()
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(wordnet_module.CACHE_ENV, str(folder))
    return folder


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(self: WordNet) -> dict[str, str]:
        raise AssertionError("the index was parsed although a valid cache exists")

    monkeypatch.setattr(WordNet, "_parse_index", fail)


def test_index_is_parsed_once_then_read_from_the_cache(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _tiny_wordnet(tmp_path / "dict")
    parsed = WordNet(root)
    assert parsed.synset_offsets("dog", "n") == (100, 200) and parsed.synset_offsets("dog", "v") == (100,)
    assert parsed.offsets("canine") == frozenset({100}) and parsed.synset_offsets("cat", "n") == ()
    assert parsed.meteor_synsets("ran") == frozenset({200})  # through the exception list
    assert parsed.synsets("dogs") == [("n", 100), ("n", 200), ("v", 100)]  # NLTK's morphy and order
    files = list(cache_dir.glob("wordnet-index-*.bin"))
    assert len(files) == 1
    expected = sorted(parsed._parse_index().items())
    _no_parsing(monkeypatch)
    cached = WordNet(root)
    assert cached.index.items() == parsed.index.items() == expected
    for word in ("dog", "dogs", "canine", "ran", "run", "cat"):
        assert cached.synsets(word) == parsed.synsets(word)
        assert cached.meteor_synsets(word) == parsed.meteor_synsets(word)


def test_cache_follows_the_source_files(tmp_path: Path, cache_dir: Path) -> None:
    root = _tiny_wordnet(tmp_path / "dict")
    assert WordNet(root).synset_offsets("run", "v") == (200,)
    index = root / "index.verb"
    index.write_text(index.read_text().replace("run v 1 0 1 0 00000200", "run v 1 0 1 0 00000300"))
    os.utime(index, ns=(1, 1))  # a different size or time is a different source
    assert WordNet(root).synset_offsets("run", "v") == (300,)
    assert len(list(cache_dir.glob("wordnet-index-*.bin"))) == 2


def test_a_damaged_cache_is_ignored_and_rewritten(tmp_path: Path, cache_dir: Path) -> None:
    root = _tiny_wordnet(tmp_path / "dict")
    expected = WordNet(root).index.items()
    (cache_file,) = cache_dir.glob("wordnet-index-*.bin")
    good = cache_file.read_bytes()
    damages = (b"", b"garbage", good[:-8], good[:-1], os.urandom(len(good)), good[:8] + b"\x09" + good[9:],
               good[:24] + bytes([good[24] ^ 1]) + good[25:])  # fmt: skip
    for damage in damages:
        cache_file.write_bytes(damage)
        assert wordnet_module._read_index_cache(cache_file) is None
        assert WordNet(root).index.items() == expected
        assert cache_file.read_bytes() == good  # rewritten whole


def test_an_unwritable_cache_folder_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be", encoding="utf-8")
    monkeypatch.setenv(wordnet_module.CACHE_ENV, str(blocker / "cache"))
    wordnet = WordNet(_tiny_wordnet(tmp_path / "dict"))
    assert wordnet.offsets("dog") == frozenset({100, 200}) and wordnet.meteor_synsets("ran") == frozenset({200})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dict", "not-a-folder"]


def test_meteor_synsets_natively_equal_the_python_reading(tmp_path: Path, cache_dir: Path) -> None:
    wordnet = WordNet(_tiny_wordnet(tmp_path / "dict"))
    words = ["dog", "dogs", "canine", "ran", "run", "runs", "cat", "", "xx"]
    flat, lens = wordnet.meteor_synsets_batch(words)
    starts = [sum(lens[:i]) for i in range(len(words))]
    native = [frozenset(flat[s : s + n]) for s, n in zip(starts, lens, strict=True)]
    assert native == [wordnet.meteor_synsets(w) for w in words]
    assert native[1] == frozenset({100, 200}) and native[3] == frozenset({200}) and native[5] == frozenset({200})


def test_empty_cache_setting_disables_the_disk_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(wordnet_module.CACHE_ENV, "")
    monkeypatch.setattr(Path, "home", lambda: tmp_path / "home")
    assert WordNet(_tiny_wordnet(tmp_path / "dict")).offsets("dog") == frozenset({100, 200})
    assert not (tmp_path / "home").exists()


def test_concurrent_processes_share_one_cache(tmp_path: Path, cache_dir: Path) -> None:
    root = _tiny_wordnet(tmp_path / "dict")
    code = "import sys; from nlpeval.metrics.meteor.wordnet import WordNet; print(len(WordNet.open(sys.argv[1]).index))"
    env = {**os.environ, "PYTHONPATH": PYTHON_PATH}
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(root)], stdout=subprocess.PIPE, env=env, text=True)
        for _ in range(4)
    ]
    assert [p.communicate()[0].strip() for p in procs] == ["3"] * 4
    (cache_file,) = cache_dir.glob("wordnet-index-*")  # no temporary file left behind
    mapped = wordnet_module._read_index_cache(cache_file)
    assert mapped is not None and mapped.items() == sorted(WordNet(root)._parse_index().items())


def test_real_wordnet_from_the_cache_equals_the_parse(tmp_path: Path, cache_dir: Path) -> None:
    root = wordnet_module.find_wordnet()  # Debian's wordnet-base (.ci/run installs it)
    parsed = WordNet(root)
    words = ["dog", "dogs", "running", "ran", "better", "geese", "big", "large", "a", "the", "criteria", "xyzzy"]
    expected = {w: (parsed.meteor_synsets(w), parsed.nltk_synonyms(w)) for w in words}
    cached = WordNet(root)
    assert cached.index.items() == parsed.index.items() and len(cached.index) > 140_000
    assert {w: (cached.meteor_synsets(w), cached.nltk_synonyms(w)) for w in words} == expected


def _fresh(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": PYTHON_PATH}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=False)


def test_import_nlpeval_imports_nothing_heavy() -> None:
    code = "import sys, nlpeval; print(sorted(m for m in ('numpy', 'importlib.metadata', 'scipy') if m in sys.modules))"
    assert _fresh(code).stdout.strip() == "[]"


def test_version_without_the_sub_commands() -> None:
    code = (
        "import sys; from nlpeval.cli.main import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('nlpeval.cli.') or m == 'numpy'))"
    )
    done = _fresh(code)
    assert done.stdout.split("\n")[0] == f"nlpeval {_version.__version__}"
    assert done.stdout.split("\n")[1] == "['nlpeval.cli.errors', 'nlpeval.cli.main']"


def test_a_command_builds_only_its_own_parser(tmp_path: Path) -> None:
    (tmp_path / "ref.txt").write_text("the cat sat on the mat\n", encoding="utf-8")
    (tmp_path / "sys.txt").write_text("the cat sat on the mat\n", encoding="utf-8")
    code = (
        "import sys; from nlpeval.cli.main import main, COMMANDS\n"
        "assert main(['score', '-r', sys.argv[1], sys.argv[2]]) == 0\n"
        "print(sorted(name for name, module in COMMANDS.items() if module in sys.modules))"
    )
    done = _fresh(code, str(tmp_path / "ref.txt"), str(tmp_path / "sys.txt"))
    imported = done.stdout.strip().split("\n")[-1]
    assert "100.00" in done.stdout and "'score'" in imported  # (score's tables reuse align's helpers)
    assert not any(f"'{name}'" in imported for name in ("agree", "correlate", "classify", "perplexity", "demo"))


def test_help_and_errors_still_see_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    from nlpeval.cli.main import COMMANDS, main

    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    usage = capsys.readouterr().out
    assert all(f"    {name}" in usage for name in COMMANDS)
    with pytest.raises(SystemExit) as exit_info:
        main(["scroe"])
    assert exit_info.value.code == 2
    assert "unknown command 'scroe'; did you mean 'score'? commands: score, " in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["score"])
    assert exit_info.value.code == 2 and "nlpeval score: error:" in capsys.readouterr().err


def test_version_from_the_dist_info_folder(tmp_path: Path) -> None:
    info = tmp_path / "site" / "nlpeval-1.2.3.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.3\nName: nlpeval\nVersion: 1.2.3rc1\n\nText\n")
    assert _version._installed_version([str(tmp_path / "none"), str(tmp_path), str(info.parent)]) == "1.2.3rc1"
    assert _version._installed_version([str(tmp_path)]) == _version.UNKNOWN
    (info.parent / "nlpeval-1.0.0.dist-info").mkdir()  # two installs in one folder: ask importlib.metadata
    from importlib.metadata import PackageNotFoundError, version

    try:
        expected = version("nlpeval")
    except PackageNotFoundError:
        expected = _version.UNKNOWN
    assert _version._installed_version([str(info.parent)]) == expected


def test_lemma_names_read_as_the_marker_pattern_does() -> None:
    wordnet = WordNet.open()  # Debian's wordnet-base (.ci/run installs it)
    checked = 0
    for raw in wordnet._data_file("a").split(b"\n"):  # adjectives carry the syntactic markers
        if raw and raw[:1] != b" ":
            fields = raw.decode("utf-8").split("|", 1)[0].split()
            expected = tuple(
                wordnet_module._MARKER.match(fields[4 + 2 * k]).group(1) for k in range(int(fields[3], 16))
            )
            assert wordnet.lemma_names("a", int(fields[0])) == expected
            checked += 1
    assert checked > 18_000


def test_a_mapped_index_pickles_as_its_bytes(tmp_path: Path, cache_dir: Path) -> None:
    import pickle

    WordNet(_tiny_wordnet(tmp_path / "dict")).index  # noqa: B018 - writes the cache
    mapped = WordNet(tmp_path / "dict").index  # read from the mapped cache file
    again = pickle.loads(pickle.dumps(mapped))
    assert again.items() == mapped.items() and again.get("dog") == "n 00000100 00000200|v 00000100"
    with pytest.raises(ValueError, match="not a WordNet index"):
        type(mapped).from_bytes(b"garbage")
