"""Chunk extraction and per-sentence, per-type counts of span F1 (native, or vectorised NumPy).

All sentences of both sides are laid out once, one array for the whole corpus: position 0 is the
state before the first token, then each sentence's labels followed by one ``O`` (conlleval.pl's
sentence break; seqeval's joining ``O`` and strict mode's outside token). Every chunk rule of
:mod:`nlpeval.metrics.span_f1.rules` is then one table look-up over all positions, and each chunk is
counted in the sentence where it starts. With the compiled core, one native pass over both sides
(``src/spans/``) gives the same counts from the same tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from typing import Any

import numpy as np

from nlpeval import _native
from nlpeval.core.errors import InputError
from nlpeval.metrics.span_f1 import rules


@dataclass(frozen=True)
class Layout:
    """Both sides' labels as codes into one vocabulary, with sentence breaks."""

    vocabulary: list[Any]  # labels by code; code 1 is START, the state before the first sentence
    hypothesis: np.ndarray  # layout codes
    reference: np.ndarray
    starts: np.ndarray  # layout position of each sentence's first token (or of its break when empty)
    lengths: np.ndarray  # tokens per sentence

    def sentence_of(self, positions: np.ndarray) -> np.ndarray:
        """The sentence of layout positions (a sentence's break is its own; position 0 is sentence 0's)."""
        table = self.__dict__.get("_sentence")
        if table is None:
            table = np.zeros(self.hypothesis.size, dtype=np.int32)
            table[1:] = np.repeat(np.arange(self.lengths.size, dtype=np.int32), self.lengths + 1)
            object.__setattr__(self, "_sentence", table)
        return table[positions]

    def token_mask(self) -> np.ndarray:
        """True at the positions of tokens (not breaks nor the start state)."""
        mask = np.ones(self.hypothesis.size, dtype=bool)
        mask[0] = False
        mask[self.starts + self.lengths] = False
        return mask


#: Stands for the state before the first sentence in the layout (never a user's label).
START: Any = object()
_BREAK = ("O",)


def _sentence(item: Any, side: str, index: int, lines: bool) -> Sequence[Any]:
    if isinstance(item, str):
        return item.split()
    if lines and side == "references" and isinstance(item, (list, tuple)):
        if len(item) != 1:
            raise InputError(
                f"span F1 takes one reference per sentence; got {len(item)}", segment=index, side="references"
            )
        return _sentence(item[0], side, index, lines)
    if isinstance(item, (list, tuple)):
        return item
    if hasattr(item, "tolist") and getattr(item, "ndim", None) == 1:
        return list(item.tolist())
    raise InputError(f"is {type(item).__name__}, expected a sequence of labels", segment=index, side=side)


def _sentences(values: Any, side: str, lines: bool) -> list[Sequence[Any]]:
    if isinstance(values, str) or not hasattr(values, "__iter__"):
        raise InputError(f"expected a sequence of label sequences, got {type(values).__name__}", side=side)
    items = values if isinstance(values, list) else list(values)
    if not lines and set(map(type, items)) <= {list, tuple}:
        return items
    return [_sentence(item, side, index, lines) for index, item in enumerate(items)]


def _bad_label(sentences: list[Sequence[Any]], side: str, bad: set[Any]) -> InputError:
    for index, sentence in enumerate(sentences):
        for position, label in enumerate(sentence):
            if label in bad:
                what = "an empty label" if label == "" else f"{type(label).__name__} {label!r}"
                return InputError(f"label {position} is {what}, expected a non-empty str", segment=index, side=side)
    return InputError("a label is not a non-empty str", side=side)  # pragma: no cover - found above


class _Index(dict[Any, int]):
    """Label -> code, a new code for each new label (one C-level look-up per token)."""

    def __missing__(self, label: Any) -> int:
        code = self[label] = len(self)
        return code


