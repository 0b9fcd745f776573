"""A scope's kNN as an exact scan against the HNSW graph walk, side by side in one run.
Not part of make test.

    DEBUG=1 .venv/bin/python -m tests.bench.exact_scan_ab [--chunks 20000] [--shape e5]

Runs against the database `manage.py bench_search --chunks N [--shape S]` filled, with the
same queries as that benchmark, each query both ways in alternating order (as
tests/bench/prepared_ab.py), and reports p50/p95 per way and the p50 ratio exact / graph.
"""

from __future__ import annotations

import argparse
import time

from tests.bench.prepared_ab import _scopes, run_ab, summary


def main() -> None:
    run_ab(measure, chunks=20_000)


def measure(args: argparse.Namespace) -> dict:
    import numpy as np
    from django.conf import settings
    from django.db import connection

    from knowledge import knn_plan, selectors
    from knowledge.bench import search_scale
    from knowledge.search_types import SearchOptions

    search_scale.rng = np.random.default_rng(7)
    world = search_scale.make_world(args.licenses, args.shape)
    options = SearchOptions(strategy="weighted", top_k=10, min_score=-1.0).resolved(
        search_scale.MODEL
    )
    report = {}
    for scope, license_id in _scopes(args.licenses).items():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM knowledge_embedding WHERE license_id IS NULL OR license_id = %s",
                [license_id],
            )
            rows = cursor.fetchone()[0]
        timings: dict[str, list[float]] = {}
        for q in range(args.queries + 20):
            centre = int(search_scale.rng.integers(0, search_scale.CENTRES))
            vector = search_scale._vectors(world, np.array([centre]))[0].tolist()
            kind = "typical" if q % 2 == 0 else "common_word"
            words = search_scale.rng.choice(world.topic_words[centre], size=2)
            text = " ".join(words) if kind == "typical" else world.vocabulary[0]
            ways = ("exact", "graph") if q % 4 < 2 else ("graph", "exact")
            for way in ways:
                settings.SEARCH_EXACT_SCAN_MAX_ROWS = rows if way == "exact" else 0
                knn_plan.scope_shapes_forget()
                knn_plan.scope_shape(license_id, search_scale.MODEL, "default")  # cached
                started = time.perf_counter()
                selectors._hybrid_rows(
                    license_id, text, vector, search_scale.MODEL, options, "default"
                )
                if q >= 20:
                    timings.setdefault(f"{kind}_{way}", []).append(
                        (time.perf_counter() - started) * 1000
                    )
        report[scope] = {"scope_rows": rows, **summary(timings, new="exact", old="graph")}
    return report


if __name__ == "__main__":
    main()
