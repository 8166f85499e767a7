"""Neural metrics, whole process, CPU: nlpeval against unbabel-comet 2.2.7 and bert-score 0.3.13 (issue 23).

Run: ``python benchmarks/bench_neural.py [--work DIR]`` (about 15 minutes on 2 cores). It

1. builds randomly initialised checkpoints of the real architectures' sizes (weights do not change the cost):
   a COMET-22-style regression checkpoint around an XLM-R-base-sized encoder (12 layers, 768 wide,
   250,002-row embedding, estimator 3072-1024), built with unbabel-comet's own ``RegressionMetric`` in its
   venv, and a roberta-base-sized model (12 layers, 768 wide, 50,265-row embedding); their tokenizers are a
   sentencepiece unigram and a byte-level BPE trained on the benchmark's own text (so token counts are
   those of real subword vocabularies);
2. times each case as whole processes, side by side in one run, alternating the sides: the reference
   package in its venv (``/work/venvs/comet``, ``/work/venvs/bertscore``, through its Python API: load the
   model once, one call per system, float32 on CPU) and ``python -m nlpeval score``;
3. prints one Markdown row per case: wall seconds, the speed-up, the target, CPU seconds (user + system) and
   their ratio, peak memory (max RSS of each process, from ``wait4``), the largest difference of the system
   scores, and the 1-minute load average before and after the case.

``--segments N`` sets the 1-system case's segment count (default 500), ``--timeout S`` stops a process that runs
longer than S seconds (the machine may be shared).

The cases: COMET one system x 500 segments (target >= 1.2x), COMET 8 systems sharing sources and references
(>= 2.5x), BERTScore 16 systems against one reference set (>= 2x). Text: MQM TED en-de (sources in
``source.en``) and WMT17 en-de, from ``tests/data``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENVS = Path(os.environ.get("NLPEVAL_VENVS", "/work/venvs"))
TARGETS = {"comet-1x500": 1.2, "comet-8": 2.5, "bertscore-16": 2.0}
COMET_SYSTEMS = ["Facebook-AI", "HuaweiTSC", "Nemo", "Online-W", "UEdin", "VolcTrans-AT", "VolcTrans-GLAT",
                 "eTranslation"]  # fmt: skip
N_COMET_8 = 100
N_BERT_16 = 100

BUILD_COMET = r"""
import sys, torch, yaml
from pathlib import Path
import sentencepiece as spm
from transformers import XLMRobertaConfig, XLMRobertaTokenizerFast
from comet.models import RegressionMetric
folder, corpus = Path(sys.argv[1]), Path(sys.argv[2])
encoder = folder / "encoder"
encoder.mkdir(parents=True, exist_ok=True)
spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(folder / "spm"), vocab_size=16000,
    model_type="unigram", character_coverage=1.0, num_threads=2, minloglevel=2, hard_vocab_limit=False)
tokenizer = XLMRobertaTokenizerFast(vocab_file=str(folder / "spm.model"), model_max_length=512)
tokenizer.save_pretrained(str(encoder))
XLMRobertaConfig(vocab_size=250002, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
    intermediate_size=3072, max_position_embeddings=514, type_vocab_size=1, pad_token_id=1, bos_token_id=0,
    eos_token_id=2).save_pretrained(str(encoder))
torch.manual_seed(0)
model = RegressionMetric(pretrained_model=str(encoder), load_pretrained_weights=False, hidden_sizes=[3072, 1024],
    layer_transformation="sparsemax", layer_norm=False, pool="avg", layer="mix", activations="Tanh", dropout=0.1)
with torch.no_grad():
    for i, p in enumerate(model.layerwise_attention.scalar_parameters):
        p.fill_(0.1 * (i % 5) - 0.2)
hparams = dict(model.hparams)
(folder / "checkpoints").mkdir(exist_ok=True)
torch.save({"state_dict": model.state_dict(), "hyper_parameters": hparams, "pytorch-lightning_version": "2.6.6"},
    folder / "checkpoints" / "model.ckpt")