def layout(hypotheses: Any, references: Any, *, lines: bool = False) -> Layout:
    """Validate both sides (same number of sentences and labels per sentence) and lay them out."""
    fast = None
    if not lines and _native.span_label_codes is not None and type(hypotheses) is list and type(references) is list:
        fast = _native.span_label_codes(hypotheses, references)  # lists/tuples of str: coded natively
    if fast is not None:
        hyp_codes, ref_codes, labels, hyp_lengths, lengths = fast
        hyps, refs = hypotheses, references
    else:
        hyps = _sentences(hypotheses, "hypotheses", lines)
        refs = _sentences(references, "references", lines)
    if len(hyps) != len(refs):
        raise InputError(f"{len(hyps)} hypothesis sentences but {len(refs)} reference sentences")
    n = len(hyps)
    if fast is None:
        hyp_lengths = np.fromiter(map(len, hyps), dtype=np.int64, count=n)
        lengths = np.fromiter(map(len, refs), dtype=np.int64, count=n)
    if not np.array_equal(hyp_lengths, lengths):
        i = int(np.flatnonzero(hyp_lengths != lengths)[0])
        raise InputError(
            f"{hyp_lengths[i]} predicted labels but {lengths[i]} reference labels", segment=i, side="hypotheses"
        )
    if fast is not None:  # the same codes as _codes: O 0, START 1, then labels in order of first sight
        index: dict[Any, int] = dict.fromkeys(["O", START, *labels], 0)
        codes = [hyp_codes, ref_codes]
    else:
        index, codes = _codes(hyps, refs, 1 + int(lengths.sum()) + n)
    bad = {label for label in index if label is not START and (type(label) is not str or not label)}
    if bad:
        for side, sentences in (("references", refs), ("hypotheses", hyps)):
            if any(label in bad for sentence in sentences for label in sentence):
                raise _bad_label(sentences, side, bad)
    starts = np.empty(n, dtype=np.int64)
    if n:
        starts[0] = 1
        np.cumsum(lengths[:-1] + 1, out=starts[1:])
        starts[1:] += 1
    return Layout(list(index), codes[0], codes[1], starts, lengths)


def _codes(hyps: list[Sequence[Any]], refs: list[Sequence[Any]], size: int) -> tuple[dict[Any, int], list[np.ndarray]]:
    """Label -> code (``O`` 0, START 1, then new labels in order of first sight) and both sides' layout codes."""
    index = _Index({"O": 0, START: 1})
    codes = []
    for side, sentences in (("hypotheses", hyps), ("references", refs)):
        labels = chain((START,), chain.from_iterable(chain.from_iterable(zip(sentences, repeat(_BREAK)))))
        try:
            codes.append(np.fromiter(map(index.__getitem__, labels), np.int32, count=size))
        except TypeError:
            unhashable = {id(label) for sentence in sentences for label in sentence if not isinstance(label, str)}
            raise _bad_label_by_id(sentences, side, unhashable) from None
    return index, codes


def _bad_label_by_id(sentences: list[Sequence[Any]], side: str, ids: set[int]) -> InputError:
    for index, sentence in enumerate(sentences):
        for position, label in enumerate(sentence):
            if id(label) in ids:
                return InputError(
                    f"label {position} is {type(label).__name__}, expected a non-empty str", segment=index, side=side
                )
    return InputError("a label is not a non-empty str", side=side)  # pragma: no cover


@dataclass(frozen=True)
class Counts:
    """Per-sentence counts: tokens, correct tokens, and per type true positives, predicted, true."""

    types: list[str]
    tokens: np.ndarray
    correct_tokens: np.ndarray
    tp: np.ndarray  # (n_sentences, n_types)
    pred: np.ndarray
    true: np.ndarray


def _parse(vocabulary: list[str], mode: str, suffix: bool) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Prefix code and type of each vocabulary entry (START: the state before the corpus), and each
    label's canonical id for conlleval's token accuracy."""
    labels = [label for label in vocabulary if label is not START]
    if mode == "conlleval":
        parsed = [rules.conlleval_label(label) for label in labels]
        start = ("O", "")
    elif mode == "lenient":
        parsed = [rules.lenient_label(label, suffix) for label in labels]
        start = ("O", "")  # seqeval's get_entities starts from type '', which no label has
    else:
        parsed = [rules.strict_label(label, suffix) for label in labels]
        start = ("O", "_")  # strict mode's outside token
    parsed.insert(vocabulary.index(START), start)
    prefixes = np.array([rules.prefix_code(prefix) for prefix, _ in parsed], dtype=np.int32)
    canonical: dict[tuple[str, str], int] = {}
    canon = np.array([canonical.setdefault(pair, len(canonical)) for pair in parsed], dtype=np.int32)
    return prefixes, [kind for _, kind in parsed], canon


def check_scheme(data: Layout, scheme: str, suffix: bool) -> None:
    """seqeval's strict mode refuses a label whose prefix the scheme does not allow: so does nlpeval."""
    allowed = rules.allowed_prefixes(scheme)
    codes = [
        code
        for code, label in enumerate(data.vocabulary)
        if label is not START and rules.strict_label(label, suffix)[0] not in allowed
    ]
    if not codes:
        return
    for side, array in (("references", data.reference), ("hypotheses", data.hypothesis)):
        hits = np.flatnonzero(np.isin(array, codes))
        if hits.size:
            position = int(hits[0])
            label = data.vocabulary[int(array[position])]
            raise InputError(
                f"label {label!r} has no prefix of the {scheme} scheme ({', '.join(allowed)})",
                segment=int(data.sentence_of(hits[:1])[0]),
                side=side,
            )


