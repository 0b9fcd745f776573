"""An exact scan's two parts (global vectors, the license's own) each read from the covering
(model, license) index alone, against one scan of the whole scope fetching each vector from
the heap (a bitmap scan for its OR), side by side in one run. Not part of make test.

    DEBUG=1 .venv/bin/python -m tests.bench.covering_index_ab [--chunks 20000]

Runs against the database `manage.py bench_search --chunks N` filled (migrated to 0012, so
the covering index exists; the single scan does not use it), with the same queries as that
benchmark, each query both ways in alternating order (as tests/bench/prepared_ab.py). Only
the scopes the product scans exactly are measured. The same rows in the same order is
checked on every query.
"""

from __future__ import annotations

import argparse


def main() -> None:
    from tests.bench.prepared_ab import run_ab

    run_ab(measure, chunks=20_000)


def measure(args: argparse.Namespace) -> dict:
    from django.db import connection

    from knowledge import knn_plan, selectors
    from knowledge.bench import search_scale
    from tests.bench.prepared_ab import _scopes, bench_world, next_query, summary, timed_search

    world, options = bench_world(args)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM knowledge_embedding")  # as autovacuum leaves a table after inserts
    search_scale.prewarm()
    description, two_parts = selectors._KNN_WAYS[knn_plan.EXACT]
    templates = {"index_only": two_parts, "heap": selectors._NEAREST_IN_SCOPE}
    report = {}
    try:
        for scope, license_id in _scopes(args.licenses).items():
            knn_plan.scope_shapes_forget()
            way = knn_plan.knn_plan(license_id, search_scale.MODEL, options.candidates, "default")
            if not way.exact:
                report[scope] = {"way": way.way, "not measured": "no exact scan"}
                continue
            timings: dict[str, list[float]] = {}
            for q in range(args.queries + 20):
                kind, text, vector = next_query(world, q)
                found = {}
                for name in ("index_only", "heap") if q % 4 < 2 else ("heap", "index_only"):
                    selectors._KNN_WAYS[knn_plan.EXACT] = (description, templates[name])
                    rows = timed_search(
                        timings, f"{kind}_{name}", q, license_id, text, vector, options
                    )
                    found[name] = [(r["chunk_id"], r["fused_score"]) for r in rows]
                assert found["index_only"] == found["heap"], (scope, text)
            report[scope] = summary(timings, new="index_only", old="heap")
    finally:
        selectors._KNN_WAYS[knn_plan.EXACT] = (description, two_parts)
    return report


if __name__ == "__main__":
    main()
