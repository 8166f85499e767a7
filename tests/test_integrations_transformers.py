"""nlpeval.integrations.transformers: compute_metrics for a tiny Seq2SeqTrainer and a tiny classification Trainer.

The models and the tokenizer are built here with random weights (nothing is downloaded), trained for a step and
evaluated; the Trainer's reported metrics must equal nlpeval, sacreBLEU and scikit-learn on what the model predicted.
"""

from __future__ import annotations

import accelerate  # noqa: F401 - the test needs it installed
import numpy as np
import pytest
import sacrebleu
import torch
import transformers
from sklearn import metrics as sklearn_metrics

import nlpeval
from nlpeval.integrations.transformers import classification_compute_metrics, seq2seq_compute_metrics

WORDS = ["the", "a", "cat", "dog", "sat", "on", "mat", "ran", "red", "big", "house", "tree"]
TOL = 1e-9  # on sacreBLEU's 0-100 scale


@pytest.fixture(scope="module")
def tokenizer():
    """A word-level tokenizer built locally; [PAD]=0, [BOS]=1, [EOS]=2, [UNK]=3; EOS appended to every text."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    vocab = {"[PAD]": 0, "[BOS]": 1, "[EOS]": 2, "[UNK]": 3, **{w: i + 4 for i, w in enumerate(WORDS)}}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    core.post_processor = processors.TemplateProcessing(single="$A [EOS]", special_tokens=[("[EOS]", 2)])
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=core, unk_token="[UNK]", pad_token="[PAD]", bos_token="[BOS]", eos_token="[EOS]"
    )


def _texts(seed: int, n: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, int(rng.integers(2, 8)))) for _ in range(n)]


def _args(cls, tmp_path, **extra):
    return cls(
        output_dir=str(tmp_path),
        per_device_train_batch_size=4,
        per_device_eval_batch_size=3,
        max_steps=2,
        learning_rate=1e-3,
        use_cpu=True,
        report_to="none",
        save_strategy="no",
        logging_strategy="no",
        disable_tqdm=True,
        seed=0,
        **extra,
    )


def test_decode_replaces_ignore_index_and_drops_special_tokens(tokenizer):
    from nlpeval.integrations.transformers import decode

    ids = np.array([[4, 6, 2, -100, -100], [5, 0, 0, 0, 2], [-100, -100, -100, -100, -100]])
    assert decode(tokenizer, ids) == ["the cat", "a", ""]


def test_seq2seq_trainer_metrics_equal_nlpeval_and_sacrebleu(tokenizer, tmp_path):
    torch.manual_seed(0)
    config = transformers.BartConfig(
        vocab_size=len(tokenizer),
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        max_position_embeddings=32,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        decoder_start_token_id=2,
        forced_eos_token_id=2,
    )
    model = transformers.BartForConditionalGeneration(config)
    sources, targets = _texts(1, 11), _texts(2, 11)
    data = [
        {"input_ids": tokenizer(s)["input_ids"], "labels": tokenizer(t)["input_ids"]}
        for s, t in zip(sources, targets, strict=True)
    ]
    model.generation_config.num_beams = 1
    model.generation_config.min_new_tokens = 3  # a random model must still say something
    model.generation_config.suppress_tokens = [0, 1, 3]
    trainer = transformers.Seq2SeqTrainer(
        model=model,
        args=_args(
            transformers.Seq2SeqTrainingArguments, tmp_path, predict_with_generate=True, generation_max_length=12
        ),
        train_dataset=data,
        eval_dataset=data,
        data_collator=transformers.DataCollatorForSeq2Seq(tokenizer, model=model),
        compute_metrics=seq2seq_compute_metrics(tokenizer, ["bleu", "chrf", "ter"]),
    )
    trainer.train()
    reported = trainer.evaluate()
    output = trainer.predict(data)
    assert (output.label_ids == -100).any()  # the collator's label padding reached compute_metrics
    pad = tokenizer.pad_token_id
    hyps = [
        t.strip() for t in tokenizer.batch_decode(np.where(output.predictions == -100, pad, output.predictions), True)
    ]
    refs = [t.strip() for t in tokenizer.batch_decode(np.where(output.label_ids == -100, pad, output.label_ids), True)]
    assert refs == targets
    assert 0 < reported["eval_bleu"] < 1 and 0 < reported["eval_chrf"] < 1  # not a trivial 0 or 100
    assert reported["eval_bleu"] == nlpeval.bleu(hyps, [[r] for r in refs]).score
    assert reported["eval_chrf"] == nlpeval.chrf(hyps, [[r] for r in refs]).score
    assert reported["eval_ter"] == nlpeval.ter(hyps, [[r] for r in refs]).score
    assert reported["eval_bleu"] * 100 == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score, abs=TOL)
    assert reported["eval_chrf"] * 100 == pytest.approx(sacrebleu.corpus_chrf(hyps, [refs]).score, abs=TOL)
    assert reported["eval_ter"] * 100 == pytest.approx(sacrebleu.corpus_ter(hyps, [refs]).score, abs=TOL)


def test_classification_trainer_metrics_equal_sklearn(tokenizer, tmp_path):
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
        num_labels=3,
        pad_token_id=0,
    )
    model = transformers.BertForSequenceClassification(config)
    texts = _texts(3, 13)
    labels = [int(x) for x in np.random.default_rng(4).integers(0, 3, len(texts))]
    data = [{**tokenizer(t), "labels": y} for t, y in zip(texts, labels, strict=True)]
    names = ["accuracy", "balanced_accuracy", "precision", "recall", "f1", "matthews", "kappa"]
    trainer = transformers.Trainer(
        model=model,
        args=_args(transformers.TrainingArguments, tmp_path),
        train_dataset=data,
        eval_dataset=data,
        data_collator=transformers.DataCollatorWithPadding(tokenizer),
        compute_metrics=classification_compute_metrics(names, average="macro"),
    )
    trainer.train()
    reported = trainer.evaluate()
    predicted = trainer.predict(data).predictions.argmax(axis=-1)
    every = {"labels": [0, 1, 2], "average": "macro", "zero_division": 0.0}
    expected = {
        "accuracy": sklearn_metrics.accuracy_score(labels, predicted),
        "balanced_accuracy": sklearn_metrics.balanced_accuracy_score(labels, predicted),
        "precision": sklearn_metrics.precision_score(labels, predicted, **every),
        "recall": sklearn_metrics.recall_score(labels, predicted, **every),
        "f1": sklearn_metrics.f1_score(labels, predicted, **every),
        "matthews": sklearn_metrics.matthews_corrcoef(labels, predicted),
        "kappa": sklearn_metrics.cohen_kappa_score(labels, predicted),
    }
    for name, value in expected.items():
        assert reported[f"eval_{name}"] == pytest.approx(value, abs=1e-15), name


def test_unknown_metric_names_are_refused(tokenizer):
    with pytest.raises(ValueError, match="unknown classification metric"):
        classification_compute_metrics(["acc"])
    with pytest.raises(ValueError, match="unknown metric 'blue'"):
        seq2seq_compute_metrics(tokenizer, "blue")
