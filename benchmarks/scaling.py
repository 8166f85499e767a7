"""Scaling curves: time and peak memory of every text metric against segment length and corpus size.

For BLEU, chrF, TER, ROUGE, WER, CER and METEOR (both flavors), nlpeval and the
reference tool (sacreBLEU, rouge-score, jiwer, NLTK's ``meteor_score``, the
METEOR 1.5 jar) are timed on

* **segment length**: one pair of 10 ... 16,000 tokens, on ``natural`` text (TED
  words), ``repeated`` words ("big" x n against "large" x n: synonyms, nothing
  exact), ``shifted`` repetition ("cat" + "the" x n against "the" x n + "cat") and
  ``disjoint`` vocabularies (two halves of the TED vocabulary);
* **corpus size**: 1,000 ... 3,000,000 TED segments (nlpeval streams sizes of
  100,000 and more through its accumulator in chunks of 50,000 segments generated
  on the fly, so that its peak memory is its own, not the input's; the reference
  tools get whole lists, as their APIs take them);
* **references**: 1 ... 64 references per segment (1,000 segments).

Each (metric, tool, input) runs in its own process, sizes in increasing order,
so that peak memory (``ru_maxrss`` after the call minus before it, the input
already built) is that tool's own. A series stops when its next size is
predicted (last time x size ratio) to take longer than ``--budget`` seconds, and
every process is killed after ``--timeout`` seconds (what it printed is kept):
so the script ends whatever the tools do. What was capped is printed and in the
JSON. The METEOR 1.5 jar is a whole process each time (JVM start and table
loading included, ~10 s), so it runs on a few sizes only.

Growth exponents are fitted (least squares on log-log) over the points of at
least 2 ms (smaller ones measure call overhead). Results go to
``docs/scaling.json`` and the plots to ``docs/scaling_*.png``.

Usage: ``python benchmarks/scaling.py [--budget S] [--timeout S] [--only METRIC,...] [--sweeps corpus,...]
[--tools nlpeval,...] [--plot-only]`` (with ``--only``/``--sweeps``/``--tools`` the other series of
``docs/scaling.json`` are kept).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402
from harness import read_lines  # noqa: E402

#: The evaluation data (``../shared/data``; ``NLPEVAL_DATA`` overrides it, e.g. from a git worktree).
DATA = Path(os.environ.get("NLPEVAL_DATA", harness.DATA))

LENGTHS = (10, 40, 160, 640, 2_560, 16_000)
CORPUS = (1_000, 10_000, 100_000, 1_000_000, 3_000_000)
REFERENCES = (1, 4, 16, 64)
KINDS = ("natural", "repeated", "shifted", "disjoint")
METRICS = ("bleu", "chrf", "ter", "rouge", "wer", "cer", "meteor-nltk", "meteor15")
REFERENCE_TOOL = {
    "bleu": "sacrebleu",
    "chrf": "sacrebleu",
    "ter": "sacrebleu",
    "rouge": "rouge-score",
    "wer": "jiwer",
    "cer": "jiwer",
    "meteor-nltk": "nltk",
    "meteor15": "METEOR 1.5 jar",
}
#: Sizes the jar runs (each is a JVM start plus table loading).
JAR_LENGTHS = (10, 160, 2_560)
JAR_CORPUS = (1_000, 10_000)
#: Floor of the points used for the fitted exponent (seconds): smaller ones measure call overhead.
FIT_FLOOR = 0.002
#: Corpus sizes from which nlpeval is fed in chunks through its accumulator (and the chunk size).
STREAM_FROM, STREAM_CHUNK = 100_000, 50_000
#: ROUGE: nlpeval's length series go on to a size its ``max_cells`` guard refuses (64,000^2 > 10^9 cells).
ROUGE_LENGTHS = (*LENGTHS, 64_000)
#: ROUGE's inputs are cut into lines of this many tokens, so that rougeLsum's union LCS runs per
#: sentence pair (its quadratic worst case; on one line it is rougeL's bit-parallel LCS).
ROUGE_LINE = 25
#: Series that need a multi-reference tool call (jiwer and the jar take one reference).
SINGLE_REFERENCE = {"wer", "cer", "meteor15"}


# inputs


def _words() -> tuple[list[str], list[str]]:
    folder = DATA / "compare-mt"
    return " ".join(read_lines(folder / "ted.sys1.eng")).split(), " ".join(read_lines(folder / "ted.ref.eng")).split()


def pair(kind: str, n: int) -> tuple[str, str]:
    """One hypothesis-reference pair of ``n`` tokens a side."""
    if kind == "repeated":
        return " ".join(["big"] * n), " ".join(["large"] * n)
    if kind == "shifted":
        return " ".join(["cat"] + ["the"] * (n - 1)), " ".join(["the"] * (n - 1) + ["cat"])
    hyp_words, ref_words = _words()
    if kind == "disjoint":
        vocabulary = sorted(set(hyp_words) | set(ref_words))
        rng = random.Random(3)
        return " ".join(rng.choices(vocabulary[::2], k=n)), " ".join(rng.choices(vocabulary[1::2], k=n))
    reps = n // min(len(hyp_words), len(ref_words)) + 1
    return " ".join((hyp_words * reps)[:n]), " ".join((ref_words * reps)[:n])


def corpus(n: int, n_refs: int = 1) -> tuple[list[str], list[list[str]]]:
    """``n`` TED segments (cycled) and ``n_refs`` references each (the reference, then other systems' lines)."""
    folder = DATA / "compare-mt"
    hyp = read_lines(folder / "ted.sys1.eng")
    streams = [read_lines(folder / f"ted.{name}.eng") for name in ("ref", "sys2")]
    reps = n // len(hyp) + 1
    hyps = (hyp * reps)[:n]
    refs = []
    for k in range(n_refs):
        stream = streams[k % 2]
        shift = k // 2  # later references: the stream shifted by k/2 lines
        refs.append(((stream[shift:] + stream[:shift]) * reps)[:n])
    return hyps, [list(r) for r in zip(*refs, strict=True)]


def corpus_chunks(n: int, chunk: int = STREAM_CHUNK) -> Iterator[tuple[list[str], list[str]]]:
    """``corpus(n)`` as chunks of at most ``chunk`` segments, generated on the fly (one reference each, as str)."""
    folder = DATA / "compare-mt"
    hyp, ref = read_lines(folder / "ted.sys1.eng"), read_lines(folder / "ted.ref.eng")
    for start in range(0, n, chunk):
        idx = [i % len(hyp) for i in range(start, min(n, start + chunk))]
        yield [hyp[i] for i in idx], [ref[i] for i in idx]


def stream_scorer(metric: str) -> Callable[[int], object]:
    """nlpeval's corpus score of ``n`` segments, streamed through accumulators (see :func:`corpus_chunks`)."""
    import nlpeval

    if metric == "rouge":
        from nlpeval.metrics.rouge import DEFAULT_TYPES, make_rouge

        metrics = [make_rouge(t) for t in DEFAULT_TYPES]
    elif metric in ("meteor15", "meteor-nltk"):
        from nlpeval.metrics.meteor import make_meteor

        metrics = [make_meteor(flavor="meteor1.5" if metric == "meteor15" else "nltk")]
    else:
        metrics = [{"bleu": nlpeval.BLEU, "chrf": nlpeval.CHRF, "ter": nlpeval.TER, "wer": nlpeval.WER,
                    "cer": nlpeval.CER}[metric]()]  # fmt: skip

    def run(n: int) -> object:
        accumulators = [m.accumulator() for m in metrics]
        for h, r in corpus_chunks(n):
            for acc in accumulators:
                acc.update(h, r)
        return [acc.compute() for acc in accumulators]

    return run


# the scorers: (hypotheses, references per segment) -> None


def _lines(text: str) -> str:
    """``text`` as lines of ROUGE_LINE tokens."""
    tokens = text.split(" ")
    return "\n".join(" ".join(tokens[i : i + ROUGE_LINE]) for i in range(0, len(tokens), ROUGE_LINE))


def _rouge_inputs(h: list[str], r: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    return [_lines(x) for x in h], [[_lines(x) for x in refs] for refs in r]


def _nltk_wordnet() -> object:
    from bench_meteor import _nltk_wordnet as build

    return build(Path(tempfile.mkdtemp(prefix="nlpeval-scaling-wn-")))


def scorer(metric: str, tool: str) -> Callable[[list[str], list[list[str]]], object]:
    if tool == "nlpeval":
        import nlpeval

        if metric == "meteor15":
            from nlpeval.metrics.meteor.meteor15 import METEOR

            meteor15 = METEOR()
            return lambda h, r: meteor15(h, r)
        if metric == "meteor-nltk":
            return lambda h, r: nlpeval.meteor(h, r, flavor="nltk")
        if metric == "rouge":
            return lambda h, r: nlpeval.rouge(*_rouge_inputs(h, r))
        function = getattr(nlpeval, metric)
        return lambda h, r: function(h, r)
    if metric in ("bleu", "chrf", "ter"):
        import sacrebleu

        function = {"bleu": sacrebleu.corpus_bleu, "chrf": sacrebleu.corpus_chrf, "ter": sacrebleu.corpus_ter}[metric]
        return lambda h, r: function(h, [list(x) for x in zip(*r, strict=True)])
    if metric == "rouge":
        from rouge_score import rouge_scorer

        rouge = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"])

        def rouge_score(h: list[str], r: list[list[str]]) -> list:
            h, r = _rouge_inputs(h, r)
            return [rouge.score_multi(refs, hyp) for hyp, refs in zip(h, r, strict=True)]

        return rouge_score
    if metric in ("wer", "cer"):
        import jiwer

        function = jiwer.wer if metric == "wer" else jiwer.cer
        return lambda h, r: function([refs[0] for refs in r], h)
    if metric == "meteor-nltk":
        from nltk.translate.meteor_score import meteor_score

        wordnet = _nltk_wordnet()
        return lambda h, r: [
            meteor_score([x.split() for x in refs], hyp.split(), wordnet=wordnet)
            for hyp, refs in zip(h, r, strict=True)
        ]
    if metric == "meteor15":
        from bench_meteor import _jar

        jar = _jar()
        if jar is None:
            raise RuntimeError("java or pycocoevalcap missing")
        work = Path(tempfile.mkdtemp(prefix="nlpeval-scaling-jar-"))

        def run_jar(h: list[str], r: list[list[str]]) -> None:
            (work / "h.txt").write_text("".join(x + "\n" for x in h), encoding="utf-8")
            (work / "r.txt").write_text("".join(x[0] + "\n" for x in r), encoding="utf-8")
            command = ["java", "-Xmx2G", "-jar", str(jar), str(work / "h.txt"), str(work / "r.txt"), "-l", "en"]
            subprocess.run(command, check=True, capture_output=True)

        return run_jar
    raise ValueError(f"no reference tool for {metric}")


# one series, in a child process


def _peak_bytes(children: bool = False) -> int:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF)
    return usage.ru_maxrss * 1024  # kilobytes on Linux


def child(metric: str, tool: str, sweep: str, kind: str, sizes: list[int], budget: float) -> None:
    """Times the series and prints one JSON line per size (so a killed run keeps what it did)."""
    score = scorer(metric, tool)
    score(["a small warm up"], [["a small warm-up"]])
    stream = stream_scorer(metric) if tool == "nlpeval" and sweep == "corpus" else None
    jar = metric == "meteor15" and tool != "nlpeval"
    last: tuple[int, float] | None = None
    for size in sizes:
        if not jar and last is not None and last[1] >= 0.2 and last[1] * size / last[0] > budget:
            print(json.dumps({"size": size, "skipped": "over budget"}), flush=True)
            break
        if stream is not None and size >= STREAM_FROM:
            before = _peak_bytes()
            start = time.perf_counter()
            stream(size)
            seconds = time.perf_counter() - start
            peak = max(0, _peak_bytes() - before)
            print(json.dumps({"size": size, "seconds": seconds, "peak_bytes": peak, "streamed": True}), flush=True)
            last = (size, seconds)
            continue
        if sweep == "length":
            h, r = pair(kind, size)
            hyps, refs = [h], [[r]]
        elif sweep == "corpus":
            hyps, refs = corpus(size)
        else:
            hyps, refs = corpus(1_000, size)
        before = _peak_bytes(jar)
        start = time.perf_counter()
        try:
            score(hyps, refs)
        except ValueError as exc:  # a guard refusing the input (nlpeval's InputError is a ValueError)
            print(json.dumps({"size": size, "refused": str(exc)[:200], "seconds": time.perf_counter() - start}))
            sys.stdout.flush()
            continue
        seconds = time.perf_counter() - start
        if seconds < 0.05 and not jar:  # short: best of three
            for _ in range(2):
                again = time.perf_counter()
                score(hyps, refs)
                seconds = min(seconds, time.perf_counter() - again)
        peak = max(0, _peak_bytes(jar) - (0 if jar else before))
        print(json.dumps({"size": size, "seconds": seconds, "peak_bytes": peak}), flush=True)
        last = (size, seconds)


def run_series(metric: str, tool: str, sweep: str, kind: str, sizes: list[int], args: argparse.Namespace) -> dict:
    command = [sys.executable, __file__, "--child", json.dumps([metric, tool, sweep, kind, sizes, args.budget])]
    points, note = [], ""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout, check=False)
        out, err = done.stdout, done.stderr
        if done.returncode:
            note = f"failed: {err.strip().splitlines()[-1] if err.strip() else done.returncode}"
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        note = f"killed after {args.timeout:.0f} s"
    for line in out.splitlines():
        if line.startswith("{"):
            points.append(json.loads(line))
    return {"metric": metric, "tool": tool, "sweep": sweep, "kind": kind, "points": points, "note": note}