(folder / "hparams.yaml").write_text(yaml.safe_dump(hparams, sort_keys=True))
"""

BUILD_ROBERTA = r"""
import sys, torch
from pathlib import Path
from tokenizers import ByteLevelBPETokenizer
from transformers import RobertaConfig, RobertaModel, RobertaTokenizer
folder, corpus = Path(sys.argv[1]), Path(sys.argv[2])
folder.mkdir(parents=True, exist_ok=True)
bpe = ByteLevelBPETokenizer()
bpe.train([str(corpus)], vocab_size=16000, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
bpe.save_model(str(folder))
tokenizer = RobertaTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"), model_max_length=512)
tokenizer.save_pretrained(str(folder))
torch.manual_seed(0)
config = RobertaConfig(vocab_size=50265, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
    intermediate_size=3072, max_position_embeddings=514, type_vocab_size=1, pad_token_id=1, bos_token_id=0,
    eos_token_id=2)
RobertaModel(config, add_pooling_layer=False).eval().save_pretrained(str(folder))
"""

REFERENCE_COMET = r"""
import json, sys
from comet import load_from_checkpoint
ckpt, src, ref, systems = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
read = lambda p: open(p, encoding="utf-8").read().split("\n")[:-1]
sources, references = read(src), read(ref)
model = load_from_checkpoint(ckpt)
scores = []
for path in systems:
    data = [dict(src=s, mt=m, ref=r) for s, m, r in zip(sources, read(path), references)]
    scores.append(float(model.predict(data, batch_size=16, gpus=0, progress_bar=False).system_score))
print(json.dumps(scores))
"""

REFERENCE_BERTSCORE = r"""
import json, sys
from bert_score import BERTScorer
model, ref, systems = sys.argv[1], sys.argv[2], sys.argv[3:]
read = lambda p: open(p, encoding="utf-8").read().split("\n")[:-1]
references = read(ref)
scorer = BERTScorer(model_type=model, num_layers=10, batch_size=64)
scores = []
for path in systems:
    P, R, F = scorer.score(read(path), references)
    scores.append(float(F.mean()))
print(json.dumps(scores))
"""


def texts() -> dict[str, Path]:
    sys.path.insert(0, str(ROOT / "tests"))
    from realdata import data_dir

    root = data_dir()
    return {"ted": root / "mqm-ted-ende", "wmt": root / "wmt17-en-de"}


def head(source: Path, target: Path, n: int) -> str:
    lines = source.read_text(encoding="utf-8").split("\n")[:-1][:n]
    target.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(target)


#: CPU seconds (user + system) of the last process :func:`run_measured` timed
LAST_CPU = [0.0]


def run_measured(command: list[str], env: dict[str, str], timeout: float | None = None) -> tuple[float, float, str]:
    """(wall seconds, peak MiB, stdout) of a whole process, from its own rusage (``wait4``); its CPU seconds (user
    + system) go to :data:`LAST_CPU`. A process still running after ``timeout`` seconds is stopped (an error)."""
    with tempfile.TemporaryFile("w+") as out_file, tempfile.TemporaryFile("w+") as err_file:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out_file, stderr=err_file, env=env, text=True)
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG if timeout else 0)
            if pid:
                break
            if time.perf_counter() - start > (timeout or 0):
                process.kill()
                os.wait4(process.pid, 0)
                raise RuntimeError(f"{' '.join(command[:4])} still running after {timeout:.0f} s: stopped")
            time.sleep(0.5)
        seconds = time.perf_counter() - start
        LAST_CPU[0] = usage.ru_utime + usage.ru_stime
        process.returncode = os.waitstatus_to_exitcode(status)
        out_file.seek(0)
        err_file.seek(0)
        if process.returncode != 0:
            raise RuntimeError(f"{' '.join(command[:4])} failed: {err_file.read()[-3000:]}")
        return seconds, usage.ru_maxrss / 1024, out_file.read()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=None, help="folder for the models and inputs (kept)")
    parser.add_argument("--build-only", action="store_true", help="build the models and inputs, time nothing")
    parser.add_argument("--case", action="append", choices=sorted(TARGETS), help="only these cases (repeatable)")
    parser.add_argument(
        "--before",
        metavar="PYTHONPATH",
        help="also time nlpeval from this python/ folder (e.g. a worktree of an earlier commit), in the same run",
    )
    parser.add_argument("--segments", type=int, default=500, help="segments of the 1-system COMET case (500)")
    parser.add_argument("--nlpeval-first", action="store_true", help="time nlpeval before the reference in each case")
    parser.add_argument("--timeout", type=float, default=None, help="stop a process running longer (seconds)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="nlpeval-bench-neural-"))
    work.mkdir(parents=True, exist_ok=True)
    data = texts()
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
               NLPEVAL_PROGRESS="0", PYTHONPATH=str(ROOT / "python"))  # fmt: skip
    comet_python = str(VENVS / "comet" / "bin" / "python")
    bert_python = str(VENVS / "bertscore" / "bin" / "python")

    corpus = work / "corpus.txt"
    lines = []
    for path in [*sorted(data["ted"].glob("*.de")), data["ted"] / "source.en", *sorted(data["wmt"].glob("*.de"))]:
        lines += path.read_text(encoding="utf-8").split("\n")[:-1]
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    comet_model, roberta = work / "comet-xlmr-base", work / "roberta-base-random"
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if not (comet_model / "checkpoints" / "model.ckpt").is_file():
        (work / "build_comet.py").write_text(BUILD_COMET)
        subprocess.run([comet_python, str(work / "build_comet.py"), str(comet_model), str(corpus)], check=True, env=env)
    if not (roberta / "model.safetensors").is_file():
        (work / "build_roberta.py").write_text(BUILD_ROBERTA)
        subprocess.run([sys.executable, str(work / "build_roberta.py"), str(roberta), str(corpus)], check=True, env=env)
    (work / "ref_comet.py").write_text(REFERENCE_COMET)
    (work / "ref_bertscore.py").write_text(REFERENCE_BERTSCORE)

    inputs = work / "inputs"
    inputs.mkdir(exist_ok=True)
    ted = data["ted"]
    n1 = args.segments
    src500 = head(ted / "source.en", inputs / f"src{n1}.txt", n1)
    ref500 = head(ted / "reference.de", inputs / f"ref{n1}.txt", n1)
    sys500 = head(ted / "Facebook-AI.de", inputs / f"sys{n1}.txt", n1)
    src8 = head(ted / "source.en", inputs / "src8.txt", N_COMET_8)
    ref8 = head(ted / "reference.de", inputs / "ref8.txt", N_COMET_8)
    sys8 = [head(ted / f"{name}.de", inputs / f"{name}.8.txt", N_COMET_8) for name in COMET_SYSTEMS]
    wmt_systems = sorted(p for p in data["wmt"].glob("*.de") if p.name != "reference.de")[:16]
    ref16 = head(data["wmt"] / "reference.de", inputs / "ref16.txt", N_BERT_16)
    sys16 = [head(path, inputs / f"{path.stem}.16.txt", N_BERT_16) for path in wmt_systems]

    nlpeval = [sys.executable, "-m", "nlpeval", "score", "-f", "json"]
    ckpt = str(comet_model / "checkpoints" / "model.ckpt")
    comet_flags = ["-m", "comet", "--comet-model", str(comet_model), "--device", "cpu"]
    bert_flags = [
        "-m",
        "bertscore",
        "--bertscore-model",
        str(roberta),
        "--bertscore-num-layers",
        "10",
        "--device",
        "cpu",
    ]
    cases = [
        ("comet-1x500", f"COMET, 1 system x {n1} segments (MQM TED)", "unbabel-comet 2.2.7 API",
         [comet_python, str(work / "ref_comet.py"), ckpt, src500, ref500, sys500],
         [*nlpeval, *comet_flags, "--src", src500, "-r", ref500, sys500], "comet"),
        ("comet-8", f"COMET, 8 systems x {N_COMET_8} segments sharing sources and references (MQM TED)",
         "unbabel-comet 2.2.7 API", [comet_python, str(work / "ref_comet.py"), ckpt, src8, ref8, *sys8],
         [*nlpeval, *comet_flags, "--src", src8, "-r", ref8, *sys8], "comet"),
        ("bertscore-16", f"BERTScore, 16 systems x {N_BERT_16} segments, one reference set (WMT17)",
         "bert-score 0.3.13 BERTScorer", [bert_python, str(work / "ref_bertscore.py"), str(roberta), ref16, *sys16],
         [*nlpeval, *bert_flags, "-r", ref16, *sys16], "bertscore"),
    ]  # fmt: skip
    cases = cases[1:] + cases[:1]  # the multi-system cases first (the machine is shared: the quick ones first)
    if args.case:
        cases = [case for case in cases if case[0] in args.case]
    if args.build_only:
        print(f"built in {work}")
        return
    rows = []
    for key, title, reference, ref_command, our_command, metric in cases:
        load_before = os.getloadavg()[0]
        if args.nlpeval_first:
            our_seconds, our_rss, our_out = run_measured(our_command, env, args.timeout)
            our_cpu = LAST_CPU[0]
            print(f"| {title} | nlpeval | wall {our_seconds:.1f} s | CPU {our_cpu:.1f} s | peak {our_rss:,.0f} MiB |",
                  flush=True)  # fmt: skip
        ref_seconds, ref_rss, ref_out = run_measured(ref_command, env, args.timeout)
        ref_cpu = LAST_CPU[0]
        print(f"| {title} | {reference} | wall {ref_seconds:.1f} s | CPU {ref_cpu:.1f} s | peak {ref_rss:,.0f} MiB |",
              flush=True)  # fmt: skip
        if args.before:  # the earlier nlpeval, between the two sides
            seconds, rss, out = run_measured(our_command, {**env, "PYTHONPATH": args.before}, args.timeout)
            before = [s["scores"][metric]["score"] for s in json.loads(out)["systems"]]
            print(
                f"| {title} | nlpeval from {args.before} | wall {seconds:.1f} s | CPU {LAST_CPU[0]:.1f} s | "
                f"peak {rss:,.0f} MiB | {before} |",
                flush=True,
            )
        if not args.nlpeval_first:
            our_seconds, our_rss, our_out = run_measured(our_command, env, args.timeout)
            our_cpu = LAST_CPU[0]
        load_after = os.getloadavg()[0]
        ref_scores = json.loads(ref_out.strip().splitlines()[-1])
        ours = [s["scores"][metric]["score"] for s in json.loads(our_out)["systems"]]
        difference = max(abs(a - b) for a, b in zip(ref_scores, ours, strict=True))
        ratio = ref_seconds / our_seconds
        rows.append(
            f"| {title} | {reference} | {ref_seconds:.1f} | {our_seconds:.1f} | {ratio:.2f}x | >= {TARGETS[key]}x | "
            f"{'yes' if ratio >= TARGETS[key] else 'no'} | {ref_cpu:.1f} | {our_cpu:.1f} | {ref_cpu / our_cpu:.2f}x | "
            f"{ref_rss:,.0f} | {our_rss:,.0f} | {difference:.1e} | {load_before:.1f} -> {load_after:.1f} |"
        )
        print(rows[-1], flush=True)
    load = os.getloadavg()
    print(f"\nstarted {started}, finished {time.strftime('%H:%M UTC', time.gmtime())}, load average {load[0]:.1f}")
    print("| case | reference | reference s | nlpeval s | speed-up | target | met | reference CPU s | nlpeval CPU s | "
          "CPU speed-up | reference peak MiB | nlpeval peak MiB | max system-score difference | "
          "load average |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
