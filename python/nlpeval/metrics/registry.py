"""The metric registry: every name ``nlpeval score -m`` accepts, what it builds, and its options.

One :class:`MetricEntry` per metric name (``"bleu"``) or family of names (``"rouge1..rouge9"``,
a regular expression), declared next to its family in ``nlpeval/metrics/entries/<family>.py``
(a module-level ``ENTRIES`` tuple). Every module of that package whose name does not start with
``_`` is an entry module: adding a family adds a file and edits no shared list. The command
line (``score``, ``report``, ``metrics``, ``explain``, ``merge``), the reports, the cards, the
integrations and Dask read this registry; it imports nothing above ``nlpeval.core``.

Each entry holds the metric's factory as a ``"module:function"`` string, imported only when
a metric is built, so that listing names or building the command line imports no metric code
(``nlpeval score -m bleu,chrf`` stays a fast cold start). For the same reason the entry types
are named tuples, not dataclasses: importing :mod:`dataclasses` (and :mod:`inspect`) costs
about a tenth of a whole ``nlpeval score -m bleu,chrf`` process. They are immutable all the same.

Options are declared once (:class:`Option`): the command line turns them into flags
(``--chrf-char-order``), the report and the integrations read their defaults, and the cards list
them. ``type``, ``choices`` and ``minimum`` are the single place to validate a value
(:meth:`Option.parse`, :meth:`Option.check`).

Examples
--------
>>> from nlpeval.metrics import registry
>>> entry = registry.get("chrf++")
>>> entry.label, entry.family, entry.higher_is_better, entry.card
('chrF++', 'chrf', True, 'chrf')
>>> registry.get("rougeW-1.2").name, registry.get("ter").higher_is_better
('rougeW-<weight>', False)
>>> registry.build("chrf++").word_order
2
"""

import os
import re
from collections.abc import Callable, Iterable, Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric

#: the value kinds an option can take (``Option.type``)
OPTION_TYPES = ("flag", "int", "float", "number", "str", "path", "floats")

#: package whose modules declare the entries (one module per family, ``ENTRIES`` in each)
ENTRY_PACKAGE = "nlpeval.metrics.entries"


class UnknownMetricError(ValueError):
    """A metric name nlpeval does not know (the message suggests close names and says where to find them)."""


class MetricInputsError(ValueError):
    """A metric name that is known but scores other inputs than the command was given (e.g. a retrieval
    measure, which ranks a run against qrels, in ``nlpeval score``); the message names the command to use."""


#: what an entry scores (``MetricEntry.inputs``) -> what it is and where it is scored (the text commands' error)
INPUTS = {
    "text": "a text metric: it scores hypotheses against references; use nlpeval score -m {name}",
    "retrieval": "a retrieval measure: it scores a ranked run against qrels, not texts; use nlpeval ir -q QRELS "
    "RUN -m {name} (Python: nlpeval.retrieval(qrels, run, '{name}'))",
}


#: whether an entry reads references (``MetricEntry.references``) -> what that means
REFERENCES = {
    "required": "scored against references",
    "optional": "references are read when given (the model decides whether it needs them)",
    "none": "scored without references (quality estimation): references are never read",
}


