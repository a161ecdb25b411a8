"""The server's VAPID key pair, which signs every Web Push request (RFC 8292): from the environment in
production (PENTA_VAPID_PRIVATE_KEY, a PEM or the raw key in base64url); made on first use and kept
under var/ when DEBUG is on (`make run`) or in the tests. Without a key, Web Push is off."""

from __future__ import annotations

import base64
import functools
import logging
import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from django.conf import settings
from py_vapid import Vapid02

logger = logging.getLogger(__name__)


@functools.cache
def vapid() -> Vapid02 | None:
    configured = settings.PENTA_VAPID_PRIVATE_KEY
    if configured:
        key = configured.strip()
        return Vapid02.from_pem(key.encode()) if key.startswith("-----") else Vapid02.from_raw(key.encode())
    if not settings.PENTA_VAPID_GENERATE:
        logger.warning("Web Push is off: PENTA_VAPID_PRIVATE_KEY is not set")
        return None
    path = Path(settings.PENTA_VAPID_KEY_FILE)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        made = Vapid02()
        made.generate_keys()
        # Written whole, then linked in place unless another process starting at once was first: every
        # process then reads the one key that won.
        draft = path.with_name(f"{path.name}.{os.getpid()}")
        made.save_key(str(draft))
        draft.chmod(0o600)
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return Vapid02.from_file(str(path))


def application_server_key() -> str:
    """The public key a browser subscribes with (base64url of the uncompressed point), "" when off."""
    keys = vapid()
    if keys is None:
        return ""
    raw = keys.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
