"""Language-model metrics: perplexity from log-probabilities, or from a local causal LM (extra ``lm``).

Examples
--------
>>> import math, nlpeval
>>> nlpeval.perplexity([[math.log(0.25)] * 3]).score
4.0
"""

from __future__ import annotations

from nlpeval.lm.causal import load_causal_lm, model_perplexity, token_logprobs
from nlpeval.lm.logprobs import Perplexity, PerplexityAccumulator, perplexity

__all__ = [
    "Perplexity",
    "PerplexityAccumulator",
    "load_causal_lm",
    "model_perplexity",
    "perplexity",
    "token_logprobs",
]
