"""Word and character alignments: aligned pairs with operation labels, jiwer's text views, error counts."""

from __future__ import annotations

import itertools
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple, cast

import numpy as np

from nlpeval import _native
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.metrics.wer.bound import MAX_CELLS
from nlpeval.metrics.wer.extract import (
    EDIT_FIELDS,
    best_pairs,
    check_edit_cells,
    jiwer_measures,
    native_pairs,
    prepare,
)
from nlpeval.metrics.wer.normalize import Normalizer

#: Operation labels by native code (jiwer's chunk types).
OPS = ("equal", "substitute", "delete", "insert")

_VIEW_CHAR = {"equal": " ", "substitute": "S", "delete": "D", "insert": "I"}


class AlignmentChunk(NamedTuple):
    """A run of one operation, as jiwer's ``AlignmentChunk`` (end indices exclusive)."""

    type: str
    ref_start_idx: int
    ref_end_idx: int
    hyp_start_idx: int
    hyp_end_idx: int


class AlignedPair(NamedTuple):
    """One aligned position: the operation, the reference token and the hypothesis token.

    ``reference`` is ``None`` for an insertion, ``hypothesis`` is ``None`` for a deletion.
    """

    op: str
    reference: str | None
    hypothesis: str | None


@dataclass(frozen=True)
class SegmentAlignment:
    """The alignment of one hypothesis with its (chosen) reference.

    Attributes
    ----------
    reference, hypothesis : tuple of str
        The tokens (words, or characters for CER) after normalisation.
    ops : tuple of str
        One operation per aligned position: ``equal``, ``substitute``, ``delete``, ``insert``.
    reference_index : int
        Which of the segment's references was used (the one needing the fewest edits).
    """

    reference: tuple[str, ...]
    hypothesis: tuple[str, ...]
    ops: tuple[str, ...]
    reference_index: int = 0

    @property
    def pairs(self) -> list[AlignedPair]:
        """The aligned pairs, in order."""
        out, i, j = [], 0, 0
        for op in self.ops:
            ref = self.reference[i] if op != "insert" else None
            hyp = self.hypothesis[j] if op != "delete" else None
            i += op != "insert"
            j += op != "delete"
            out.append(AlignedPair(op, ref, hyp))
        return out

    @cached_property
    def chunks(self) -> list[AlignmentChunk]:
        """Maximal runs of one operation (rapidfuzz's opcodes, jiwer's alignment chunks)."""
        out: list[AlignmentChunk] = []
        i = j = 0
        for op, run in itertools.groupby(self.ops):
            n = sum(1 for _ in run)
            di = 0 if op == "insert" else n
            dj = 0 if op == "delete" else n
            out.append(AlignmentChunk(op, i, i + di, j, j + dj))
            i, j = i + di, j + dj
        return out

    def count(self, op: str) -> int:
        """Number of positions with operation ``op``."""
        return self.ops.count(op)

    @property
    def is_correct(self) -> bool:
        """True when hypothesis and reference are equal."""
        return all(op == "equal" for op in self.ops)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: tokens, pairs (``[op, ref, hyp]``) and counts."""
        return {
            "reference": list(self.reference),
            "hypothesis": list(self.hypothesis),
            "reference_index": self.reference_index,
            "pairs": [list(pair) for pair in self.pairs],
            "hits": self.count("equal"),
            "substitutions": self.count("substitute"),
            "deletions": self.count("delete"),
            "insertions": self.count("insert"),
        }


def _display_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int, wide: bool) -> str:
    if not wide:
        return f"{text:>{width}}"
    return " " * max(width - _display_width(text), 0) + text


def _comparison(segment: SegmentAlignment, *, words: bool, line_width: int | None, wide: bool) -> str:
    """The REF/HYP/operation lines of one segment, laid out as jiwer's ``visualize_alignment``."""
    sep = " " if words else ""
    measure = _display_width if wide else len
    reference, hypothesis = segment.reference, segment.hypothesis
    blocks: list[str] = []
    refs: list[str] = []
    hyps: list[str] = []
    marks: list[str] = []
    used = 5  # width of the reference line so far ("REF: ")

    def block() -> str:
        lines = ["REF: " + "".join(refs), "HYP: " + "".join(hyps), "     " + "".join(marks)]
        return "\n".join(line[:-1] if words else line for line in lines) + "\n"

    i = j = 0
    for op in segment.ops:
        if op == "insert":
            ref, hyp = "*", hypothesis[j]
            j += 1
        elif op == "delete":
            ref, hyp = reference[i], "*"
            i += 1
        else:
            ref, hyp = reference[i], hypothesis[j]
            i, j = i + 1, j + 1
        width = max(measure(ref), measure(hyp), 1)
        if line_width is not None and used + width > line_width:
            blocks.append(block() + "\n")
            refs, hyps, marks, used = [], [], [], 5
        # jiwer widens a "*" on the reference side first (even a real "*" token)
        if ref == "*":
            ref = "*" * width
        elif hyp == "*":
            hyp = "*" * width
        if wide:
            refs.append(_pad(ref, width, wide) + sep)
            hyps.append(_pad(hyp, width, wide) + sep)
            marks.append(_pad(_VIEW_CHAR[op], width, wide) + sep)
        else:
            refs.append(f"{ref:>{width}}{sep}")
            hyps.append(f"{hyp:>{width}}{sep}")
            marks.append(f"{_VIEW_CHAR[op]:>{width}}{sep}")
        used += width + len(sep)
    blocks.append(block())
    return "".join(blocks)


