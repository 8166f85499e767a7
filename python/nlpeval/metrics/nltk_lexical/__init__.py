"""NLTK's other lexical MT metrics, exactly: GLEU (Google-BLEU), NIST and RIBES.

Each takes NLTK's input (strings are split on whitespace; token lists are used as they are,
references then as a list of token lists per segment) and follows the corpus and sentence
functions of ``nltk.translate`` 3.10 step by step, vectorised with NumPy (n-gram statistics from
the native BLEU kernel or :mod:`nlpeval.metrics.ngram_table`) instead of Python ``Counter`` loops.
"""

from nlpeval.metrics.nltk_lexical.gleu import GLEU, gleu
from nlpeval.metrics.nltk_lexical.nist import NIST, nist
from nlpeval.metrics.nltk_lexical.ribes import RIBES, ribes

__all__ = ["GLEU", "NIST", "RIBES", "gleu", "nist", "ribes"]
