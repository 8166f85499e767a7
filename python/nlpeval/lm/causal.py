"""Perplexity of texts under a local Hugging Face causal language model (optional extra ``lm``).

Texts longer than the model's context are scored with the sliding window of
the transformers perplexity guide: windows of ``max_length`` tokens start every
``stride`` tokens, and each window scores only the tokens the previous windows
did not, so every token after the first is scored exactly once, with up to
``max_length - stride`` tokens of extra context. The per-token log-probabilities
then go through :func:`nlpeval.perplexity` (corpus, mean and per-text values).
Tokens are counted exactly (the guide's own loop weights every window's mean
loss by its target count minus one, which is right only for the first window;
the difference is one token per later window).

Nothing is downloaded: ``model`` is a local directory (or an already loaded
model with its tokenizer).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.progress import progress_bar
from nlpeval.core.signature import Signature
from nlpeval.lm.logprobs import Perplexity

if TYPE_CHECKING:
    from nlpeval.core.score import Score


def _require_lm() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError:
        raise ImportError("perplexity from a model needs torch and transformers: pip install 'nlpeval[lm]'") from None
    return torch, transformers


def load_causal_lm(path: str | os.PathLike[str], *, device: str | None = None) -> tuple[Any, Any]:
    """Load a causal LM and its tokenizer from a local directory (never from the network).

    Raises
    ------
    FileNotFoundError
        ``path`` is not a directory (a hub name is not accepted: nlpeval never downloads).
    """
    _, transformers = _require_lm()
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"{path}: not a local model directory (nlpeval never downloads models)")
    tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = transformers.AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
    if device is not None:
        model = model.to(device)
    model.eval()
    return model, tokenizer


def _context_length(model: Any) -> int:
    config = model.config
    for name in ("max_position_embeddings", "n_positions", "n_ctx", "seq_length"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            return value
    raise ValueError("cannot tell the model's context length; pass max_length=")


def _encode(texts: Sequence[Any], tokenizer: Any, add_special_tokens: bool) -> list[list[int]]:
    if isinstance(texts, (str, bytes)):
        raise InputError("got one str; expected a list of texts", side="texts")
    out = []
    for index, text in enumerate(texts):
        if isinstance(text, str):
            if tokenizer is None:
                raise ValueError("texts are str: pass the tokenizer (or a model directory)")
            out.append(list(tokenizer(text, add_special_tokens=add_special_tokens)["input_ids"]))
        elif isinstance(text, (Sequence, np.ndarray)) or hasattr(text, "tolist"):
            ids = text.tolist() if hasattr(text, "tolist") else list(text)
            if not all(isinstance(i, (int, np.integer)) for i in ids):
                raise InputError("is neither a str nor a sequence of token ids", segment=index, side="texts")
            out.append([int(i) for i in ids])
        else:
            raise InputError(f"is {type(text).__name__}; expected a str or token ids", segment=index, side="texts")
    return out


def _windows(length: int, max_length: int, stride: int) -> list[tuple[int, int, int]]:
    """(begin, end, first scored position within the window) for one sequence, as the guide's loop."""
    windows = []
    prev_end = 0
    for begin in range(0, length, stride):
        end = min(begin + max_length, length)
        target = end - prev_end
        windows.append((begin, end, max(1, (end - begin) - target)))
        prev_end = end
        if end == length:
            break
    return windows


def token_logprobs(
    model: Any,
    texts: Sequence[Any],
    *,
    tokenizer: Any = None,
    batch_size: int = 8,
    device: str | None = None,
    max_length: int | None = None,
    stride: int | None = None,
    add_special_tokens: bool = True,
) -> list[np.ndarray]:
    """Natural-log probability of every token after the first, per text, under a causal LM.

    Parameters
    ----------
    model : path or transformers model
        A local model directory, or a loaded ``AutoModelForCausalLM``.
    texts : sequence of str, or of token-id sequences
        The texts (tokenised with ``tokenizer``) or their token ids.
    tokenizer : transformers tokenizer, optional
        Needed for str texts when ``model`` is a loaded model.
    batch_size : int
        Windows per forward pass.
    device : str, optional
        ``"cpu"``, ``"cuda"``…; default: where the model is.
    max_length : int, optional
        Window length (default: the model's context length).
    stride : int, optional
        Tokens between window starts (default ``max_length // 2``); at most ``max_length``.
    add_special_tokens : bool
        Let the tokenizer add its special tokens (e.g. BOS).

    Returns
    -------
    list of numpy.ndarray
        One float64 array of length ``n_tokens - 1`` per text.
    """
    return _score_tokens(
        model,
        texts,
        tokenizer=tokenizer,
        batch_size=batch_size,
        device=device,
        max_length=max_length,
        stride=stride,
        add_special_tokens=add_special_tokens,
    )[0]


