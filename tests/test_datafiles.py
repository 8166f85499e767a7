"""Data-file inputs (JSONL, CSV/TSV, Parquet) give the scores of the equivalent line files; bad rows fail with file:row."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import pyarrow as pa
import pytest
from pyarrow import parquet as pq

import nlpeval
from nlpeval.cli.main import main as cli_main
from textgen import sentence

METRICS = "bleu,chrf,ter,rougeL,wer"
FORMATS = ("jsonl", "csv", "tsv", "parquet")


def _text(rng: random.Random) -> str:
    return sentence(rng).replace("\n", " ")  # a line file cannot hold a newline


@pytest.fixture(scope="module")
def corpus():
    """Two systems and two references per segment, adversarial text (scripts, odd whitespace, quotes, commas)."""
    rng = random.Random(11)
    n = 40
    refs = [[_text(rng), _text(rng)] for _ in range(n)]
    systems = {name: [_text(rng) for _ in range(n)] for name in ("sysA", "sysB")}
    return systems, refs


def write_lines(path: Path, lines: list[str]) -> str:
    path.write_bytes("".join(f"{line}\n" for line in lines).encode("utf-8"))
    return str(path)


def write_data(path: Path, rows: list[dict], fmt: str) -> str:
    """Rows as a JSONL, CSV, TSV or Parquet file (list cells stay lists where the format has them)."""
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    elif fmt == "parquet":
        pq.write_table(pa.Table.from_pylist(rows), path)
    else:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]), delimiter="\t" if fmt == "tsv" else ",")
            writer.writeheader()
            writer.writerows(rows)
    return str(path)


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli_main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def scores_of(out: str) -> list:
    """The score payload of ``-f json`` output without the system labels."""
    payload = json.loads(out)
    systems = payload["systems"] if isinstance(payload, dict) and "systems" in payload else payload
    if isinstance(systems, dict):
        return list(systems.values())
    return [{k: v for k, v in system.items() if k not in ("system", "name")} for system in systems]


@pytest.fixture(scope="module")
def line_scores(corpus, tmp_path_factory):
    """``nlpeval score`` on line files: both systems, two -r files, segments and a paired bootstrap."""
    folder = tmp_path_factory.mktemp("lines")
    systems, refs = corpus
    sys_paths = [write_lines(folder / name, hyps) for name, hyps in systems.items()]
    ref_paths = [write_lines(folder / f"ref{k}", [r[k] for r in refs]) for k in range(2)]
    code = cli_main([*_score_args(*sys_paths), "-r", ref_paths[0], "-r", ref_paths[1], "-o", str(folder / "out.json")])
    assert code == 0
    return scores_of((folder / "out.json").read_text(encoding="utf-8")), ref_paths


def _score_args(*paths: str) -> list[str]:
    return ["score", *paths, "-m", METRICS, "-f", "json", "--segments", "--paired-bs", "--paired-n", "200"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_one_file_per_system_equals_line_files(fmt, corpus, line_scores, tmp_path, capsys):
    systems, refs = corpus
    paths = []
    for name, hyps in systems.items():
        if fmt in ("jsonl", "parquet"):  # references as one list column
            rows = [{"hyp": h, "refs": r} for h, r in zip(hyps, refs, strict=True)]
            ref_cols = ["--ref-col", "refs"]
        else:  # references in repeated columns
            rows = [{"hyp": h, "ref1": r[0], "ref2": r[1]} for h, r in zip(hyps, refs, strict=True)]
            ref_cols = ["--ref-col", "ref1", "--ref-col", "ref2"]
        paths.append(write_data(tmp_path / f"{name}.{fmt}", rows, fmt))
    code, out, err = run(capsys, *_score_args(*paths), "--hyp-col", "hyp", *ref_cols)
    assert (code, err) == (0, "")
    assert scores_of(out) == line_scores[0]


@pytest.mark.parametrize("fmt", FORMATS)
def test_long_file_with_systems_and_shuffled_ids_equals_line_files(fmt, corpus, line_scores, tmp_path, capsys):
    systems, refs = corpus
    rows = [
        {
            "system": name,
            "id": f"doc{i}",
            "output": hyp,
            "refs": json.dumps(refs[i]) if fmt in ("csv", "tsv") else refs[i],
        }
        for name, hyps in systems.items()
        for i, hyp in enumerate(hyps)
    ]
    first = [row for row in rows if row["system"] == "sysA"]
    rest = [row for row in rows if row["system"] != "sysA"]
    random.Random(3).shuffle(rest)  # sysB in another order: --id-col aligns it
    path = write_data(tmp_path / f"long.{fmt}", first + rest, fmt)
    args = [*_score_args(path), "--hyp-col", "output", "--id-col", "id", "--system-col", "system"]
    if fmt in ("csv", "tsv"):  # references from the line files (-r) instead of a column
        args += ["-r", line_scores[1][0], "-r", line_scores[1][1]]
    else:
        args += ["--ref-col", "refs"]
    code, out, err = run(capsys, *args)
    assert (code, err) == (0, "")
    assert scores_of(out) == line_scores[0]
    labels = [system["system"] if "system" in system else system.get("name") for system in json.loads(out)["systems"]]
    assert labels == ["sysA", "sysB"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_classify_from_a_data_file_equals_line_files(fmt, tmp_path, capsys):
    rng = random.Random(5)
    gold = [rng.choice(["pos", "neg", "neutral"]) for _ in range(50)]
    pred = [g if rng.random() < 0.6 else rng.choice(["pos", "neg", "neutral"]) for g in gold]
    probs = [[round(rng.random(), 3) for _ in range(3)] for _ in gold]
    code, expected, _ = run(
        capsys,
        "classify",
        "--gold",
        write_lines(tmp_path / "gold", gold),
        "--pred",
        write_lines(tmp_path / "pred", pred),
        "--scores",
        write_lines(tmp_path / "scores", [" ".join(map(str, p)) for p in probs]),
        "-f",
        "json",
    )
    assert code == 0
    cell = (lambda p: " ".join(map(str, p))) if fmt in ("csv", "tsv") else (lambda p: p)
    rows = [{"g": g, "p": p, "s": cell(s)} for g, p, s in zip(gold, pred, probs, strict=True)]
    path = write_data(tmp_path / f"run.{fmt}", rows, fmt)
    code, out, err = run(
        capsys, "classify", "--pred", path, "--hyp-col", "p", "--ref-col", "g", "--score-col", "s", "-f", "json"
    )
    assert (code, err) == (0, "")
    assert json.loads(out) == json.loads(expected)


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_a_byte_order_mark_is_not_part_of_the_first_column(fmt, tmp_path, capsys):
    path = Path(write_data(tmp_path / f"bom.{fmt}", [{"hyp": "a b c d", "ref": "a b c e"}], fmt))
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    code, out, err = run(capsys, "score", str(path), "--hyp-col", "hyp", "--ref-col", "ref", "-m", "chrf", "-f", "json")
    assert (code, err) == (0, "")
    assert json.loads(out)["systems"][0]["scores"]["chrf"]["score"] == nlpeval.chrf(["a b c d"], ["a b c e"]).score


def test_integer_labels_in_jsonl_read_as_the_line_files_text(tmp_path, capsys):
    gold, pred = [0, 1, 1, 2, 0], [0, 1, 2, 2, 1]
    code, expected, _ = run(
        capsys,
        "classify",
        "--gold",
        write_lines(tmp_path / "g", [str(x) for x in gold]),
        "--pred",
        write_lines(tmp_path / "p", [str(x) for x in pred]),
        "-f",
        "json",
    )
    path = write_data(tmp_path / "r.jsonl", [{"y": g, "yhat": p} for g, p in zip(gold, pred, strict=True)], "jsonl")
    code, out, err = run(capsys, "classify", "--pred", path, "--hyp-col", "yhat", "--ref-col", "y", "-f", "json")
    assert (code, err) == (0, "")
    assert json.loads(out) == json.loads(expected)


@pytest.mark.parametrize("fmt", FORMATS)
def test_perplexity_logprobs_from_a_data_file_equals_line_files(fmt, tmp_path, capsys):
    rng = random.Random(9)
    sequences = [[-round(rng.random() * 5, 4) for _ in range(rng.randint(1, 9))] for _ in range(20)]
    line_file = write_lines(tmp_path / "lp", [" ".join(map(str, s)) for s in sequences])
    code, expected, _ = run(capsys, "perplexity", "--logprobs", line_file, "--segments", "-f", "json")
    cell = (lambda s: " ".join(map(str, s))) if fmt in ("csv", "tsv") else (lambda s: s)
    path = write_data(tmp_path / f"lp.{fmt}", [{"lp": cell(s)} for s in sequences], fmt)
    code, out, err = run(capsys, "perplexity", "--logprobs", path, "--hyp-col", "lp", "--segments", "-f", "json")
    assert (code, err) == (0, "")
    assert json.loads(out) == json.loads(expected)


# ----------------------------------------------------------------------------- errors: file:row, exit 2


def _fails(capsys, args: list[str], message: str) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2
    assert out == ""
    assert "Traceback" not in err and err.count("\n") == 1
    assert message in err, err


def test_bad_rows_fail_with_file_and_row(tmp_path, capsys):
    jsonl = tmp_path / "bad.jsonl"
    jsonl.write_text('{"hyp": "a", "ref": "a"}\n\n{"hyp": "b", "ref": "b"\n', encoding="utf-8")
    _fails(capsys, ["score", str(jsonl), "--hyp-col", "hyp", "--ref-col", "ref"], f"{jsonl}:3: not valid JSON")
    jsonl.write_text('{"hyp": "a", "ref": "a"}\n["b", "b"]\n', encoding="utf-8")
    _fails(capsys, ["score", str(jsonl), "--hyp-col", "hyp", "--ref-col", "ref"], f"{jsonl}:2: expected a JSON object")
    jsonl.write_text('{"hyp": "a", "ref": "a"}\n{"hyp": null, "ref": "b"}\n', encoding="utf-8")
    _fails(
        capsys, ["score", str(jsonl), "--hyp-col", "hyp", "--ref-col", "ref"], f"{jsonl}:2: 'hyp' is not text (null)"
    )
    jsonl.write_text('{"hyp": "a", "ref": "a"}\n{"hyp": "b"}\n', encoding="utf-8")
    _fails(capsys, ["score", str(jsonl), "--hyp-col", "hyp", "--ref-col", "ref"], f"{jsonl}:2: no 'ref' field")
    jsonl.write_text('{"hyp": "a", "ref": ["a"]}\n{"hyp": "b", "ref": []}\n', encoding="utf-8")
    _fails(
        capsys, ["score", str(jsonl), "--hyp-col", "hyp", "--ref-col", "ref"], f"{jsonl}:2: 'ref' holds no reference"
    )
    _fails(capsys, ["score", str(jsonl), "--hyp-col", "out", "--ref-col", "ref"], f"{jsonl}: no column 'out'")

    csv_path = tmp_path / "bad.csv"
    csv_path.write_text('hyp,ref\na,a\n"b\nc",b\nd\n', encoding="utf-8")  # row 2 spans lines 3-4
    _fails(
        capsys, ["score", str(csv_path), "--hyp-col", "hyp", "--ref-col", "ref"], f"{csv_path}:5: expected 2 columns"
    )
    csv_path.write_bytes(b"hyp,ref\na,a\n\xff,b\n")
    _fails(capsys, ["score", str(csv_path), "--hyp-col", "hyp", "--ref-col", "ref"], f"{csv_path}:")

    parquet = tmp_path / "bad.parquet"
    pq.write_table(pa.Table.from_pylist([{"hyp": "a", "ref": "a"}, {"hyp": None, "ref": "b"}]), parquet)
    _fails(capsys, ["score", str(parquet), "--hyp-col", "hyp", "--ref-col", "ref"], f"{parquet}:2: 'hyp' is not text")
    _fails(capsys, ["score", str(parquet), "--hyp-col", "hyp", "--ref-col", "refs"], f"{parquet}: no column 'refs'")

    _fails(
        capsys, ["score", str(tmp_path / "x.txt"), "--hyp-col", "h", "--ref-col", "r"], "cannot tell the data format"
    )
    _fails(capsys, ["score", str(jsonl), "--ref-col", "ref"], "--ref-col needs --hyp-col")


def test_metric_input_errors_name_the_row(tmp_path, capsys):
    path = tmp_path / "surrogate.jsonl"  # JSON can escape a lone surrogate; the metrics reject it, naming the row
    path.write_text(
        "".join(
            json.dumps(row) + "\n"
            for row in [{"h": "a b", "r": "a b"}, {"h": "x", "r": "a"}, {"h": "c", "r": "\udc80"}]
        ),
        encoding="utf-8",
    )
    for metric in ("bleu", "wer"):
        _fails(
            capsys, ["score", str(path), "--hyp-col", "h", "--ref-col", "r", "-m", metric], f"{path}:3: is not valid"
        )
    refs = write_lines(tmp_path / "refs", ["a b", "a", "c"])
    _fails(capsys, ["score", str(path), "--hyp-col", "h", "--ref-col", "r", "-r", refs], f"{path}:3: is not valid")
    bad = write_data(tmp_path / "lp.jsonl", [{"lp": [-1.0]}, {"lp": [-0.5, 0.5]}], "jsonl")
    _fails(capsys, ["perplexity", "--logprobs", bad, "--hyp-col", "lp"], f"{bad}:2: contains 0.5 > 0")
    bad = write_data(tmp_path / "lp2.jsonl", [{"lp": [-1.0]}, {"lp": ["x"]}], "jsonl")
    _fails(capsys, ["perplexity", "--logprobs", bad, "--hyp-col", "lp"], f"{bad}:2: 'lp' is not a list of numbers")
    labels = write_data(tmp_path / "c.jsonl", [{"g": "a", "p": "a"}, {"g": "b", "p": ""}], "jsonl")
    _fails(capsys, ["classify", "--pred", labels, "--hyp-col", "p", "--ref-col", "g"], f"{labels}:2: empty label")


def test_systems_must_cover_the_same_ids_with_the_same_references(tmp_path, capsys):
    def long(rows):
        return write_data(tmp_path / "long.jsonl", rows, "jsonl")

    base = [
        {"s": "A", "i": 1, "h": "a", "r": "a"},
        {"s": "A", "i": 2, "h": "b", "r": "b"},
        {"s": "B", "i": 2, "h": "b", "r": "b"},
    ]
    args = ["--hyp-col", "h", "--ref-col", "r", "--id-col", "i", "--system-col", "s"]
    _fails(capsys, ["score", long(base), *args], "B lacks id '1'")
    path = long([*base, {"s": "B", "i": 2, "h": "x", "r": "b"}])
    _fails(capsys, ["score", path, *args], f"{path}:4: id '2' repeats {path}:3")
    path = long([*base, {"s": "B", "i": 1, "h": "x", "r": "not a"}])
    _fails(capsys, ["score", path, *args], f"{path}:4: the references of id '1' differ from those at {path}:1")
    path = long([*base, {"s": "B", "i": 1, "h": "x", "r": "a"}])
    _fails(capsys, ["score", path, "--hyp-col", "h", "--ref-col", "r", "--system-col", "s", "-r", path], "segment")
    code, out, err = run(capsys, "score", path, *args, "-m", "chrf", "-f", "json")
    assert (code, err) == (0, "")
    by_name = {system["name"]: system["scores"]["chrf"]["score"] for system in json.loads(out)["systems"]}
    assert by_name == {"A": nlpeval.chrf(["a", "b"], ["a", "b"]).score, "B": nlpeval.chrf(["x", "b"], ["a", "b"]).score}


def test_perplexity_of_a_text_column_under_a_local_model_equals_line_files(tmp_path, capsys):
    """--model DIR --text data.jsonl --hyp-col: the texts of a column, scored like the same texts as lines."""
    import torch
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = ["the", "cat", "dog", "sat", "on", "mat", "ran", "fast"]
    vocab = {"[UNK]": 0, "[PAD]": 1, **{w: i + 2 for i, w in enumerate(words)}}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]", pad_token="[PAD]")
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=len(vocab), n_positions=16, n_embd=16, n_layer=1, n_head=2)
    folder = tmp_path / "tiny-gpt2"
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    rng = random.Random(2)
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(2, 12))) for _ in range(6)]
    common = ["perplexity", "--model", str(folder), "--segments", "-f", "json"]
    code, expected, _ = run(capsys, *common, "--text", write_lines(tmp_path / "texts", texts))
    assert code == 0
    path = write_data(tmp_path / "texts.csv", [{"id": i, "text": t} for i, t in enumerate(texts)], "csv")
    code, out, _ = run(capsys, *common, "--text", path, "--hyp-col", "text")  # stderr: transformers' loading bar
    assert code == 0
    assert json.loads(out) == json.loads(expected)
    _fails(capsys, [*common, "--text", path, "--hyp-col", "txt"], f"{path}: no column 'txt'")


# ----------------------------------------------------------------------------- --system-col in classify and perplexity


def _interleave(rng: random.Random, per_system: dict[str, list[dict]]) -> list[dict]:
    """The rows of every system in one long table, shuffled; each system's own rows keep their order."""
    queues = {name: list(rows) for name, rows in per_system.items()}
    order = [name for name, rows in per_system.items() for _ in rows]
    rng.shuffle(order)
    order.remove("sysB")
    order.insert(0, "sysB")  # sysB appears first: the output follows first appearance, not sorting
    return [{"system": name, **queues[name].pop(0)} for name in order]


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_classify_long_file_with_systems_equals_each_system_alone(fmt, tmp_path, capsys):
    rng = random.Random(17)
    per_system, expected = {}, {}
    for name, accuracy, n in (("sysA", 0.7, 30), ("sysB", 0.4, 25)):
        gold = [rng.choice(["pos", "neg", "neutral"]) for _ in range(n)]
        pred = [g if rng.random() < accuracy else rng.choice(["pos", "neg", "neutral"]) for g in gold]
        probs = [[round(rng.random(), 3) for _ in range(3)] for _ in gold]
        lines = [
            *("--gold", write_lines(tmp_path / f"{name}.gold", gold)),
            *("--pred", write_lines(tmp_path / f"{name}.pred", pred)),
            *("--scores", write_lines(tmp_path / f"{name}.scores", [" ".join(map(str, p)) for p in probs])),
        ]
        code, out, _ = run(capsys, "classify", *lines, "-f", "json")
        assert code == 0
        expected[name] = json.loads(out)
        cell = (lambda p: " ".join(map(str, p))) if fmt == "csv" else (lambda p: p)
        per_system[name] = [{"g": g, "p": p, "s": cell(s)} for g, p, s in zip(gold, pred, probs, strict=True)]
    path = write_data(tmp_path / f"long.{fmt}", _interleave(rng, per_system), fmt)
    args = [
        "classify",
        "--pred",
        path,
        "--hyp-col",
        "p",
        "--ref-col",
        "g",
        "--score-col",
        "s",
        "--system-col",
        "system",
    ]
    code, out, err = run(capsys, *args, "-f", "json")
    assert (code, err) == (0, "")
    systems = json.loads(out)["systems"]
    assert [s.pop("system") for s in systems] == ["sysB", "sysA"]
    assert systems == [expected["sysB"], expected["sysA"]]
    code, text, _ = run(capsys, *args)  # text: one block per system, headed by its name
    assert code == 0
    assert [line for line in text.splitlines() if line.startswith("system: ")] == ["system: sysB", "system: sysA"]
    code, table, _ = run(capsys, *args, "-f", "csv")
    assert code == 0
    first = list(csv.reader(table.splitlines()[: table.splitlines().index("")]))
    assert first[0][:2] == ["system", "class"]
    accuracy = {row[0]: float(row[2]) for row in csv.reader(table.splitlines()) if row[1:2] == ["accuracy"]}
    assert accuracy == {name: expected[name]["summary"]["accuracy"] for name in ("sysA", "sysB")}


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_perplexity_long_file_with_systems_equals_each_system_alone(fmt, tmp_path, capsys):
    rng = random.Random(23)
    per_system, expected = {}, {}
    for name, n in (("sysA", 12), ("sysB", 9)):
        sequences = [[-round(rng.random() * 5, 4) for _ in range(rng.randint(1, 9))] for _ in range(n)]
        line_file = write_lines(tmp_path / name, [" ".join(map(str, s)) for s in sequences])
        code, out, _ = run(capsys, "perplexity", "--logprobs", line_file, "--segments", "-f", "json")
        assert code == 0
        expected[name] = json.loads(out)
        cell = (lambda s: " ".join(map(str, s))) if fmt == "csv" else (lambda s: s)
        per_system[name] = [{"lp": cell(s)} for s in sequences]
    path = write_data(tmp_path / f"long.{fmt}", _interleave(rng, per_system), fmt)
    args = ["perplexity", "--logprobs", path, "--hyp-col", "lp", "--system-col", "system", "--segments"]
    code, out, err = run(capsys, *args, "-f", "json")
    assert (code, err) == (0, "")
    systems = json.loads(out)["systems"]
    assert [s.pop("system") for s in systems] == ["sysB", "sysA"]
    assert systems == [expected["sysB"], expected["sysA"]]
    code, table, _ = run(capsys, *args, "-f", "csv")
    assert code == 0
    rows = list(csv.reader(table.splitlines()))
    assert rows[0] == ["system", "sequence", "perplexity"]
    for name in ("sysA", "sysB"):
        assert [float(r[2]) for r in rows[1:] if r[0] == name] == expected[name]["perplexity"]["segments"]


