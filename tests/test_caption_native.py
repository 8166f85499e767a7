"""The native captioning kernels (src/caption/) against the Python code they replace.

The native PTB lexer must give the Python tokenizer's lines (``coco_tokenize_python``, itself
checked against pycocoevalcap's Java tokenizer in ``test_cider.py``) on real captions and on
generated adversarial text, and the native CIDEr kernel the NumPy ``cider_rows``' values bit for
bit, both flavors. Both must be safe from threads and in a forked child.
"""

from __future__ import annotations

import multiprocessing
import random
import threading

import numpy as np
import pytest
from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

import nlpeval
from nlpeval import _native
from nlpeval.metrics import cider as cider_module
from nlpeval.metrics.cider import CIDEr, cider_rows, cider_rows_native
from nlpeval.tokenizers import ptb
from nlpeval.tokenizers.ptb import coco_tokenize, coco_tokenize_python, ptb_tokens
from test_cider import FRAGMENTS, adversarial_captions, wmt_captions
from textgen import corpus


def _words(text: str, sep: str | None = None) -> list[str]:
    return text.split(sep)


#: More fragments: every kind of text the lexer has rules for, in odd spellings and cases.
EXTRA = [
    *_words("can't won't y'all ma'am rock'n'roll o'neill O'Reilly '80s 'n' ’s n’t DON'T Cannot GONNA wanna gimme"),
    *_words("Mr Mr. mr. Ph.D. a.m. p.m. U.K. No. no. Fig. figs. vs. etc.. Co. Ltd Pty. Ltd. Inc.. Jan.1 Sept."),
    *_words("3.14.15 1,000,000 .5 -.5 +1 1e5 10% 5'11\" 12:30:45 2019-01-02 01/02/03 3/4 3\\/4 ⅓ ¾ 1⁄2 ² ₂ ٣ ३"),
    *_words("https://a.b/c(d) HTTP://X.ORG www.a-b.co.uk/x. foo.com bar.net/ x@y.z <x@y.z> &lt;a&gt; @_x #1a"),
    *_words("a-b a--b a---b -- --- ---- ----- – — ― ‐ ‑ _ __ a_b ... .... ..... . . . … ‥ ?! !? ??? ¡ ¿"),
    *_words("\" '' `` ` ' „ ‟ ‹ › « » “ ” ‘ ’ ‚ ‛ &quot; &apos; &amp; &AMP; &nbsp; &mdash; &#39; &odq;"),
    *_words("file.tar.gz a.exe READ.ME x.html C# c++ F# AT&T AT&amp;T S&P-500 Q&A R&D H&M"),
    *_words(
        "Σ Σα ΑΣ ſ K İ ı ǅ ß ﬃ ΐ Ω Å ẞ ǈ 𝔸 😀 \U0001f3f3\ufe0f\u200d\U0001f308 \U00010000 \ufffd \u200b \u200e \ufeff \x7f \x00 \x85",
        " ",
    ),
    *["\t", "\u00a0", "\u2003", "\u3000", "\r", "\u2028", "\f", "\v", " ", "", "(", ")", "[", "]", "{", "}"],
    *["<br/>", "<a href='x'>", "</p >", "<!-- c -->", "< b >", ":-)", ";)", ":P", "(:", "^_^", "o_O", ">_<"],
    *["(555) 555-1234", "+1 555 555 1234", "555.555.1234", "3 3/4", "1 1/2", "U.S. The", "Fig. 3", "No. 7"],
]
ALPHABET = "aZ09 .,;:'\"`-_/\\()[]{}<>@#$%&*+=!?~^|\u00a0\u00ad\u2019\u201c\u2026\u2014\u00e9\u03a3\u0130\u4e2d\t"


def adversarial(seed: int, n: int) -> list[str]:
    """Captions of fragments glued by odd separators, plus captions of random characters."""
    rng = random.Random(seed)
    pieces = [*FRAGMENTS, *EXTRA]
    out = []
    for _ in range(n):
        if rng.random() < 0.25:
            out.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 24))))
            continue
        text = ""
        for _ in range(rng.randint(0, 9)):
            text += rng.choice(pieces) + rng.choice([" ", "", " ", "  ", "\u00a0", ". ", ", "])
        out.append(text)
    return out


def test_native_lines_equal_the_python_tokenizer_on_adversarial_text() -> None:
    captions = adversarial(11, 4000) + adversarial_captions(3, 1500) + ["", " ", "\n", "a\nb", "x", ".", "A dog ."]
    native = ptb._native_lexer().coco_lines(captions)
    assert sum(line is not None for line in native) > 0.7 * len(captions)  # the native lexer covers most
    got = coco_tokenize(captions)
    expected = coco_tokenize_python(captions)
    bad = [(c, g, e) for c, g, e in zip(captions, got, expected, strict=True) if g != e]
    assert not bad, bad[:5]
    covered = [(c, n, e) for c, n, e in zip(captions, native, expected, strict=True) if n is not None and n != e]
    assert not covered, covered[:5]


def test_native_tokens_equal_ptb_tokens_with_and_without_a_next_line() -> None:
    lexer = ptb._native_lexer()
    captions = adversarial(12, 1500)
    compared = 0
    for index, text in enumerate(captions):
        following = captions[index + 1] if index % 2 and index + 1 < len(captions) else None
        native = lexer.tokens(text, following)
        if native is not None:
            compared += 1
            assert native == ptb_tokens(text, following), (text, following)
    assert compared > 1000


