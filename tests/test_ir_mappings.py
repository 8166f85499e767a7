"""Python mappings read by the native core (``TrecQrels.from_mapping``, ``trec_place_mapping``) and measured
there (``trec_measures``): every value per query equal to trec_eval 9.0.8 (pytrec_eval 0.5.11 live on the same
dicts) and to the Python reader and NumPy measures; every form the core leaves to Python (NaN, keys that are
not ``str``, lists, other mapping types, NumPy scalars) gives the Python reader's result or its message."""

from __future__ import annotations

import collections
import hashlib
import json
import multiprocessing
import warnings
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

import nlpeval
from nlpeval import _native
from nlpeval.cli.main import main
from nlpeval.core.errors import InputError

MEASURES = "P@1,P@5,P@20,recall@5,recall@100,Rprec,recip_rank,map,map@10,ndcg,ndcg@3,ndcg@20,success@1,success@10"
TREC = {"P.1,5,20", "recall.5,100", "Rprec", "recip_rank", "map", "map_cut.10", "ndcg", "ndcg_cut.3,20"}
TREC |= {"success.1,10"}


def _collection(seed: int) -> tuple[dict, dict]:
    """Ties exact and in float32 only, Unicode ids, infinities, signed zeros, graded and negative levels,
    judged documents never retrieved, queries on one side only, an empty ranking."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(70):
        query = f"q{q:02d}" if q % 7 else f"ü{q} 東京"
        pool = [f"d{d}" if d % 5 else f"dé{d}" for d in rng.choice(500, 90, replace=False)]
        qrels[query] = {pool[i]: int(rng.integers(-1, 4)) for i in rng.choice(90, 35, replace=False)}
        qrels[query].update({f"never{k}": 1 for k in range(int(rng.integers(0, 3)))})
        if q % 9 == 4:
            continue  # judged, not ranked
        scores = np.round(rng.normal(10, 3, 80), 0 if q % 2 else 6)
        scores[::4] = scores[0] + 1e-12  # equal in float32 only
        ranked = dict(zip(pool[:80], scores.tolist(), strict=True))
        if q % 10 == 1:
            ranked.update({"inf-doc": float("inf"), "minus-inf-doc": -float("inf"), "zero": 0.0, "minus-zero": -0.0})
        run[query] = ranked
    run["only-in-run"] = {"d1": 1.0}
    run["q03"] = {}  # judged, an empty ranking
    return qrels, run


def _python_only(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TrecQrels", "trec_place_mapping", "trec_measures"):
        monkeypatch.setattr(_native, name, None)


def _calls(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Records each answer of the native placement of a run mapping (``None``: left to Python)."""
    kernel, answers = _native.trec_place_mapping, []

    def recorded(*args: object) -> object:
        answers.append(kernel(*args))
        return answers[-1]

    monkeypatch.setattr(_native, "trec_place_mapping", recorded)
    return answers


def _assert_close(ours: dict, theirs: dict, atol: float) -> None:
    assert list(ours) == sorted(theirs)
    for query, values in ours.items():
        for name, value in values.items():
            assert value == pytest.approx(theirs[query][name], abs=atol, rel=0), (query, name)


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(("level", "judged_only"), [(1, False), (2, False), (1, True)])
def test_dicts_equal_trec_eval_and_the_python_reader(seed, level, judged_only, monkeypatch) -> None:
    qrels, run = _collection(seed)
    answers = _calls(monkeypatch)
    result = nlpeval.retrieval(qrels, run, MEASURES, relevance_level=level, judged_only=judged_only)
    assert len(answers) == 1 and answers[0] is not None  # read and placed natively
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC, relevance_level=level, judged_docs_only_flag=judged_only)
    reference = evaluator.evaluate(run)
    _assert_close(result.per_query(), reference, 1e-12)
    assert result.skipped == ("only-in-run",) and set(result.unranked) == set(qrels) - set(run)
    complete = nlpeval.retrieval(qrels, run, MEASURES, relevance_level=level, judged_only=judged_only, complete=True)
    _python_only(monkeypatch)
    python = nlpeval.retrieval(qrels, run, MEASURES, relevance_level=level, judged_only=judged_only)
    _assert_close(result.per_query(), python.per_query(), 1e-15)  # NumPy's log2 differs by an ulp at some ranks
    assert (python.skipped, python.unranked) == (result.skipped, result.unranked)
    python_complete = nlpeval.retrieval(
        qrels, run, MEASURES, relevance_level=level, judged_only=judged_only, complete=True
    )
    _assert_close(complete.per_query(), python_complete.per_query(), 1e-15)


