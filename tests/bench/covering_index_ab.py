"""Compared vectors read from the covering (model, license) index alone, against fetched
from the heap row by row, side by side in one run. Not part of make test.

    DEBUG=1 .venv/bin/python -m tests.bench.covering_index_ab [--chunks 20000]

Runs against the database `manage.py bench_search --chunks N` filled (migrated to 0012: the
covering index exists), vacuumed first as autovacuum leaves it, with the same queries as
that benchmark, each query both ways in alternating order (as tests/bench/prepared_ab.py):

- a scope scanned exactly: its global and its own vectors each read from one key of the
  index (the product), against one scan of the whole scope that fetches each vector from
  the heap (a bitmap scan for its OR, the statement before migration 0012);
- a split search: the license's own vectors read from the index (the product), against
  fetched from the heap (a condition on a column the index does not hold keeps the planner
  off an index-only scan, as the index before 0012 did).

Scopes that walk the whole graph compare nothing exactly and are not measured. The same
rows in the same order are checked on every query.
"""

from __future__ import annotations

import argparse

# Only the heap holds created_at: the own part must fetch each row there.
FROM_THE_HEAP = "e.license_id = %(license)s AND e.created_at IS NOT NULL"


def main() -> None:
    from tests.bench.prepared_ab import run_ab

    run_ab(measure, chunks=20_000)


def measure(args: argparse.Namespace) -> dict:
    from django.db import connection

    from knowledge import knn_plan, selectors
    from knowledge.bench import search_scale
    from tests.bench.prepared_ab import (
        bench_world,
        next_query,
        scopes_by_way,
        summary,
        timed_search,
    )

    world, options = bench_world(args)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM knowledge_embedding")
    search_scale.prewarm()
    ways = dict(selectors._KNN_WAYS)
    two_parts = selectors._NEAREST_GLOBAL_AND_OWN
    assert two_parts.count("e.license_id = %(license)s") == 1
    from_the_heap = {
        knn_plan.EXACT: selectors._NEAREST_IN_SCOPE,
        knn_plan.SPLIT: two_parts.replace("e.license_id = %(license)s", FROM_THE_HEAP),
    }
    report = {}
    try:
        for scope, license_id, way in scopes_by_way(args, options):
            if way not in from_the_heap:
                report[scope] = {"way": way, "not measured": "nothing compared exactly"}
                continue
            templates = {"index_only": ways[way][1], "heap": from_the_heap[way]}
            timings: dict[str, list[float]] = {}
            for q in range(args.queries + 20):
                kind, text, vector = next_query(world, q)
                found = {}
                for name in ("index_only", "heap") if q % 4 < 2 else ("heap", "index_only"):
                    selectors._KNN_WAYS[way] = (ways[way][0], templates[name])
                    rows = timed_search(
                        timings, f"{kind}_{name}", q, license_id, text, vector, options
                    )
                    found[name] = [(r["chunk_id"], r["fused_score"]) for r in rows]
                assert found["index_only"] == found["heap"], (scope, text)
            report[scope] = {"way": way, **summary(timings, new="index_only", old="heap")}
    finally:
        selectors._KNN_WAYS.update(ways)
    return report


if __name__ == "__main__":
    main()