def _score_tokens(
    model: Any,
    texts: Sequence[Any],
    *,
    tokenizer: Any = None,
    batch_size: int = 8,
    device: str | None = None,
    max_length: int | None = None,
    stride: int | None = None,
    add_special_tokens: bool = True,
) -> tuple[list[np.ndarray], int, int]:
    torch, _ = _require_lm()
    if isinstance(model, (str, os.PathLike)):
        model, loaded_tokenizer = load_causal_lm(model, device=device)
        tokenizer = tokenizer or loaded_tokenizer
    elif device is not None:
        model = model.to(device)
    model.eval()
    window = max_length or _context_length(model)
    step = stride or max(1, window // 2)
    if batch_size < 1 or window < 2 or not 1 <= step <= window:
        raise ValueError(
            f"need batch_size >= 1, max_length >= 2 and 1 <= stride <= max_length; got {batch_size}, {window}, {step}"
        )
    sequences = _encode(texts, tokenizer, add_special_tokens)
    jobs = [(i, b, e, first) for i, seq in enumerate(sequences) for b, e, first in _windows(len(seq), window, step)]
    pieces: list[list[tuple[int, np.ndarray]]] = [[] for _ in sequences]
    pad = 0
    if tokenizer is not None:
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else (tokenizer.eos_token_id or 0)
    model_device = next(model.parameters()).device
    order = sorted(range(len(jobs)), key=lambda j: jobs[j][2] - jobs[j][1], reverse=True)
    with torch.inference_mode(), progress_bar(len(jobs), desc="perplexity", unit=" windows") as bar:
        for start in range(0, len(order), batch_size):
            batch = [jobs[j] for j in order[start : start + batch_size]]
            width = max(e - b for _, b, e, _ in batch)
            ids = torch.full((len(batch), width), pad, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            for row, (i, b, e, _) in enumerate(batch):
                ids[row, : e - b] = torch.tensor(sequences[i][b:e], dtype=torch.long)
                mask[row, : e - b] = 1
            logits = model(input_ids=ids.to(model_device), attention_mask=mask.to(model_device)).logits[:, :-1]
            if logits.dtype != torch.float64:
                logits = logits.float()  # half-precision logits lose too much in the normaliser
            targets = ids[:, 1:].to(model_device).unsqueeze(-1)
            # log p(token) = logit(token) - logsumexp(logits): no vocabulary-sized log-softmax copy
            picked = (logits.gather(-1, targets).squeeze(-1) - torch.logsumexp(logits, dim=-1)).double().cpu().numpy()
            for row, (i, b, e, first) in enumerate(batch):
                pieces[i].append((b, picked[row, first - 1 : e - b - 1]))
            bar.update(len(batch))
    logprobs = [
        np.concatenate([p for _, p in sorted(parts, key=lambda x: x[0])]) if parts else np.empty(0) for parts in pieces
    ]
    return logprobs, window, step


def model_perplexity(
    model: Any,
    texts: Sequence[Any],
    *,
    tokenizer: Any = None,
    batch_size: int = 8,
    device: str | None = None,
    max_length: int | None = None,
    stride: int | None = None,
    add_special_tokens: bool = True,
    segments: bool = False,
) -> Score:
    """Perplexity of ``texts`` under a local causal LM (see :func:`token_logprobs` for the options).

    Returns the :func:`nlpeval.perplexity` :class:`~nlpeval.Score` of the
    per-token log-probabilities (corpus perplexity, ``mean_perplexity``, and per
    text with ``segments=True``); the signature records the window and stride.
    A text with fewer than two tokens has nothing to score and is an error.
    """
    if isinstance(model, (str, os.PathLike)):
        name = os.path.basename(os.path.normpath(os.fspath(model)))
    else:
        name = os.path.basename(
            str(getattr(getattr(model, "config", None), "_name_or_path", "") or type(model).__name__)
        )
    logprobs, window, step = _score_tokens(
        model,
        texts,
        tokenizer=tokenizer,
        batch_size=batch_size,
        device=device,
        max_length=max_length,
        stride=stride,
        add_special_tokens=add_special_tokens,
    )
    score = Perplexity()(logprobs, segments=segments)
    signature = Signature.build(metric="perplexity", base="e", model=name or None, ctx=window, stride=step)
    return replace(score, signature=str(signature))