def test_scores_only_python_reads_and_other_forms_fall_back(monkeypatch) -> None:
    qrels, run = _collection(3)
    expected = nlpeval.retrieval(qrels, run, MEASURES).per_query()
    first = next(iter(run))
    variants = {
        "int scores": {q: {d: int(s) if abs(s) < 1e9 else s for d, s in r.items()} for q, r in run.items()},
        "NumPy float64": {q: {d: np.float64(s) for d, s in r.items()} for q, r in run.items()},
        "OrderedDict": {q: collections.OrderedDict(r) for q, r in run.items()},
        "a ranked list": {**run, first: sorted(run[first], key=lambda d: -run[first][d])},
        "bool scores": {**run, "only-in-run": {"d1": True}},
        "int doc id, never compared": {**run, "only-in-run": {1: 1.0}},
        "float32 scores": {**run, "only-in-run": {"d1": np.float32(1.0)}},
    }
    answers = _calls(monkeypatch)
    for label, variant in variants.items():
        ours = nlpeval.retrieval(qrels, variant, MEASURES).per_query()
        _python_only(monkeypatch)
        python = nlpeval.retrieval(qrels, variant, MEASURES).per_query()
        monkeypatch.undo()
        answers = _calls(monkeypatch)
        _assert_close(ours, python, 1e-15)
        if label not in ("int scores", "a ranked list"):  # the same scores: the same values
            _assert_close(ours, expected, 1e-15)
    # exact ints and float subclasses are read natively; the rest go to Python
    for label, native in (("NumPy float64", True), ("bool scores", False), ("OrderedDict", False)):
        nlpeval.retrieval(qrels, variants[label], "map")
        assert (answers[-1] is not None) == native, label


@pytest.mark.parametrize(
    ("qrels", "run", "message"),
    [
        (
            {"q": {"a": 1}},
            {"q": {"a": 1.0}, "unjudged": {"b": float("nan")}},
            "run: query 'unjudged', document 'b': score is NaN",
        ),
        ({"q": {"a": 1}}, {"q": {"a": 1.0, "\ud800": 0.5}}, None),  # a lone surrogate: Python's reader
        ({"q": {"a": True}}, {"q": {"a": 1.0}}, "relevance must be an integer; got True"),
        ({"q": {"a": 1, 2: 1}}, {"q": {"a": 1.0}}, "qrels: query 'q': document ids are str; got int"),
        ({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 1.0, 3: 1.0}}, "run: document ids are str; a tie compared"),
    ],
)
def test_bad_mappings_are_the_python_readers_errors(qrels, run, message, monkeypatch) -> None:
    def outcome() -> object:
        try:
            return nlpeval.retrieval(qrels, run, "map,P@2").per_query()
        except InputError as exc:
            return str(exc)

    ours = outcome()
    _python_only(monkeypatch)
    assert ours == outcome()
    if message is not None:
        assert isinstance(ours, str) and message in ours, ours


def _child(qrels: dict, run: dict, queue: multiprocessing.Queue) -> None:
    queue.put(nlpeval.retrieval(qrels, run, "map,ndcg").per_query())


def test_a_forked_child_reads_mappings_after_the_parent() -> None:
    qrels, run = _collection(4)
    parent = nlpeval.retrieval(qrels, run, "map,ndcg").per_query()  # the parent's pool is running
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(qrels, run, queue))
    child.start()
    got = queue.get(timeout=60)
    child.join(timeout=60)
    assert child.exitcode == 0 and got == parent


def test_report_task_ir_reads_the_files_natively(tmp_path: Path, monkeypatch) -> None:
    qrels, run = ({q.replace(" ", "_"): v for q, v in m.items()} for m in _collection(5))  # no spaces in files
    run = {q: ranked for q, ranked in run.items() if ranked}  # a file has no empty ranking
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "a.run"
    qrels_path.write_text("".join(f"{q} 0 {d} {v}\n" for q, j in qrels.items() for d, v in j.items()), "utf-8")
    lines = [f"{q}\tQ0\t{d}\t1\t{s!r}\tt" for q, r in run.items() for d, s in r.items()]
    run_path.write_bytes("\n".join(lines).encode("utf-8"))  # no final newline
    import nlpeval.ir.trecfiles as trecfiles

    def refused(*args: object) -> None:
        raise AssertionError("read in Python")

    monkeypatch.setattr(trecfiles, "read_run", refused)
    out = tmp_path / "report.json"
    argv = ["report", "--task", "ir", "--qrels", str(qrels_path), str(run_path), "--bootstrap", "20", "-o", str(out)]
    assert main([*argv, "-m", "map,ndcg@10"]) == 0
    payload = json.loads(out.read_text("utf-8"))
    cells = {c["metric"]: c["estimate"]["value"] for c in payload["leaderboard"]["cells"]}
    expected = nlpeval.retrieval(qrels, run, "map,ndcg@10")
    assert cells == {name: expected[name].score for name in ("map", "ndcg_cut_10")}
    files = {f["name"]: f for f in payload["provenance"]["inputs"]}
    for path, count in ((qrels_path, sum(map(len, qrels.values()))), (run_path, len(lines))):
        assert files[path.name]["lines"] == count
        assert files[path.name]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


