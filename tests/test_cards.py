"""Metric cards: every metric and flavor the library exposes has a card, every option in the code is on a card,
every worked example prints what its card says, and ``nlpeval explain`` / ``nlpeval metrics`` work."""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import re
import warnings
from importlib import resources

import pytest

import nlpeval
from nlpeval.cards import ANCHOR_PREFIX, UnknownMetricError, all_cards, card_id, explain
from nlpeval.cards.options import COMMON, api_options, command_flags, metric_flag_groups, resolve_api
from nlpeval.cli.main import main
from nlpeval.metrics import registry

CARDS = all_cards()

#: packages whose public names are infrastructure, not metrics: results, statistics, significance tests,
#: training-loop adapters, reports and the cards themselves
NOT_METRIC_MODULES = (
    "nlpeval.core.",
    "nlpeval.significance.",
    "nlpeval.integrations",
    "nlpeval.report",
    "nlpeval.cards",
)
#: other public names that need no card
NOT_METRICS = {"save_figure": "plotting helper"}

#: names the -m patterns accept, one per kind
PATTERN_SAMPLES = [
    "rouge1",
    "rouge9",
    "rougeL",
    "rougeLsum",
    "rougeW-1.2",
    "rougeS4",
    "rougeSU4",
    "rougeS*",
    "rougeSU*",
]
#: names the retrieval -m patterns accept (listed by nlpeval metrics and explain, scored by nlpeval ir)
RETRIEVAL_SAMPLES = ["P@10", "recall@100", "Rprec", "mrr@10", "map", "ndcg_cut_10", "ndcg_exp@5", "success@1"]


def _public_metric_objects() -> dict[str, object]:
    """Every public metric callable/class: the top-level API and the public names of the metric sub-packages."""
    names = {
        f"nlpeval.{name}": getattr(nlpeval, name)
        for name, module in nlpeval._LAZY.items()
        if not module.startswith(NOT_METRIC_MODULES) and name not in NOT_METRICS
    }
    for package in ("classification", "regression", "agreement", "correlation"):
        module = getattr(nlpeval, package)
        public = getattr(module, "__all__", None) or [
            name
            for name, value in vars(module).items()
            if not name.startswith("_") and callable(value) and getattr(value, "__module__", "") == module.__name__
        ]
        for name in public:
            if name not in NOT_METRICS:
                names[f"nlpeval.{package}.{name}"] = getattr(module, name)
    return names


def _covered_objects() -> dict[int, str]:
    return {id(resolve_api(path)): card.id for card in CARDS.values() for path in card.api}


def test_every_public_metric_has_a_card():
    covered = _covered_objects()
    missing = [path for path, obj in _public_metric_objects().items() if id(obj) not in covered]
    assert not missing, f"no card lists {missing} in its api"


def test_every_registry_name_resolves_to_a_card():
    for entry in registry.entries():
        if entry.pattern is None:
            assert card_id(entry.name) == entry.card, entry.name
    for sample in PATTERN_SAMPLES:
        assert registry.get(sample).card == "rouge"  # the -m registry accepts it
        assert card_id(sample) == "rouge"
    for entry in registry.entries():
        if entry.pattern is not None:  # every -m pattern has samples, and its card's patterns accept them
            samples = [sample for sample in PATTERN_SAMPLES + RETRIEVAL_SAMPLES if entry.matches(sample)]
            assert samples, f"no sample of the -m pattern {entry.pattern}"
            assert all(card_id(sample) == entry.card for sample in samples), entry.pattern


def test_card_api_entries_exist_and_names_are_unique():
    for card in CARDS.values():
        for path in card.api:
            assert resolve_api(path) is not None
    # _index raises when one name is claimed by two cards
    assert card_id("bleu") == "bleu"


@pytest.mark.parametrize(
    ("module", "card"),
    [
        ("nlpeval.metrics.bleu", "bleu"),
        ("nlpeval.metrics.rouge", "rouge"),
        ("nlpeval.metrics.meteor", "meteor"),
        ("nlpeval.metrics.wer", "wer"),
    ],
)
def test_every_flavor_has_a_card_entry(module, card):
    flavors = resolve_api(f"{module}.FLAVORS")
    assert [f.name for f in CARDS[card].flavors] == list(flavors)


@pytest.mark.parametrize(("function", "card"), [("chrf", "chrf"), ("ter", "ter")])
def test_single_flavor_metrics_name_their_flavor(function, card):
    signature = getattr(nlpeval, function)(["a b c"], ["a b c"]).signature
    flavor = re.search(r"flavor:([^|]+)", str(signature)).group(1)
    assert [f.name for f in CARDS[card].flavors] == [flavor]


