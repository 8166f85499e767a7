"""WordNet 3.0 read straight from its database files, for METEOR's synonym stage.

Only the files every WordNet 3.0 distribution has are read: ``index.{noun,verb,adj,adv}``,
``data.*`` (looked up by byte offset, lazily) and the morphological exception lists
``*.exc``. A database is found, in this order, at

1. the ``wordnet=`` argument (a ``dict`` folder or NLTK's ``wordnet.zip``);
2. the ``NLPEVAL_WORDNET`` environment variable;
3. NLTK's data folders (``corpora/wordnet`` or ``corpora/wordnet.zip`` under
   ``$NLTK_DATA``, ``~/nltk_data``, ``<prefix>/share/nltk_data`` …);
4. Debian/Ubuntu's ``/usr/share/wordnet`` (package ``wordnet-base``).

Databases are opened once per process and cached. Nothing is downloaded.

The lemma index (``index.*``, 147,000 lemmas) is what a fresh process pays for: parsing
it takes about a tenth of a second. Unless ``NLPEVAL_CACHE_DIR`` is set to an empty
string, the parsed index is kept in ``$NLPEVAL_CACHE_DIR`` (default ``~/.cache/nlpeval``,
as the METEOR paraphrase table) as one file in the native side's byte layout (a sorted
string table, :class:`nlpeval._core.WordNetIndex`) keyed by the database's path, the
size and modification time of its index files and the layout's version, written
atomically (a temporary file and a rename, so concurrent processes never see half a
file) and memory-mapped: opening it reads its header only, lookups are binary searches
over the mapped bytes. A cache file that does not open (another version, cut short, a
damaged header) is ignored and rewritten; one that cannot be written is skipped.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

from nlpeval._native import WordNetIndex
from nlpeval.core.cache import CACHE_ENV, cache_folder, write_cache_file  # noqa: F401 (CACHE_ENV: re-exported)

#: Environment variable naming a WordNet folder or zip.
WORDNET_ENV = "NLPEVAL_WORDNET"

#: Part of speech -> file suffix, in NLTK's search order.
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}

#: Folders searched after the argument and the environment variable.
SYSTEM_FOLDERS = ("/usr/share/wordnet", "/usr/local/share/wordnet", "/usr/share/wordnet/dict")

#: NLTK's ``morphy`` detachment rules per part of speech.
MORPHY_RULES = {
    "n": (("s", ""), ("ses", "s"), ("ves", "f"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
          ("men", "man"), ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}  # fmt: skip

#: METEOR 1.5's suffix rules (``SynonymDictionary.morph``), tried in this order.
METEOR_SUFFIXES = (
    ("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
    ("ies", "y"), ("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"),
    ("ing", ""), ("er", ""), ("est", ""), ("er", "e"), ("est", "e"),
)  # fmt: skip

_MARKER = re.compile(r"(.*?)(\([^()]*\))?$")
_VERSION = re.compile(rb"Word[nN]et (\d+\.\d+) Copyright")

HOW_TO_GET = (
    "Install it with `apt-get install wordnet-base` (Debian/Ubuntu: /usr/share/wordnet), or "
    "`python -m nltk.downloader wordnet`, or point the NLPEVAL_WORDNET environment variable "
    "(or wordnet=PATH) at a WordNet 3.0 'dict' folder or NLTK's wordnet.zip"
)


class WordNetNotFoundError(FileNotFoundError):
    """No WordNet database was found where nlpeval looks for one.

    Examples
    --------
    >>> issubclass(WordNetNotFoundError, OSError)
    True
    """


def nltk_data_folders() -> list[Path]:
    """The folders NLTK searches for its data, without importing NLTK.

    Examples
    --------
    >>> any(p.name == "nltk_data" for p in nltk_data_folders())
    True
    """
    folders = [Path(p) for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    folders.append(Path.home() / "nltk_data")
    if sys.platform.startswith("win"):  # pragma: no cover - platform specific
        folders += [Path(sys.prefix, "nltk_data"), Path(sys.prefix, "share", "nltk_data")]
        folders += [Path(sys.prefix, "lib", "nltk_data"), Path(os.environ.get("APPDATA", "C:\\"), "nltk_data")]
        folders += [Path("C:\\nltk_data"), Path("D:\\nltk_data"), Path("E:\\nltk_data")]
    else:
        folders += [Path(sys.prefix, "nltk_data"), Path(sys.prefix, "share", "nltk_data")]
        folders += [Path(sys.prefix, "lib", "nltk_data")]
        folders += [Path(p) for p in ("/usr/share/nltk_data", "/usr/local/share/nltk_data")]
        folders += [Path(p) for p in ("/usr/lib/nltk_data", "/usr/local/lib/nltk_data")]
    return folders


def _is_database(path: Path) -> bool:
    if path.is_dir():
        return (path / "index.noun").is_file()
    return path.is_file() and zipfile.is_zipfile(path)


def _candidates() -> Iterator[Path]:
    env = os.environ.get(WORDNET_ENV)
    if env:
        yield Path(env)
    for base in nltk_data_folders():
        yield base / "corpora" / "wordnet"
        yield base / "corpora" / "wordnet.zip"
    for folder in SYSTEM_FOLDERS:
        yield Path(folder)


def find_wordnet(path: str | os.PathLike[str] | None = None) -> Path:
    """The WordNet database to use: ``path`` if given, else the first one found.

    Raises
    ------
    WordNetNotFoundError
        When ``path`` is not a WordNet database or none is found, with instructions.

    Examples
    --------
    >>> find_wordnet("/nonexistent")
    Traceback (most recent call last):
    ...
    nlpeval.metrics.meteor.wordnet.WordNetNotFoundError: /nonexistent is not a WordNet database ...
    """
    if path is not None:
        candidate = Path(path)
        if _is_database(candidate):
            return candidate
        raise WordNetNotFoundError(
            f"{candidate} is not a WordNet database (a folder with index.noun, data.noun, ... or NLTK's wordnet.zip)"
        )
    for candidate in _candidates():
        if _is_database(candidate):
            return candidate
    raise WordNetNotFoundError(f"METEOR's synonym module needs the WordNet 3.0 database, and none was found. "
                               f"{HOW_TO_GET}; or leave 'synonym' out of the modules.")  # fmt: skip


class WordNet:
    """A WordNet database: lemma index, exception lists and synsets by offset.

    Parameters
    ----------
    root : path
        A WordNet ``dict`` folder or NLTK's ``wordnet.zip``.

    Examples
    --------
    >>> wn = WordNet.open()  # doctest: +SKIP
    >>> sorted(wn.nltk_synonyms("dog"))[:3]  # doctest: +SKIP
    ['Canis_familiaris', 'Dog', 'andiron']
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._zip: zipfile.ZipFile | None = None
        self._zip_prefix = ""
        if root.is_file():
            self._zip = zipfile.ZipFile(root)
            names = [n for n in self._zip.namelist() if n.endswith("index.noun")]
            if not names:
                raise WordNetNotFoundError(f"{root} has no index.noun")
            self._zip_prefix = names[0][: -len("index.noun")]
        self._data: dict[str, bytes] = {}
        self._index: WordNetIndex | None = None
        self._entries: dict[str, dict[str, tuple[int, ...]]] = {}
        self._offsets: dict[tuple[str, str], tuple[int, ...]] = {}
        self._exceptions: dict[str, dict[str, list[str]]] | None = None
        self._lemma_names: dict[tuple[str, int], tuple[str, ...]] = {}
        self._nltk_synonyms: dict[str, frozenset[str]] = {}
        self._meteor_synsets: dict[str, frozenset[int]] = {}
        self._meteor_bases: dict[str, set[str]] | None = None
        self._exception_texts: list[str] | None = None

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None) -> WordNet:
        """The (cached) database at ``path``, or the one found automatically."""
        return _open_cached(str(find_wordnet(path).resolve()))

    def _read(self, name: str) -> bytes:
        if self._zip is not None:
            return self._zip.read(self._zip_prefix + name)
        return (self.root / name).read_bytes()

    @functools.cached_property
    def version(self) -> str:
        """The WordNet version in the data files' licence header, e.g. ``"3.0"``."""
        if self._zip is None and "a" not in self._data:
            with open(self.root / "data.adj", "rb") as handle:
                header = handle.read(4096)
        else:
            header = self._data_file("a")[:4096]
        match = _VERSION.search(header)
        return match.group(1).decode() if match else "unknown"

    def _data_file(self, pos: str) -> bytes:
        if pos not in self._data:
            self._data[pos] = self._read(f"data.{POS_FILES[pos]}")
        return self._data[pos]

    @property
    def index(self) -> WordNetIndex:
        """lemma -> its ``index.*`` entries, packed (read them with :meth:`synset_offsets`).

        Read from the disk cache when there is one (see the module docstring), else
        parsed from the database and cached.
        """
        if self._index is None:
            cache = _index_cache_file(self)
            index = _read_index_cache(cache) if cache is not None else None
            if index is None:
                parsed = self._parse_index()
                index = WordNetIndex.from_pairs(list(parsed), list(parsed.values()))
                if cache is not None:
                    write_cache_file(cache, index.to_bytes())
            self._index = index
        return self._index

    def _parse_index(self) -> dict[str, str]:
        # lemma -> "pos offset offset ...|pos ..." (a later line of a lemma and pos replaces an earlier one)
        index: dict[str, dict[str, str]] = {}
        for suffix in POS_FILES.values():
            for line in self._read(f"index.{suffix}").decode("utf-8").split("\n"):
                if not line or line[0] == " ":
                    continue
                lemma, pos, rest = line.split(" ", 2)
                fields = rest.split()
                offsets = " ".join(fields[len(fields) - int(fields[0]) :])
                entry = index.get(lemma)
                if entry is None:
                    index[lemma] = {pos: offsets}
                else:
                    entry[pos] = offsets
        return {lemma: "|".join(f"{pos} {offsets}" for pos, offsets in entry.items()) for lemma, entry in index.items()}

    def _entry(self, lemma: str) -> dict[str, tuple[int, ...]]:
        """part of speech -> synset offsets of ``lemma`` (empty when WordNet does not know it)."""
        entry = self._entries.get(lemma)
        if entry is None:
            packed = self.index.get(lemma)
            entry = {}
            if packed:
                for part in packed.split("|"):
                    pos, *offsets = part.split(" ")
                    entry[pos] = tuple(map(int, offsets))
            self._entries[lemma] = entry
        return entry

    def synset_offsets(self, lemma: str, pos: str) -> tuple[int, ...]:
        """Offsets of the synsets of ``lemma`` as ``pos`` (empty when WordNet has none)."""
        return self._entry(lemma).get(pos, ())

    @property
    def exceptions(self) -> dict[str, dict[str, list[str]]]:
        """part of speech -> inflected form -> base forms, from the ``*.exc`` files."""
        if self._exceptions is None:
            exceptions: dict[str, dict[str, list[str]]] = {}
            for pos, suffix in POS_FILES.items():
                table: dict[str, list[str]] = {}
                for line in self._read(f"{suffix}.exc").decode("utf-8").splitlines():
                    terms = line.split()
                    if terms:
                        table[terms[0]] = terms[1:]
                exceptions[pos] = table
            self._exceptions = exceptions
        return self._exceptions

    def lemma_names(self, pos: str, offset: int) -> tuple[str, ...]:
        """Lemma names of the synset at ``offset`` in ``data.<pos>`` (syntactic markers removed)."""
        key = (pos, offset)
        names = self._lemma_names.get(key)
        if names is None:
            data = self._data_file(pos)
            end = data.find(b"\n", offset)
            line = data[offset : end if end >= 0 else len(data)].decode("utf-8")
            # synset_offset lex_filenum ss_type w_cnt word lex_id [word lex_id ...] ...: split only that far
            fields = line.split("|", 1)[0].split(None, 4)
            if len(fields) < 4 or not fields[0].isdigit() or int(fields[0]) != offset:
                raise ValueError(f"WordNet data.{POS_FILES[pos]} has no synset at offset {offset}")
            count = int(fields[3], 16)
            words = fields[4].split(None, 2 * count)[: 2 * count : 2] if count else []
            names = tuple(map(_strip_marker, words))
            self._lemma_names[key] = names
        return names

    # NLTK's reading (nltk.corpus.reader.wordnet)

    def morphy(self, form: str, pos: str) -> list[str]:
        """NLTK's ``_morphy``: the base forms of ``form`` that WordNet knows for ``pos``."""
        exceptions = self.exceptions[pos]
        if form in exceptions:
            forms = exceptions[form]
        else:
            forms = [form[: -len(old)] + new for old, new in MORPHY_RULES[pos] if form.endswith(old)]
        seen: list[str] = []
        for candidate in [form, *forms]:
            if pos in self._entry(candidate) and candidate not in seen:
                seen.append(candidate)
        return seen

    def synsets(self, word: str) -> list[tuple[str, int]]:
        """NLTK's ``wordnet.synsets(word)``: ``(pos, offset)`` of every synset, in NLTK's order."""
        lemma = word.lower()
        return [
            (pos, offset)
            for pos in POS_FILES
            for form in self.morphy(lemma, pos)
            for offset in self.synset_offsets(form, pos)
        ]

    def nltk_synonyms(self, word: str) -> frozenset[str]:
        """The synonyms NLTK's METEOR accepts for ``word``: single-word lemma names of its synsets, and itself."""
        synonyms = self._nltk_synonyms.get(word)
        if synonyms is None:
            names = {name for pos, offset in self.synsets(word) for name in self.lemma_names(pos, offset)}
            synonyms = frozenset({name for name in names if "_" not in name} | {word})
            self._nltk_synonyms[word] = synonyms
        return synonyms

    # METEOR 1.5's reading (edu.cmu.meteor.aligner.SynonymDictionary)

    def offsets(self, lemma: str) -> frozenset[int]:
        """Synset offsets of ``lemma`` in all parts of speech (METEOR 1.5's ``getSynSets``)."""
        return frozenset(offset for offsets in self._entry(lemma).values() for offset in offsets)

    def _bases(self) -> dict[str, set[str]]:
        # every line of every exception list counts (NLTK's reading keeps the last line of a form)
        if self._meteor_bases is None:
            bases: dict[str, set[str]] = {}
            for suffix in POS_FILES.values():
                for line in self._read(f"{suffix}.exc").decode("utf-8").splitlines():
                    terms = line.split()
                    if terms:
                        bases.setdefault(terms[0], set()).update(terms[1:])
            self._meteor_bases = bases
        return self._meteor_bases

    def meteor_morph(self, word: str) -> str:
        """METEOR 1.5's ``morph``: the first suffix-stripped form WordNet knows, or ``""``.

        The rules are :data:`METEOR_SUFFIXES`, tried natively (``WordNetIndex.meteor_morph``).
        """
        return self.index.meteor_morph(word)

    def meteor_synsets(self, word: str) -> frozenset[int]:
        """Synset offsets METEOR 1.5 associates with ``word`` (its own and its base forms').

        As in METEOR, offsets from the four parts of speech share one number space,
        so a noun and a verb synset at the same byte offset count as one.
        """
        synsets = self._meteor_synsets.get(word)
        if synsets is None:
            bases = self._bases().get(word)
            if bases is not None:
                stem_synsets = frozenset().union(*(self.offsets(base) for base in bases))
            else:
                stem_synsets = self.offsets(self.meteor_morph(word))
            synsets = self.offsets(word) | stem_synsets
            self._meteor_synsets[word] = synsets
        return synsets

    def meteor_synsets_batch(self, words: list[str]) -> tuple[list[int], list[int]]:
        """:meth:`meteor_synsets` of every word, natively, flat (sorted per word) with lengths.

        The exception lists are read natively too, as :meth:`_bases` reads them.
        """
        if self._meteor_bases is not None:
            bases = self._meteor_bases
            return self.index.meteor_synsets(words, [sorted(b) if (b := bases.get(w)) is not None else None
                                                     for w in words])  # fmt: skip
        if self._exception_texts is None:
            self._exception_texts = [self._read(f"{s}.exc").decode("utf-8") for s in POS_FILES.values()]
        return self.index.meteor_synsets_exc(words, self._exception_texts)