def test_system_col_errors_exit_2_with_file_and_row(tmp_path, capsys):
    lines = write_lines(tmp_path / "lp", ["-1 -2"])
    _fails(capsys, ["perplexity", "--logprobs", lines, "--system-col", "s"], "--system-col needs --hyp-col")
    _fails(
        capsys,
        ["classify", "--gold", lines, "--pred", lines, "--system-col", "s"],
        "--system-col needs --hyp-col",
    )
    jsonl = tmp_path / "long.jsonl"
    jsonl.write_text('{"s": "A", "lp": [-1.0], "g": "x", "p": "x"}\n{"lp": [-2.0], "g": "y", "p": "x"}\n', "utf-8")
    common = ["--hyp-col", "lp", "--system-col", "s"]
    _fails(capsys, ["perplexity", "--logprobs", str(jsonl), *common], f"{jsonl}:2: no 's' field")
    _fails(capsys, ["perplexity", "--logprobs", str(jsonl), "--hyp-col", "lp", "--system-col", "x"], "no column 'x'")
    classify = ["classify", "--pred", str(jsonl), "--hyp-col", "p", "--ref-col", "g", "--system-col", "s"]
    _fails(capsys, classify, f"{jsonl}:2: no 's' field")
    jsonl.write_text(
        '{"s": "A", "lp": [-1.0], "g": "x", "p": "x"}\n{"s": "B", "lp": "z", "g": "y", "p": 1.5}\n', "utf-8"
    )
    _fails(capsys, ["perplexity", "--logprobs", str(jsonl), *common], f"{jsonl}:2: 'lp' holds something")
    _fails(capsys, classify, f"{jsonl}:2: 'p' is not a label")
    _fails(capsys, [*classify, "--plot", str(tmp_path / "plots")], "--plot draws one system")
    empty = tmp_path / "empty.csv"
    empty.write_text("s,lp,g,p\n", "utf-8")  # a header and no rows
    _fails(capsys, ["perplexity", "--logprobs", str(empty), *common], "has no rows")
    _fails(capsys, ["classify", "--pred", str(empty), *classify[3:]], "has no rows")


