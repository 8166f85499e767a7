"""METEOR API: input policy, resources (WordNet, paraphrase tables), streaming, CLI."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import numpy as np
import pytest

import nlpeval
from nlpeval.cli.main import main as cli
from nlpeval.metrics.meteor import paraphrase as paraphrase_module
from nlpeval.metrics.meteor import wordnet as wordnet_module
from nlpeval.metrics.meteor.paraphrase import ParaphraseTableNotFoundError, load_paraphrases
from nlpeval.metrics.meteor.wordnet import WordNetNotFoundError

EXACT_STEM = ["exact", "stem"]


@pytest.fixture
def no_wordnet(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A machine without any WordNet database."""
    monkeypatch.delenv(wordnet_module.WORDNET_ENV, raising=False)
    monkeypatch.setenv("NLTK_DATA", str(tmp_path))
    monkeypatch.setattr(wordnet_module, "nltk_data_folders", lambda: [tmp_path])
    monkeypatch.setattr(wordnet_module, "SYSTEM_FOLDERS", ())


def test_worked_example() -> None:
    # the cats sat on the mat . / a cat sat on the mat . (function words: the a on .)
    s = nlpeval.meteor(["The cats sat on the mat."], ["A cat sat on the mat."], modules=EXACT_STEM, normalize=True)
    assert s.components["hyp_matches"] == {"exact": 5, "stem": 1}
    assert s.components["chunks"] == 1
    # task "rank": alpha 0.85, beta 0.2, gamma 0.6, delta 0.75; weights exact 1.0, stem 0.6
    matched = (2 * 1.0 + 1 * 0.6) * 0.75 + 3 * 1.0 * 0.25  # content sat, mat, cats; function on, the, .
    length = 0.75 * 3 + 0.25 * 4
    p = r = matched / length
    fmean = 1.0 / ((1.0 - 0.85) / p + 0.85 / r)
    assert s.score == pytest.approx(fmean * (1.0 - 0.6 * (1 / 6) ** 0.2), abs=1e-15)


def test_bad_input_policy() -> None:
    with pytest.raises(nlpeval.InputError, match="2 hypotheses but 1 references"):
        nlpeval.meteor(["a", "b"], ["a"], modules=EXACT_STEM)
    with pytest.raises(nlpeval.InputError, match="segment 1: is None"):
        nlpeval.meteor(["a", None], ["a", "b"], modules=EXACT_STEM)
    with pytest.raises(nlpeval.InputError, match="segment 0: has no reference"):
        nlpeval.meteor(["a"], [[]], modules=EXACT_STEM)
    # empty and whitespace-only segments are scored (0) and counted
    s = nlpeval.meteor(["", " \t ", "a b", "a b"], ["a b", "a b", "", "a b"], modules=EXACT_STEM, segments=True)
    assert s.segments.tolist() == [0.0, 0.0, 0.0, 1.0]
    assert s.components["hyp_len"] == 4 and s.components["ref_len"] == 6
    with pytest.raises(nlpeval.InputError, match="no segments"):  # every corpus metric refuses an empty corpus
        nlpeval.meteor([], [], modules=EXACT_STEM)


def test_option_errors() -> None:
    with pytest.raises(ValueError, match="unknown METEOR module"):
        nlpeval.meteor(["a"], ["a"], modules=["exact", "synonyms"])
    with pytest.raises(ValueError, match="must not repeat"):
        nlpeval.make_meteor(modules=["exact", "exact"])
    with pytest.raises(ValueError, match="2 weights for 1 modules"):
        nlpeval.make_meteor(modules=["exact"], weights=[1.0, 0.5])
    with pytest.raises(ValueError, match="unknown METEOR task"):
        nlpeval.make_meteor(task="util")
    with pytest.raises(ValueError, match="requires normalize=True"):
        nlpeval.make_meteor(keep_punctuation=False)
    with pytest.raises(ValueError, match="unknown METEOR flavor"):
        nlpeval.make_meteor(flavor="meteor2")


def test_identical_long_texts_score_one(compare_mt: dict[str, list[str]]) -> None:
    # 16,000 tokens, many repeated words: the search still finds the one-chunk alignment
    text = " ".join(" ".join(compare_mt["ted.ref.eng"]).split()[:16_000])
    s = nlpeval.meteor([text], [text], modules=EXACT_STEM)
    assert s.score == 1.0 and s.components["chunks"] == 0


def test_streaming_and_bootstrap_match_one_shot(compare_mt: dict[str, list[str]]) -> None:
    hyps, refs = compare_mt["ted.sys1.detok.eng"][:400], compare_mt["ted.ref.detok.eng"][:400]
    metric = nlpeval.make_meteor(modules=EXACT_STEM, normalize=True)
    one_shot = metric(hyps, refs, segments=True)
    acc = metric.accumulator(keep_segments=True)
    for start in range(0, 400, 150):
        acc.update(hyps[start : start + 150], refs[start : start + 150])
    streamed = acc.compute()
    assert streamed.score == one_shot.score
    assert np.array_equal(streamed.segments, one_shot.segments)
    with_ci = nlpeval.meteor(hyps, refs, modules=EXACT_STEM, normalize=True, n_bootstrap=50)
    assert with_ci.ci is not None and with_ci.ci.low <= one_shot.score <= with_ci.ci.high


