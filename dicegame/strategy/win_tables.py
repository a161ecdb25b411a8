"""The final-total distributions (`outcomes`) on disk: optional, built by a command, checksummed.

`python manage.py build_strategy --win-tables` builds them (about 5 minutes on one core; run it niced)
and writes two files beside the strategy table: the masses, float32, as a .npy that every process maps
into memory (one copy in the page cache, however many processes), and a small .npz with the index (each
state's row, each row's first total and start), the format version, the rules fingerprint, the layers
covered and the SHA-256 of both. A file is used only if all of it matches; anything else is a
`StaleCache`, and the computer that plays to win plays the expected-total game instead. Nothing builds
them on demand. Writes are atomic (a temporary file, then os.replace), the masses first.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import cache
from .cache import StaleCache
from .outcomes import Outcomes

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
ENV_VAR = "PENTA_WIN_TABLES_PATH"
_BLOCK = 1 << 24


def default_path() -> Path:
    """$PENTA_WIN_TABLES_PATH, else var/strategy/penta-outcomes-v<FORMAT_VERSION>.npz beside the
    strategy table (the masses in the .npy of the same name)."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    return cache.default_path().parent / f"penta-outcomes-v{FORMAT_VERSION}.npz"


def on_disk() -> bool:
    """Whether tables were built at the default path (not yet whether they are sound: `load` checks)."""
    return default_path().exists()


def data_path(path: Path) -> Path:
    return Path(path).with_suffix(".npy")


def _digest(*arrays: np.ndarray) -> str:
    h = hashlib.sha256()
    for a in arrays:
        flat = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
        for lo in range(0, len(flat), _BLOCK):
            h.update(flat[lo : lo + _BLOCK])
    return h.hexdigest()


def _index(outcomes: Outcomes) -> dict[str, np.ndarray]:
    return {
        "row_of": np.ascontiguousarray(outcomes.row_of, dtype="<i4"),
        "lo": np.ascontiguousarray(outcomes.lo, dtype="<i4"),
        "start": np.ascontiguousarray(outcomes.start, dtype="<i8"),
    }


def _atomic(path: Path, write) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save(path: Path, outcomes: Outcomes) -> None:
    """Write the tables (masses as float32) atomically: the masses, then the index that vouches for them."""
    path = Path(path)
    data = np.ascontiguousarray(outcomes.data, dtype="<f4")
    index = _index(outcomes)
    _atomic(data_path(path), lambda f: np.save(f, data, allow_pickle=False))
    _atomic(
        path,
        lambda f: np.savez(
            f,
            **index,
            format_version=np.array(FORMAT_VERSION),
            rules_fingerprint=np.array(cache.rules_fingerprint()),
            min_layer=np.array(outcomes.min_layer),
            data_checksum=np.array(_digest(data)),
            index_checksum=np.array(_digest(*index.values())),
        ),
    )


def load(path: Path | None = None) -> Outcomes:
    """The tables stored at `path` (read-only, the masses mapped from disk), or StaleCache saying why
    they cannot be used. Checks every byte against its SHA-256 (about a second for the full tables)."""
    path = Path(path) if path is not None else default_path()
    names = {"row_of", "lo", "start", "format_version", "rules_fingerprint", "min_layer"}
    names |= {"data_checksum", "index_checksum"}
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = names - set(z.files)
            if missing:
                raise StaleCache(f"{path}: missing {sorted(missing)}")
            if int(z["format_version"]) != FORMAT_VERSION:
                raise StaleCache(
                    f"{path}: format version {int(z['format_version'])}, expected {FORMAT_VERSION}"
                )
            if str(z["rules_fingerprint"]) != cache.rules_fingerprint():
                raise StaleCache(f"{path}: built for other rules")
            index = {k: z[k] for k in ("row_of", "lo", "start")}
            min_layer = int(z["min_layer"])
            data_sum, index_sum = str(z["data_checksum"]), str(z["index_checksum"])
        data = np.load(data_path(path), mmap_mode="r", allow_pickle=False)
    except FileNotFoundError as exc:
        raise StaleCache(f"{exc.filename or path}: no such file") from None
    except StaleCache:
        raise
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise StaleCache(f"{path}: unreadable ({exc})") from None
    if _digest(*index.values()) != index_sum:
        raise StaleCache(f"{path}: index checksum mismatch")
    if data.dtype != np.dtype("<f4") or data.ndim != 1 or len(data) != int(index["start"][-1]):
        raise StaleCache(f"{data_path(path)}: masses of shape {data.shape} and type {data.dtype}")
    if _digest(data) != data_sum:
        raise StaleCache(f"{data_path(path)}: checksum mismatch")
    for a in index.values():
        a.flags.writeable = False
    return Outcomes(index["row_of"], index["lo"], index["start"], data, min_layer)


@lru_cache(maxsize=1)
def shared() -> Outcomes | None:
    """This process's tables, loaded on first use; None (and a log line) where there are none to use."""
    try:
        return load()
    except StaleCache as exc:
        log.info("no tables for playing to win, the expected-total play stands in: %s", exc)
        return None
