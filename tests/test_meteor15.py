"""METEOR flavor ``meteor1.5`` against the real METEOR 1.5 jar (run as a subprocess).

The jar comes with the ``pycocoevalcap`` test dependency (with its English
paraphrase table); the tests need ``java`` (a JRE: .ci/run installs Debian's openjdk-17-jre-headless).
Runs are sized for the test budget: the full detokenised TED set (2,445
segments) for the two headline checks, a few hundred segments for the options.
"""

from __future__ import annotations

import collections
import importlib.util
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest

import nlpeval
from nlpeval import _native
from nlpeval.metrics.meteor.normalize import normalize_lines
from nlpeval.metrics.meteor.wordnet import WordNet
from textgen import WORDS, corpus

TOL = 1e-9


@pytest.fixture(scope="module", autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory):
    """Parsed paraphrase tables go to a temporary cache, not the user's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NLPEVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield


@pytest.fixture(scope="session")
def jar() -> Path:
    """METEOR 1.5's jar from pycocoevalcap (a test dependency), run by ``java`` (installed by .ci/run)."""
    assert shutil.which("java") is not None, "java is not installed: .ci/run installs openjdk-17-jre-headless"
    spec = importlib.util.find_spec("pycocoevalcap")
    assert spec is not None and spec.submodule_search_locations, "pycocoevalcap (the test extra) is not installed"
    path = Path(next(iter(spec.submodule_search_locations)), "meteor", "meteor-1.5.jar")
    assert path.is_file(), f"{path} is missing"
    return path


@pytest.fixture(scope="session")
def wordnet() -> WordNet:
    return WordNet.open()  # Debian's wordnet-base (.ci/run installs it)


def _line(text: str) -> str:
    """A segment as a line of a file (the jar reads lines)."""
    return text.replace("\r", " ").replace("\n", " ")


def _jar_command(
    jar: Path, folder: Path, hyps: list[str], refs: list[list[str]], options: tuple[str, ...]
) -> list[str]:
    n_refs = len(refs[0])
    assert all(len(r) == n_refs for r in refs)
    folder.mkdir(parents=True, exist_ok=True)
    hyp_file, ref_file = folder / "hyp.txt", folder / "ref.txt"
    hyp_file.write_text("".join(_line(h) + "\n" for h in hyps), encoding="utf-8")
    ref_file.write_text("".join(_line(r) + "\n" for rs in refs for r in rs), encoding="utf-8")
    command = ["java", "-Xmx2G", "-jar", str(jar), str(hyp_file), str(ref_file), "-l", "en", *options]
    return [*command, "-r", str(n_refs)] if n_refs > 1 else command


def _jar_scores(out: str, n: int) -> tuple[np.ndarray, float]:
    segments = np.array([float(x) for x in re.findall(r"^Segment \d+ score:\t(\S+)$", out, re.M)])
    final = float(re.search(r"^Final score:\s+(\S+)$", out, re.M).group(1))  # type: ignore[union-attr]
    assert len(segments) == n
    return segments, final