def reference_prefixes(data: Layout, suffix: bool) -> set[str]:
    """The strict-mode prefixes of the reference labels (for scheme detection)."""
    used = np.unique(data.reference[data.token_mask()])
    return {rules.strict_label(data.vocabulary[int(code)], suffix)[0] for code in used}


def count(data: Layout, mode: str, scheme: str | None = None, suffix: bool = False) -> Counts:
    """Per-sentence, per-type counts of one mode (``scheme`` for ``strict``)."""
    prefixes, kinds, canon = _parse(data.vocabulary, mode, suffix)
    type_index: dict[str, int] = {}
    type_of = np.array([type_index.setdefault(kind, len(type_index)) for kind in kinds], dtype=np.int32)
    tables = rules.chunk_tables(mode, scheme)
    combined = np.zeros(rules.N_PREFIXES * rules.N_PREFIXES * 2, dtype=np.uint8)
    for bit, name in enumerate(("start", "end", "inside")):
        if name in tables:
            combined |= tables[name].astype(np.uint8).ravel() << bit
    if _native.span_chunk_counts is not None:
        return _count_native(data, mode, prefixes, type_index, type_of, canon, combined)
    v = len(data.vocabulary)
    small = v * v <= 1 << 22  # rules per (label, label) pair: one look-up per position
    if small:
        same = type_of[:, None] == type_of[None, :]
        by_pair = combined[(prefixes[:, None] * rules.N_PREFIXES + prefixes[None, :]) * 2 + same].ravel()
    sides = []
    for codes in (data.hypothesis, data.reference):
        flags = np.zeros(codes.size, dtype=np.uint8)
        if codes.size > 1:
            if small:
                key = codes[:-1] * v
                key += codes[1:]
                flags[1:] = by_pair[key]
            else:
                p, t = prefixes[codes], type_of[codes]
                key = (p[:-1] * rules.N_PREFIXES + p[1:]) * 2
                key += t[:-1] == t[1:]
                flags[1:] = combined[key]
        sides.append((codes, flags))
    n = len(data.lengths)
    if mode == "conlleval":
        same_type = type_of[data.hypothesis] == type_of[data.reference]
        events = _conlleval(sides, same_type, type_of)
    elif mode == "lenient":
        events = _lenient(sides, type_of)
    else:
        events = _strict(sides, type_of)
    names = list(type_index)
    present = np.zeros(len(names), dtype=bool)
    for _, kinds_ in events:
        present[kinds_] = True
    order = sorted(np.flatnonzero(present).tolist(), key=lambda code: names[code])
    remap = np.zeros(len(names), dtype=np.int64)
    remap[order] = np.arange(len(order))
    k = len(order)
    tables_out = []
    for positions, kinds_ in events:
        sentences = data.sentence_of(positions)
        tables_out.append(np.bincount(sentences * k + remap[kinds_], minlength=n * k).reshape(n, k))
    tp, pred, true = tables_out
    if mode == "conlleval":
        equal = canon[data.hypothesis] == canon[data.reference]
    else:
        equal = data.hypothesis == data.reference
    running = np.cumsum(equal, dtype=np.int64)
    # a sentence's tokens are the positions starts .. starts + lengths - 1 (starts >= 1)
    correct = running[data.starts + data.lengths - 1] - running[data.starts - 1] if n else np.zeros(0, np.int64)
    return Counts([names[code] for code in order], data.lengths.copy(), correct, tp, pred, true)


def _count_native(
    data: Layout,
    mode: str,
    prefixes: np.ndarray,
    type_index: dict[str, int],
    type_of: np.ndarray,
    canon: np.ndarray,
    combined: np.ndarray,
) -> Counts:
    """:func:`count` in one native pass over both sides (``src/spans/``): the same counts."""
    kernel = _native.span_chunk_counts
    if kernel is None:  # pragma: no cover - count() checks first
        raise RuntimeError("the native span F1 chunker is not in this build")
    names = list(type_index)
    rank = np.empty(len(names), dtype=np.int64)
    rank[sorted(range(len(names)), key=names.__getitem__)] = np.arange(len(names))
    found, tp, pred, true, correct = kernel(
        np.ascontiguousarray(data.hypothesis, dtype=np.int32),
        np.ascontiguousarray(data.reference, dtype=np.int32),
        np.ascontiguousarray(data.lengths, dtype=np.int64),
        mode,
        prefixes,
        type_of,
        combined,
        rules.N_PREFIXES,
        rank,
        canon if mode == "conlleval" else None,
    )
    return Counts([names[code] for code in found], data.lengths.copy(), correct, tp, pred, true)