def test_corpus_score_is_not_a_mean_of_segments(compare_mt: dict[str, list[str]]) -> None:
    hyps, refs = compare_mt["ted.sys1.detok.eng"][:200], compare_mt["ted.ref.detok.eng"][:200]
    s = nlpeval.meteor(hyps, refs, modules=EXACT_STEM, segments=True)
    assert abs(s.score - s.segments.mean()) > 1e-3


def test_missing_wordnet_is_a_clear_error(no_wordnet: None) -> None:
    with pytest.raises(WordNetNotFoundError, match="apt-get install wordnet-base"):
        nlpeval.meteor(["a cat"], ["a dog"])
    with pytest.raises(WordNetNotFoundError):
        nlpeval.meteor(["a cat"], ["a dog"], flavor="nltk")
    # exact and stem need nothing external
    assert nlpeval.meteor(["a cat"], ["a cats"], modules=EXACT_STEM).score > 0
    with pytest.raises(WordNetNotFoundError, match="is not a WordNet database"):
        nlpeval.meteor(["a"], ["a"], modules=["synonym"], wordnet="/nonexistent")


def test_wordnet_is_found_through_the_environment(no_wordnet: None, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        real = wordnet_module.find_wordnet()
    except WordNetNotFoundError:
        real = None
    monkeypatch.undo()
    real = wordnet_module.find_wordnet()  # Debian's wordnet-base (.ci/run installs it)
    monkeypatch.setattr(wordnet_module, "nltk_data_folders", list)
    monkeypatch.setattr(wordnet_module, "SYSTEM_FOLDERS", ())
    monkeypatch.setenv(wordnet_module.WORDNET_ENV, str(real))
    assert wordnet_module.find_wordnet() == real
    s = nlpeval.meteor(["a big dog"], ["a large dog"], modules=["exact", "synonym"])
    assert s.components["hyp_matches"]["synonym"] == 1


def _table(path: Path) -> Path:
    records = [("0.5", "the cat", "the feline"), ("0.1", "sat down", "sat"), ("0.2", "big", "large")]
    path.write_bytes(gzip.compress("".join(f"{p}\n{r}\n{q}\n" for p, r, q in records).encode()))
    return path


def test_paraphrase_table_from_path_and_disk_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _table(tmp_path / "paraphrase-test.gz")
    monkeypatch.setenv(paraphrase_module.CACHE_ENV, str(tmp_path / "cache"))
    paraphrase_module._load.cache_clear()
    kwargs = {"modules": ["exact", "paraphrase"], "paraphrases": table}
    first = nlpeval.meteor(["the feline sat down"], ["the cat sat"], **kwargs)
    # "the feline" ~ "the cat" by the table; "sat down" ~ "sat" loses to the exact "sat"
    assert first.components["hyp_matches"] == {"exact": 1, "paraphrase": 2}
    assert "|para:paraphrase-test.gz|" in first.signature
    assert len(list((tmp_path / "cache").glob("meteor-paraphrases-*.bin"))) == 1
    paraphrase_module._load.cache_clear()
    cached = load_paraphrases(table)
    assert len(cached) == 3 and cached.lookup(["feline", "dog"]) == [2, -1]
    assert nlpeval.meteor(["the feline sat down"], ["the cat sat"], **kwargs).score == first.score
    monkeypatch.setenv(paraphrase_module.PARAPHRASE_ENV, str(table))
    assert nlpeval.meteor(["big"], ["large"], modules=["paraphrase"]).score > 0


def _paraphrase_matches(table: Path) -> dict[str, int]:
    paraphrase_module._load.cache_clear()
    kwargs = {"modules": ["exact", "paraphrase"], "paraphrases": table}
    return nlpeval.meteor(["the feline sat down"], ["the cat sat"], **kwargs).components["hyp_matches"]


def test_paraphrase_cache_is_mapped_and_versioned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _table(tmp_path / "paraphrase-test.gz")
    monkeypatch.setenv(paraphrase_module.CACHE_ENV, str(tmp_path / "cache"))
    assert _paraphrase_matches(table) == {"exact": 1, "paraphrase": 2}
    (cache,) = (tmp_path / "cache").glob("meteor-paraphrases-*.bin")
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [cache.name]  # no temporary file left
    parsed = paraphrase_module._parse(table)
    assert cache.read_bytes() == parsed.to_bytes()
    mapped = paraphrase_module._read_cache(cache)
    assert mapped is not None and len(mapped) == 3 and mapped.lookup(["feline", "sat", "x"]) == [2, 3, -1]
    # the layout's version is part of the key: another version never reads this file
    monkeypatch.setattr(paraphrase_module, "_CACHE_FORMAT", paraphrase_module._CACHE_FORMAT + 1)
    assert paraphrase_module._cache_file(table) != cache


@pytest.mark.parametrize("damage", ["truncated", "empty", "garbage", "header", "other-version"])
def test_damaged_paraphrase_cache_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    table = _table(tmp_path / "paraphrase-test.gz")
    monkeypatch.setenv(paraphrase_module.CACHE_ENV, str(tmp_path / "cache"))
    expected = _paraphrase_matches(table)
    (cache,) = (tmp_path / "cache").glob("meteor-paraphrases-*.bin")
    good = cache.read_bytes()
    bad = {
        "truncated": good[: len(good) // 2],
        "empty": b"",
        "garbage": os.urandom(len(good)),
        "header": good[:40] + bytes([good[40] ^ 0xFF]) + good[41:],  # a count changed
        "other-version": good[:8] + (99).to_bytes(8, "little") + good[16:],
    }[damage]
    cache.write_bytes(bad)
    assert paraphrase_module._read_cache(cache) is None
    assert _paraphrase_matches(table) == expected
    assert cache.read_bytes() == good  # parsed again and replaced


def test_unwritable_paraphrase_cache_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _table(tmp_path / "paraphrase-test.gz")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be", encoding="utf-8")
    monkeypatch.setenv(paraphrase_module.CACHE_ENV, str(blocker / "cache"))
    assert _paraphrase_matches(table) == {"exact": 1, "paraphrase": 2}
    monkeypatch.setenv(paraphrase_module.CACHE_ENV, "")  # disabled: nothing written anywhere
    assert _paraphrase_matches(table) == {"exact": 1, "paraphrase": 2}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-a-folder", "paraphrase-test.gz"]


def test_missing_paraphrase_table_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(paraphrase_module.PARAPHRASE_ENV, raising=False)
    monkeypatch.setattr(paraphrase_module, "_pycocoevalcap_table", lambda: None)
    with pytest.raises(ParaphraseTableNotFoundError, match="paraphrases=PATH"):
        nlpeval.meteor(["a"], ["a"], modules=["exact", "paraphrase"])


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("A cat sat on the mat.\nIt rains.\n", encoding="utf-8")
    hyp.write_text("The cats sat on the mat.\nIt is raining.\n", encoding="utf-8")
    args = ["score", "-r", str(ref), "-m", "meteor", "--meteor-modules", "exact,stem", "--meteor-norm"]
    assert cli([*args, "--format", "json", str(hyp)]) == 0
    payload = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["meteor"]
    expected = nlpeval.meteor(ref.read_text().splitlines(), ref.read_text().splitlines(), modules=EXACT_STEM)
    assert expected.score == 1.0
    api = nlpeval.meteor(hyp.read_text().splitlines(), ref.read_text().splitlines(), modules=EXACT_STEM,
                         normalize=True)  # fmt: skip
    assert payload["score"] == api.score and payload["signature"] == api.signature
    assert cli([*args, "--meteor-params", "0.5 1 0.5", str(hyp)]) == 2
    assert "--meteor-params needs 4 numbers" in capsys.readouterr().err
    bad = tmp_path / "short.txt"
    bad.write_text("one line\n", encoding="utf-8")
    assert cli([*args, str(bad)]) == 2
    assert "segment counts differ" in capsys.readouterr().err


def test_cli_without_wordnet(no_wordnet: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref = tmp_path / "ref.txt"
    ref.write_text("a dog\n", encoding="utf-8")
    assert cli(["score", "-r", str(ref), "-m", "meteor", "--meteor-flavor", "nltk", str(ref)]) == 2
    err = capsys.readouterr().err
    assert "WordNet 3.0" in err and "Traceback" not in err
    assert os.environ["NLTK_DATA"]


def test_wordnet_from_nltk_zip(tmp_path: Path) -> None:
    """NLTK's downloader leaves corpora/wordnet.zip; it is read as it is."""
    import zipfile

    found = wordnet_module.find_wordnet()
    # the folder found, or Debian's wordnet-base (.ci/run installs it) when NLTK's zip was found first
    root = next(Path(p) for p in (found, *wordnet_module.SYSTEM_FOLDERS) if Path(p, "index.noun").is_file())
    archive = tmp_path / "wordnet.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for suffix in wordnet_module.POS_FILES.values():
            for name in (f"index.{suffix}", f"data.{suffix}", f"{suffix}.exc"):
                zipped.write(root / name, f"wordnet/{name}")
    hyps, refs = ["the big dogs were running quickly home"], ["a large dog ran fast to its house"]
    for flavor, modules in (("nltk", None), ("meteor1.5", ["exact", "stem", "synonym"])):
        from_zip = nlpeval.meteor(hyps, refs, flavor=flavor, modules=modules, wordnet=archive)
        from_folder = nlpeval.meteor(hyps, refs, flavor=flavor, modules=modules, wordnet=root)
        assert from_zip.score == from_folder.score > 0
        assert "|wn:3.0|" in from_zip.signature
