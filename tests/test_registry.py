"""The metric registry (``nlpeval.metrics.registry``): the import layers, what it covers, and a toy metric
added through ARCHITECTURE.md's checklist that every front end then finds."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import nlpeval
from nlpeval.cards import catalog
from nlpeval.cards.options import command_flags, metric_flag_groups
from nlpeval.cli.main import build_parser, main
from nlpeval.metrics import entries as entries_package
from nlpeval.metrics import registry

PACKAGE = Path(nlpeval.__file__).resolve().parent  # the imported package (site-packages after pip install)
ROOT = Path(__file__).resolve().parents[1]  # the repository (ARCHITECTURE.md, python/, tests/)

# ------------------------------------------------------------------ layers


def _imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` / ``from ... import`` of the file names (relative ones resolved)."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    if package.endswith(".__init__"):
        package = package[: -len(".__init__")]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
            "import_module",
            "__import__",
        ):
            found.update(a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    return found


def _library_files() -> list[Path]:
    """Every module of the package below the command line (``nlpeval/cli/`` and ``__main__`` are the CLI)."""
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if "cli" not in path.relative_to(PACKAGE).parts[:1] and path.name != "__main__.py"
    ]


def test_nothing_below_the_command_line_imports_it():
    files = _library_files()
    assert len(files) > 100 and PACKAGE / "metrics" / "registry.py" in files
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(
            m for m in _imported_modules(path) if m.split(".")[:2] == ["nlpeval", "cli"]
        )
        for path in files
    }
    assert {path: found for path, found in offenders.items() if found} == {}


def test_the_layer_walk_sees_every_kind_of_import(tmp_path):
    sample = PACKAGE / "reports" / "_layer_probe_never_written.py"
    source = "import nlpeval.cli.io\nfrom nlpeval import cli\nfrom ..cli import main\nimport_module('nlpeval.cli.x')\n"
    probe = tmp_path / "probe.py"
    probe.write_text(source, encoding="utf-8")
    # resolve the file as if it lived in nlpeval/reports/ (relative imports climb from there)
    original = probe.read_text(encoding="utf-8")
    assert not sample.exists()
    found = _imported_modules_at(original, sample)
    assert {"nlpeval.cli.io", "nlpeval.cli", "nlpeval.cli.main", "nlpeval.cli.x"} <= found


def _imported_modules_at(source: str, path: Path) -> set[str]:
    path.write_text(source, encoding="utf-8")
    try:
        return _imported_modules(path)
    finally:
        path.unlink()


def test_the_registry_and_entry_modules_import_only_the_registry_and_the_core():
    allowed = ("nlpeval.metrics.registry", "nlpeval.metrics.entries", "nlpeval.core")
    folder = PACKAGE / "metrics" / "entries"
    for path in [PACKAGE / "metrics" / "registry.py", *sorted(folder.glob("*.py"))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        for node in top:  # module level: the standard library, the registry, the core (type checking only)
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for name in names:
                assert not name.startswith("nlpeval") or name.startswith(allowed), (path.name, name)


def test_listing_names_and_building_the_score_parser_import_no_metric_code():
    code = (
        "import sys\nfrom nlpeval.metrics import registry\nfrom nlpeval.cli.main import build_parser\n"
        "registry.names(); build_parser(['score'])\n"
        "print(sorted(m for m in sys.modules if m in ('numpy', 'dataclasses') or m.startswith('nlpeval.metrics.')))"
    )
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    loaded = json.loads(done.stdout.strip().replace("'", '"'))
    entry_modules = [f"nlpeval.metrics.entries.{p.stem}" for p in (PACKAGE / "metrics" / "entries").glob("*.py")]
    assert set(loaded) == {"nlpeval.metrics.entries", "nlpeval.metrics.registry", *entry_modules} - {
        "nlpeval.metrics.entries.__init__"
    }


# ------------------------------------------------------------------ coverage


def test_every_score_name_is_a_registry_entry_with_a_card():
    cards = catalog.all_cards()
    for entry in registry.entries():
        assert entry.card in cards, entry.name
        assert entry.pattern is not None or registry.get(entry.name) is entry
        assert set(entry.flavors) <= {f.name for f in cards[entry.card].flavors}, entry.name
        assert entry.option_group and "options" in entry.option_group
    # the score command resolves -m through the registry and nothing else
    source = (PACKAGE / "cli" / "score.py").read_text(encoding="utf-8")
    assert "from nlpeval.metrics.registry import text_entry" in source and "entries = {name: text_entry(name)" in source


def test_every_card_is_a_registry_family_or_scored_elsewhere():
    """A card is a registry family (an entry names it), or none of its names is a ``score -m`` name and
    it lists no ``nlpeval score`` flag (classification, agreement, correlation, retrieval... have their
    own commands and APIs)."""
    cards = catalog.all_cards()
    families = {entry.card for entry in registry.entries()}
    assert families <= set(cards)
    assert {"bleu", "chrf", "meteor", "rouge", "ter", "wer"} <= families
    others = set(cards) - families
    assert {"accuracy", "prf", "agreement", "correlation", "perplexity"} <= others
    for card_id in others:
        card = cards[card_id]
        for name in (card.id, *card.names):
            with pytest.raises(registry.UnknownMetricError):
                registry.get(name)
        assert not [o for o in card.options if o.where == "nlpeval score"], card_id


#: a name each pattern entry accepts (add one with a new pattern entry)
PATTERN_EXAMPLES = {"rouge1..rouge9": "rouge2", "rougeW-<weight>": "rougeW-1.2", "rougeS<skip>": "rougeS4",
                    "rougeSU<skip>": "rougeSU4"}  # fmt: skip
PATTERN_EXAMPLES |= {"P@<k>": "P@10", "recall@<k>": "recall@100", "Rprec": "Rprec", "mrr[@<k>]": "mrr@10",
                     "map[@<k>]": "map", "ndcg[@<k>]": "ndcg@10", "ndcg_exp[@<k>]": "ndcg_exp",
                     "success@<k>": "success@1"}  # fmt: skip
#: the families that moved from cli/registry.py, and their error rates (LOWER_IS_BETTER before the registry)
BUILT_IN = {"bleu", "chrf", "meteor", "rouge", "ter", "wer"}
LOWER_IS_BETTER = {"ter", "wer", "cer", "mer", "wil"}


def test_every_entry_builds_at_its_defaults_and_says_its_direction():
    for entry in registry.entries():
        assert entry.pattern is None or entry.name in PATTERN_EXAMPLES, f"add an example of {entry.name}"
        name = PATTERN_EXAMPLES.get(entry.name, entry.name)
        assert registry.get(name) is entry
        if not entry.needs_model:  # a model entry would load its model; its own tests build it
            assert registry.build(name).accumulator() is not None
        if entry.family in BUILT_IN:
            assert entry.higher_is_better == (name not in LOWER_IS_BETTER), name
            assert entry.decomposes and not entry.needs_sources and not entry.needs_model, name
        if name in ("cider", "nist"):  # CIDEr's idf and NIST's information weights come from the whole corpus
            assert not entry.decomposes, name


def test_unknown_names_suggest_and_list_readably():
    with pytest.raises(registry.UnknownMetricError) as info:
        registry.get("rogueL")
    message = str(info.value)
    assert message.startswith("unknown metric 'rogueL'; did you mean 'rougeL'")
    assert "rouge1..rouge9" in message and "rougeW-<weight>" in message and "rouge[" not in message
    with pytest.raises(ValueError, match=r"^unknown metric 'zzz'\. Known: bleu, chrf, chrf\+\+"):
        registry.get("zzz")


def test_cli_defaults_are_the_registry_defaults():
    parsed = build_parser(["score"]).parse_args(["score", "-r", "r", "s"])
    for name, default in registry.option_defaults().items():
        assert getattr(parsed, name) == default, name
    groups = metric_flag_groups("score")
    declared = {o.flag for o in registry.options().values()}
    assert {flag for flags in groups.values() for flag in flags} == declared
    assert command_flags("score")["--chrf-beta"] == ("2", "recall weight (default 2)")


def test_shown_defaults_are_values_not_help_prose(capsys):
    """``nlpeval metrics`` and the cards show a ``None`` default as the value the help states, never the
    rest of the help sentence; a value with spaces or commas is quoted in the listing."""
    shown = {o.flag: o.shown_default for o in registry.options().values()}
    assert shown["--ter-max-cells"] == "10 billion" and shown["--meteor-max-candidates"] == "100 million"
    assert not [flag for flag, value in shown.items() if ";" in value or "bounds" in value]
    assert main(["metrics"]) == 0
    listing = capsys.readouterr().out
    assert '--ter-max-cells="10 billion"\n' in listing
    assert '--chrf-word-order="0 for chrf, 2 for chrf++",' in listing
    assert "bounds the" not in listing


def test_score_help_says_which_metric_m_defaults_to(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    assert "(default bleu;" in " ".join(capsys.readouterr().out.split())


def test_src_help_names_the_entries_that_read_the_sources(capsys, monkeypatch):
    """``--src``'s help lists the entries declaring ``needs_sources`` (SARI as well as the neural metrics), and an
    entry that starts to read them joins the list."""
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "(metrics that read the sources: comet, metricx, metricx-qe, sari)" in shown
    changed = tuple(e._replace(needs_sources=True) if e.name == "bleu" else e for e in registry.entries())
    monkeypatch.setattr(registry, "entries", lambda: changed)
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    assert "(metrics that read the sources: bleu, comet," in " ".join(capsys.readouterr().out.split())


def test_option_values_parse_and_check_in_one_place():
    options = registry.options()
    assert options["bleu_weights"].parse("0.5,0.5") == (0.5, 0.5)
    assert options["chrf_beta"].parse("2") == 2 and options["chrf_beta"].parse("0.5") == 0.5
    with pytest.raises(ValueError, match="comma-separated numbers"):
        options["bleu_weights"].parse("a,b")
    with pytest.raises(ValueError, match="--tokenize must be one of 13a"):
        options["tokenize"].check("13b")
    assert all(o.minimum is not None for o in options.values() if o.type in ("int", "float", "number"))


def test_a_bad_flag_value_is_the_option_message_with_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["score", "-r", os.devnull, os.devnull, "--bleu-weights", "a,b"])
    assert info.value.code == 2
    assert (
        "argument --bleu-weights: expected comma-separated numbers, e.g. 0.5,0.5; got 'a,b'" in capsys.readouterr().err
    )


def test_command_flags_files_equal_the_parsers():
    from nlpeval.cards.options import COMMAND_FLAGS_FOLDER
    from nlpeval.cli.cardflags import snapshot

    folder = PACKAGE / "cards" / "data" / COMMAND_FLAGS_FOLDER
    stored = {path.name: path.read_text(encoding="utf-8") for path in folder.glob("*.json")}
    assert stored == snapshot(), "run: python -m nlpeval.cli.cardflags"
    assert {"classify.json", "agree.json"} <= set(stored)


def test_dask_takes_registry_names():
    import dask.bag as db

    import nlpeval.dask

    rows = [("the cat sat on the mat", ["the cat sat on a mat"]), ("a dog barks", ["the dog barks"])]
    bag = db.from_sequence(rows, npartitions=2)
    scores = nlpeval.dask.score(bag, ["chrf++", "ter"]).compute(scheduler="sync")
    hyps, refs = [h for h, _ in rows], [r for _, r in rows]
    assert scores["chrf++"].score == nlpeval.chrf(hyps, refs, word_order=2).score
    assert scores["ter"].score == nlpeval.ter(hyps, refs).score


# ------------------------------------------------------------------ a toy metric through the checklist

TOY_METRIC = '''
"""Toy length error: |hypothesis words - closest reference words| summed over reference words, times a weight."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import validate_text


