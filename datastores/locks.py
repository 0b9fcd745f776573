"""PostgreSQL session advisory locks keyed by a UUID: one holder at a time, released however
the holder ends — a killed process's connection closes and PostgreSQL frees its locks — so
"nobody holds it" is also how a reader tells that work was interrupted."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterable, Iterator

from django.db import connection


def lock_key(identifier: uuid.UUID | str) -> int:
    """A UUID as a bigint advisory-lock key."""
    return uuid.UUID(str(identifier)).int % (2**63)


def lock_try(key: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        return bool(cursor.fetchone()[0])


def lock_release(key: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(%s)", [key])


@contextlib.contextmanager
def lock_held(key: int) -> Iterator[bool]:
    """Hold ``key`` for the block when nobody else does; yields whether it was taken."""
    taken = lock_try(key)
    try:
        yield taken
    finally:
        if taken:
            lock_release(key)


def locks_held(keys: Iterable[int]) -> set[int]:
    """Which of ``keys`` some session holds now (read from pg_locks: nothing is taken).
    A bigint key shows there as its high and low 32 bits, with objsubid 1."""
    wanted = set(keys)
    if not wanted:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT (classid::bigint << 32) | objid::bigint FROM pg_locks
                WHERE locktype = 'advisory' AND objsubid = 1 AND granted"""
        )
        return wanted & {row[0] for row in cursor.fetchall()}