def exponent(points: list[dict]) -> float | None:
    """Least-squares slope of log(seconds) on log(size) over the timed points of at least FIT_FLOOR."""
    timed = [p for p in points if "refused" not in p and p.get("seconds", 0) >= FIT_FLOOR]
    xy = [(math.log(p["size"]), math.log(p["seconds"])) for p in timed]
    if len(xy) < 2:
        return None
    mx, my = sum(x for x, _ in xy) / len(xy), sum(y for _, y in xy) / len(xy)
    sxx = sum((x - mx) ** 2 for x, _ in xy)
    return sum((x - mx) * (y - my) for x, y in xy) / sxx if sxx else None


def plan(metrics: list[str]) -> list[tuple[str, str, str, str, list[int]]]:
    jobs = []
    for metric in metrics:
        for tool in ("nlpeval", REFERENCE_TOOL[metric]):
            jar = tool == "METEOR 1.5 jar"
            for kind in KINDS:
                if jar and kind in ("shifted", "disjoint"):
                    continue
                lengths = JAR_LENGTHS if jar else ROUGE_LENGTHS if (metric, tool) == ("rouge", "nlpeval") else LENGTHS
                jobs.append((metric, tool, "length", kind, list(lengths)))
            jobs.append((metric, tool, "corpus", "natural", list(JAR_CORPUS if jar else CORPUS)))
            if metric not in SINGLE_REFERENCE:
                jobs.append((metric, tool, "references", "natural", list(REFERENCES)))
    return jobs