@dataclass(frozen=True)
class LengthError(CorpusMetric):
    weight: float = 1.0
    name: ClassVar[str] = "toy"

    @property
    def schema(self) -> StatsSchema:
        return StatsSchema.of("diff", "ref_words")

    def segment_stats(self, hypotheses: Any, references: Any) -> Stats:
        hyps, refs = validate_text(hypotheses, references)
        rows = []
        for hyp, group in zip(hyps, refs, strict=True):
            h = len(hyp.split())
            r = min((len(ref.split()) for ref in group), key=lambda n: (abs(h - n), n))
            rows.append((abs(h - r), r))
        return Stats(self.schema, np.array(rows, dtype=np.int64).reshape(-1, 2))

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        return self.weight * totals[..., 0] / np.maximum(totals[..., 1], 1.0)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return {"diff": int(totals[0]), "ref_words": int(totals[1])}

    def signature(self, totals: np.ndarray) -> Signature:
        return Signature.build(weight=self.weight, flavor="toy")
'''

TOY_ENTRY = '''
"""Registry entry of the toy length error."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nlpeval.metrics.registry import MetricEntry, Option

OPTIONS = (Option("toy_weight", "--toy-weight", "float", 1.0, "multiplies the error (default 1)", minimum=0),)


def build(name: str, options: Mapping[str, Any]) -> Any:
    from toy_metric_pkg.length_error import LengthError

    return LengthError(weight=options["toy_weight"])


ENTRIES = (
    MetricEntry(
        "toy",
        factory="nlpeval.metrics.entries.toy:build",
        family="toy",
        card="toy",
        label="Toy",
        scale=1.0,
        higher_is_better=False,
        flavors=("toy",),
        options=OPTIONS,
        option_group="Toy options",
    ),
)
'''

TOY_CARD = """
id = "toy"
order = 999
title = "Toy length error"
summary = "How far the hypothesis length is from the closest reference length, relative to the references."
names = ["toy", "length_error"]
api = []
related = ["bleu"]
definition = "sum |h - r| / sum r over segments, r the closest reference length in words."
formula = "toy = weight * sum |h - r| / sum r"
bounds = "0 (same lengths) upwards. Lower is better."
encodes = "Length only."
weaknesses = ["Ignores every word."]
pitfalls = ["Whitespace words only."]

