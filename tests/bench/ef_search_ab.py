"""The graph walk's ef_search sized to the scope's share of the table against the configured
one for every scope, side by side in one run. Not part of make test.

    DEBUG=1 .venv/bin/python -m tests.bench.ef_search_ab [--chunks 1000000] [--layout documents]

Runs against the database `manage.py bench_search --chunks N [--layout L]` filled, with the
same queries as that benchmark, each query both ways in alternating order (as
tests/bench/prepared_ab.py). Reports p50/p95 of the product's search statement per way, the
p50 ratio sized / fixed, the width each scope got, and each way's kNN recall@10 against an
exact numpy search of the scope.
"""

from __future__ import annotations

import argparse
import statistics

from tests.bench.prepared_ab import (
    _scopes,
    bench_world,
    next_query,
    run_ab,
    summary,
    timed_search,
)


def main() -> None:
    run_ab(measure, chunks=1_000_000)


def measure(args: argparse.Namespace) -> dict:
    import numpy as np

    from knowledge import knn_plan
    from knowledge.bench import search_scale

    world, options = bench_world(args)
    widest = knn_plan.EF_SEARCH_MAX
    report = {}
    for scope, license_id in _scopes(args.licenses).items():
        ids, matrix = search_scale.scope_vectors(license_id)
        timings: dict[str, list[float]] = {}
        recalls: dict[str, list[float]] = {"sized": [], "fixed": []}
        for q in range(args.queries + 20):
            kind, text, vector = next_query(world, q)
            exact = set(ids[np.argsort(-(matrix @ vector))[:10]].tolist())
            ways = ("sized", "fixed") if q % 4 < 2 else ("fixed", "sized")
            for way in ways:
                knn_plan.EF_SEARCH_MAX = widest if way == "sized" else 0  # 0: never widened
                timed_search(timings, f"{kind}_{way}", q, license_id, text, vector, options)
                if q >= 20:
                    found = search_scale.knn_top10(license_id, text, vector)
                    recalls[way].append(len(exact & found) / 10)
        knn_plan.EF_SEARCH_MAX = widest
        plan = knn_plan.knn_plan(license_id, search_scale.MODEL, options.candidates, "default")
        report[scope] = {
            "scope_rows": len(ids),
            "ef_search_sized": plan.ef_search,
            **summary(timings, new="sized", old="fixed"),
            **{f"knn_recall@10_{way}": round(statistics.fmean(r), 3) for way, r in recalls.items()},
        }
    return report


if __name__ == "__main__":
    main()
