"""Point this process at a separate benchmark database, so product data is never touched."""

from __future__ import annotations

import psycopg
from django.core.management import call_command
from django.db import connections


def use_bench_database(name: str) -> None:
    """Create (if needed) and migrate database ``name`` on the configured server, then make it
    this process's default database."""
    db = connections["default"].settings_dict
    params = {
        "host": db["HOST"],
        "port": db["PORT"] or None,
        "user": db["USER"],
        "password": db["PASSWORD"],
    }
    with psycopg.connect(
        dbname="postgres", autocommit=True, **{k: v for k, v in params.items() if v}
    ) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    connections["default"].close()
    db["NAME"] = name
    call_command("migrate", verbosity=0, interactive=False)
    # What the search keeps per process describes the database it read.
    from knowledge.search import caches_forget

    caches_forget()


def search_bench_database(shape: str, chunks: int, layout: str) -> str:
    """The database ``manage.py bench_search`` fills for a shape, size and layout (the
    ``chunks`` layout keeps the name it had when it was the only one)."""
    suffix = "" if layout == "chunks" else f"_{layout}"
    return f"portality_bench_search_{shape}_{chunks}{suffix}"


def open_search_bench(
    shape: str, chunks: int, *, require_filled: bool = False, layout: str = "documents"
) -> None:
    """Point this process at the database ``manage.py bench_search --chunks N --shape S``
    filled, DEBUG off (as in production: with DEBUG, Django records every statement) and
    the search's relations prewarmed. Works from ``python -m`` scripts (sets Django up) and
    from management commands. ``require_filled``: LookupError when it holds no data."""
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portality.settings")
    import django

    from runtime.embedded import start_unless_external

    start_unless_external()
    django.setup()
    from django.conf import settings
    from django.db import connection

    from tests.bench.search_scale import prewarm

    use_bench_database(search_bench_database(shape, chunks, layout))
    settings.DEBUG = False
    if require_filled:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM knowledge_embedding")
            if cursor.fetchone()[0] != chunks:
                raise LookupError(
                    f"No benchmark data of {chunks} chunks: run `manage.py bench_search "
                    f"--chunks {chunks} --shape {shape} --layout {layout}` first."
                )
    prewarm()
