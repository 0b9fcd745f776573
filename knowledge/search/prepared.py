"""Run a hot read statement as a server-side prepared statement with a generic plan.

Why: the hybrid search statement is ~10 KB of SQL. Parsing it and planning it again for every
search cost ~2 ms of a ~8.5 ms search at 100k chunks ;
a prepared statement is parsed once per database session, and with a generic plan it is
planned once too. The generic plan suits this statement: whatever the scope, vector or
words, the best plan is the same (HNSW scan, GIN bitmap scan, fusion over ~100 rows), and
PostgreSQL replans by itself when an index or the table's statistics change.

The session runs with ``plan_cache_mode = force_generic_plan`` (set in knowledge.apps):
left to choose, PostgreSQL kept planning custom plans. The setting only affects prepared
statements, and this module is the only thing that prepares any: Django's psycopg backend
binds parameters on the client (its ``server_side_binding`` option is left off).

Why not psycopg's own prepared statements (``server_side_binding`` with ``prepare=True`` or
``prepare_threshold``): measured side by side on bench_search's 20k chunks
(``python -m tests.bench.prepared_statements``, 2026-11-29), they were 1.47–1.49× slower at
the median than this module, no faster than not preparing at all — the session setting must
then go in a round trip of its own, and the statement through the extended protocol; here
both go in one simple query.

Prepared statements live in the database session. Behind a transaction-pooling proxy
(PgBouncer in transaction mode) the next search may reach another session: set
``SEARCH_PREPARED_STATEMENTS=false`` there. A session that lost the statement (``DISCARD
ALL``) or a migration that changed a returned column's type is met by preparing again when
no transaction is open; inside one, the error is raised (the transaction is already lost)
and the next call prepares again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import re
import weakref
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from django.db import DatabaseError
from psycopg.errors import FeatureNotSupported, InvalidSqlStatementName

from datastores.replicas import read_connection

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
# Statements prepared in each open database session (keyed by the driver's connection
# object, which is replaced when Django reconnects, so a new session starts empty).
_prepared: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
# The statements a block of code runs, with their parameters, as it sends them (before a
# prepared statement turns them into EXECUTE): what `manage.py search --sql` prints.
_recorded: ContextVar[list[tuple[str, dict[str, Any]]] | None] = ContextVar(
    "recorded_statements", default=None
)


@contextlib.contextmanager
def statements_recorded() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    statements: list[tuple[str, dict[str, Any]]] = []
    token = _recorded.set(statements)
    try:
        yield statements
    finally:
        _recorded.reset(token)


def _record(sql: str, params: dict[str, Any]) -> None:
    recorded = _recorded.get()
    if recorded is not None:
        recorded.append((sql, dict(params)))


@functools.lru_cache(maxsize=32)
def prepared_form(sql: str) -> tuple[str, str, tuple[str, ...]]:
    """(statement name, PREPARE command, parameter names in $n order) for a statement
    written with ``%(name)s`` placeholders. The name is a digest of the text, so a changed
    statement is prepared anew rather than run in its old form."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match.group(1) not in names:
            names.append(match.group(1))
        return f"${names.index(match.group(1)) + 1}"

    body = _PLACEHOLDER.sub(number, sql).replace("%%", "%")
    name = "portality_" + hashlib.sha256(sql.encode()).hexdigest()[:20]
    return name, f"PREPARE {name} AS {body}", tuple(names)


def fetch_prepared(sql: str, params: dict[str, Any], *, first: str = "") -> list[dict[str, Any]]:
    """Rows of ``sql`` (``%(name)s`` placeholders) as dicts, through a prepared statement.
    ``first``: a parameterless statement (a setting) sent ahead of it in the same round trip."""
    _record(_after(first, sql), params)
    name, prepare, names = prepared_form(sql)
    connection = read_connection()  # the primary, or a replica in a replica_reads() block
    with connection.cursor() as cursor:
        done = _prepared.setdefault(connection.connection, set())
        if name not in done:
            # PREPARE is not transactional: a rollback of the surrounding transaction does
            # not undo it, so remembering it here stays true.
            cursor.execute(prepare)
            done.add(name)
        placeholders = ", ".join(["%s"] * len(names))
        execute = _after(first, f"EXECUTE {name}({placeholders})")
        values = [params[n] for n in names]
        try:
            cursor.execute(execute, values)
        except DatabaseError as error:
            if not _stale(error):
                raise
            # What this session holds is unknown now (DEALLOCATE ALL drops every statement):
            # forget it all, so the next call prepares again even if this one cannot.
            _prepared.pop(connection.connection, None)
            if connection.in_atomic_block:
                raise
            # Outside a transaction the session is still usable: prepare again, once.
            _prepare_again(cursor, name, prepare)
            _prepared.setdefault(connection.connection, set()).add(name)
            cursor.execute(execute, values)
        return _dict_rows(cursor, skip=bool(first))


def _prepare_again(cursor: Any, name: str, prepare: str) -> None:
    cursor.execute("SELECT 1 FROM pg_prepared_statements WHERE name = %s", [name])
    if cursor.fetchone() is not None:
        cursor.execute(f"DEALLOCATE {name}")
    cursor.execute(prepare)


def _stale(error: DatabaseError) -> bool:
    """The session lost the statement (``DEALLOCATE ALL``/``DISCARD ALL``, as poolers send),
    or a migration changed the type of a column it returns."""
    return isinstance(error.__cause__, InvalidSqlStatementName | FeatureNotSupported)


def fetch(sql: str, params: dict[str, Any], *, first: str = "") -> list[dict[str, Any]]:
    """Rows of ``sql`` as dicts, parsed and planned for this call only (``first``: as in
    ``fetch_prepared``)."""
    _record(_after(first, sql), params)
    with read_connection().cursor() as cursor:
        cursor.execute(_after(first, sql), params)
        return _dict_rows(cursor, skip=bool(first))


def _after(first: str, statement: str) -> str:
    """One query string for both: the driver binds parameters on the client, so the server
    receives them as one simple query, one round trip, and they share a session."""
    return f"{first}; {statement}" if first else statement


def _dict_rows(cursor: Any, *, skip: bool = False) -> list[dict[str, Any]]:
    if skip:  # the result of the statement sent first
        cursor.nextset()
    columns = [col.name for col in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