@dataclass(frozen=True)
class EditAlignment:
    """Alignments of a corpus, with jiwer's visualisation and error counts.

    Attributes
    ----------
    segments : tuple of SegmentAlignment
        One alignment per segment.
    unit : {"word", "char"}
        What the tokens are.
    signature : str
        The settings (as the matching WER/CER score's signature).
    """

    segments: tuple[SegmentAlignment, ...]
    unit: str
    signature: str

    def __len__(self) -> int:
        return len(self.segments)

    def __getitem__(self, index: int) -> SegmentAlignment:
        return self.segments[index]

    def totals(self) -> np.ndarray:
        """Summed hits, substitutions, deletions, insertions, reference and hypothesis lengths."""
        out = np.zeros(len(EDIT_FIELDS), dtype=np.int64)
        for seg in self.segments:
            out += [
                seg.count("equal"),
                seg.count("substitute"),
                seg.count("delete"),
                seg.count("insert"),
                len(seg.reference),
                len(seg.hypothesis),
            ]
        return out

    def counts(self) -> dict[str, int]:
        """Total hits, substitutions, deletions and insertions."""
        totals = self.totals()
        return {name: int(totals[k]) for k, name in enumerate(EDIT_FIELDS[:4])}

    def measures(self) -> dict[str, float]:
        """Corpus WER, MER, WIL, WIP (words) or CER (characters), as the metrics compute them."""
        values = jiwer_measures(self.totals())
        if self.unit == "char":
            return {"cer": float(values["wer"])}
        return {name: float(values[name]) for name in ("wer", "mer", "wil", "wip")}

    def visualize(
        self,
        *,
        show_measures: bool = True,
        skip_correct: bool = True,
        line_width: int | None = None,
        wide_chars: bool = False,
    ) -> str:
        """Plain-text alignment, character for character as jiwer's ``visualize_alignment``.

        Parameters
        ----------
        show_measures : bool
            End with the summary (counts and rates in percent).
        skip_correct : bool
            Leave out segments without errors.
        line_width : int, optional
            Wrap long segments at about this many characters.
        wide_chars : bool
            Pad by display width (East Asian wide and full-width characters count
            two columns) so that CJK text lines up in a terminal; jiwer pads by
            ``len()``, which is the default here.
        """
        words = self.unit == "word"
        parts: list[str] = []
        for index, seg in enumerate(self.segments):
            if skip_correct and seg.is_correct:
                continue
            parts.append(f"=== SENTENCE {index + 1} ===\n\n")
            parts.append(_comparison(seg, words=words, line_width=line_width, wide=wide_chars))
            parts.append("\n")
        out = "".join(parts)
        if not show_measures:
            return out[:-1]
        counts = self.counts()
        out += "=== SUMMARY ===\n"
        out += f"number of sentences: {len(self.segments)}\n"
        out += (
            f"substitutions={counts['substitutions']} deletions={counts['deletions']} "
            f"insertions={counts['insertions']} hits={counts['hits']}\n"
        )
        measures = self.measures()
        if not words:
            return out + f"\ncer={measures['cer'] * 100:.2f}%\n"
        for name in ("mer", "wil", "wip", "wer"):
            out += f"\n{name}={measures[name] * 100:.2f}%"
        return out + "\n"

    def error_counts(self, *, by: str = "chunk") -> tuple[Counter[tuple[str, str]], Counter[str], Counter[str]]:
        """How often each substitution, insertion and deletion occurs.

        Parameters
        ----------
        by : {"chunk", "token"}
            ``chunk`` counts runs of one operation as one error, their tokens joined
            (jiwer's ``collect_error_counts``); ``token`` counts every aligned pair.

        Returns
        -------
        substitutions : Counter of (reference, hypothesis)
        insertions, deletions : Counter of str
        """
        if by not in ("chunk", "token"):
            raise ValueError(f"by must be 'chunk' or 'token'; got {by!r}")
        subs: Counter[tuple[str, str]] = Counter()
        ins: Counter[str] = Counter()
        dels: Counter[str] = Counter()
        sep = " " if self.unit == "word" else ""
        for seg in self.segments:
            if by == "token":
                # a pair's missing side is None only where its op says so (insert: no ref, delete: no hyp)
                for op, ref, hyp in seg.pairs:
                    if op == "substitute":
                        subs[(cast(str, ref), cast(str, hyp))] += 1
                    elif op == "insert":
                        ins[cast(str, hyp)] += 1
                    elif op == "delete":
                        dels[cast(str, ref)] += 1
                continue
            for chunk in seg.chunks:
                ref = sep.join(seg.reference[chunk.ref_start_idx : chunk.ref_end_idx])
                hyp = sep.join(seg.hypothesis[chunk.hyp_start_idx : chunk.hyp_end_idx])
                if chunk.type == "substitute":
                    subs[(ref, hyp)] += 1
                elif chunk.type == "insert":
                    ins[hyp] += 1
                elif chunk.type == "delete":
                    dels[ref] += 1
        return subs, ins, dels

    def most_frequent(self, k: int | None = 10, *, by: str = "chunk") -> dict[str, list[tuple[Any, int]]]:
        """The ``k`` most frequent substitutions, insertions and deletions (first seen first on ties)."""
        subs, ins, dels = self.error_counts(by=by)
        return {
            name: sorted(counter.items(), key=lambda item: item[1], reverse=True)[:k]
            for name, counter in (("substitutions", subs), ("insertions", ins), ("deletions", dels))
        }

    def visualize_error_counts(
        self,
        *,
        show_substitutions: bool = True,
        show_insertions: bool = True,
        show_deletions: bool = True,
        top_k: int | None = None,
        by: str = "chunk",
    ) -> str:
        """The error counts as text, as jiwer's ``visualize_error_counts`` (with ``by="chunk"``)."""
        tables = self.most_frequent(top_k, by=by)
        shown = (
            ("SUBSTITUTIONS", "substitutions", show_substitutions),
            ("INSERTIONS", "insertions", show_insertions),
            ("DELETIONS", "deletions", show_deletions),
        )
        sections: list[str] = []
        for title, key, show in shown:
            if not show:
                continue
            rows = tables[key]
            lines = [f"=== {title} ===\n"]
            if not rows:
                lines.append("none")
            else:
                width = max(len(k) if isinstance(k, str) else max(len(part) for part in k) for k, _ in rows)
                for item, count in rows:
                    if isinstance(item, tuple):
                        lines.append(f"{item[0]: <{width}} --> {item[1]:<{width}} = {count}x\n")
                    else:
                        lines.append(f"{item:<{width}} = {count}x\n")
            sections.append("".join(lines))
        out = "\n".join(sections)
        return out[:-1] if out.endswith("\n") else out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the signature, measures, counts and every segment's alignment."""
        return {
            "unit": self.unit,
            "signature": self.signature,
            **self.measures(),
            **self.counts(),
            "segments": [seg.to_dict() for seg in self.segments],
        }


