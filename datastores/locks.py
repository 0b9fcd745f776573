"""PostgreSQL advisory locks. Session locks keyed by a UUID: one holder at a time, released
however the holder ends — a killed process's connection closes and PostgreSQL frees its
locks — so "nobody holds it" is also how a reader tells that work was interrupted. And
transaction locks keyed by names, for writes that must not run two at once."""

from __future__ import annotations

import contextlib
import hashlib
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


def transaction_lock(*names: object) -> None:
    """Hold the lock ``names`` stand for until the transaction ends (inside one: outside, it
    would end at once). For what a unique index cannot guard — a first row not written yet,
    a limit over several rows: the second of two requests at once waits, then sees the
    first's work instead of writing beside it or failing on the index."""
    if not connection.in_atomic_block:
        raise RuntimeError("A transaction lock is taken inside a transaction.")
    digest = hashlib.blake2b(repr(names).encode(), digest_size=8).digest()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [int.from_bytes(digest) % (2**63)])
