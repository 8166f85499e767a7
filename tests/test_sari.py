"""SARI parity: flavor ``hf`` with HF evaluate 0.4.6's ``sari`` script run live, flavor ``easse`` with EASSE.

evaluate's ``sari`` metric script is fetched from the Hub by ``evaluate.load("sari")``; tests must not
download, so the script of evaluate's repository at tag v0.4.6 (``metrics/sari/sari.py``, Apache-2.0)
is committed as ``tests/data/evaluate_sari_v0.4.6.py.txt`` (its git blob hash is checked) and run here
with evaluate, datasets, sacrebleu and sacremoses installed. EASSE is not on PyPI: its goldens come
from ``tests/fixtures/sari/make_easse_goldens.py`` (run in EASSE's venv), and EASSE is also run live
when it is importable. Cases (``tests/sari_cases.py``): TED, summaries and WMT17 text arranged as
source / output / references, and generated adversarial text.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import nlpeval
from nlpeval.cli.main import main
from nlpeval.core.errors import InputError
from nlpeval.metrics.sari import SARI, SARI_FLAVORS
from sari_cases import CASES, build, digest

TESTS = Path(__file__).resolve().parent
SCRIPT = TESTS / "data" / "evaluate_sari_v0.4.6.py.txt"
SCRIPT_BLOB = "7d021184d0f45ae1fb01d86f8c5320a4a62fdf89"  # git rev-parse v0.4.6:metrics/sari/sari.py
GOLDENS = json.loads((TESTS / "fixtures" / "sari" / "easse_goldens.json").read_text(encoding="utf-8"))


def _evaluate_stub() -> dict[str, ModuleType]:
    """The three names of ``evaluate`` the script touches outside its computation (``evaluate.Metric``, the
    docstring decorator, ``MetricInfo`` in ``_info``): importing evaluate 0.4.6 takes 10-20 s here, and
    SARIsent, normalize and Sari._compute, which are run, use none of it."""
    evaluate = ModuleType("evaluate")
    utils = ModuleType("evaluate.utils")
    file_utils = ModuleType("evaluate.utils.file_utils")
    file_utils.add_start_docstrings = lambda *docs: lambda f: f  # type: ignore[attr-defined]
    utils.file_utils = file_utils  # type: ignore[attr-defined]
    evaluate.utils = utils  # type: ignore[attr-defined]
    evaluate.Metric = type("Metric", (), {})  # type: ignore[attr-defined]
    evaluate.MetricInfo = dict  # type: ignore[attr-defined]
    return {"evaluate": evaluate, "evaluate.utils": utils, "evaluate.utils.file_utils": file_utils}


@cache
def evaluate_sari() -> ModuleType:
    """evaluate 0.4.6's sari metric script, imported from the committed copy (with datasets, sacrebleu,
    sacremoses; evaluate itself only when already imported, else the stub above)."""
    from importlib.machinery import SourceFileLoader

    loader = SourceFileLoader("evaluate_sari_v046", str(SCRIPT))
    spec = importlib.util.spec_from_loader("evaluate_sari_v046", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    stubs = {} if "evaluate" in sys.modules else _evaluate_stub()
    sys.modules.update(stubs)
    try:
        loader.exec_module(module)
    finally:
        for name in stubs:
            del sys.modules[name]
    return module


def hf_reference(src: list[str], out: list[str], refs: list[list[str]]) -> float:
    """``Sari._compute`` of the script (what ``evaluate.load("sari").compute`` returns), 0-100."""
    module = evaluate_sari()
    return module.Sari._compute(None, sources=src, predictions=out, references=refs)["sari"]


def hf_sentence(src: str, out: str, refs: list[str]) -> float:
    module = evaluate_sari()
    return module.SARIsent(module.normalize(src), module.normalize(out), [module.normalize(r) for r in refs])


def easse_live():
    try:
        from easse import sari as easse_sari  # EASSE's venv; not in the shared test environment
    except ImportError:
        return None
    return easse_sari


def test_the_committed_script_is_evaluates_v046():
    data = SCRIPT.read_bytes()
    blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    assert blob == SCRIPT_BLOB


def test_evaluates_docstring_example():
    src = ["About 95 species are currently accepted ."]
    out = ["About 95 you now get in ."]
    refs = [
        [
            "About 95 species are currently known .",
            "About 95 species are now accepted .",
            "95 species are now accepted .",
        ]
    ]
    assert hf_reference(src, out, refs) == 26.953601953601954
    assert abs(100 * nlpeval.sari(out, refs, sources=src).score - 26.953601953601954) < 1e-12


@pytest.mark.parametrize("case", CASES)
def test_hf_flavor_equals_evaluate(case):
    src, out, refs = build(case)
    got = nlpeval.sari(out, refs, sources=src, segments=True)
    assert abs(100 * got.score - hf_reference(src, out, refs)) < 1e-12
    expected = [hf_sentence(s, o, r) for s, o, r in zip(src, out, refs, strict=True)]
    assert got.segments.tolist() == expected  # bit for bit, summation order included


def test_hf_flavor_variable_reference_counts_and_ties():
    rng = random.Random(5)
    src, out, refs = build("adversarial", 300)
    refs = [seg[: rng.randint(1, 3)] for seg in refs]
    out = [o if i % 5 else s for i, (s, o) in enumerate(zip(src, out, strict=True))]  # copies: ties
    out[3] = out[4] = ""
    src[7] = ""
    got = nlpeval.sari(out, refs, sources=src, segments=True)
    assert abs(100 * got.score - hf_reference(src, out, refs)) < 1e-12
    assert got.segments.tolist() == [hf_sentence(s, o, r) for s, o, r in zip(src, out, refs, strict=True)]


def test_hf_flavor_without_tokenizer_is_sarisent_on_the_text():
    module = evaluate_sari()
    src, out, refs = build("adversarial", 200)
    got = nlpeval.sari(out, refs, sources=src, tokenize="none", lowercase=False, segments=True)
    expected = [module.SARIsent(s, o, r) for s, o, r in zip(src, out, refs, strict=True)]
    assert got.segments.tolist() == expected


@pytest.mark.parametrize("case", CASES)
def test_easse_flavor_equals_easse(case):
    src, out, refs = build(case)
    golden = GOLDENS["cases"][case]
    assert golden["digest"] == digest((src, out, refs)), "the case changed: rerun make_easse_goldens.py"
    got = nlpeval.sari(out, refs, sources=src, flavor="easse", segments=True)
    assert abs(100 * got.score - golden["sari"]) < 1e-12
    add, keep, delete = golden["operations"]
    assert abs(100 * got.components["add"] - add) < 1e-12
    assert abs(100 * got.components["keep"] - keep) < 1e-12
    assert abs(100 * got.components["del"] - delete) < 1e-12
    n = len(golden["sentences"])
    assert np.max(np.abs(100 * got.segments[:n] - np.array(golden["sentences"]))) < 1e-12
    cased = nlpeval.sari(out, refs, sources=src, flavor="easse", lowercase=False)
    assert abs(100 * cased.score - golden["sari_cased"]) < 1e-12
    raw = [[r.lower() for r in seg] for seg in refs]
    plain = nlpeval.sari(
        [o.lower() for o in out], raw, sources=[s.lower() for s in src], flavor="easse", tokenize="none"
    )
    assert abs(100 * plain.score - golden["sari_tok_none"]) < 1e-12
    live = easse_live()
    if live is not None:
        streams = [list(x) for x in zip(*refs, strict=True)]
        assert abs(100 * got.score - live.corpus_sari(src, out, streams)) < 1e-12


def test_the_flavors_differ_and_are_not_each_other():
    src, out, refs = build("ted", 200)
    hf = nlpeval.sari(out, refs, sources=src).score
    easse = nlpeval.sari(out, refs, sources=src, flavor="easse").score
    assert abs(hf - easse) > 1e-3


def test_rows_merge_streaming_and_bootstrap():
    src, out, refs = build("sum", 200)
    for flavor in ("hf", "easse"):
        metric = SARI(flavor=flavor)
        whole = metric(out, refs, sources=src)
        left = metric.segment_stats(out[:77], refs[:77], sources=src[:77])
        right = metric.segment_stats(out[77:], refs[77:], sources=src[77:])
        totals = metric.schema.combine(left.totals(), right.totals())
        assert abs(metric.score_from_totals(totals).score - whole.score) < 1e-12
        ci = nlpeval.sari(out, refs, sources=src, flavor=flavor, n_bootstrap=200).ci
        assert ci is not None and ci.low < whole.score < ci.high


def test_bad_input_names_the_segment():
    with pytest.raises(InputError, match="sources"):
        nlpeval.sari(["a"], ["b"], sources=None)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="2 hypotheses but 1 sources"):
        nlpeval.sari(["a", "b"], ["b", "c"], sources=["x"])
    with pytest.raises(InputError, match="sources: segment 1"):
        nlpeval.sari(["a", "b"], ["b", "c"], sources=["x", None])  # type: ignore[list-item]
    with pytest.raises(InputError, match="references: segment 0: has no reference"):
        nlpeval.sari(["a"], [[]], sources=["x"])
    with pytest.raises(ValueError, match="flavor"):
        SARI(flavor="tensor2tensor")
    for flavor in SARI_FLAVORS:
        with pytest.raises(InputError, match="hypotheses: segment 1: is not valid Unicode"):
            nlpeval.sari(["a", "b \ud800"], ["a", "b"], sources=["a", "b"], flavor=flavor)
        with pytest.raises(InputError, match="sources: segment 0: is not valid Unicode"):
            nlpeval.sari(["a", "b"], ["a", "b"], sources=["\udfff", "b"], flavor=flavor)
        with pytest.raises(InputError, match=r"references: segment 1 \(reference 1\): is not valid Unicode"):
            nlpeval.sari(["a", "b"], ["a", ["b", "c \ud800"]], sources=["a", "b"], flavor=flavor)


def test_registry_entry():
    from nlpeval.metrics import registry

    entry = registry.get("sari")
    assert entry.needs_sources and entry.flavors == ("hf", "easse")
    metric = registry.build("sari", {"sari_flavor": "easse"})
    assert isinstance(metric, SARI) and metric.flavor == "easse"


def _write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("flavor", ["hf", "easse"])
def test_cli_scores_sari_with_src(tmp_path, capsys, flavor):
    src, out, refs = build("ted", 120)
    files = [_write(tmp_path / f"ref{k}.txt", [seg[k] for seg in refs]) for k in range(2)]
    args = ["score", "-m", "sari", "--sari-flavor", flavor, "--src", _write(tmp_path / "src.txt", src)]
    args += [x for f in files for x in ("-r", f)] + [_write(tmp_path / "sys.txt", out), "--format", "json"]
    assert main(args) == 0
    got = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["sari"]
    assert got["signature"].startswith(f"nrefs:2|case:lc|tok:13a|flavor:{flavor}|")
    if flavor == "hf":
        assert abs(100 * got["score"] - hf_reference(src, out, refs)) < 1e-12
    else:
        easse = nlpeval.sari(out, refs, sources=src, flavor="easse")
        assert got["score"] == easse.score and got["add"] == easse.components["add"]


def test_cli_bad_sources_are_one_line_with_file_and_line(tmp_path, capsys):
    ref = _write(tmp_path / "ref.txt", ["a c", "b d"])
    hyp = _write(tmp_path / "hyp.txt", ["a b", "b c"])
    assert main(["score", "-m", "sari", "-r", ref, hyp]) == 2
    assert "needs the sources" in capsys.readouterr().err
    bad = tmp_path / "src.txt"
    bad.write_bytes(b"x y\n\xff z\n")
    assert main(["score", "-m", "sari", "--src", str(bad), "-r", ref, hyp]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2:" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    short = _write(tmp_path / "short.txt", ["x"])
    assert main(["score", "-m", "sari", "--src", short, "-r", ref, hyp]) == 2
    assert "segment counts differ" in capsys.readouterr().err


def test_packed_keys_and_the_general_path_count_the_same():
    from nlpeval.metrics.sari import _gram_counts_table, gram_counts, token_id_rows

    src, out, refs = build("adversarial", 150)
    counts = np.array([len(r) for r in refs])
    lines = [*src, *out, *(r for seg in refs for r in seg)]
    for flavor, tokenize in (("hf", "13a"), ("hf", "none"), ("easse", "none")):
        ids, lengths = token_id_rows(lines, flavor=flavor, tokenize=tokenize)
        packed, general = gram_counts(ids, lengths, 150, counts), _gram_counts_table(ids, lengths, 150, counts)
        order = np.lexsort((packed.s, packed.c, packed.r, packed.order, packed.segment))
        other = np.lexsort((general.s, general.c, general.r, general.order, general.segment))
        for field in ("segment", "order", "s", "c", "r"):
            assert getattr(packed, field)[order].tolist() == getattr(general, field)[other].tolist()

        # the source n-grams in Counter order within each (segment, order): the order of summation
        def pick(g):
            rows = [(g.segment[k], g.order[k], g.s[k], g.c[k], g.r[k]) for k in g.source_rows.tolist()]
            return sorted(rows, key=lambda row: (row[0], row[1]))  # stable: keeps the order within a slot

        assert pick(packed) == pick(general)


def test_report_passes_the_sources_to_sari():
    src, out, refs = build("ted", 30)
    other = [seg[0] for seg in refs]
    gold = [[seg[1]] for seg in refs]
    report = nlpeval.report(
        {"A": out, "B": other}, gold, sources=src, metrics=["sari"], n_bootstrap=50, n_randomization=50
    ).to_dict()
    cells = {(c["system"], c["metric"]): c["estimate"]["value"] for c in report["leaderboard"]["cells"]}
    for name, hyps in (("A", out), ("B", other)):
        assert abs(100 * cells[(name, "sari")] - hf_reference(src, hyps, gold)) < 1e-12
    with pytest.raises(InputError, match="source"):
        nlpeval.report({"A": out}, gold, metrics=["sari"], n_bootstrap=0, n_randomization=0)


def test_dask_passes_the_sources_column_to_sari():
    import dask
    import dask.dataframe as dd
    import pandas as pd

    import nlpeval.dask as nd

    src, out, refs = build("ted", 40)
    gold = [seg[0] for seg in refs]
    frame = dd.from_pandas(pd.DataFrame({"hyp": out, "ref": gold, "src": src}), npartitions=3)
    with dask.config.set(scheduler="sync"):
        got = nd.score(frame, "sari", hyp="hyp", ref="ref", src="src").compute()
        bleu = nd.score(frame, "bleu", hyp="hyp", ref="ref", src="src").compute()  # a metric without sources
    assert abs(100 * got.score - hf_reference(src, out, [[g] for g in gold])) < 1e-12
    assert bleu.score == nlpeval.bleu(out, gold).score
