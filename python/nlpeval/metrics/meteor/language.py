"""A warning, once per process, when METEOR's English resources meet text that is not English.

METEOR here has English resources only (Porter stemmer, WordNet, the English paraphrase table and
function-word list; ``lang:en`` in the signature): on German or Chinese it still gives a number, one that
means little. The check reads the references' words (the target language) of the first segments and
counts English function words among them: English text has about four in ten, other languages few.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence

#: frequent English function words (a stable share of running English text)
ENGLISH_FUNCTION_WORDS = frozenset(
    {
        "the",
        "of",
        "and",
        "to",
        "a",
        "in",
        "is",
        "that",
        "for",
        "it",
        "with",
        "as",
        "was",
        "on",
        "be",
        "by",
        "this",
        "are",
        "at",
        "from",
        "or",
        "an",
        "not",
        "have",
        "has",
        "had",
        "but",
        "which",
        "they",
        "you",
        "he",
        "she",
        "we",
        "his",
        "her",
        "their",
        "its",
        "were",
        "been",
        "will",
        "would",
        "can",
        "there",
        "what",
        "all",
        "if",
        "more",
        "when",
        "who",
        "about",
        "so",
        "no",
        "do",
        "one",
        "my",
        "our",
        "your",
        "i",
        "me",
        "him",
        "them",
        "than",
        "then",
        "into",
    }
)
#: below this share of English function words (with enough words to tell) the text is taken as not English
MIN_ENGLISH_SHARE = 0.08
#: words needed before the check says anything
MIN_WORDS = 40
#: segments read for the check
SAMPLE_SEGMENTS = 500

_WORD = re.compile(r"[^\W\d_]+")
_warned = False
#: set once English references were seen: later calls (a training loop's batches) skip the check
_english_seen = False


class MeteorLanguageWarning(UserWarning):
    """METEOR's English resources were used on text that does not look English."""

    #: the command line prints it as one line (``nlpeval score: warning: ...``)
    one_line = True


def english_share(texts: Sequence[str]) -> tuple[float, int]:
    """Share of English function words among the words of ``texts``, and the number of words.

    Examples
    --------
    >>> english_share(["The cat sat on the mat and it was happy."])
    (0.6, 10)
    >>> english_share(["Die Katze sitzt auf der Matte."])
    (0.0, 6)
    """
    n_words = n_english = 0
    for text in texts:
        for word in _WORD.findall(text.lower()):
            n_words += 1
            n_english += word in ENGLISH_FUNCTION_WORDS
    return (n_english / n_words if n_words else 0.0), n_words


def warn_unless_english(references: Sequence[Sequence[str]]) -> None:
    """Warn (once per process, :class:`MeteorLanguageWarning`) when the references do not look English.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_unless_english([["The cat sat on the mat, and it was happy that the sun was out."]] * 5)
    >>> caught
    []
    """
    global _warned, _english_seen
    if _warned or _english_seen:
        return
    share, n_words = english_share([ref for group in references[:SAMPLE_SEGMENTS] for ref in group])
    if n_words < MIN_WORDS:
        return
    if share >= MIN_ENGLISH_SHARE:
        _english_seen = True
        return
    _warned = True
    warnings.warn(
        f"METEOR uses English resources (stemmer, WordNet, paraphrases, function words; lang:en) but the "
        f"references do not look English ({share:.0%} English function words, English text has about 40%): "
        "its scores mean little for other languages",
        MeteorLanguageWarning,
        stacklevel=4,
    )
