"""The sealed track's key: its form (64 hex digits in ``$ICGBENCH_SEALED_KEY``), a fresh
one, and the public name that recognises a key without revealing it."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets

from icgbench.errors import UsageError
from icgbench.release.descriptor import SEALED_KEY_ENV

KEY_ENV = SEALED_KEY_ENV
KEY_BYTES = 32


def new_key() -> str:
    """A fresh key, as the 64 hex digits the environment variable takes."""
    return secrets.token_hex(KEY_BYTES)


def parse_key(text: str) -> bytes:
    """The key in ``text`` (64 hex digits), or a UsageError that does not echo it."""
    text = text.strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise UsageError(f"{KEY_ENV} must be {2 * KEY_BYTES} hex digits (a {8 * KEY_BYTES}-bit "
                         f"key); it is {len(text)} characters that are not")
    return key


def key_from_env() -> bytes | None:
    """The key in ``$ICGBENCH_SEALED_KEY``, or None when it is not set."""
    text = os.environ.get(KEY_ENV)
    return parse_key(text) if text else None


def key_id(key: bytes) -> str:
    """A public name for the key: recognises it, reveals nothing of it."""
    return "hmac-sha256:" + hmac.new(key, b"icgbench sealed key id", hashlib.sha256
                                     ).hexdigest()[:32]
