"""A scope's kNN as an exact scan against the HNSW graph walk, side by side in one run.
Not part of make test.

    DEBUG=1 .venv/bin/python -m tests.bench.exact_scan_ab [--chunks 20000] [--shape e5]

Runs against the database `manage.py bench_search --chunks N [--shape S]` filled, with the
same queries as that benchmark, each query both ways in alternating order (as
tests/bench/prepared_ab.py), and reports p50/p95 per way and the p50 ratio exact / graph.
"""

from __future__ import annotations

import argparse

from tests.bench.prepared_ab import _scopes, bench_world, both_ways, run_ab, summary


def main() -> None:
    run_ab(measure, chunks=20_000)


def measure(args: argparse.Namespace) -> dict:
    from django.conf import settings
    from django.db import connection

    from knowledge import knn_plan
    from knowledge.bench import search_scale

    world, options = bench_world(args)
    report = {}
    for scope, license_id in _scopes(args.licenses).items():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM knowledge_embedding WHERE license_id IS NULL OR license_id = %s",
                [license_id],
            )
            rows = cursor.fetchone()[0]

        def switch(way: str, license_id=license_id, rows=rows) -> None:  # noqa: ANN001
            settings.SEARCH_EXACT_SCAN_MAX_ROWS = rows if way == "exact" else 0
            knn_plan.scope_shapes_forget()
            knn_plan.scope_shape(license_id, search_scale.MODEL, "default")  # cached

        timings = both_ways(world, args, license_id, options, ("exact", "graph"), switch)
        report[scope] = {"scope_rows": rows, **summary(timings, new="exact", old="graph")}
    return report


if __name__ == "__main__":
    main()