def _long_rankings(seed: int, queries: int) -> tuple[dict, dict]:
    """Rankings of 300-900 documents with 4-60 relevant ones (the native placement's bucketed count of each
    ranking against the relevant scores): spread, tied, equal in float32 only, infinite, signed zeros,
    subnormal, beyond float32's range, and scores far apart. From 64 queries on, the core places the walked
    queries on a second thread."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    specials = [0.0, -0.0, 5e-324, -5e-324, 1e-310, 3.5e38, -3.5e38, 1e300, float("inf"), -float("inf"), 0.1]
    for q in range(queries):
        n = int(rng.integers(300, 900))
        docs = [f"d{d}" if d % 7 else f"dö{d}" for d in rng.choice(5000, n, replace=False)]
        kind = q % 6
        if kind == 0:
            scores = rng.normal(15, 4, n)
        elif kind == 1:
            scores = np.round(rng.random(n), 2)
        elif kind == 2:
            scores = np.full(n, 0.1) + rng.integers(0, 3, n) * 1e-12  # equal in float32 only
        elif kind == 3:
            scores = rng.choice(specials, n)
        elif kind == 4:
            scores = rng.normal(0, 1, n) * 10.0 ** rng.integers(-300, 300, n)
        else:
            scores = rng.normal(15, 4, n)
            scores[rng.choice(n, 20, replace=False)] = rng.choice(specials, 20)
        run[f"q{q}"] = dict(zip(docs, scores.tolist(), strict=True))
        relevant = int(rng.integers(4, 60))
        qrels[f"q{q}"] = {docs[i]: int(rng.integers(-1, 4)) for i in rng.choice(n, relevant + 30, replace=False)}
    return qrels, run


@pytest.mark.parametrize(("queries", "judged_only"), [(24, False), (24, True), (80, False)])
def test_long_rankings_equal_trec_eval_from_dicts_and_files(queries, judged_only, tmp_path, monkeypatch) -> None:
    qrels, run = _long_rankings(6, queries)
    answers = _calls(monkeypatch)
    result = nlpeval.retrieval(qrels, run, MEASURES, judged_only=judged_only)
    assert len(answers) == 1 and answers[0] is not None  # read and placed natively
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC, judged_docs_only_flag=judged_only)
    _assert_close(result.per_query(), evaluator.evaluate(run), 1e-12)
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("".join(f"{q} 0 {d} {v}\n" for q, j in qrels.items() for d, v in j.items()), "utf-8")
    run_path.write_text("".join(f"{q} Q0 {d} 1 {s!r} t\n" for q, r in run.items() for d, s in r.items()), "utf-8")
    from_files = nlpeval.retrieval(str(qrels_path), str(run_path), MEASURES, judged_only=judged_only)
    assert from_files.per_query() == result.per_query()
    _python_only(monkeypatch)
    python = nlpeval.retrieval(qrels, run, MEASURES, judged_only=judged_only)
    _assert_close(result.per_query(), python.per_query(), 1e-15)


def test_numpy_scores_of_both_infinities_raise_no_warning(monkeypatch) -> None:
    # the Python reader's type check sums the scores: inf + -inf and 1e308 + 1e308 in NumPy scalars warned
    qrels = {"q": {"a": 1, "b": 1, "c": 2}, "r": {"a": 1}}
    run = {
        "q": {"a": np.float64("inf"), "b": np.float64("-inf"), "c": np.float64(0.5)},
        "r": {"a": np.float64(1e308), "b": np.float64(1e308), "c": np.float64(-1.0)},
    }
    plain = {q: {d: float(s) for d, s in r.items()} for q, r in run.items()}
    _python_only(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = nlpeval.retrieval(qrels, run, MEASURES).per_query()
        ordered = nlpeval.retrieval(qrels, {q: collections.OrderedDict(r) for q, r in run.items()}, "map")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC)
    _assert_close(result, evaluator.evaluate(plain), 1e-12)
    assert ordered["map"].score == nlpeval.retrieval(qrels, plain, "map")["map"].score


@pytest.mark.parametrize("bad", [float("nan"), "0.5", None])
def test_a_bad_score_late_in_a_long_run_is_the_python_readers_error(bad, monkeypatch) -> None:
    # the walk stops at the bad entry while earlier queries are being placed on the second thread
    qrels, run = _long_rankings(7, 80)
    last = list(run)[-3]
    doc = list(run[last])[len(run[last]) // 2]
    run[last][doc] = bad
    with pytest.raises(InputError) as ours:
        nlpeval.retrieval(qrels, run, "map")
    _python_only(monkeypatch)
    with pytest.raises(InputError) as python:
        nlpeval.retrieval(qrels, run, "map")
    assert str(ours.value) == str(python.value) and doc in str(ours.value)


def _child_long(queue: multiprocessing.Queue) -> None:
    qrels, run = _long_rankings(9, 80)
    queue.put(nlpeval.retrieval(qrels, run, "map,ndcg,P@10").per_query())


def test_a_forked_child_places_on_the_second_thread_after_the_parent() -> None:
    # 80 long rankings: the parent walks under the GIL while its placing thread places (joined at each call's end,
    # so a fork finds no thread of it); the forked child does the same with its own placing thread
    qrels, run = _long_rankings(9, 80)
    parent = nlpeval.retrieval(qrels, run, "map,ndcg,P@10").per_query()
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child_long, args=(queue,))
    child.start()
    got = queue.get(timeout=60)
    child.join(timeout=60)
    assert child.exitcode == 0 and got == parent
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg", "P.10"})
    _assert_close(parent, evaluator.evaluate(run), 1e-12)
