"""psycopg 3's own prepared statements beside knowledge/search/prepared.py's (issue 41), on
the database ``manage.py bench_search --chunks N`` filled, side by side in one process.

The same searches (bench_search's queries, in the biggest and the median license), each run
three ways in turn, the order rotating from one query to the next:

- **portality**: ``prepared.fetch_prepared`` — PREPARE once per session, then the session
  setting and ``EXECUTE`` in one simple query (one round trip), client-side binding;
- **psycopg**: psycopg's own server-side binding with ``prepare=True`` (what Django's
  ``OPTIONS={"server_side_binding": True}`` and psycopg's ``prepare_threshold`` give): the
  statement is sent with its parameters through the extended protocol, so the session
  setting goes first in a round trip of its own;
- **unprepared**: ``prepared.fetch``, parsed and planned at every search.

    .venv/bin/python -m tests.bench.prepared_statements [--chunks 20000] [--queries 300]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=20000)
    parser.add_argument("--licenses", type=int, default=200)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()

    from tests.bench.database import open_search_bench

    open_search_bench("e5", args.chunks, require_filled=True)
    print(json.dumps(run(args.licenses, args.queries), indent=2))


def run(licenses: int, queries: int) -> dict[str, Any]:
    import numpy as np
    import psycopg
    from django.db import connection

    from knowledge.search import SearchOptions, SearchTuning, prepared
    from knowledge.search.statement import hybrid_rows
    from tests.bench import search_scale

    def psycopg_prepared(sql: str, params: dict[str, Any], *, first: str = "") -> list[dict]:
        connection.ensure_connection()
        with psycopg.Cursor(connection.connection) as cursor:
            if first:
                cursor.execute(first)
            cursor.execute(sql, params, prepare=True)
            columns = [column.name for column in cursor.description]
            return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]

    ours = prepared.fetch_prepared
    ways = {"portality": ours, "psycopg": psycopg_prepared, "unprepared": prepared.fetch}
    search_scale.rng = np.random.default_rng(7)  # bench_search's world and queries
    world = search_scale.make_world(licenses, "e5")
    options = SearchOptions(strategy="weighted", top_k=10, min_score=-1.0).resolved(
        search_scale.MODEL
    )
    tuning = SearchTuning.from_settings()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT license_id FROM knowledge_chunk WHERE license_id IS NOT NULL"
            " GROUP BY 1 ORDER BY count(*) DESC"
        )
        sizes = [row[0] for row in cursor.fetchall()]
    scopes = {"big_license": sizes[0], "median_license": sizes[len(sizes) // 2]}
    names = list(ways)
    timings: dict[str, dict[str, list[float]]] = {s: {n: [] for n in names} for s in scopes}
    for scope, license_id in scopes.items():
        for q in range(queries):
            _, text, vector = search_scale._query(world, q)
            order = names[q % 3 :] + names[: q % 3]  # each way first as often as the others
            for name in order:
                prepared.fetch_prepared = ways[name]  # statement.py calls it through the module
                started = time.perf_counter()
                hybrid_rows(
                    license_id=license_id, query=text, vector=vector.tolist(),
                    model=search_scale.MODEL, options=options, tuning=tuning,
                )  # fmt: skip
                timings[scope][name].append((time.perf_counter() - started) * 1000)
    prepared.fetch_prepared = ours
    return {
        scope: {
            name: {
                "p50_ms": round(statistics.median(values), 2),
                "p95_ms": round(sorted(values)[int(len(values) * 0.95) - 1], 2),
                "p50_vs_portality": round(
                    statistics.median(values) / statistics.median(by_way["portality"]), 3
                ),
            }
            for name, values in by_way.items()
        }
        for scope, by_way in timings.items()
    }


if __name__ == "__main__":
    main()
