"""Reads a streaming replica may serve: the search, and the selectors it calls.

A read-only path runs inside ``replica_reads()``. There, the ORM's reads go to the chosen
replica (``ReplicaRouter.db_for_read``) and raw SQL asks ``read_connection()``; writes always
go to the primary (the search log is written after the search, outside the block). Outside
such a block everything reads the primary, so a page that has just written reads its own
writes.

Which replica: one at random among the healthy, for the whole block (one snapshot's worth
of consistency: a search's statements all see the same replica). Healthy: it answers, and
its replay is no more than ``DATABASE_REPLICA_MAX_LAG_SECONDS`` behind (the searchable
promise: an upload is searchable within 2 s). Each process checks a replica at most once a
second. A replica down or lagging is skipped and the change logged once; with none left the
primary serves, so a search is never refused because a replica is.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.backends.base.base import BaseDatabaseWrapper

logger = logging.getLogger(__name__)

CHECK_EVERY_SECONDS = 1.0
# Replay lag: 0 when everything received is replayed (an idle primary sends nothing, and the
# last replayed transaction's age would grow forever); otherwise the age of the last one
# replayed. A server not in recovery (a promoted replica) has no lag.
_LAG_SQL = """
SELECT CASE WHEN NOT pg_is_in_recovery() THEN 0
            WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
            ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0)
       END"""

_reading_from: ContextVar[str | None] = ContextVar("portality_replica", default=None)


@dataclass
class ReplicaState:
    healthy: bool
    lag_seconds: float | None  # None: unreachable
    reason: str
    checked_at: float


_states: dict[str, ReplicaState] = {}


def replica_aliases() -> list[str]:
    return list(settings.DATABASE_REPLICAS)


@contextmanager
def replica_reads() -> Iterator[str]:
    """Reads inside go to a healthy replica (or the primary); the alias chosen."""
    if _reading_from.get() is not None:  # nested: keep the outer block's choice
        yield _reading_from.get() or DEFAULT_DB_ALIAS
        return
    alias = choose_replica() or DEFAULT_DB_ALIAS
    token = _reading_from.set(alias)
    try:
        yield alias
    finally:
        _reading_from.reset(token)


def read_alias() -> str:
    return _reading_from.get() or DEFAULT_DB_ALIAS


def read_connection() -> BaseDatabaseWrapper:
    """The connection raw read-only SQL runs on: the block's replica, or the primary."""
    return connections[read_alias()]


def choose_replica() -> str | None:
    healthy = [alias for alias in replica_aliases() if replica_state(alias).healthy]
    return random.choice(healthy) if healthy else None


def replica_state(alias: str) -> ReplicaState:
    """The replica's health, checked at most once a second per process."""
    known = _states.get(alias)
    if known and time.monotonic() - known.checked_at < CHECK_EVERY_SECONDS:
        return known
    state = _check(alias)
    if known is None or known.healthy != state.healthy:
        log = logger.info if state.healthy else logger.warning
        log("read replica %s %s", alias, state.reason)
    _states[alias] = state
    return state


def _check(alias: str) -> ReplicaState:
    now = time.monotonic()
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute(_LAG_SQL)
            lag = float(cursor.fetchone()[0])
    except DatabaseError as exc:
        connections[alias].close()  # the next check connects afresh
        reason = f"is down, the primary serves its reads: {str(exc).strip()[:200]}"
        return ReplicaState(False, None, reason, now)
    limit = settings.DATABASE_REPLICA_MAX_LAG_SECONDS
    if lag > limit:
        reason = f"lags {lag:.1f} s (over {limit:g} s), the primary serves its reads"
        return ReplicaState(False, lag, reason, now)
    return ReplicaState(True, lag, f"serves reads ({lag:.1f} s behind)", now)


def replica_states_forget() -> None:
    _states.clear()


class ReplicaRouter:
    """Django's router: reads in a ``replica_reads()`` block go to its replica."""

    def db_for_read(self, model: type[Any], **hints: Any) -> str | None:
        return _reading_from.get()

    def db_for_write(self, model: type[Any], **hints: Any) -> str | None:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True  # the replicas hold the primary's rows

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == DEFAULT_DB_ALIAS
