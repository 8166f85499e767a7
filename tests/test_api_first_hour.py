"""What a new user tries first: empty corpora, 1-D probability vectors, the README's Dask snippet pasted."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sacrebleu
import scipy.stats

import nlpeval

ROOT = Path(__file__).resolve().parents[1]

EMPTY_CALLS = {
    "bleu": lambda: nlpeval.bleu([], []),
    "bleu-nltk": lambda: nlpeval.bleu([], [], flavor="nltk"),
    "bleu-hf": lambda: nlpeval.bleu([], [], flavor="hf"),
    "bleu-token-ids": lambda: nlpeval.bleu(np.zeros((0, 3), dtype=np.int64), np.zeros((0, 3), dtype=np.int64)),
    "chrf": lambda: nlpeval.chrf([], []),
    "chrf++": lambda: nlpeval.chrf([], [], word_order=2),
    "ter": lambda: nlpeval.ter([], []),
    "wer": lambda: nlpeval.wer([], []),
    "cer": lambda: nlpeval.cer([], []),
    "mer": lambda: nlpeval.mer([], []),
    "wil": lambda: nlpeval.wil([], []),
    "wip": lambda: nlpeval.wip([], []),
    "rouge": lambda: nlpeval.rouge([], []),
    "rouge-score": lambda: nlpeval.rouge([], [], flavor="rouge-score"),
    "rouge155": lambda: nlpeval.rouge([], [], flavor="rouge155", types=["rouge1"]),
    "meteor": lambda: nlpeval.meteor([], [], modules=("exact",)),
    "meteor-nltk": lambda: nlpeval.meteor([], [], flavor="nltk"),
    "perplexity": lambda: nlpeval.perplexity([]),
    "metric-call": lambda: nlpeval.BLEU()([], []),
    "accumulator": lambda: nlpeval.CHRF().accumulator().update([], []).compute(),
}


@pytest.mark.parametrize("name", sorted(EMPTY_CALLS))
def test_every_corpus_metric_refuses_an_empty_corpus(name: str) -> None:
    with pytest.raises(nlpeval.InputError, match="no segments: an empty corpus has no score"):
        EMPTY_CALLS[name]()


def test_the_cli_refuses_an_empty_corpus_too(tmp_path: Path) -> None:
    # the API's refusal is the CLI's: one line, exit 2 (sacreBLEU's API fails with an IndexError)
    with pytest.raises(IndexError):
        sacrebleu.corpus_bleu([], [[]])
    (tmp_path / "ref").write_text("")
    (tmp_path / "sys").write_text("")
    run = subprocess.run(
        [sys.executable, "-m", "nlpeval", "score", "-r", "ref", "sys"], cwd=tmp_path, capture_output=True, text=True
    )
    assert run.returncode == 2 and "empty" in run.stderr and len(run.stderr.strip().splitlines()) == 1


def test_one_segment_still_scores() -> None:
    assert nlpeval.bleu(["a b c d"], ["a b c d"]).score == pytest.approx(1.0)
    assert nlpeval.BLEU().accumulator().update([], []).update(["a"], ["a"]).compute().components["hyp_len"] == 1


def test_kl_divergence_of_two_probability_vectors_is_scipy_entropy() -> None:
    rng = np.random.default_rng(7)
    assert nlpeval.kl_divergence([0.5, 0.5], [0.9, 0.1]) == pytest.approx(
        scipy.stats.entropy([0.5, 0.5], [0.9, 0.1]), abs=1e-12
    )
    for k in (2, 3, 7, 50):
        p, q = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
        for base in (2.0, np.e, 10.0):
            want = scipy.stats.entropy(p, q, base=base)
            assert nlpeval.kl_divergence(p, q, base=base) == pytest.approx(want, abs=1e-12)
            assert nlpeval.kl_divergence(p.tolist(), q.tolist(), base=base) == pytest.approx(want, abs=1e-12)
    # a zero where p is positive: infinite, as scipy
    assert np.isinf(nlpeval.kl_divergence([0.5, 0.5], [1.0, 0.0])) and np.isinf(
        scipy.stats.entropy([0.5, 0.5], [1.0, 0.0])
    )


def test_labels_with_positive_class_probabilities_keep_their_meaning() -> None:
    # 1-D integer labels with 1-D P(positive): the log-loss, as before (not a pair of distributions)
    from sklearn.metrics import log_loss

    y, q = [0, 1, 1], [0.2, 0.7, 0.9]
    assert nlpeval.kl_divergence(y, q) == pytest.approx(log_loss(y, q), abs=1e-12)
    yf = [0.0, 1.0, 1.0]  # float labels that do not sum to 1 stay labels
    assert nlpeval.kl_divergence(yf, q) == pytest.approx(log_loss(yf, q), abs=1e-12)


def _readme_dask_snippet() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    found = [b for b in blocks if "LocalCluster" in b and "nlpeval.dask" in b]
    assert len(found) == 1, "the README has one Dask snippet"
    return found[0]


def test_readme_dask_snippet_runs_when_pasted_into_a_script(tmp_path: Path) -> None:
    code = _readme_dask_snippet()
    assert 'if __name__ == "__main__":' in code
    # the snippet as pasted, on a small machine: one worker, fewer resamples
    code = code.replace("n_workers=4", "n_workers=1").replace("n_resamples=1000", "n_resamples=50")
    (tmp_path / "score.py").write_text(code)
    hyps = ["the cat sat on the mat", "a dog barked loudly", "it rains today", "we went home"]
    refs = ["the cat sat on a mat", "the dog barked", "it is raining today", "we walked home"]
    (tmp_path / "eval").mkdir()
    (tmp_path / "pairs").mkdir()
    table = pa.table({"hyp": hyps, "ref": refs, "lang": ["en", "en", "de", "de"], "seg_id": [0, 1, 2, 3]})
    pq.write_table(table, tmp_path / "eval" / "part-0.parquet")
    pairs = pa.table({"sys_a": hyps, "sys_b": refs[:2] + hyps[2:], "ref": refs, "seg_id": [0, 1, 2, 3]})
    pq.write_table(pairs, tmp_path / "pairs" / "part-0.parquet")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(Path(nlpeval.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")])
        ),
    }
    run = subprocess.run(
        [sys.executable, "score.py"], cwd=tmp_path, capture_output=True, text=True, timeout=240, env=env
    )
    assert run.returncode == 0, run.stderr[-2000:]
    want = nlpeval.bleu(hyps, refs).score
    assert f"{want:.4f}" in run.stdout
