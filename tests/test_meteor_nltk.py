"""METEOR flavor ``nltk`` against ``nltk.translate.meteor_score.meteor_score``, per segment.

NLTK reads WordNet with its own reader, pointed at the same WordNet 3.0 files
nlpeval finds (Debian's ``wordnet-base`` in CI), so both sides see one database.
"""

from __future__ import annotations

import shutil
import warnings
import zipfile
from pathlib import Path

import nltk
import numpy as np
import pytest
from nltk.corpus.reader.wordnet import WordNetCorpusReader
from nltk.stem.porter import PorterStemmer
from nltk.translate.meteor_score import meteor_score

import nlpeval
from nlpeval.metrics.meteor.wordnet import POS_FILES, WordNet, find_wordnet
from textgen import corpus

TOL = 1e-12


@pytest.fixture(scope="session")
def wordnet_root() -> Path:
    """The WordNet database nlpeval finds (Debian's wordnet-base, which .ci/run installs)."""
    return find_wordnet()  # Debian's wordnet-base (.ci/run installs it)


@pytest.fixture(scope="session")
def nltk_wordnet(wordnet_root: Path, tmp_path_factory: pytest.TempPathFactory) -> WordNetCorpusReader:
    """NLTK's WordNet reader over a copy of the same files (NLTK also wants a ``lexnames`` file)."""
    folder = tmp_path_factory.mktemp("wordnet")
    names = [f"{kind}.{suffix}" for suffix in POS_FILES.values() for kind in ("index", "data")]
    names += [f"{suffix}.exc" for suffix in POS_FILES.values()]
    if wordnet_root.is_dir():
        for name in names:
            shutil.copyfile(wordnet_root / name, folder / name)
    else:
        with zipfile.ZipFile(wordnet_root) as archive:
            prefix = next(n for n in archive.namelist() if n.endswith("index.noun"))[: -len("index.noun")]
            for name in names:
                (folder / name).write_bytes(archive.read(prefix + name))
    (folder / "lexnames").write_text("".join(f"{i:02d}\tlex{i}\t0\n" for i in range(45)))
    nltk.data.path.append(str(folder))

    class Reader(WordNetCorpusReader):
        def map_wn(self, version: str = "wordnet") -> None:  # no OMW mapping (it would look for nltk_data)
            return None

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Reader(str(folder), None)


def _nltk_scores(wn: WordNetCorpusReader, hyps: list[str], refs: list[list[str]]) -> np.ndarray:
    return np.array(
        [meteor_score([r.split() for r in rs], h.split(), wordnet=wn) for h, rs in zip(hyps, refs, strict=True)]
    )


def test_ted_two_references(compare_mt: dict[str, list[str]], nltk_wordnet: WordNetCorpusReader) -> None:
    # the reference and the second system serve as two references of the first system
    hyps = compare_mt["ted.sys1.eng"]
    refs = [list(pair) for pair in zip(compare_mt["ted.ref.eng"], compare_mt["ted.sys2.eng"], strict=True)]
    expected = _nltk_scores(nltk_wordnet, hyps, refs)
    got = nlpeval.meteor(hyps, refs, flavor="nltk", segments=True)
    assert np.abs(got.segments - expected).max() <= TOL
    assert got.score == pytest.approx(expected.mean(), abs=TOL)
    assert got.signature.startswith("nrefs:2|alpha:0.9|beta:3.0|gamma:0.5|stem:porter|wn:3.0|flavor:nltk")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_text(seed: int, nltk_wordnet: WordNetCorpusReader) -> None:
    hyps, refs = corpus(seed, n=300)
    expected = _nltk_scores(nltk_wordnet, hyps, refs)
    got = nlpeval.meteor(hyps, refs, flavor="nltk", segments=True)
    assert np.abs(got.segments - expected).max() <= TOL


def test_parameters(compare_mt: dict[str, list[str]], nltk_wordnet: WordNetCorpusReader) -> None:
    hyps, refs = compare_mt["ted.sys2.eng"][:300], compare_mt["ted.ref.eng"][:300]
    expected = [meteor_score([r.split()], h.split(), wordnet=nltk_wordnet, alpha=0.5, beta=2.0, gamma=0.25)
                for h, r in zip(hyps, refs, strict=True)]  # fmt: skip
    got = nlpeval.meteor(hyps, refs, flavor="nltk", alpha=0.5, beta=2.0, gamma=0.25, segments=True)
    assert np.abs(got.segments - expected).max() <= TOL


def test_nltk_docstring_example(nltk_wordnet: WordNetCorpusReader) -> None:
    hyp = "It is a guide to action which ensures that the military always obeys the commands of the party"
    ref = "It is a guide to action that ensures that the military will forever heed Party commands"
    expected = meteor_score([ref.split()], hyp.split(), wordnet=nltk_wordnet)
    assert round(expected, 4) == 0.6944
    assert nlpeval.meteor([hyp], [ref], flavor="nltk").score == pytest.approx(expected, abs=TOL)


def test_stems_and_synonyms_of_every_ted_word(
    compare_mt: dict[str, list[str]], nltk_wordnet: WordNetCorpusReader
) -> None:
    from nlpeval import _native

    words = sorted({w.lower() for name in ("ted.ref.eng", "ted.sys1.eng") for line in compare_mt[name]
                    for w in line.split()})  # fmt: skip
    stemmer = PorterStemmer()
    assert _native.nltk_porter_stems(words) == [stemmer.stem(w) for w in words]
    ours = WordNet.open()
    for word in words[:3000]:
        stem = stemmer.stem(word)
        names = {
            lemma.name()
            for synset in nltk_wordnet.synsets(stem)
            for lemma in synset.lemmas()
            if "_" not in lemma.name()
        }
        assert ours.nltk_synonyms(stem) == names | {stem}, word


def test_long_inputs_match_nltk(compare_mt: dict[str, list[str]], nltk_wordnet: WordNetCorpusReader) -> None:
    # 16,000-token segments: nlpeval's matching is linear (timing is in benchmarks/bench_meteor.py)
    def long(lines: list[str]) -> str:
        return " ".join(" ".join(lines).split()[:16_000])

    hyp, ref = long(compare_mt["ted.sys1.eng"]), long(compare_mt["ted.ref.eng"])
    expected = meteor_score([ref.split()], hyp.split(), wordnet=nltk_wordnet)
    assert nlpeval.meteor([hyp], [ref], flavor="nltk").score == pytest.approx(expected, abs=TOL)


def test_empty_and_whitespace_segments_score_zero(nltk_wordnet: WordNetCorpusReader) -> None:
    hyps = ["", "  \t", "a cat", "a cat", ""]
    refs = ["a cat", "a cat", "", " ", ""]
    expected = _nltk_scores(nltk_wordnet, hyps, [[r] for r in refs])
    got = nlpeval.meteor(hyps, refs, flavor="nltk", segments=True)
    assert got.segments.tolist() == expected.tolist() == [0.0] * 5
    assert got.score == 0.0


def test_options_that_nltk_lacks_are_refused() -> None:
    for bad in ({"normalize": True}, {"task": "hter"}, {"modules": ["exact"]}, {"weights": [1.0]}):
        with pytest.raises(ValueError, match="not options of flavor='nltk'"):
            nlpeval.make_meteor(flavor="nltk", **bad)