def _strip_marker(word: str) -> str:
    """``word`` without a trailing syntactic marker such as ``(a)`` or ``(ip)`` (what ``_MARKER`` keeps).

    Examples
    --------
    >>> _strip_marker("galore(ip)"), _strip_marker("a(b)(c)"), _strip_marker("x(y)z"), _strip_marker("dog")
    ('galore', 'a(b)', 'x(y)z', 'dog')
    """
    if word.endswith(")"):
        start = word.rfind("(")
        if start >= 0 and ")" not in word[start + 1 : -1]:
            return word[:start]
    return word


@functools.lru_cache(maxsize=4)
def _open_cached(path: str) -> WordNet:
    return WordNet(Path(path))


# the parsed lemma index on disk

_INDEX_CACHE_FORMAT = 2


def _index_cache_file(wordnet: WordNet) -> Path | None:
    """The cache file of ``wordnet``'s index, named after the identity of its source files."""
    base = cache_folder()
    if base is None:
        return None
    root = wordnet.root.resolve()
    try:
        sources = [root] if wordnet._zip is not None else [root / f"index.{s}" for s in POS_FILES.values()]
        stats = [(str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in sources]
    except OSError:
        return None
    key = f"{_INDEX_CACHE_FORMAT}|{WordNetIndex.format}|{stats}"
    return base / f"wordnet-index-{hashlib.sha256(key.encode()).hexdigest()[:24]}.bin"


def _read_index_cache(cache: Path) -> WordNetIndex | None:
    """The index stored in ``cache``, mapped in place, or ``None`` when it is missing or does not open."""
    try:
        return WordNetIndex.open(str(cache))
    except (OSError, ValueError):
        return None
