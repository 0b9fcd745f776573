"""Redis keys built from values people choose (user names, session ids)."""

from __future__ import annotations

import hashlib


def redis_key(namespace: str, *parts: object) -> str:
    """``namespace:`` followed by a digest of the parts, each length-prefixed first: user
    "u1:s1" with session "x" and user "u1" with session "s1:x" never share a key, and no
    part can reach into another namespace."""
    joined = "".join(f"{len(str(part))}:{part}" for part in parts)
    return f"{namespace}:{hashlib.sha256(joined.encode()).hexdigest()[:32]}"