Events = list[tuple[np.ndarray, np.ndarray]]  # (position, type) of each true positive, prediction, reference chunk
Side = tuple[np.ndarray, np.ndarray]  # layout codes, rule flags at each position
START_BIT, END_BIT, INSIDE_BIT = 1, 2, 4


def _conlleval(sides: list[Side], same_type: np.ndarray, type_of: np.ndarray) -> Events:
    (cg, fg), (cc, fc) = sides
    start_g, end_g = (fg & START_BIT).astype(bool), (fg & END_BIT).astype(bool)
    start_c, end_c = (fc & START_BIT).astype(bool), (fc & END_BIT).astype(bool)
    size = cg.size
    same_prev = np.zeros(size, dtype=bool)
    same_prev[1:] = same_type[:-1]
    both_end = end_c & end_g & same_prev
    # conlleval's inCorrect: set where both start a chunk of the same type, cleared where both end it
    # (a correct chunk), where only one ends, or where the types differ; else kept
    set_ = start_c & start_g & same_type
    event = set_ | both_end | (end_c != end_g) | ~same_type
    event[0] = True  # position 0: not in a chunk
    set_[0] = False
    last = np.maximum.accumulate(np.where(event, np.arange(size), 0))
    state = set_[last]
    correct_at = np.flatnonzero(both_end[1:] & state[:-1]) + 1
    chunk_start = last[correct_at - 1]
    correct_types = type_of[cc[correct_at - 1]]
    if state[-1]:  # still in a correct chunk after the last line
        chunk_start = np.append(chunk_start, last[-1])
        correct_types = np.append(correct_types, type_of[cc[-1]])
    guessed = np.flatnonzero(start_g)
    found = np.flatnonzero(start_c)
    return [(chunk_start, correct_types), (guessed, type_of[cg[guessed]]), (found, type_of[cc[found]])]


def _lenient_begins(flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """seqeval's get_entities: the running count of chunk starts, and the start positions."""
    starts = (flags & START_BIT).view(bool)
    return np.cumsum(starts, dtype=np.int32), np.flatnonzero(starts)


def _begin(at: np.ndarray, running: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The begin of chunks ending just before ``at``: the last start before (seqeval's begin_offset,
    which is the first token, position 1, before any start)."""
    before = running[at - 1]
    return np.where(before > 0, starts[np.maximum(before - 1, 0)], 1)


def _lenient(sides: list[Side], type_of: np.ndarray) -> Events:
    (ch, fh), (cr, fr) = sides
    running_h, starts_h = _lenient_begins(fh)
    running_r, starts_r = _lenient_begins(fr)
    at_h, at_r = np.flatnonzero(fh & END_BIT), np.flatnonzero(fr & END_BIT)
    begin_h, begin_r = _begin(at_h, running_h, starts_h), _begin(at_r, running_r, starts_r)
    type_h, type_r = type_of[ch[at_h - 1]], type_of[cr[at_r - 1]]
    # a chunk is (type, begin, end); its end position is unique on each side
    both = np.flatnonzero(fh & fr & END_BIT)
    begin = _begin(both, running_h, starts_h)
    kind = type_of[ch[both - 1]]
    match = (begin == _begin(both, running_r, starts_r)) & (kind == type_of[cr[both - 1]])
    return [(begin[match], kind[match]), (begin_h, type_h), (begin_r, type_r)]


def _strict_chunks(flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """seqeval's strict Tokens.entities: (begin, end) of each chunk, begins ascending."""
    outside = (flags & INSIDE_BIT) == 0
    runs = np.cumsum(outside) - 1  # a run: a position that is not inside, then the inside ones after it
    run_starts = np.flatnonzero(outside)
    candidates = np.flatnonzero(flags & START_BIT)
    run = runs[candidates]
    first = np.ones(candidates.size, dtype=bool)
    first[1:] = run[1:] != run[:-1]  # the scan jumps over the rest of a run once a chunk starts in it
    begin = candidates[first]
    end = run_starts[run[first] + 1]
    closed = (flags[end] & END_BIT).astype(bool)
    return begin[closed], end[closed]


def _strict(sides: list[Side], type_of: np.ndarray) -> Events:
    (ch, fh), (cr, fr) = sides
    begin_h, end_h = _strict_chunks(fh)
    begin_r, end_r = _strict_chunks(fr)
    type_h, type_r = type_of[ch[begin_h]], type_of[cr[begin_r]]
    _, ih, ir = np.intersect1d(begin_h, begin_r, assume_unique=True, return_indices=True)
    ih = ih[(end_h[ih] == end_r[ir]) & (type_h[ih] == type_r[ir])]
    return [(begin_h[ih], type_h[ih]), (begin_h, type_h), (begin_r, type_r)]