def test_options_come_from_the_code_and_every_option_is_described():
    for card in CARDS.values():
        # every keyword option of the documented callables is on the card, with the default of the code
        for name, (default, where) in api_options(card.extra["option_sources"]).items():
            option = next(o for o in card.options if o.name == name)
            assert option.default == default and option.description, (card.id, name, where)
            assert option.description == COMMON.get(name, option.description)
        cli = [o for o in card.options if o.where.startswith("nlpeval ")]
        for option in cli:
            assert option.name in command_flags(option.where.split()[1])


def test_every_option_of_every_metric_function_is_on_its_card():
    for card in CARDS.values():
        names = {o.name for o in card.options}
        for path in card.api:
            function = resolve_api(path)
            if not inspect.isfunction(function) or function.__name__.startswith("plot_"):
                continue  # classes mirror their function's options; plots take presentation arguments
            missing = set(api_options([path])) - names
            assert not missing, f"card {card.id}: options {sorted(missing)} of {path} are not on the card"


def test_a_card_naming_a_missing_option_fails():
    from nlpeval.cards.catalog import parse_card

    source = (resources.files("nlpeval.cards") / "data" / "ter.toml").read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="has no option --ter-nonsense"):
        parse_card(source.replace('"--ter-normalized"', '"--ter-nonsense"'))
    with pytest.raises(ValueError, match=re.escape("option 'normalized' of nlpeval.ter is not described")):
        parse_card(re.sub(r"\nnormalized = .*\n", "\n", source))
    with pytest.raises(ValueError, match="describes options the code does not have: not_an_option"):
        parse_card(source.replace("\nno_punct = ", '\nnot_an_option = "x"\nno_punct = '))


def test_every_metric_flag_of_score_is_on_a_card():
    documented = {o.name for card in CARDS.values() for o in card.options if o.where == "nlpeval score"}
    for title, flags in metric_flag_groups("score").items():
        missing = set(flags) - documented
        assert not missing, f"{title}: {sorted(missing)} on no card"


def test_cli_defaults_on_cards_are_the_parser_defaults():
    flags = command_flags("score")
    bleu = {o.name: o for o in CARDS["bleu"].options}
    assert bleu["--max-order"].default == flags["--max-order"][0] == "4"
    assert bleu["--smooth-value"].description  # an undocumented flag borrows the API option's meaning


@pytest.mark.parametrize("card_name", sorted(CARDS))
def test_worked_example_prints_what_the_card_says(card_name):
    card = CARDS[card_name]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(card.example_code, f"<card {card.id}>", "exec"), {"__name__": "__card__"})
    assert out.getvalue().strip() == card.example_output.strip()


@pytest.mark.parametrize("card_name", sorted(CARDS))
def test_card_is_complete(card_name):
    card = CARDS[card_name]
    for text in (card.summary, card.definition, card.formula, card.bounds, card.encodes):
        assert text.strip()
    assert card.weaknesses and card.pitfalls and card.flavors and card.references
    assert all(r.authors and 1800 < r.year < 2030 and r.title for r in card.references)
    assert all(related in CARDS for related in card.related), card.related


def test_reference_values_in_examples():
    # the worked examples' numbers, from the reference tools
    import sacrebleu

    hyps = ["The cat sat on the mat.", "A quick brown fox jumps over the dog."]
    refs = [["The cat is on the mat.", "The quick brown fox jumped over the lazy dog."]]
    assert f"BLEU = {sacrebleu.corpus_bleu(hyps, refs).score:.2f}" in CARDS["bleu"].example_output
    assert f"chrF2 = {sacrebleu.corpus_chrf(hyps, refs).score:.2f}" in CARDS["chrf"].example_output
    assert f"TER = {sacrebleu.corpus_ter(hyps, refs).score:.2f}" in CARDS["ter"].example_output
    import jiwer
    from sklearn import metrics as skm

    o = jiwer.process_words(
        ["the cat sat on the mat", "hello big world"], ["the cat sit on the mat mat", "hello world"]
    )
    assert f"WER={o.wer:.4f} MER={o.mer:.4f} WIL={o.wil:.4f} WIP={o.wip:.4f}" in CARDS["wer"].example_output
    gold, pred = [0, 1, 1, 0, 1, 2, 2, 0], [0, 1, 0, 0, 2, 2, 1, 0]
    assert f"macro F1 = {skm.f1_score(gold, pred, average='macro'):.4f}" in CARDS["prf"].example_output
    assert f"mcc={skm.matthews_corrcoef(gold, pred):.4f}" in CARDS["accuracy"].example_output
    yb, sc = [0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.7, 0.9]
    assert f"AP={skm.average_precision_score(yb, sc):.4f}" in CARDS["average-precision"].example_output
    assert f"ROC AUC={skm.roc_auc_score(yb, sc):.4f}" in CARDS["roc-auc"].example_output
    a = ["yes", "yes", "no", "no", "yes", "no", "yes", "yes"]
    b = ["yes", "no", "no", "no", "yes", "yes", "yes", "yes"]
    assert f"cohen_kappa={skm.cohen_kappa_score(a, b):.4f}" in CARDS["agreement"].example_output
    from rouge_score import rouge_scorer

    summary, reference = "it was happy\nthe cat sat on the mat", "the cat was on the mat\nthe cat was happy"
    lsum = rouge_scorer.RougeScorer(["rougeLsum"]).score(reference, summary)["rougeLsum"].fmeasure
    assert f"rougeLsum P=0.7778 R=0.7000 F={lsum:.4f}" in CARDS["rouge"].example_output
    from scipy import stats

    k = stats.kendalltau([0.2, 0.4, 0.5, 0.7, 0.9], [1, 3, 2, 4, 5])
    assert f"kendall  {k.statistic:.4f} p={k.pvalue:.4f}" in CARDS["correlation"].example_output