def run_jars(jar: Path, tmp_path: Path, runs: list[tuple[list[str], list[list[str]], tuple[str, ...]]]) -> list:
    """Several jar runs at once: ``[(segment scores, final score), ...]``."""
    processes = [
        subprocess.Popen(
            _jar_command(jar, tmp_path / f"run{k}", hyps, refs, options),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        for k, (hyps, refs, options) in enumerate(runs)
    ]
    results = []
    for process, (hyps, _, _) in zip(processes, runs, strict=True):
        out, _ = process.communicate(timeout=600)
        assert process.returncode == 0
        results.append(_jar_scores(out, len(hyps)))
    return results


def run_jar(
    jar: Path, tmp_path: Path, hyps: list[str], refs: list[list[str]], *options: str
) -> tuple[np.ndarray, float]:
    """Segment scores and the final score of ``java -jar meteor-1.5.jar HYP REF -l en OPTIONS``."""
    return run_jars(jar, tmp_path, [(hyps, refs, options)])[0]


def run_java_tool(jar: Path, main: str, lines: list[str], *args: str) -> list[str]:
    """A line-by-line tool of the jar (stdin -> stdout, UTF-8)."""
    text = "".join(_line(line) + "\n" for line in lines)
    command = ["java", "-Dfile.encoding=UTF-8", "-cp", str(jar), main, *args]
    out = subprocess.run(command, input=text.encode(), capture_output=True, check=True, timeout=600).stdout
    return out.decode("utf-8").split("\n")[:-1]


def _ted(compare_mt: dict[str, list[str]], n: int | None = None) -> tuple[list[str], list[str], list[str]]:
    names = ("ted.sys1.detok.eng", "ted.ref.detok.eng", "ted.sys2.detok.eng")
    return tuple(compare_mt[name][:n] for name in names)  # type: ignore[return-value]


def test_exact_stem_norm_equals_jar(jar: Path, tmp_path: Path, compare_mt: dict[str, list[str]]) -> None:
    hyps, refs, _ = _ted(compare_mt)
    expected, final = run_jar(jar, tmp_path, hyps, [[r] for r in refs], "-m", "exact stem", "-norm")
    got = nlpeval.meteor(hyps, refs, modules=["exact", "stem"], normalize=True, segments=True)
    assert np.abs(got.segments - expected).max() <= TOL
    assert abs(got.score - final) <= TOL


def test_all_modules_match_jar(jar: Path, tmp_path: Path, compare_mt: dict[str, list[str]], wordnet: WordNet) -> None:
    hyps, refs, _ = _ted(compare_mt)
    extra_hyps, extra_refs = corpus(5, n=300, max_refs=1)
    extra_hyps, extra_refs = [_line(h) for h in extra_hyps], [[_line(r[0])] for r in extra_refs]
    (expected, final), (extra_expected, extra_final) = run_jars(
        jar, tmp_path, [(hyps, [[r] for r in refs], ("-norm",)), (extra_hyps, extra_refs, ("-norm",))]
    )
    got = nlpeval.meteor(hyps, refs, normalize=True, segments=True)
    assert abs(got.score - final) <= 0.002
    assert np.corrcoef(got.segments, expected)[0, 1] >= 0.999
    # the jar's synonyms come from Princeton's files; byte offsets shifted in Debian's
    # merge a few different noun/verb synsets (see the README); on TED none of them matter
    assert np.mean(np.abs(got.segments - expected) <= TOL) >= 0.995
    assert got.components["hyp_matches"].keys() == {"exact", "stem", "synonym", "paraphrase"}
    extra = nlpeval.meteor(extra_hyps, extra_refs, normalize=True, segments=True)
    assert np.mean(np.abs(extra.segments - extra_expected) <= TOL) >= 0.995
    assert abs(extra.score - extra_final) <= 0.002


def test_two_references_and_synonyms(
    jar: Path, tmp_path: Path, compare_mt: dict[str, list[str]], wordnet: WordNet
) -> None:
    hyps, refs, others = _ted(compare_mt, 600)
    pairs = [[r, o] for r, o in zip(refs, others, strict=True)]
    expected, final = run_jar(jar, tmp_path, hyps, pairs, "-m", "exact stem synonym", "-norm")
    got = nlpeval.meteor(hyps, pairs, modules=["exact", "stem", "synonym"], normalize=True, segments=True)
    assert np.mean(np.abs(got.segments - expected) <= TOL) >= 0.995
    assert abs(got.score - final) <= 0.002
    assert got.signature.startswith("nrefs:2|")


@pytest.mark.parametrize(
    ("options", "kwargs"),
    [
        (["-t", "hter"], {"task": "hter"}),
        (["-t", "adq"], {"task": "adq"}),
        (["-t", "li"], {"task": "li"}),
        (["-t", "tune"], {"task": "tune"}),
        (["-p", "0.6 2.0 0.4 0.8", "-w", "1.0 0.7"], {"alpha": 0.6, "beta": 2.0, "gamma": 0.4, "delta": 0.8,
                                                    "weights": [1.0, 0.7]}),
        (["-x", "3"], {"beam_size": 3}),
        (["-noPunct"], {"keep_punctuation": False}),
    ],
)  # fmt: skip
def test_options_equal_jar(
    jar: Path, tmp_path: Path, compare_mt: dict[str, list[str]], options: list[str], kwargs: dict
) -> None:
    hyps, refs, _ = _ted(compare_mt, 300)
    expected, final = run_jar(jar, tmp_path, hyps, [[r] for r in refs], "-m", "exact stem", "-norm", *options)
    got = nlpeval.meteor(hyps, refs, modules=["exact", "stem"], normalize=True, segments=True, **kwargs)
    assert np.abs(got.segments - expected).max() <= TOL
    assert abs(got.score - final) <= TOL


def test_weights_follow_module_positions(
    jar: Path, tmp_path: Path, compare_mt: dict[str, list[str]], wordnet: WordNet
) -> None:
    # as in the jar, -m 'exact synonym' takes the task's weights by position (1.0, 0.6)
    hyps, refs, _ = _ted(compare_mt, 300)
    expected, final = run_jar(jar, tmp_path, hyps, [[r] for r in refs], "-m", "exact synonym", "-norm")
    got = nlpeval.meteor(hyps, refs, modules=["exact", "synonym"], normalize=True, segments=True)
    assert "|weights:1,0.6|" in got.signature
    assert np.mean(np.abs(got.segments - expected) <= TOL) >= 0.995
    assert abs(got.score - final) <= 0.002


@pytest.mark.parametrize(("options", "kwargs"), [(["-norm"], {"normalize": True}), ([], {}), (["-lower"],
                                                                                            {"lowercase": True})])  # fmt: skip
def test_generated_text_equals_jar(jar: Path, tmp_path: Path, options: list[str], kwargs: dict) -> None:
    hyps, refs = corpus(7, n=500, max_refs=1)
    hyps, refs = [_line(h) for h in hyps], [_line(r[0]) for r in refs]
    expected, final = run_jar(jar, tmp_path, hyps, [[r] for r in refs], "-m", "exact stem", *options)
    got = nlpeval.meteor(hyps, refs, modules=["exact", "stem"], segments=True, **kwargs)
    assert np.abs(got.segments - expected).max() <= TOL
    assert abs(got.score - final) <= TOL


def test_variable_reference_counts_equal_jar(jar: Path, tmp_path: Path) -> None:
    # the jar needs a fixed count: pad with copies of the last reference (a tie keeps the first)
    hyps, refs = corpus(11, n=400, max_refs=3)
    hyps, refs = [_line(h) for h in hyps], [[_line(r) for r in rs] for rs in refs]
    padded = [rs + [rs[-1]] * (3 - len(rs)) for rs in refs]
    expected, final = run_jar(jar, tmp_path, hyps, padded, "-m", "exact stem", "-norm")
    got = nlpeval.meteor(hyps, refs, modules=["exact", "stem"], normalize=True, segments=True)
    assert np.abs(got.segments - expected).max() <= TOL
    assert abs(got.score - final) <= TOL
    assert got.signature.startswith("nrefs:var|")


def test_snowball_stems_equal_jar(jar: Path, compare_mt: dict[str, list[str]], wordnet: WordNet) -> None:
    words = {w for name in ("ted.ref.eng", "ted.sys1.eng", "sum.ref.eng") for line in compare_mt[name]
             for w in line.split()}  # fmt: skip
    words |= set(WORDS) | {w for w in wordnet.index if "_" not in w}
    words |= {w.lower() for w in list(words)} | {"😀ies", "ǅemal", "ſtate", "'tis", "yelling", "generously"}
    ordered = sorted(words)
    assert _native.meteor_snowball_stems(ordered) == run_java_tool(jar, "Stemmer", ordered, "en")


def test_normalizer_equals_jar(jar: Path, compare_mt: dict[str, list[str]]) -> None:
    lines = compare_mt["ted.ref.detok.eng"] + compare_mt["ted.sys2.detok.eng"][:500]
    for seed in range(5):
        hyps, refs = corpus(seed, n=300)
        lines += [_line(t) for t in hyps + [r for rs in refs for r in rs]]
    lines += ["No. 5 and No. Five", "U.S.-based e.g. i.e. Mr. smith", "x--y\u2014z\u2013w", "1990's 'tis", "a...b.. ."]
    for keep, flag in ((True, "true"), (False, "false")):
        expected = run_java_tool(jar, "edu.cmu.meteor.util.Normalizer", lines, "english", flag)
        assert normalize_lines(lines, keep_punctuation=keep) == expected


def test_synonym_data_is_derived_from_wordnet(jar: Path, wordnet: WordNet) -> None:
    """METEOR's english.synsets/exceptions are WordNet 3.0's index and exception files, reread."""
    with zipfile.ZipFile(jar) as archive:
        lines = archive.read("synonym/english.exceptions").decode().split("\n")
        synsets = archive.read("synonym/english.synsets").decode().split("\n")
    bases = collections.defaultdict(set)
    for base, forms in zip(lines[0::2], lines[1::2], strict=False):
        for form in forms.split():
            bases[form].add(base)
    assert dict(bases) == wordnet._bases()
    theirs = dict(zip(synsets[0::2], (frozenset(map(int, s.split())) for s in synsets[1::2]), strict=False))
    assert set(theirs) == set(wordnet.index)

    def synonyms(table: dict) -> dict[str, frozenset[str]]:
        members = collections.defaultdict(set)
        for word, ids in table.items():
            for i in ids:
                members[i].add(word)
        return {word: frozenset().union(*(members[i] for i in ids)) for word, ids in table.items()}

    theirs_synonyms = synonyms(theirs)
    ours_synonyms = synonyms({word: wordnet.offsets(word) for word in theirs})
    same = np.mean([theirs_synonyms[w] == ours_synonyms[w] for w in theirs])
    # METEOR keys synsets by byte offset regardless of part of speech; Debian's files shift some
    # verb and adjective offsets, so a few different accidental noun/verb merges (< 1% of words)
    assert same >= 0.99


def test_native_exception_lists_equal_jar(jar: Path, wordnet: WordNet, compare_mt: dict[str, list[str]]) -> None:
    """The batch synset lookup reads WordNet's exception lists natively; the jar's copy gives the same synsets."""
    with zipfile.ZipFile(jar) as archive:
        lines = archive.read("synonym/english.exceptions").decode().split("\n")
    bases = collections.defaultdict(set)
    for base, forms in zip(lines[0::2], lines[1::2], strict=False):
        for form in forms.split():
            bases[form].add(base)
    ted = {w for line in compare_mt["ted.ref.eng"] + compare_mt["ted.sys1.eng"] for w in line.lower().split()}
    words = [*sorted(ted | set(bases)), "", "geese", "\u00e9t\u00e9s"]
    expected = wordnet.index.meteor_synsets(words, [sorted(bases[w]) if w in bases else None for w in words])
    fresh = WordNet(wordnet.root)  # nothing read yet: the exception lists are read natively
    assert fresh.meteor_synsets_batch(words) == expected
    assert fresh._meteor_bases is None


def test_empty_segments_and_hash_collisions_equal_jar(jar: Path, tmp_path: Path) -> None:
    # METEOR compares words by Java hashCode: "Aa" and "BB" collide and count as an exact match
    hyps = ["", " ", "a cat", "a cat", "", "the cat sat", "\t", "Aa sat", "polygenelubricants"]
    refs = ["a cat", "a cat", "", "   ", "", "the cat sat", "\t", "BB sat", "GydZG_"]
    expected, final = run_jar(jar, tmp_path, hyps, [[r] for r in refs], "-m", "exact stem")
    got = nlpeval.meteor(hyps, refs, modules=["exact", "stem"], segments=True)
    assert got.segments.tolist() == expected.tolist()
    assert got.segments[7] == 1.0 and got.segments[8] > 0
    assert abs(got.score - final) <= TOL


def test_long_pair_equals_jar(jar: Path, tmp_path: Path, compare_mt: dict[str, list[str]]) -> None:
    # one 1,500-token pair with many repeated words: the beam search at length, with exact+stem
    # and with all four modules (the jar takes about 12 s on the latter; its time grows steeply,
    # so the 16,000-token timing is in benchmarks/)
    hyps, refs, _ = _ted(compare_mt)
    hyp, ref = " ".join(" ".join(hyps).split()[:1500]), " ".join(" ".join(refs).split()[:1500])
    (_, exact_stem), (_, every_module) = run_jars(
        jar, tmp_path, [([hyp], [[ref]], ("-m", "exact stem", "-norm")), ([hyp], [[ref]], ("-norm",))]
    )
    assert abs(nlpeval.meteor([hyp], [ref], modules=["exact", "stem"], normalize=True).score - exact_stem) <= TOL
    assert abs(nlpeval.meteor([hyp], [ref], normalize=True).score - every_module) <= TOL