# plots


def plot(results: list[dict], folder: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    styles = {"natural": "-", "repeated": "--", "shifted": ":", "disjoint": "-."}
    for sweep, xlabel in (
        ("length", "tokens per segment (one pair)"),
        ("corpus", "segments"),
        ("references", "references per segment (1,000 segments)"),
    ):
        for quantity, ylabel in (("seconds", "seconds"), ("peak_bytes", "peak memory above input (MB)")):
            fig, axes = plt.subplots(2, 4, figsize=(18, 8.5))
            for ax, metric in zip(axes.flat, METRICS, strict=True):
                for series in results:
                    if series["metric"] != metric or series["sweep"] != sweep:
                        continue
                    pts = [p for p in series["points"] if "refused" not in p and p.get(quantity, 0) > 0]
                    if not pts:
                        continue
                    scale = 1e-6 if quantity == "peak_bytes" else 1.0
                    color = "tab:blue" if series["tool"] == "nlpeval" else "tab:red"
                    label = f"{series['tool']}, {series['kind']}" if sweep == "length" else series["tool"]
                    if quantity == "seconds" and (k := exponent(series["points"])) is not None:
                        label += f" (slope {k:.2f})"
                    ax.loglog(
                        [p["size"] for p in pts],
                        [p[quantity] * scale for p in pts],
                        styles[series["kind"]],
                        marker="o",
                        markersize=3,
                        color=color,
                        label=label,
                    )
                    for p in series["points"]:
                        if "refused" in p:
                            ax.axvline(p["size"], color=color, alpha=0.3, linewidth=3)
                ax.set_title(metric)
                ax.set_xlabel(xlabel)
                ax.set_ylabel(ylabel)
                ax.grid(True, which="both", alpha=0.3)
                if ax.lines:
                    ax.legend(fontsize=6)
                else:
                    why = "one reference per segment only" if sweep == "references" else "nothing above the floor"
                    ax.text(0.5, 0.5, why, ha="center", va="center", transform=ax.transAxes, color="gray")
            what = "time" if quantity == "seconds" else "memory"
            fig.suptitle(f"nlpeval (blue) vs reference tool (red): {what} against {xlabel}")
            fig.tight_layout()
            path = folder / f"scaling_{sweep}_{what}.png"
            fig.savefig(path, dpi=80)
            plt.close(fig)
            written.append(path)
    return written


def summary(results: list[dict]) -> str:
    lines = ["| metric | tool | sweep | input | sizes timed | exponent | note |", "|---|---|---|---|---|---|---|"]
    for s in results:
        timed = [p["size"] for p in s["points"] if "seconds" in p and "refused" not in p]
        refused = [p["size"] for p in s["points"] if "refused" in p]
        skipped = [p["size"] for p in s["points"] if "skipped" in p]
        k = exponent(s["points"])
        note = "; ".join(
            x
            for x in (
                s["note"],
                f"refused by a guard at {refused}" if refused else "",
                f"stopped before {skipped[0]:,} (over budget)" if skipped else "",
            )
            if x
        )
        span = f"{min(timed):,}..{max(timed):,}" if timed else "-"
        exp = f"{k:.2f}" if k is not None else "-"
        lines.append(f"| {s['metric']} | {s['tool']} | {s['sweep']} | {s['kind']} | {span} | {exp} | {note} |")
    return "\n".join(lines)


def exponent_table(results: list[dict]) -> str:
    """One row per metric: fitted exponents, nlpeval / reference tool, per sweep and input ("-": too few points)."""
    columns = [("length", kind) for kind in KINDS] + [("corpus", "natural"), ("references", "natural")]
    head = ["length: " + kind for kind in KINDS] + ["corpus size", "references"]
    lines = ["| metric (nlpeval / reference) | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]

    def cell(metric: str, tool: str, sweep: str, kind: str) -> str:
        for s in results:
            if (s["metric"], s["tool"], s["sweep"], s["kind"]) == (metric, tool, sweep, kind):
                k = exponent(s["points"])
                return f"{k:.2f}" if k is not None else "-"
        return "-"

    for metric in METRICS:
        cells = [f"{cell(metric, 'nlpeval', *c)} / {cell(metric, REFERENCE_TOOL[metric], *c)}" for c in columns]
        lines.append(f"| {metric} ({REFERENCE_TOOL[metric]}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=float, default=20.0, help="longest predicted run per size (s)")
    parser.add_argument("--timeout", type=float, default=90.0, help="kill a series after this long (s)")
    parser.add_argument("--only", help="comma-separated metrics (default: all)")
    parser.add_argument("--sweeps", help="comma-separated sweeps: length, corpus, references (default: all)")
    parser.add_argument("--tools", help="comma-separated tools, e.g. nlpeval (default: all)")
    parser.add_argument("--out", default=str(ROOT / "docs"), help="folder of scaling.json and the PNGs")
    parser.add_argument("--plot-only", action="store_true", help="redraw from the folder's scaling.json")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*json.loads(args.child))
        return
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    store = folder / "scaling.json"
    if args.plot_only:
        results = json.loads(store.read_text())["series"]
    else:
        metrics = args.only.split(",") if args.only else list(METRICS)
        jobs = [
            job
            for job in plan(metrics)
            if (not args.sweeps or job[2] in args.sweeps.split(","))
            and (not args.tools or job[1] in args.tools.split(","))
        ]
        old = json.loads(store.read_text())["series"] if store.is_file() else []
        rerun = {job[:4] for job in jobs}
        results = [s for s in old if (s["metric"], s["tool"], s["sweep"], s["kind"]) not in rerun]
        for job in jobs:
            started = time.perf_counter()
            series = run_series(*job, args)
            results.append(series)
            print(f"{job[0]:12} {job[1]:15} {job[2]:10} {job[3]:9} {time.perf_counter() - started:6.1f} s "
                  f"exponent {exponent(series['points'])} {series['note']}", flush=True)  # fmt: skip
        meta = {
            "date": time.strftime("%Y-%m-%d"),
            "budget": args.budget,
            "timeout": args.timeout,
            "cpus": os.cpu_count(),
        }
        store.write_text(json.dumps({"meta": meta, "series": results}, indent=1) + "\n")
    for path in plot(results, folder):
        print("wrote", path)
    print(summary(results))
    print()
    print(exponent_table(results))


if __name__ == "__main__":
    main()
