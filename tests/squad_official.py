"""The official SQuAD v1.1 and v2.0 evaluation logic, as test oracles.

The scripts (``evaluate-v1.1.py``, ``evaluate-v2.0.py`` from the SQuAD explorer site) are not on
any package registry: evaluate 0.4.6 fetches its ``squad``/``squad_v2`` metric scripts (which
embed them) from the Hugging Face Hub at load time, and no PyPI package we found ships them
(torchmetrics 1.9 ships a v1.1-style port, checked live in the tests). This module re-states
the scripts' documented behaviour function by function, in their own arithmetic and
iteration order, independently of nlpeval's code: v1.1's ``evaluate`` and v2.0's
``get_raw_scores``, ``apply_no_ans_threshold``, ``make_eval_dict`` and ``find_best_thresh``.
"""

from __future__ import annotations

import collections
import re
import string


def normalize_answer(s):
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


# ----- v1.1
def v1_f1_score(prediction, ground_truth):
    prediction_tokens = normalize_answer(prediction).split()
    ground_truth_tokens = normalize_answer(ground_truth).split()
    common = collections.Counter(prediction_tokens) & collections.Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


def v1_exact_match_score(prediction, ground_truth):
    return normalize_answer(prediction) == normalize_answer(ground_truth)


def v1_evaluate(dataset, predictions):
    f1 = exact_match = total = 0
    for article in dataset:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                total += 1
                if qa["id"] not in predictions:
                    continue
                ground_truths = [x["text"] for x in qa["answers"]]
                prediction = predictions[qa["id"]]
                exact_match += max(v1_exact_match_score(prediction, gt) for gt in ground_truths)
                f1 += max(v1_f1_score(prediction, gt) for gt in ground_truths)
    return {"exact_match": 100.0 * exact_match / total, "f1": 100.0 * f1 / total}


# ----- v2.0
def get_tokens(s):
    if not s:
        return []
    return normalize_answer(s).split()


def compute_exact(a_gold, a_pred):
    return int(normalize_answer(a_gold) == normalize_answer(a_pred))


def compute_f1(a_gold, a_pred):
    gold_toks = get_tokens(a_gold)
    pred_toks = get_tokens(a_pred)
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    num_same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return int(gold_toks == pred_toks)
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(pred_toks)
    recall = 1.0 * num_same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


def get_raw_scores(dataset, preds):
    exact_scores, f1_scores = {}, {}
    for article in dataset:
        for p in article["paragraphs"]:
            for qa in p["qas"]:
                qid = qa["id"]
                gold_answers = [a["text"] for a in qa["answers"] if normalize_answer(a["text"])]
                if not gold_answers:
                    gold_answers = [""]
                if qid not in preds:
                    continue
                a_pred = preds[qid]
                exact_scores[qid] = max(compute_exact(a, a_pred) for a in gold_answers)
                f1_scores[qid] = max(compute_f1(a, a_pred) for a in gold_answers)
    return exact_scores, f1_scores


def apply_no_ans_threshold(scores, na_probs, qid_to_has_ans, na_prob_thresh):
    new_scores = {}
    for qid, s in scores.items():
        pred_na = na_probs[qid] > na_prob_thresh
        new_scores[qid] = float(not qid_to_has_ans[qid]) if pred_na else s
    return new_scores


def make_eval_dict(exact_scores, f1_scores, qid_list=None):
    if not qid_list:
        total = len(exact_scores)
        return collections.OrderedDict(
            [
                ("exact", 100.0 * sum(exact_scores.values()) / total),
                ("f1", 100.0 * sum(f1_scores.values()) / total),
                ("total", total),
            ]
        )
    total = len(qid_list)
    return collections.OrderedDict(
        [
            ("exact", 100.0 * sum(exact_scores[k] for k in qid_list) / total),
            ("f1", 100.0 * sum(f1_scores[k] for k in qid_list) / total),
            ("total", total),
        ]
    )


def find_best_thresh(preds, scores, na_probs, qid_to_has_ans):
    num_no_ans = sum(1 for k in qid_to_has_ans if not qid_to_has_ans[k])
    cur_score = num_no_ans
    best_score = cur_score
    best_thresh = 0.0
    qid_list = sorted(na_probs, key=lambda k: na_probs[k])
    for qid in qid_list:
        if qid not in scores:
            continue
        if qid_to_has_ans[qid]:
            diff = scores[qid]
        elif preds[qid]:
            diff = -1
        else:
            diff = 0
        cur_score += diff
        if cur_score > best_score:
            best_score = cur_score
            best_thresh = na_probs[qid]
    return 100.0 * best_score / len(scores), best_thresh


def v2_evaluate(dataset, preds, na_probs=None, na_prob_thresh=1.0):
    """The v2.0 script's main: ``na_probs`` None is running it without ``--na-prob-file``."""
    with_probs = na_probs is not None
    if na_probs is None:
        na_probs = {k: 0.0 for k in preds}
    qid_to_has_ans = {qa["id"]: bool(qa["answers"]) for a in dataset for p in a["paragraphs"] for qa in p["qas"]}
    has_ans_qids = [k for k, v in qid_to_has_ans.items() if v]
    no_ans_qids = [k for k, v in qid_to_has_ans.items() if not v]
    exact_raw, f1_raw = get_raw_scores(dataset, preds)
    exact_thresh = apply_no_ans_threshold(exact_raw, na_probs, qid_to_has_ans, na_prob_thresh)
    f1_thresh = apply_no_ans_threshold(f1_raw, na_probs, qid_to_has_ans, na_prob_thresh)
    out_eval = make_eval_dict(exact_thresh, f1_thresh)
    if has_ans_qids:
        for k, v in make_eval_dict(exact_thresh, f1_thresh, qid_list=has_ans_qids).items():
            out_eval[f"HasAns_{k}"] = v
    if no_ans_qids:
        for k, v in make_eval_dict(exact_thresh, f1_thresh, qid_list=no_ans_qids).items():
            out_eval[f"NoAns_{k}"] = v
    if with_probs:
        best_exact, exact_t = find_best_thresh(preds, exact_raw, na_probs, qid_to_has_ans)
        best_f1, f1_t = find_best_thresh(preds, f1_raw, na_probs, qid_to_has_ans)
        out_eval.update(best_exact=best_exact, best_exact_thresh=exact_t, best_f1=best_f1, best_f1_thresh=f1_t)
    return dict(out_eval)


def as_dataset(ids, answers):
    """SQuAD JSON's nesting: one article, one paragraph holding every question."""
    return [
        {
            "paragraphs": [
                {"qas": [{"id": q, "answers": [{"text": t} for t in a]} for q, a in zip(ids, answers, strict=False)]}
            ]
        }
    ]
