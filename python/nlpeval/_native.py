"""The only module that imports the compiled core (``nlpeval._core``).

Everything else calls the kernels through here, so the native surface stays in
one place and a missing or broken build fails with one clear message.

Ctrl-C must stay a ``KeyboardInterrupt``. The first array a kernel builds makes the core look up NumPy's
C API (importing NumPy, and running its version check in Python); interrupted there, the look-up panics
inside the kernel. So before the first call of any kernel but those in ``NUMPY_FREE``, this module imports
NumPy itself and has the core build one tiny array with SIGINT held back: an interrupt then arrives just
after, as a ``KeyboardInterrupt`` (``_ready_array_api``). The ``NUMPY_FREE`` kernels serve the NumPy-free
start-up path of ``nlpeval score``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

try:
    from nlpeval import _core
except ImportError as exc:  # pragma: no cover - only without a build
    raise ImportError(
        "nlpeval's native core is missing; install the package with `pip install .` "
        "(or `maturin develop --release`) so that nlpeval._core is built"
    ) from exc

F = TypeVar("F", bound=Callable[..., Any])

#: kernels that never build a NumPy array (the NumPy-free start-up path of ``nlpeval score`` uses them);
#: every other function of the core imports NumPy from Python first (a test keeps this list honest)
NUMPY_FREE = frozenset(
    {
        "tokenize", "receive_text", "rouge_tokenize", "porter_stem", "edit_align", "bleu_totals", "chrf_totals",
        "bleu_totals_values", "chrf_totals_parts",
        "meteor_normalize", "meteor_snowball_stems", "meteor_word_keys", "nltk_porter_stems",
        "meteor_corpus_totals", "meteor_row_parts", "refcache_info", "native_threads", "refcache_clear",
        "refcache_limits",
    }
)  # fmt: skip


_array_api_ready = False


def _ready_array_api() -> None:
    """Import NumPy and have the core look up its C API once, with SIGINT held back (see the module docs)."""
    global _array_api_ready
    import signal  # here: importing it builds enums, a cost the NumPy-free start-up path does not pay

    import numpy  # noqa: F401 - an interrupt here is an ordinary KeyboardInterrupt

    hold = hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if hold else None
    try:
        _core.ter_stats(["a"], [["a"]])  # builds one small array: the core's NumPy look-up is done
    finally:
        if held is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a held SIGINT is delivered now
    _array_api_ready = True


def _numpy_first(kernel: F) -> F:
    """``kernel`` behind :func:`_ready_array_api` the first time (see the module docs)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        if not _array_api_ready:
            _ready_array_api()
        return kernel(*args, **kwargs)

    call.__name__ = call.__qualname__ = kernel.__name__
    call.__doc__ = kernel.__doc__
    return cast(F, call)  # the same signature as kernel


tokenize = _core.tokenize
bleu_stats = _core.bleu_stats
bleu_stats_tokens = _core.bleu_stats_tokens
bleu_stats_flat = _core.bleu_stats_flat
flatten_id_lists = _core.flatten_id_lists
flatten_reference_lists = _core.flatten_reference_lists
trim_ids = _core.trim_ids
receive_text = _core.receive_text
bleu_pairwise_scores = _core.bleu_pairwise_scores
bleu_row_scores = _core.bleu_row_scores
bleu_totals_values = _core.bleu_totals_values
bleu_summary = _core.bleu_summary
rouge_tokenize = _core.rouge_tokenize
porter_stem = _core.porter_stem
rouge_stats_text = _core.rouge_stats_text
rouge_stats_ids = _core.rouge_stats_ids
edit_stats = _core.edit_stats
edit_align = _core.edit_align
chrf_stats = _core.chrf_stats
chrf_pairwise_scores = _core.chrf_pairwise_scores
chrf_row_scores = _core.chrf_row_scores
chrf_totals_parts = _core.chrf_totals_parts
chrf_summary = _core.chrf_summary
with_reference_counts = _core.with_reference_counts
bleu_totals = _core.bleu_totals
chrf_totals = _core.chrf_totals
ter_stats = _core.ter_stats
kendall_group_stats = _core.kendall_group_stats
kendall_weighted_stats = _core.kendall_weighted_stats
meteor_split_intern = _core.meteor_split_intern
meteor_normalize = _core.meteor_normalize
meteor_snowball_stems = _core.meteor_snowball_stems
meteor_word_keys = _core.meteor_word_keys
meteor_align_rows = _core.meteor_align_rows
meteor_corpus_totals = _core.meteor_corpus_totals
meteor_row_parts = _core.meteor_row_parts
meteor_rows_parts = _core.meteor_rows_parts
MeteorTokens = _core.MeteorTokens
MeteorParaphrases = _core.MeteorParaphrases
WordNetIndex = _core.WordNetIndex
nltk_porter_stems = _core.nltk_porter_stems
nltk_meteor_scores = _core.nltk_meteor_scores
report_resample_counts = _core.report_resample_counts
report_ngram_matches = _core.report_ngram_matches
report_ngram_occurrences = _core.report_ngram_occurrences
report_resampled_sums = _core.report_resampled_sums
report_masked_sums = _core.report_masked_sums
report_seeded_indices = _core.report_seeded_indices
report_seeded_coins = _core.report_seeded_coins
report_seeded_states = _core.report_seeded_states
report_seeded_sums = _core.report_seeded_sums
report_seeded_rows = _core.report_seeded_rows
report_encode_lines = _core.report_encode_lines
report_matched_strings = _core.report_matched_strings
refcache_info = _core.refcache_info
native_threads = _core.native_threads
refcache_clear = _core.refcache_clear
refcache_limits = _core.refcache_limits
# None with a core built before these kernels: the legacy draws then come from NumPy (significance.legacy_draws)
mt19937_above = getattr(_core, "mt19937_above", None)
mt19937_swap_effects = getattr(_core, "mt19937_swap_effects", None)
spa_pair_counts = getattr(_core, "spa_pair_counts", None)
# retrieval (absent from a core built before src/retrieval: nlpeval.ir then reads files in Python)
TrecQrels = getattr(_core, "TrecQrels", None)
TrecRun = getattr(_core, "TrecRun", None)
trec_place = getattr(_core, "trec_place", None)
trec_place_mapping = getattr(_core, "trec_place_mapping", None)
trec_measures = getattr(_core, "trec_measures", None)
# generation metrics (absent from a core built before src/gen: the metrics then take their NumPy paths)
sari_hf_rows = getattr(_core, "sari_hf_rows", None)
sari_easse_rows = getattr(_core, "sari_easse_rows", None)
nist_rows = getattr(_core, "nist_rows", None)
gleu_rows = getattr(_core, "gleu_rows", None)
ribes_values = getattr(_core, "ribes_values", None)
span_label_codes = getattr(_core, "span_label_codes", None)
# span F1's chunk counts (src/spans/; absent from an older core: the NumPy chunking then counts)
span_chunk_counts = getattr(_core, "span_chunk_counts", None)
# captioning (absent from a core built before src/caption: the PTB tokenizer and CIDEr then run in Python)
PtbLexer = getattr(_core, "PtbLexer", None)
cider_image_sums = getattr(_core, "cider_image_sums", None)

#: the kernels behind an ``import numpy`` done in Python first (see the module docs)
ARRAY_KERNELS = frozenset(
    name
    for name, value in list(globals().items())
    if callable(value) and not isinstance(value, type) and getattr(_core, name, None) is value
    and name not in NUMPY_FREE
)  # fmt: skip
for _name in ARRAY_KERNELS:
    globals()[_name] = _numpy_first(globals()[_name])
