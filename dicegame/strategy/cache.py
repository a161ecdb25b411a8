"""The solved table on disk: a versioned .npz with a checksum, written atomically, never trusted blindly.

A file is used only if it is a readable zip holding the expected arrays, its format version and rules
fingerprint match this code, and the SHA-256 of the value bytes matches the one stored beside them.
Anything else (missing, truncated, corrupt, older format, rules changed) is a `StaleCache`, and the
caller rebuilds. Writes go to a temporary file in the same directory and are moved into place with
os.replace, so concurrent processes (pytest-xdist workers, several servers) see either no file or a
whole one.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from dicegame.rules import scoring

from . import tables as T

FORMAT_VERSION = 1
ENV_VAR = "PENTA_STRATEGY_PATH"
SHAPE = (1 << T.N_BOXES, T.N_UPPER, 2)
_REPO_ROOT = Path(__file__).resolve().parents[2]


class StaleCache(Exception):
    """The cache file cannot be used; the message says why."""


def default_path() -> Path:
    """$PENTA_STRATEGY_PATH, else <repo root>/var/strategy/penta-strategy-v<FORMAT_VERSION>.npz."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    return _REPO_ROOT / "var" / "strategy" / f"penta-strategy-v{FORMAT_VERSION}.npz"


def rules_fingerprint() -> str:
    """A digest of every rule the table depends on, so a change to the scoring rules invalidates it."""
    h = hashlib.sha256()
    for array in (T.SCORE, T.JOKER_SCORE):
        h.update(np.ascontiguousarray(array, dtype="<i8").tobytes())
    constants = (
        scoring.UPPER_BONUS,
        scoring.UPPER_BONUS_THRESHOLD,
        scoring.PENTA_SCORE,
        scoring.PENTA_BONUS,
        tuple(b.name for b in scoring.Box),
        tuple(b.name for b in scoring.JOKER_LOWER_BOXES),
        "joker only while the Penta box holds 50",
    )
    h.update(repr(constants).encode())
    return h.hexdigest()


def checksum(values: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(values, dtype="<f8").tobytes()).hexdigest()


def save(path: Path, values: np.ndarray) -> None:
    """Write the table atomically (temporary file in the same directory, then os.replace)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(
                f,
                values=np.ascontiguousarray(values, dtype="<f8"),
                format_version=np.array(FORMAT_VERSION),
                rules_fingerprint=np.array(rules_fingerprint()),
                checksum=np.array(checksum(values)),
            )
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load(path: Path) -> np.ndarray:
    """The table stored at `path` (read-only), or StaleCache saying why it cannot be used."""
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = {"values", "format_version", "rules_fingerprint", "checksum"} - set(z.files)
            if missing:
                raise StaleCache(f"{path}: missing {sorted(missing)}")
            version = int(z["format_version"])
            if version != FORMAT_VERSION:
                raise StaleCache(f"{path}: format version {version}, expected {FORMAT_VERSION}")
            if str(z["rules_fingerprint"]) != rules_fingerprint():
                raise StaleCache(f"{path}: built for other rules")
            values = z["values"]
            stored = str(z["checksum"])
    except FileNotFoundError:
        raise StaleCache(f"{path}: no such file") from None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise StaleCache(f"{path}: unreadable ({exc})") from None
    if values.shape != SHAPE or values.dtype != np.dtype("<f8"):
        raise StaleCache(f"{path}: values of shape {values.shape} and type {values.dtype}")
    if checksum(values) != stored:
        raise StaleCache(f"{path}: checksum mismatch")
    values.flags.writeable = False
    return values
