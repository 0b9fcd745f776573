"""License keys: random 256-bit tokens, stored only as a hash, found by their prefix."""

from __future__ import annotations

import hashlib
import secrets

KEY_PREFIX = "pbk_"
PREFIX_LENGTH = 12  # "pbk_" + 8 characters: shown in the UI, indexed for lookup


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    # Keys are 256-bit random tokens, so a fast hash is enough (no dictionary to attack).
    return hashlib.sha256(key.encode()).hexdigest()
