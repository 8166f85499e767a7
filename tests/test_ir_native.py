"""TREC files read by the native core (src/retrieval): every value per query equal to trec_eval 9.0.8
(pytrec_eval 0.5.11 run live on the same files, parsed by its own ``parse_qrel``/``parse_run``), the placed
arrays equal to the Python placement of the same mappings, and every bad file the same ``file:line`` error
as the Python reader (the CLI: one line, exit 2). Adversarial files: ties (float32 and exact), CRLF, tabs,
Unicode spaces, scientific notation and infinities, comments, graded and negative levels, judged documents
never retrieved, queries on one side only, duplicate lines."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

import nlpeval
from nlpeval import _native
from nlpeval.cli.main import main
from nlpeval.core.errors import InputError
from nlpeval.ir import native, trecfiles
from nlpeval.ir.ranking import place

MEASURES = "P@1,P@5,P@20,recall@5,recall@100,Rprec,recip_rank,map,map@10,ndcg,ndcg@3,ndcg@20,success@1,success@10"
TREC = {"P.1,5,20", "recall.5,100", "Rprec", "recip_rank", "map", "map_cut.10", "ndcg", "ndcg_cut.3,20"}
TREC |= {"success.1,10"}
SEPARATORS = [" ", "\t", "  ", " \t", "\u00a0", "\u3000", "\x0b", "\x1f"]  # all split by str.split()


def test_the_native_core_is_built() -> None:
    # CI builds the core from source: the native reader must be there (else every read silently falls back)
    assert _native.TrecQrels is not None and _native.TrecRun is not None and _native.trec_place is not None


def _write(folder: Path, seed: int, *, crlf: bool, float_ties: bool) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    qrels_lines, run_lines = ["# judgements of a generated collection"], []
    for q in range(60):
        query = f"q{q:02d}" if q % 7 else f"ü{q}"
        pool = [f"d{d}" for d in rng.choice(400, 80, replace=False)]
        judged = rng.choice(80, 30, replace=False)
        for i in judged:
            qrels_lines.append(f"{query} 0 {pool[i]} {int(rng.integers(-1, 4))}")
        qrels_lines += [f"{query} 0 never{k} 1" for k in range(int(rng.integers(0, 3)))]  # judged, not retrieved
        if q % 9 == 4:
            continue  # judged, not ranked
        scores = rng.normal(10, 3, 70)
        if float_ties:
            scores[::3] = scores[0] + 1e-12  # equal in float32 only
        else:
            scores = np.round(scores, 0)  # exact ties: the document id decides
        for rank, (doc, score) in enumerate(zip(pool[:70], scores, strict=True)):
            sep = SEPARATORS[int(rng.integers(len(SEPARATORS)))]
            text = f"{score:.17e}" if rank % 2 else repr(float(score))
            run_lines.append(sep.join([query, "Q0", doc, str(rank + 1), text, "tag"]))
        if q % 10 == 1:
            run_lines.append(f"{query} Q0 inf-doc 0 inf tag")
            run_lines.append(f"{query} Q0 minus-inf-doc 0 -Infinity tag")
    run_lines.append("only-in-run Q0 d1 1 1.0 tag")
    order = rng.permutation(len(run_lines))  # lines of a query need not be together
    end = "\r\n" if crlf else "\n"
    qrels_path, run_path = folder / f"qrels{seed}", folder / f"run{seed}"
    qrels_path.write_bytes((end.join(qrels_lines) + end).encode("utf-8"))
    run_path.write_bytes((end.join(run_lines[i] for i in order) + end).encode("utf-8"))
    return qrels_path, run_path


def _pytrec(qrels_path: Path, run_path: Path) -> tuple[dict, dict]:
    with open(qrels_path, encoding="utf-8", newline="") as handle:
        qrels = pytrec_eval.parse_qrel(line for line in handle if not line.startswith("#"))
    with open(run_path, encoding="utf-8", newline="") as handle:
        run = pytrec_eval.parse_run(handle)
    return qrels, run


@pytest.mark.parametrize(("seed", "crlf", "float_ties"), [(1, False, True), (2, True, False), (3, True, True)])
@pytest.mark.parametrize("judged_only", [False, True])
def test_files_equal_trec_eval_and_the_python_placement(tmp_path, seed, crlf, float_ties, judged_only) -> None:
    qrels_path, run_path = _write(tmp_path, seed, crlf=crlf, float_ties=float_ties)
    qrels = native.read_qrels(qrels_path)
    run = native.read_run(run_path)
    assert isinstance(qrels, native.NativeQrels) and isinstance(run, native.NativeRun)
    python_qrels, python_run = trecfiles.read_qrels(str(qrels_path)), trecfiles.read_run(str(run_path))
    assert qrels.qrels == python_qrels.qrels and run.run == python_run.run and run.tag == python_run.tag == "tag"
    assert run.first_line == python_run.first_line
    for level in (1, 2):
        result = nlpeval.retrieval(qrels_path, run_path, MEASURES, relevance_level=level, judged_only=judged_only)
        reference = pytrec_eval.RelevanceEvaluator(
            *_pytrec(qrels_path, run_path)[:1], TREC, relevance_level=level, judged_docs_only_flag=judged_only
        ).evaluate(_pytrec(qrels_path, run_path)[1])
        assert list(result.queries) == sorted(reference)
        for measure in nlpeval.ir.parse_measures(MEASURES):
            theirs = np.array([reference[q][measure.name] for q in result.queries])
            np.testing.assert_allclose(result[measure.name].segments, theirs, rtol=0, atol=1e-12, err_msg=measure.name)
        assert result.skipped == ("only-in-run",)
        assert set(result.unranked) == set(python_qrels.qrels) - set(python_run.run)
    for complete in (False, True):
        for float32 in (False, True):
            ours, skipped, unranked = native.place_native(
                qrels, run, complete=complete, judged_only=judged_only, float32_scores=float32
            )
            theirs = place(
                python_qrels.qrels, python_run.run, complete=complete, judged_only=judged_only, float32_scores=float32
            )
            assert ours.queries == theirs.queries
            for field in ("ranks", "rels", "num_ret", "levels"):
                np.testing.assert_array_equal(getattr(ours, field), getattr(theirs, field), err_msg=field)
            assert skipped == ["only-in-run"]
            assert unranked == sorted(set(python_qrels.qrels) - set(python_run.run))


BAD = [
    ("qrels", "q1 0 d1\n", "qrels:1: expected 4 fields 'query iteration document relevance'; got 3"),
    ("qrels", "q1 0 d1 1\r\nq2 0 d2 1\r\nq1 0 d1 2\r\n", "qrels:3: document 'd1' judged twice for query 'q1' (first on line 1)"),
    ("qrels", "q1 0 d1 1.0\n", "qrels:1: relevance '1.0' is not an integer"),
    ("qrels", "q1 0 d1 1\n\xff\n", "qrels:2: invalid UTF-8 (invalid start byte)"),
    ("run", "q1 Q0 d1 1 0.5\n", "run:1: expected 6 fields 'query Q0 document rank score tag'; got 5"),
    ("run", "q1\tQ0\td1\t1\t0.5\tt\nq2 Q0 d1 1 1 t\nq1 Q0 d1 2 0.4 t\n", "run:3: document 'd1' ranked twice for query 'q1' (first on line 1)"),
    ("run", "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 nan t\n", "run:2: score is NaN"),
    ("run", "q1 Q0 d1 1 0,5 t\n", "run:1: score '0,5' is not a number"),
    ("run", "q1 Q0 d1 1 0.5 t extra\n", "run:1: expected 6 fields 'query Q0 document rank score tag'; got 7"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "text", "message"), BAD)
def test_bad_files_are_the_python_readers_errors(tmp_path, kind, text, message) -> None:
    path = tmp_path / kind
    path.write_bytes(text.encode("utf-8", "surrogateescape") if "\xff" not in text else text.encode("latin-1"))
    reader = native.read_qrels if kind == "qrels" else native.read_run
    python = trecfiles.read_qrels if kind == "qrels" else trecfiles.read_run
    with pytest.raises(InputError) as ours:
        reader(path)
    with pytest.raises(InputError) as theirs:
        python(str(path))
    assert str(ours.value) == str(theirs.value) == f"{tmp_path}/{message}"
    handle = _native.TrecQrels if kind == "qrels" else _native.TrecRun
    with pytest.raises(ValueError) as direct:  # the native reader finds the same line and says the same
        handle.read(str(path))
    assert message.startswith(f"{kind}:{direct.value}")  # (Python also names the UTF-8 error's kind)


def test_forms_only_python_reads_fall_back_to_python(tmp_path) -> None:
    (tmp_path / "qrels").write_text("q1 0 d1 1_0\nq1 0 d2 ٣\n", encoding="utf-8")
    (tmp_path / "run").write_text("q1 Q0 d1 1 1_000.5 t\nq1 Q0 d2 2 ٣.5 t\n", encoding="utf-8")
    qrels, run = native.read_qrels(tmp_path / "qrels"), native.read_run(tmp_path / "run")
    assert isinstance(qrels, trecfiles.QrelsFile) and qrels.qrels == {"q1": {"d1": 10, "d2": 3}}
    assert isinstance(run, trecfiles.RunFile) and run.run == {"q1": {"d1": 1000.5, "d2": 3.5}}
    assert nlpeval.retrieval(tmp_path / "qrels", tmp_path / "run", "map")["map"].score == 1.0


def test_without_the_native_reader_files_are_read_in_python(tmp_path, monkeypatch) -> None:
    qrels_path, run_path = _write(tmp_path, 4, crlf=True, float_ties=True)
    native_result = nlpeval.retrieval(qrels_path, run_path, MEASURES)
    monkeypatch.setattr(_native, "TrecQrels", None)
    monkeypatch.setattr(_native, "TrecRun", None)
    assert isinstance(native.read_run(run_path), trecfiles.RunFile)
    python_result = nlpeval.retrieval(qrels_path, run_path, MEASURES)
    assert python_result.per_query() == native_result.per_query()


def test_mixed_inputs_and_paired_comparison_of_files(tmp_path) -> None:
    qrels_path, run_path = _write(tmp_path, 5, crlf=False, float_ties=False)
    _, other_path = _write(tmp_path, 6, crlf=False, float_ties=False)
    qrels, run = trecfiles.read_qrels(str(qrels_path)).qrels, trecfiles.read_run(str(run_path)).run
    from_files = nlpeval.retrieval(qrels_path, run_path, MEASURES)
    assert nlpeval.retrieval(qrels, run_path, MEASURES).per_query() == from_files.per_query()
    assert nlpeval.retrieval(qrels_path, run, MEASURES).per_query() == from_files.per_query()
    files = nlpeval.ir.compare_runs(qrels_path, {"a": run_path, "b": other_path}, "map,ndcg@10", n_resamples=200)
    dicts = nlpeval.ir.compare_runs(
        qrels, {"a": run, "b": trecfiles.read_run(str(other_path)).run}, "map,ndcg@10", n_resamples=200
    )
    assert [t.to_dict() for t in files.tests] == [t.to_dict() for t in dicts.tests]


def _child(paths: tuple[str, str], queue: multiprocessing.Queue) -> None:
    queue.put(nlpeval.retrieval(paths[0], paths[1], "map,ndcg").per_query())


def test_a_forked_child_reads_and_places_after_the_parent(tmp_path) -> None:
    qrels_path, run_path = _write(tmp_path, 7, crlf=False, float_ties=True)
    parent = nlpeval.retrieval(qrels_path, run_path, "map,ndcg").per_query()  # the parent's pool is running
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=((str(qrels_path), str(run_path)), queue))
    child.start()
    got = queue.get(timeout=60)
    child.join(timeout=60)
    assert child.exitcode == 0 and got == parent


def _large_run(folder: Path) -> Path:
    """A run file over 1 MiB (read natively in blocks on the thread pool, lines cut at block ends):
    interleaved queries, Unicode ids and spaces, CRLF, every score notation."""
    rng = np.random.default_rng(12)
    lines = []
    for q in range(420):
        query = f"q{q}" if q % 5 else f"ü{q}"
        for d in range(70):
            sep = SEPARATORS[int(rng.integers(len(SEPARATORS)))]
            score = float(rng.normal(10, 3))
            text = f"{score:.17e}" if d % 2 else repr(score)
            doc = f"d{d}é" if d % 13 == 0 else f"d{d}"
            lines.append(sep.join([query, "Q0", doc, str(d + 1), text, f"tag{q % 3}"]))
    order = rng.permutation(len(lines))
    path = folder / "large-run"
    path.write_bytes(("# a large run\r\n" + "\r\n".join(lines[i] for i in order) + "\r\n").encode("utf-8"))
    assert path.stat().st_size > 2**20
    return path


def test_a_large_file_read_in_blocks_equals_the_python_reader(tmp_path) -> None:
    run_path = _large_run(tmp_path)
    found, expected = native.read_run(run_path), trecfiles.read_run(str(run_path))
    assert isinstance(found, native.NativeRun)
    assert found.run == expected.run and found.tag == expected.tag
    assert found.first_line == expected.first_line
    # a duplicate far into the file: the Python reader's file:line error
    lines = run_path.read_bytes().split(b"\r\n")
    bad = tmp_path / "large-dup"
    bad.write_bytes(b"\r\n".join([*lines[:-2], lines[7], lines[-2], lines[-1]]))
    with pytest.raises(InputError, match=f"{bad}:{len(lines) - 1}: document .* \\(first on line 8\\)"):
        native.read_run(bad)


def _child_reads(path: str, queue: multiprocessing.Queue) -> None:
    queue.put(native.read_run(path).run)


def test_a_forked_child_reads_a_large_file_in_blocks_after_the_parent(tmp_path) -> None:
    run_path = _large_run(tmp_path)
    parent = native.read_run(run_path).run  # the parent's pool has read blocks
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child_reads, args=(str(run_path), queue))
    child.start()
    got = queue.get(timeout=60)
    child.join(timeout=60)
    assert child.exitcode == 0 and got == parent


def test_cli_reads_natively_with_file_line_errors(tmp_path, capsys) -> None:
    qrels_path, run_path = _write(tmp_path, 8, crlf=True, float_ties=False)
    assert main(["ir", "-q", str(qrels_path), str(run_path), "-m", "map,P@5", "-f", "json", "--per-query"]) == 0
    out = capsys.readouterr()
    import json

    payload = json.loads(out.out)
    qrels, run = _pytrec(qrels_path, run_path)
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.5"}).evaluate(run)
    per_query = payload["runs"][0]["per_query"]
    assert set(per_query) == set(reference)
    assert all(per_query[q]["map"] == pytest.approx(reference[q]["map"], abs=1e-12) for q in reference)
    assert payload["runs"][0]["tag"] == "tag"
    first = trecfiles.read_run(str(run_path)).first_line["only-in-run"]
    assert f"{run_path}:{first}: 1 queries without judgements (first 'only-in-run') left out" in out.err
    # an unknown query with --strict, a duplicate line, a line over --max-line-bytes: file:line, exit 2
    assert main(["ir", "-q", str(qrels_path), str(run_path), "--strict"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{run_path}:{first}: query 'only-in-run' has no judgements" in err
    lines = run_path.read_bytes().split(b"\r\n")
    bad = tmp_path / "dup-run"
    bad.write_bytes(b"\r\n".join([*lines[:5], lines[2], *lines[5:]]))
    assert main(["ir", "-q", str(qrels_path), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}:6: document" in err and "(first on line 3)" in err
    long = tmp_path / "long-run"
    long.write_text("q01 Q0 " + "d" * 300 + " 1 1.0 t\n")
    assert main(["ir", "-q", str(qrels_path), str(long), "--max-line-bytes", "100"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{long}:1: line longer than 100 bytes" in err, err


def test_score_spellings_read_natively_equal_python_float(tmp_path) -> None:
    """Every score spelling the native reader accepts is bit for bit Python's ``float()`` of it: exponents,
    long mantissas and halfway cases, subnormals and underflow, overflow, signed zeros, infinity spellings,
    plain decimals of every length."""
    import struct

    rng = np.random.default_rng(8)
    fields = ["1e3", "-2.5E-2", "+1.5", ".5", "5.", "-0", "+0.0", "-0.0e10", "0e-999", "1e-400", "1e400", "-1e400"]
    fields += ["inf", "+inf", "-inf", "INF", "Infinity", "-iNfInItY", "+Infinity"]
    fields += ["4.9e-324", "2.4703282292062327e-324", "2.4703282292062328e-324", "2.2250738585072011e-308"]
    fields += ["1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "9007199254740993"]
    fields += ["0." + "9" * 60, "1" * 40 + ".5e-30", "0.1000000000000000055511151231257827021181583404541015625"]
    fields += ["7.2057594037927933e16", "123456789012345678901234567890e-10", "00000.00001", "1e+0", "1E-0"]
    fields += [repr(float(v)) for v in rng.normal(0, 1, 200) * 10.0 ** rng.integers(-320, 308, 200)]
    fields += [f"{v:.25e}" for v in rng.random(50)] + [f"{v:.17g}" for v in rng.random(50) * 1e-310]
    # plain decimals as run files print them (%.6f ...): read by the exact short path up to 2**53 as digits
    places, values = rng.integers(0, 23, 300), rng.normal(0, 1, 300) * 10.0 ** rng.integers(-6, 9, 300)
    fields += [f"{v:.{k}f}" for k, v in zip(places, values, strict=True)]
    fields += ["-0.000000", "9007199254740991", "9007199254740992", "900719925474099.15", "0.0000000000000000000001"]
    path = tmp_path / "run"
    path.write_text("".join(f"q Q0 d{i} 1 {field} t\n" for i, field in enumerate(fields)), encoding="utf-8")
    read = _native.TrecRun.read(str(path)).to_dict()["q"]
    for i, field in enumerate(fields):
        assert struct.pack("<d", read[f"d{i}"]) == struct.pack("<d", float(field)), field


def test_a_long_line_after_a_bad_line_is_the_python_readers_error(tmp_path, capsys) -> None:
    # the native reader checks line lengths while parsing (it stops at the bad first line); its error only sends
    # the file to the Python reader, whose bounded reading reports the long line as before
    qrels = tmp_path / "qrels"
    qrels.write_text("q01 0 d1 1\n")
    run = tmp_path / "run"
    run.write_text("q01 Q0 d1 1 1.0\nq01 Q0 " + "d" * 300 + " 2 0.5 t\n")
    argv = ["ir", "-q", str(qrels), str(run)]
    assert main([*argv, "--max-line-bytes", "100"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{run}:2: line longer than 100 bytes" in err, err
    assert main(argv) == 2
    assert f"{run}:1: expected 6 fields" in capsys.readouterr().err