def test_native_lines_equal_the_python_tokenizer_on_real_text(compare_mt, wmt17) -> None:
    captions = [
        *compare_mt["ted.ref.detok.eng"][:1500],
        *compare_mt["sum.ref.eng"][:1500],
        *wmt17["reference"][:1500],
        *wmt17["online-B.0"][:500],
    ]
    assert coco_tokenize(captions) == coco_tokenize_python(captions)
    assert None not in ptb._native_lexer().coco_lines(captions)


def test_fallback_captions_equal_the_java_tokenizer() -> None:
    # beyond the BMP, final sigma, dotted and dotless i: the Python tokenizer takes them
    captions = ["A 😀 dog.", "ΟΔΟΣ ΣΑΣ.", "the İstanbul map", "a dog", "Σ-shaped 3 ½"]
    native = ptb._native_lexer().coco_lines(captions)
    assert native[0] is None and native[1] is None and native[2] is None and native[3] == "a dog"
    out = PTBTokenizer().tokenize({i: [{"caption": c}] for i, c in enumerate(captions)})
    assert coco_tokenize(captions) == [out[i][0] for i in range(len(captions))]
    # a lone surrogate cannot reach the native lexer: the whole batch takes the Python path
    assert coco_tokenize(["a \ud800 b", "a dog"]) == coco_tokenize_python(["a \ud800 b", "a dog"])


def test_python_path_without_the_native_lexer(monkeypatch) -> None:
    captions = adversarial(13, 300)
    expected = coco_tokenize(captions)
    monkeypatch.setattr(_native, "PtbLexer", None)
    ptb._native_lexer.cache_clear()
    try:
        assert coco_tokenize(captions) == expected
    finally:
        monkeypatch.undo()
        ptb._native_lexer.cache_clear()


@pytest.mark.parametrize(("clipped", "sigma"), [(True, 6.0), (True, 0.7), (True, 31.0), (False, 6.0)])
def test_native_cider_rows_equal_the_numpy_rows(wmt17, clipped: bool, sigma: float) -> None:
    hyps, refs = wmt_captions(wmt17, 0, 400)
    h, r = corpus(5, 200, 3)
    hyps += h + adversarial(14, 60) + ["", "a", "a a a a a a"]
    refs += r + [[c] for c in adversarial(15, 60)] + [["", "x"], ["a"], ["a a", "a a a a a a a a a a"]]
    for tokenize in ("coco", "none"):
        hyp_lines, ref_lines, counts = CIDEr(tokenize=tokenize).lines(hyps, refs)
        hyp_tokens, ref_tokens = CIDEr(tokenize=tokenize).tokens(hyps, refs)
        for max_order in (4, 1, 6):
            native = cider_rows_native(hyp_lines, ref_lines, counts, max_order=max_order, sigma=sigma, clipped=clipped)
            expected = cider_rows(hyp_tokens, ref_tokens, max_order=max_order, sigma=sigma, clipped=clipped)
            np.testing.assert_array_equal(native, expected)


def test_cider_takes_the_numpy_path_without_the_kernel(monkeypatch, wmt17) -> None:
    hyps, refs = wmt_captions(wmt17, 50, 120)
    expected = nlpeval.cider(hyps, refs, segments=True)
    monkeypatch.setattr(_native, "cider_image_sums", None)
    assert cider_rows_native(["a"], ["a"], [1]) is None
    got = nlpeval.cider(hyps, refs, segments=True)
    assert got.score == expected.score
    np.testing.assert_array_equal(got.segments, expected.segments)


def test_the_kernel_refuses_inconsistent_arguments() -> None:
    log_df = np.log(np.maximum(1.0, np.arange(3, dtype=np.float64)))
    with pytest.raises(ValueError, match="reference count"):
        _native.cider_image_sums(["a", "b"], ["a"], [1, 1], log_df, float(np.log(2.0)), None, 4)
    with pytest.raises(ValueError, match="log_df"):
        _native.cider_image_sums(["a", "b"], ["a", "b"], [1, 1], log_df[:2], float(np.log(2.0)), None, 4)
    with pytest.raises(ValueError, match="penalty"):
        _native.cider_image_sums(["a", "b"], ["a b c", "b"], [1, 1], log_df, 0.5, np.ones(1), 4)
    assert cider_module.cider_rows_native([], [], []).shape == (0,)


def test_threads_get_the_single_threaded_values(wmt17) -> None:
    hyps, refs = wmt_captions(wmt17, 0, 300)
    captions = adversarial(16, 400)
    expected = (nlpeval.cider(hyps, refs, segments=True).segments, coco_tokenize(captions))
    results: list[object] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(3):
                results.append((nlpeval.cider(hyps, refs, segments=True).segments, coco_tokenize(captions)))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors and len(results) == 12
    for segments, lines in results:  # type: ignore[misc]
        np.testing.assert_array_equal(segments, expected[0])
        assert lines == expected[1]


def _child(args: tuple[list[str], list[list[str]], list[str]], queue: multiprocessing.Queue) -> None:
    hyps, refs, captions = args
    queue.put((nlpeval.cider(hyps, refs, segments=True).segments.tolist(), coco_tokenize(captions)))


def test_a_forked_child_tokenizes_and_scores_after_the_parent(wmt17) -> None:
    hyps, refs = wmt_captions(wmt17, 0, 200)
    captions = adversarial(17, 300)
    parent = (nlpeval.cider(hyps, refs, segments=True).segments.tolist(), coco_tokenize(captions))
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=((hyps, refs, captions), queue))
    child.start()
    got = queue.get(timeout=120)
    child.join(timeout=60)
    assert child.exitcode == 0 and got == parent