def edit_alignment(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    unit: str = "word",
    normalize: str | None = None,
    lowercase: bool = False,
    remove_punctuation: bool = False,
    nfkc: bool = False,
    whitespace: str = "jiwer",
    split_unspaced: bool = False,
    max_cells: int | None = MAX_CELLS,
) -> EditAlignment:
    """Align each hypothesis with its reference, word by word (or character by character).

    The alignment is the one jiwer 4 reports (``jiwer.process_words`` /
    ``process_characters``), so its counts are those of :func:`nlpeval.wer` and
    :func:`nlpeval.cer` with the same options.

    Parameters
    ----------
    hypotheses : sequence of str
        One system output per segment.
    references : sequence of (str or sequence of str)
        One reference, or a list of references, per segment (with several, the one
        needing the fewest edits is used, the first on ties).
    unit : {"word", "char"}
        Align words (as WER) or characters (as CER).
    normalize : {"whisper-en", "whisper-basic"} or None
        OpenAI Whisper's text normaliser first, as for :func:`nlpeval.wer` (the alignment is then
        of the normalised text, whose counts are those of ``nlpeval.wer(..., normalize=...)``).
    lowercase, remove_punctuation, nfkc, whitespace, split_unspaced
        Normalisation, as for :func:`nlpeval.wer`.
    max_cells : int or None
        Bound on a pair's work, as for :func:`nlpeval.wer`.

    Returns
    -------
    EditAlignment
        Per-segment :class:`SegmentAlignment` (``pairs``, ``chunks``), plus
        ``visualize()``, ``error_counts()``, ``most_frequent()`` and ``measures()``.

    Examples
    --------
    >>> import nlpeval
    >>> result = nlpeval.edit_alignment(["cat sat on a mat"], ["the cat sat on the"])
    >>> result[0].pairs[0]
    AlignedPair(op='delete', reference='the', hypothesis=None)
    >>> print(result.visualize(show_measures=False), end="")
    === SENTENCE 1 ===
    <BLANKLINE>
    REF: the cat sat on * the
    HYP: *** cat sat on a mat
           D            I   S
    >>> result = nlpeval.edit_alignment(["It's twenty five dollars."], ["it is $25"], normalize="whisper-en")
    >>> result[0].hypothesis, result.measures()["wer"]
    (('it', 'is', '$25'), 0.0)
    """
    if unit not in ("word", "char"):
        raise ValueError(f"unit must be 'word' or 'char'; got {unit!r}")
    if unit == "word" and whitespace == "remove":
        raise ValueError("whitespace='remove' leaves one word per segment; use it with unit='char'")
    if unit == "char" and split_unspaced:
        raise ValueError("split_unspaced is an option of word alignments")
    normalizer = Normalizer(
        normalize=normalize,
        lowercase=lowercase,
        remove_punctuation=remove_punctuation,
        nfkc=nfkc,
        whitespace=whitespace,
        split_unspaced=split_unspaced,
    )
    hyps, refs = prepare(hypotheses, references, normalizer)
    check_edit_cells(hyps, refs, unit, max_cells, "cer" if unit == "char" else "wer")
    aligned, starts = native_pairs(_native.edit_align, hyps, refs, unit)
    rows = np.array([[0, ops.count(1), ops.count(2), ops.count(3)] for _, _, ops in aligned], dtype=np.int64).reshape(
        -1, 4
    )
    chosen = best_pairs(rows, starts)
    segments = tuple(
        SegmentAlignment(
            tuple(aligned[pair][0]),
            tuple(aligned[pair][1]),
            tuple(OPS[code] for code in aligned[pair][2]),
            int(pair - start),
        )
        for pair, start in zip(chosen.tolist(), starts.tolist(), strict=True)
    )
    counts = [len(seg) for seg in refs]
    signature = Signature.build(
        nrefs=nrefs_field(min(counts, default=1), max(counts, default=1)),
        unit=unit,
        **normalizer.signature_fields(words=unit == "word"),
        flavor="jiwer",
    )
    return EditAlignment(segments, unit, str(signature))