def test_perplexity_model_with_system_col_equals_each_system_alone(tmp_path, capsys):
    """--model DIR --text long.csv --hyp-col --system-col: each system's texts scored as its own line file."""
    import torch
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = ["the", "cat", "dog", "sat", "on", "mat"]
    vocab = {"[UNK]": 0, "[PAD]": 1, **{w: i + 2 for i, w in enumerate(words)}}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]", pad_token="[PAD]")
    torch.manual_seed(1)
    config = transformers.GPT2Config(vocab_size=len(vocab), n_positions=16, n_embd=16, n_layer=1, n_head=2)
    folder = tmp_path / "tiny-gpt2"
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    rng = random.Random(4)
    texts = {name: [" ".join(rng.choice(words) for _ in range(rng.randint(2, 10))) for _ in range(3)] for name in "BA"}
    common = ["perplexity", "--model", str(folder), "--segments", "-f", "json"]
    expected = []
    for name, lines in texts.items():
        code, out, _ = run(capsys, *common, "--text", write_lines(tmp_path / name, lines))
        assert code == 0
        expected.append({"system": name, **json.loads(out)})
    rows = [
        {"sys": name, "text": t}
        for pair in zip(texts["B"], texts["A"], strict=True)
        for name, t in zip("BA", pair, strict=True)
    ]
    path = write_data(tmp_path / "long.csv", rows, "csv")
    code, out, _ = run(capsys, *common, "--text", path, "--hyp-col", "text", "--system-col", "sys")
    assert code == 0
    assert json.loads(out)["systems"] == expected