[[flavors]]
name = "toy"
equals = "itself"

[options]
from = []

[cli]
score = ["--toy-weight"]

[example]
code = '''
print("toy")
'''
output = '''
toy
'''

[[references]]
authors = "Nobody"
year = 2026
title = "A toy"
"""


@pytest.fixture()
def toy_metric(tmp_path, monkeypatch):
    """Follow ARCHITECTURE.md's checklist in a temporary folder: the metric module, its registry entry
    module (found through the entries package's path like the package's own), and its card."""
    package = tmp_path / "site" / "toy_metric_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "length_error.py").write_text(TOY_METRIC, encoding="utf-8")
    entries = tmp_path / "entries"
    entries.mkdir()
    (entries / "toy.py").write_text(TOY_ENTRY, encoding="utf-8")
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "toy.toml").write_text(TOY_CARD, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setattr(entries_package, "__path__", [*entries_package.__path__, str(entries)])
    monkeypatch.setattr(catalog, "EXTRA_FOLDERS", [cards])
    registry.reload()
    catalog.reload()
    yield
    registry.reload()
    catalog.reload()
    for name in ("nlpeval.metrics.entries.toy", "toy_metric_pkg.length_error", "toy_metric_pkg"):
        sys.modules.pop(name, None)


HYPS = ["the cat sat on the mat today", "a dog", "hello"]
REFS = [["the cat sat on the mat"], ["a dog barks loudly", "the dog"], ["hello there"]]


def _toy(weight: float, hyps=HYPS, refs=REFS) -> float:
    """The toy metric by hand: |7-6| + |2-2| + |1-2| over 6 + 2 + 2 reference words."""
    diff = ref = 0
    for hyp, group in zip(hyps, refs, strict=True):
        h = len(hyp.split())
        r = min((len(x.split()) for x in group), key=lambda n: (abs(h - n), n))
        diff, ref = diff + abs(h - r), ref + r
    return weight * diff / ref


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_toy_metric_added_by_the_checklist_reaches_every_front_end(toy_metric, tmp_path, capsys):
    """``nlpeval metrics``, ``nlpeval explain`` and ``nlpeval score -m`` (with the option's flag)."""
    assert _toy(2.0) == pytest.approx(0.4)
    assert "toy" in registry.names() and registry.get("toy").higher_is_better is False

    code, out, _ = _run(["metrics"], capsys)
    assert code == 0 and "toy: Toy length error" in out and "nlpeval score -m: toy" in out

    code, out, _ = _run(["explain", "toy"], capsys)
    assert code == 0 and "Toy length error [toy]" in out
    assert "--toy-weight (default 1.0; nlpeval score): multiplies the error (default 1)" in out

    ref, sys_a, sys_b = tmp_path / "ref.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    ref.write_text("\n".join(group[0] for group in REFS) + "\n", encoding="utf-8")
    sys_a.write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    sys_b.write_text("\n".join(group[0] for group in REFS) + "\n", encoding="utf-8")
    first_refs = [[group[0]] for group in REFS]
    code, out, _ = _run(
        ["score", "-m", "toy,bleu", "--toy-weight", "2", "-r", str(ref), str(sys_a), "-f", "json"], capsys
    )
    assert code == 0
    (system,) = json.loads(out)["systems"]
    assert system["scores"]["toy"]["score"] == pytest.approx(_toy(2.0, refs=first_refs))
    assert system["scores"]["toy"]["diff"] == 1 + 2 + 1 and system["scores"]["toy"]["ref_words"] == 6 + 4 + 2
    code, out, _ = _run(["score", "-m", "toy", "-r", str(ref), str(sys_a), str(sys_b)], capsys)
    assert code == 0 and "Toy" in out.splitlines()[0] and f"{_toy(1.0, refs=first_refs):.2f}" in out


def test_a_toy_metric_added_by_the_checklist_reaches_the_report(toy_metric, tmp_path, capsys):
    """The library's ``nlpeval.report`` and the command ``nlpeval report -m toy --metric-option``."""
    model = nlpeval.report(
        {"A": HYPS, "B": [g[0] for g in REFS]}, REFS, metrics=("toy",), metric_options={"toy_weight": 2.0},
        n_bootstrap=10, n_randomization=10,
    )  # fmt: skip
    cells = {cell.system: cell.estimate.value for cell in model.leaderboard.cells}
    assert cells == {"A": pytest.approx(_toy(2.0)), "B": 0.0}
    (info,) = model.provenance.metrics
    assert (info.name, info.label, info.scale, info.higher_is_better) == ("toy", "Toy", 1.0, False)

    ref, sys_a, sys_b, page = (tmp_path / name for name in ("ref.txt", "a.txt", "b.txt", "page.json"))
    ref.write_text("\n".join(group[0] for group in REFS) + "\n", encoding="utf-8")
    sys_a.write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    sys_b.write_text("\n".join(group[0] for group in REFS) + "\n", encoding="utf-8")
    argv = ["report", "-m", "toy", "--metric-option", "toy_weight=2", "-r", str(ref), str(sys_a), str(sys_b)]
    code, _, err = _run([*argv, "--bootstrap", "10", "--randomization", "10", "-o", str(page), "-q"], capsys)
    assert code == 0 and not err
    data = json.loads(page.read_text(encoding="utf-8"))
    cells = {cell["system"]: cell["estimate"]["value"] for cell in data["leaderboard"]["cells"]}
    assert cells == {"a.txt": pytest.approx(_toy(2.0, refs=[[group[0]] for group in REFS])), "b.txt": 0.0}
    (info,) = data["provenance"]["metrics"]
    assert (info["name"], info["label"], info["higher_is_better"]) == ("toy", "Toy", False)
    assert info["signature"].startswith("weight:2.0|flavor:toy|")
    # lower is better: b ranks first
    assert [c["systems"] for c in data["leaderboard"]["clusters"]] == [["b.txt"], ["a.txt"]]


def test_a_toy_metric_added_by_the_checklist_reaches_the_torchmetrics_adapter(toy_metric):
    from nlpeval.integrations.torchmetrics import StatsMetric

    adapter = StatsMetric("toy")
    adapter.update(HYPS[:2], REFS[:2])
    adapter.update(HYPS[2:], REFS[2:])
    assert adapter.compute().item() == pytest.approx(_toy(1.0))


def test_entry_declaration_mistakes_are_refused(tmp_path, monkeypatch):
    bad = tmp_path / "entries"
    bad.mkdir()
    (bad / "clash.py").write_text(
        textwrap.dedent(
            """
            from nlpeval.metrics.registry import MetricEntry, Option
            ENTRIES = (MetricEntry("bleu", factory="x:y", family="clash", card="bleu", label="X"),)
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.setattr(entries_package, "__path__", [*entries_package.__path__, str(bad)])
    registry.reload()
    try:
        with pytest.raises(ValueError, match="the metric name 'bleu' is registered twice"):
            registry.names()
        (bad / "clash.py").write_text(
            "from nlpeval.metrics.registry import MetricEntry, Option\n"
            "ENTRIES = (MetricEntry('x2', factory='x:y', family='x', card='x', label='X',\n"
            "    options=(Option('lowercase', '--lowercase', 'flag', True),)),)\n",
            encoding="utf-8",
        )
        sys.modules.pop("nlpeval.metrics.entries.clash", None)
        registry.reload()
        with pytest.raises(ValueError, match=r"option 'lowercase' .* is declared differently"):
            registry.names()
    finally:
        (bad / "clash.py").unlink()
        sys.modules.pop("nlpeval.metrics.entries.clash", None)
        registry.reload()
    assert "bleu" in registry.names() and "x2" not in registry.names()


def test_architecture_checklist_names_files_that_exist():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    checklist = text[text.index("## Adding a metric") :]
    for path in ("python/nlpeval/metrics/entries/", "python/nlpeval/cards/data/", "python/nlpeval/metrics/registry.py"):
        assert path in checklist and (ROOT / path).exists(), path
    for field in registry.MetricEntry._fields + registry.Option._fields:
        assert f"`{field}`" in text, field


def test_a_metric_that_does_not_decompose_is_not_scored_in_pieces(tmp_path, capsys):
    (entry,) = [e for e in registry.entries() if not e.decomposes][:1] or [None]
    assert entry is not None and entry.pattern is None
    ref = tmp_path / "ref.txt"
    ref.write_text("a b c d\nx y z\n", encoding="utf-8")
    code, out, err = _run(
        ["score", "-m", f"bleu,{entry.name}", "-r", str(ref), str(ref), "--save-partial", str(tmp_path / "p")], capsys
    )
    assert code == 2 and not out and not list(tmp_path.glob("p*"))
    assert err.strip() == (
        f"nlpeval score: error: {entry.name} does not decompose into mergeable statistics: it cannot be scored in "
        "pieces (--engine dask, --save-partial); score it on one machine"
    )