class Option(NamedTuple):
    """One option of a metric family, declared once.

    The command line adds it as the flag ``flag`` (with ``short`` as an alias), the
    argument parser's destination and the factory's key being ``name``; the report and
    the integrations take ``default``; the cards list ``flag``, its default and ``help``.

    Attributes
    ----------
    name : str
        Key of the value in the options mapping a factory receives (and the ``argparse``
        destination, and the report's ``metric_options`` key), e.g. ``"chrf_char_order"``.
    flag : str
        The long command-line flag, e.g. ``"--chrf-char-order"``.
    type : str
        One of :data:`OPTION_TYPES`: ``flag`` (on/off, default False), ``int``, ``float``,
        ``number`` (int when written as one, else float), ``str``, ``path`` or ``floats``
        (comma-separated numbers, a tuple).
    default : object
        The value when the option is not given. ``None`` may stand for "chosen by the metric";
        then ``help`` says what it is, as ``(default X)``.
    help : str
        One line for ``--help`` and the cards ("" borrows the card's description of the API
        keyword of the same name).
    choices : tuple of str, optional
        The values allowed.
    minimum : float, optional
        The smallest value allowed (numbers only). Declared for parse-time validation.
    short : str, optional
        A short alias such as ``"-lc"``.
    metavar : str, optional
        The value's name in ``--help``.

    Examples
    --------
    >>> order = Option("max_order", "--max-order", "int", 4, minimum=1)
    >>> order.parse("3"), order.shown_default
    (3, '4')
    >>> order.check(0)
    Traceback (most recent call last):
    ...
    ValueError: --max-order must be at least 1, got 0
    """

    name: str
    flag: str
    type: str = "str"
    default: Any = None
    help: str = ""
    choices: tuple[str, ...] | None = None
    minimum: float | None = None
    short: str | None = None
    metavar: str | None = None

    def parse(self, text: str) -> Any:
        """The value of ``text`` as written on a command line (no range check: see :meth:`check`)."""
        if self.type == "int":
            return int(text)
        if self.type == "float":
            return float(text)
        if self.type == "number":
            try:
                return int(text)
            except ValueError:
                return float(text)
        if self.type == "floats":
            try:
                return tuple(float(part) for part in text.split(","))
            except ValueError:
                raise ValueError(f"expected comma-separated numbers, e.g. 0.5,0.5; got {text!r}") from None
        if self.type == "flag":
            lowered = text.strip().lower()
            if lowered not in ("true", "false", "1", "0", "on", "off", "yes", "no"):
                raise ValueError(f"{self.flag} is on or off, got {text!r}")
            return lowered in ("true", "1", "on", "yes")
        return text

    def check(self, value: Any) -> Any:
        """``value`` if it is allowed (choices, minimum), else a :class:`ValueError` naming the flag."""
        if value is None:
            return value
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{self.flag} must be one of {', '.join(self.choices)}, got {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise ValueError(f"{self.flag} must be at least {self.minimum:g}, got {value!r}")
        return value

    @property
    def shown_default(self) -> str:
        """The default as ``--help`` and the cards show it (``off`` for flags; a ``None``
        default shows the help's ``(default X)``, else ``none``)."""
        if self.type == "flag":
            return "off"
        if self.default is not None:
            return str(self.default)
        stated = re.search(r"\(default:? ([^);]+)[);]", self.help)  # "(default 10 billion; bounds ...)"
        return stated.group(1) if stated else "none"


class MetricEntry(NamedTuple):
    """One metric name (or family of names) of the registry.

    Attributes
    ----------
    name : str
        The name as users type it (``"bleu"``); for a ``pattern`` entry its readable form
        (``"rouge1..rouge9"``, ``"rougeW-<weight>"``), shown in listings and error messages.
    factory : str
        ``"module:function"``; ``function(name, options)`` takes the name as typed and a mapping
        option name -> value (every option of ``options``, defaults filled in) and returns a
        configured :class:`~nlpeval.core.metric.CorpusMetric`. Imported only when called.
    family : str
        The family the name belongs to (entries of one family share options and one group
        of command-line flags), e.g. ``"wer"`` for wer, cer, mer, wil and wip.
    card : str
        Id of the family's card (``nlpeval/cards/data/<card>.toml``, ``nlpeval explain``).
    label : str
        Column label of tables and reports (a name other than ``label.lower()`` is shown as typed).
    pattern : str, optional
        A regular expression (full match) for a family of names; ``None`` for an exact name.
    scale : float
        Display multiplier of the score (100 shows 0.3083 as 30.83; 1 shows it as is).
    higher_is_better : bool
        Direction of the score (False for error rates such as TER and WER).
    decomposes : bool
        The corpus score (default flavor) is a function of summed per-segment statistics, so
        streaming, bootstrap, paired tests, partials and Dask apply.
    needs_sources : bool
        Scoring needs the source segments.
    needs_model : bool
        Scoring needs a model (checkpoint, encoder), not only the texts.
    flavors : tuple of str
        The reference implementations the family reproduces, the default first.
    options : tuple of Option
        The family's options (one tuple shared by the family's entries).
    option_group : str
        Title of the family's group of flags in ``nlpeval score --help`` (contains "options").
    inputs : str
        What the metric scores, a key of :data:`INPUTS`: ``"text"`` (hypotheses against references:
        ``nlpeval score``, ``nlpeval report``, the integrations, Dask) or ``"retrieval"`` (a ranked run
        against qrels: ``nlpeval ir``, ``nlpeval.retrieval``). :func:`text_entry` refuses the others.
    references : str
        Whether scoring reads references, a key of :data:`REFERENCES`: ``"required"`` (most metrics),
        ``"optional"`` (the model decides: COMET with a reference-free CometKiwi checkpoint) or ``"none"``
        (quality estimation, ``metricx-qe``: references are never read, so ``-r`` is left out).

    Examples
    --------
    >>> from nlpeval.metrics import registry
    >>> rouge = registry.get("rougeLsum")
    >>> rouge.matches("rougeLsum"), rouge.display("rougeLsum"), rouge.defaults()["sentence_splitter"]
    (True, 'rougeLsum', 'newline')
    """

    name: str
    factory: str
    family: str
    card: str
    label: str
    pattern: str | None = None
    scale: float = 100.0
    higher_is_better: bool = True
    decomposes: bool = True
    needs_sources: bool = False
    needs_model: bool = False
    flavors: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()
    option_group: str = ""
    inputs: str = "text"
    references: str = "required"

    @property
    def reference_free(self) -> bool:
        """Whether the metric may be scored without references (``references`` is ``optional`` or ``none``)."""
        return self.references != "required"

    def matches(self, name: str) -> bool:
        """Whether ``name`` is this entry's name or fully matches its pattern."""
        if self.pattern is None:
            return name == self.name
        return re.fullmatch(self.pattern, name) is not None

    def display(self, name: str) -> str:
        """The column label of ``name``: the entry's label when ``name`` is it in lower case, else ``name``."""
        return self.label if name == self.label.lower() else name

    def defaults(self) -> dict[str, Any]:
        """Option name -> default value."""
        return {option.name: option.default for option in self.options}

    def build(self, name: str | None = None, options: Mapping[str, Any] | None = None) -> "CorpusMetric":
        """The metric ``name`` (default: this entry's name) with ``options`` over the defaults.

        Keys of ``options`` that are no option of this entry are ignored (one mapping of
        options can configure several metrics); use :func:`check_options` to refuse unknown keys.
        """
        if name is None:
            if self.pattern is not None:
                raise ValueError(f"{self.name} is a family of names; give one, e.g. build('{self.label.lower()}1')")
            name = self.name
        values = self.defaults()
        if options:
            values.update((key, value) for key, value in options.items() if key in values)
        module, function = self.factory.split(":")
        make: Callable[[str, Mapping[str, Any]], CorpusMetric] = getattr(import_module(module), function)
        return make(name, values)


class _Registry:
    """The loaded entries, indexed (a plain class: a third named tuple class costs start-up time for nothing)."""

    __slots__ = ("entries", "exact", "options", "patterns")

    def __init__(
        self,
        exact: dict[str, MetricEntry],
        patterns: tuple[MetricEntry, ...],
        entries: tuple[MetricEntry, ...],
        options: dict[str, Option],
    ) -> None:
        self.exact, self.patterns, self.entries, self.options = exact, patterns, entries, options


_loaded: list[_Registry] = []


def _entry_modules() -> list[str]:
    """Every entry module of :data:`ENTRY_PACKAGE`, by file name (a directory listing, no imports)."""
    package = import_module(ENTRY_PACKAGE)
    found = set()
    for folder in package.__path__:
        try:
            files = os.listdir(folder)
        except OSError:  # pragma: no cover - a path entry that vanished
            continue
        for file in files:
            stem, dot, suffix = file.partition(".")
            if dot and suffix in ("py", "pyc") and stem.isidentifier() and not stem.startswith("_"):
                found.add(stem)
    return [f"{ENTRY_PACKAGE}.{stem}" for stem in sorted(found)]


def _load() -> _Registry:
    if _loaded:
        return _loaded[0]
    exact: dict[str, MetricEntry] = {}
    patterns: list[MetricEntry] = []
    options: dict[str, Option] = {}
    flags: dict[str, str] = {}  # flag -> option name
    entries: list[MetricEntry] = []
    for module in _entry_modules():
        for entry in getattr(import_module(module), "ENTRIES", ()):
            _check_entry(entry, module, exact, patterns, options, flags)
            entries.append(entry)
            if entry.pattern is None:
                exact[entry.name] = entry
            else:
                patterns.append(entry)
    _loaded.append(_Registry(exact, tuple(patterns), tuple(entries), options))
    return _loaded[0]


def _check_entry(
    entry: MetricEntry,
    module: str,
    exact: dict[str, MetricEntry],
    patterns: list[MetricEntry],
    options: dict[str, Option],
    flags: dict[str, str],
) -> None:
    """Refuse an entry that clashes with the ones before it (a name, a flag, an option declared twice)."""
    if not isinstance(entry, MetricEntry):
        raise TypeError(f"{module}: ENTRIES holds {entry!r}, not a MetricEntry")
    if entry.inputs not in INPUTS:
        raise ValueError(f"{module}: inputs of {entry.name!r} is {entry.inputs!r}; known: {', '.join(INPUTS)}")
    if entry.references not in REFERENCES:
        raise ValueError(
            f"{module}: references of {entry.name!r} is {entry.references!r}; known: {', '.join(REFERENCES)}"
        )
    if ":" not in entry.factory:
        raise ValueError(f"{module}: factory of {entry.name!r} is not 'module:function': {entry.factory!r}")
    clash = exact.get(entry.name) or next((p for p in patterns if p.name == entry.name), None)
    if clash is not None:
        raise ValueError(f"{module}: the metric name {entry.name!r} is registered twice")
    if entry.pattern is None:
        taken = next((p for p in patterns if p.matches(entry.name)), None)
        if taken is not None:
            raise ValueError(f"{module}: {entry.name!r} is already matched by {taken.name!r}")
    for option in entry.options:
        known = options.get(option.name)
        if known is not None:  # the family's other entries, or a shared option: one declaration
            if known is not option and known != option:
                raise ValueError(
                    f"{module}: option {option.name!r} ({option.flag}) is declared differently by another "
                    "family; share one Option object"
                )
            continue
        if option.type not in OPTION_TYPES:
            raise ValueError(f"{module}: option {option.name!r} has type {option.type!r}; known: {OPTION_TYPES}")
        if option.choices is not None and option.default is not None and option.default not in option.choices:
            raise ValueError(f"{module}: the default of {option.flag} is not one of its choices")
        owner = flags.setdefault(option.flag, option.name)
        if owner != option.name:
            raise ValueError(f"{module}: the flag {option.flag} is taken by option {owner!r}")
        options[option.name] = option


def _declared(name: str) -> MetricEntry | None:
    """The entry of the exact name ``name`` from the one entry module named like it, or None.

    Before every entry module is loaded, a name is looked for first in the entry modules whose file
    name starts it (``chrf++`` in ``entries/chrf.py``), the longest first: ``nlpeval score -m bleu,chrf``
    then imports two entry modules, not every one. Names are unique across modules (:func:`_load` refuses
    a second declaration), so an exact name found there is the entry :func:`get` would find in the whole
    registry; anything else (a pattern, a name declared in another module, an unknown name) is looked up in
    the whole registry. The entries found are those of the full load: the modules are imported once.
    """
    if _loaded:
        return None
    key = name.lower()
    modules = [module for module in _entry_modules() if key.startswith(module.rpartition(".")[2])]
    for module in sorted(modules, key=len, reverse=True):
        for entry in getattr(import_module(module), "ENTRIES", ()):
            if isinstance(entry, MetricEntry) and entry.pattern is None and entry.name == name:
                return entry
    return None


def find(name: str) -> MetricEntry | None:
    """The entry of the exact metric name ``name`` if it is found without reading every entry module, else None.

    Before the registry is loaded, only the entry modules whose file name starts ``name`` are read
    (``chrf++``: ``entries/chrf.py``); None for a pattern's name, a name declared elsewhere, an unknown name.
    ``nlpeval score`` uses it to build the flags of the metrics it is asked for only; :func:`get` is the
    look-up that always answers.

    Examples
    --------
    >>> find("chrf++").label, find("rouge2"), find("no-such-metric")
    ('chrF++', None, None)
    """
    if _loaded:
        return _loaded[0].exact.get(name)
    return _declared(name)


def reload() -> None:
    """Forget the loaded entries, so that the next call reads the entry modules again (tests, plugins)."""
    _loaded.clear()


def entries() -> tuple[MetricEntry, ...]:
    """Every entry, family by family (entry modules in file-name order), in declaration order.

    Examples
    --------
    >>> [e.name for e in entries() if e.family == "wer"]
    ['wer', 'cer', 'mer', 'wil', 'wip']
    """
    return _load().entries


def names() -> tuple[str, ...]:
    """Every name ``nlpeval score -m`` accepts, patterns in their readable form.

    Examples
    --------
    >>> "bleu" in names() and "chrf++" in names() and "rouge1..rouge9" in names()
    True
    """
    return tuple(entry.name for entry in entries())


def get(name: str) -> MetricEntry:
    """The entry of a metric name as ``nlpeval score -m`` takes it (exact names, then patterns).

    Raises
    ------
    UnknownMetricError
        A :class:`ValueError` whose message suggests close names and lists every known one.

    Examples
    --------
    >>> get("rouge2").family
    'rouge'
    >>> get("blue")
    Traceback (most recent call last):
    ...
    nlpeval.metrics.registry.UnknownMetricError: unknown metric 'blue'; did you mean 'bleu'? Known: bleu, ...
    """
    declared = _declared(name)
    if declared is not None:
        return declared
    registry = _load()
    entry = registry.exact.get(name)
    if entry is not None:
        return entry
    for entry in registry.patterns:
        if entry.matches(name):
            return entry
    import difflib

    by_key = {key.lower(): key for key in registry.exact}
    close = [by_key[c] for c in difflib.get_close_matches(name.lower(), list(by_key), n=3, cutoff=0.6)]
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else "."
    raise UnknownMetricError(f"unknown metric {name!r}{hint} Known: {', '.join(names())}")


def text_entry(name: str) -> MetricEntry:
    """:func:`get` for the commands that score texts (``score``, ``report``, the integrations, Dask).

    Raises
    ------
    UnknownMetricError
        For an unknown name.
    MetricInputsError
        For a name whose metric scores other inputs (a retrieval measure): the message names the command.

    Examples
    --------
    >>> text_entry("chrf").family
    'chrf'
    >>> text_entry("ndcg@10")
    Traceback (most recent call last):
    ...
    nlpeval.metrics.registry.MetricInputsError: ndcg@10 is a retrieval measure: it scores a ranked run ...
    """
    entry = get(name)
    if entry.inputs != "text":
        raise MetricInputsError(f"{name} is {INPUTS[entry.inputs].format(name=name)}")
    return entry


def build(name: str, options: Mapping[str, Any] | None = None) -> "CorpusMetric":
    """The configured metric ``name`` with ``options`` (option name -> value) over the defaults.

    Examples
    --------
    >>> build("bleu", {"tokenize": "char"}).tokenize
    'char'
    """
    return get(name).build(name, options)


def options() -> dict[str, Option]:
    """Every option of every entry, by name (an option shared by families appears once)."""
    return dict(_load().options)


def option_defaults() -> dict[str, Any]:
    """Option name -> default over every entry (what ``nlpeval score`` starts from).

    Examples
    --------
    >>> option_defaults()["chrf_char_order"], option_defaults()["tokenize"]
    (6, None)
    """
    return {name: option.default for name, option in _load().options.items()}


def check_options(keys: Iterable[str]) -> None:
    """Refuse keys that are no option of any entry (a :class:`ValueError` naming the first)."""
    known = _load().options
    for key in keys:
        if key not in known:
            raise ValueError(f"unknown metric option {key!r}")


def option_groups(among: Iterable[MetricEntry] | None = None) -> list[tuple[str, tuple[Option, ...]]]:
    """(group title, options) per family, each option in the first family that declares it.

    The command line adds one group of flags per item; the cards read the same declarations. ``among``
    (default every entry) limits the groups to the families of those entries: ``nlpeval score -m bleu,chrf``
    parses its command line with the flags of BLEU and chrF only when no other flag is given.

    Examples
    --------
    >>> title, options = option_groups()[0]
    >>> title, options[0].flag
    ('BLEU options', '--tokenize')
    >>> [title for title, _ in option_groups([get("bleu")])]
    ['BLEU options']
    """
    seen: set[str] = set()
    groups: list[tuple[str, tuple[Option, ...]]] = []
    families: set[str] = set()
    for entry in entries() if among is None else among:
        if entry.family in families:
            continue
        families.add(entry.family)
        fresh = tuple(option for option in entry.options if option.name not in seen)
        seen.update(option.name for option in fresh)
        if fresh:
            groups.append((entry.option_group or f"{entry.label} options", fresh))
    return groups


__all__ = [
    "ENTRY_PACKAGE",
    "INPUTS",
    "OPTION_TYPES",
    "MetricEntry",
    "MetricInputsError",
    "Option",
    "UnknownMetricError",
    "build",
    "check_options",
    "entries",
    "find",
    "get",
    "names",
    "option_defaults",
    "option_groups",
    "options",
    "reload",
    "text_entry",
]
