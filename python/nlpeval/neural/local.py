"""Models from local files only: a folder, or a hub name resolved inside the local Hugging Face cache.

nlpeval never downloads a model. ``model`` is either a local folder (or file), or a hub name such as
``roberta-large`` / ``Unbabel/wmt22-comet-da`` that is looked up in the cache layout ``huggingface_hub``
writes (``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else ``~/.cache/huggingface/hub``:
``models--<org>--<name>/snapshots/<revision>/``, the revision named by ``refs/main``). Anything missing
raises :class:`ModelNotFoundError` naming what was looked for, where, and how to place it.
"""

from __future__ import annotations

import hashlib
import os
import re
from functools import lru_cache
from pathlib import Path

from nlpeval.core.errors import InputError

#: a hub model name: ``name`` or ``org/name``
_HUB_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?")

#: weight files hashed into a signature, in this order of preference
WEIGHT_PATTERNS = ("*.safetensors", "pytorch_model*.bin", "*.ckpt", "*.bin", "*.pt")


class ModelNotFoundError(InputError):
    """A model (or one of its files) is not on this machine; nlpeval does not download it.

    Examples
    --------
    >>> str(ModelNotFoundError("BERTScore model 'x' not found"))
    "BERTScore model 'x' not found"
    """


def hub_cache() -> Path:
    """The Hugging Face hub cache folder this process would use.

    Examples
    --------
    >>> isinstance(hub_cache(), Path)
    True
    """
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "huggingface" / "hub"


def cached_snapshot(name: str, cache: Path | None = None) -> Path | None:
    """The snapshot folder of hub model ``name`` in the local cache, or None.

    ``refs/main`` names the revision when present; otherwise a single snapshot is taken.

    Examples
    --------
    >>> cached_snapshot("no-such/model", Path("/nonexistent")) is None
    True
    """
    root = (cache or hub_cache()) / ("models--" + name.replace("/", "--"))
    snapshots = root / "snapshots"
    ref = root / "refs" / "main"
    if ref.is_file():
        folder = snapshots / ref.read_text(encoding="utf-8").strip()
        if folder.is_dir():
            return folder
    if snapshots.is_dir():
        folders = sorted(path for path in snapshots.iterdir() if path.is_dir())
        if len(folders) == 1:
            return folders[0]
    return None


def resolve_model(model: str | os.PathLike[str], *, metric: str, what: str = "model") -> Path:
    """The local folder (or file) of ``model``: a path as given, or a hub name found in the local cache.

    Raises
    ------
    ModelNotFoundError
        Neither a local path nor in the hub cache; the message says where nlpeval looked.

    Examples
    --------
    >>> resolve_model("/nonexistent/roberta", metric="BERTScore")
    Traceback (most recent call last):
    ...
    nlpeval.neural.local.ModelNotFoundError: BERTScore model '/nonexistent/roberta' not found: no such file or ...
    """
    text = os.fspath(model)
    path = Path(text).expanduser()
    if path.exists():
        return path
    looks_like_path = _HUB_NAME.fullmatch(text) is None
    if looks_like_path:
        raise ModelNotFoundError(
            f"{metric} {what} {text!r} not found: no such file or folder "
            "(nlpeval never downloads models; pass the folder holding the model)"
        )
    cache = hub_cache()
    snapshot = cached_snapshot(text, cache)
    if snapshot is not None:
        return snapshot
    raise ModelNotFoundError(
        f"{metric} {what} {text!r} not found: not a local folder, and not in the Hugging Face cache "
        f"(looked for {cache / ('models--' + text.replace('/', '--'))}/snapshots/); nlpeval never downloads "
        f"models: place it there with `huggingface-cli download {text}` on a machine with network access "
        "(or set HF_HOME), or pass the local folder holding it"
    )


def require_file(folder: Path, names: tuple[str, ...], *, metric: str, what: str) -> Path:
    """The first of ``names`` present in ``folder``, or a :class:`ModelNotFoundError` listing them all."""
    for name in names:
        if (folder / name).is_file():
            return folder / name
    raise ModelNotFoundError(
        f"{metric} {what} not found in {folder}: looked for {', '.join(names)} (nlpeval never downloads models)"
    )


def weight_files(path: Path) -> list[Path]:
    """The weight files of a model folder (or the file itself), sorted by name."""
    if path.is_file():
        return [path]
    for pattern in WEIGHT_PATTERNS:
        found = sorted(p for p in path.glob(pattern) if p.is_file())
        if found:
            return found
    return []


def weights_sha256(path: Path) -> str:
    """SHA-256 of a model's weight files (concatenated in name order), for its signature.

    Cached per file (device, inode, size, modification and change times) within the process and on disk in
    nlpeval's cache folder (``$NLPEVAL_CACHE_DIR``, private files: :func:`nlpeval.core.cache.write_private`),
    so a checkpoint of a gigabyte is read through once, not at every run; any write to a weight file
    changes its change time and so its key.

    Examples
    --------
    >>> weights_sha256(Path("/nonexistent"))
    'none'
    """
    files = weight_files(path)
    if not files:
        return "none"
    keys = []
    for p in files:
        found = p.resolve().stat()
        keys.append((str(p.resolve()), found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns))
    return _sha256_of(tuple(keys))


@lru_cache(maxsize=32)
def _sha256_of(keys: tuple[tuple[str, int, int, int, int, int], ...]) -> str:
    from nlpeval.core.cache import cache_folder, read_private, write_private

    folder = cache_folder()
    stored = None
    if folder is not None:
        name = hashlib.sha256(repr(keys).encode("utf-8")).hexdigest()
        stored = folder / "weights-sha256" / f"{name}.txt"
        data = read_private(stored)
        if data is not None and re.fullmatch(rb"[0-9a-f]{64}", data):
            return data.decode("ascii")
    digest = hashlib.sha256()
    for key in keys:
        with open(key[0], "rb") as handle:
            while chunk := handle.read(1 << 22):
                digest.update(chunk)
    if stored is not None:
        write_private(stored, digest.hexdigest().encode("ascii"))
    return digest.hexdigest()