def test_aliases_and_card_ids():
    assert card_id("chrf++") == card_id("chrF") == "chrf"
    assert card_id("rougeL") == card_id("ROUGE-Lsum") == "rouge"
    assert card_id("wer") == card_id("CER") == card_id("wip") == "wer"
    assert card_id("macro-f1") == "prf"
    assert explain("bleu").anchor == ANCHOR_PREFIX + "bleu" == "nlpeval-card-bleu"
    assert nlpeval.explain("meteor").id == "meteor"


def test_unknown_name_suggests_close_names():
    with pytest.raises(UnknownMetricError, match="did you mean 'bleu'"):
        explain("blue")


def test_renderings():
    card = explain("rougeLsum")
    text, markdown, data = card.to_text(), card.to_markdown(), card.to_dict()
    assert text.startswith("ROUGE [rouge]") and "rougeLsum needs sentence splits" in text
    assert markdown.startswith('<a id="nlpeval-card-rouge"></a>\n## ROUGE') and "| `--stemmer` | `off` |" in markdown
    assert data["id"] == "rouge" and json.loads(card.to_json()) == data
    assert {o["name"] for o in data["options"]} >= {"stemmer", "flavor", "--rouge-flavor", "sentence_splitter"}


def _run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_explain(capsys):
    code, out, err = _run(["explain", "chrf++"], capsys)
    assert code == 0 and out.startswith("chrF and chrF++ [chrf]") and not err
    code, out, _ = _run(["explain", "wer", "--format", "json"], capsys)
    assert code == 0 and json.loads(out)["id"] == "wer"
    code, out, _ = _run(["explain", "rougeL", "-f", "markdown"], capsys)
    assert code == 0 and out.startswith('<a id="nlpeval-card-rouge"></a>')


def test_cli_explain_all(tmp_path, capsys):
    page = tmp_path / "cards.md"
    assert main(["explain", "--all", "--format", "markdown", "-o", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert all(f'<a id="{card.anchor}"></a>' in text for card in CARDS.values())
    code, out, _ = _run(["explain", "--all", "--format", "json"], capsys)
    assert code == 0 and [c["id"] for c in json.loads(out)] == list(CARDS)
    code, out, err = _run(["explain", "bleu", "--all"], capsys)
    assert code == 2 and not out and err.strip() == "nlpeval explain: error: give one METRIC or --all"
    code, out, err = _run(["explain"], capsys)
    assert code == 2 and not out and "give one METRIC or --all" in err


def test_cli_explain_unknown_is_exit_2(capsys):
    code, out, err = _run(["explain", "bleuu"], capsys)
    assert code == 2 and not out
    assert err.strip() == (
        "nlpeval explain: error: unknown metric 'bleuu'; did you mean 'bleu' or 'bleu4' or 'gleu'? "
        "(nlpeval metrics lists every name)"
    )


def test_cli_metrics_lists_every_metric_flavor_and_option(capsys):
    code, out, _ = _run(["metrics", "--format", "json"], capsys)
    listing = {entry["id"]: entry for entry in json.loads(out)}
    assert code == 0 and set(listing) == set(CARDS)
    text = [entry.name for entry in registry.entries() if entry.inputs == "text"]
    assert sorted(n for e in listing.values() for n in e["score_names"]) == sorted(text)
    assert sorted(n for e in listing.values() for n in e["ir_names"]) == sorted(set(registry.names()) - set(text))
    assert listing["bleu"]["flavors"] == ["sacrebleu", "nltk", "hf"]
    assert listing["bleu"]["options"]["tokenize"] == repr(
        inspect.signature(nlpeval.bleu).parameters["tokenize"].default
    )
    code, out, _ = _run(["metrics"], capsys)
    assert code == 0 and "chrf: chrF and chrF++" in out and "nlpeval score -m: chrf, chrf++" in out
    code, out, _ = _run(["metrics", "-f", "markdown"], capsys)
    assert code == 0 and out.startswith("| card |") and "(#nlpeval-card-ter)" in out
