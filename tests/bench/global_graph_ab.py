"""A license with few vectors of its own (and a global-only caller): the global vectors' own
graph walked beside its own vectors compared exactly, against the whole graph walked and
filtered to the scope, side by side in one run. Not part of make test.

    DEBUG=1 .venv/bin/python -m tests.bench.global_graph_ab [--chunks 100000]

Runs against the database `manage.py bench_search --chunks N` filled, with the same queries
as that benchmark, each query both ways in alternating order (as tests/bench/prepared_ab.py).
Only the scopes the product splits are measured (a small scope is scanned exactly, a license
with many vectors of its own walks the whole graph: both the same either way). Each way's
kNN recall@10 against an exact search is reported beside its latency.
"""

from __future__ import annotations

import argparse
import statistics


def main() -> None:
    from tests.bench.prepared_ab import run_ab

    run_ab(measure, chunks=100_000)


def measure(args: argparse.Namespace) -> dict:
    from knowledge import knn_plan
    from knowledge.bench import search_scale
    from tests.bench.prepared_ab import bench_world, both_ways, scopes_by_way, summary

    world, options = bench_world(args)
    search_scale.prewarm()
    report = {}
    own_few = knn_plan._own_vectors_are_few
    try:
        for scope, license_id, way in scopes_by_way(args, options):
            if way != knn_plan.SPLIT:
                report[scope] = {"way": way, "not measured": "the same either way"}
                continue

            def switch(way: str, license_id=license_id) -> None:  # noqa: ANN001
                knn_plan._own_vectors_are_few = own_few if way == "split" else lambda *args: False
                knn_plan.scope_shapes_forget()
                knn_plan.scope_shape(license_id, search_scale.MODEL, "default")  # cached

            timings = both_ways(world, args, license_id, options, ("split", "whole"), switch)
            report[scope] = {
                **summary(timings, new="split", old="whole"),
                **recalls(world, args, license_id, ("split", "whole"), switch),
            }
    finally:
        knn_plan._own_vectors_are_few = own_few
        knn_plan.scope_shapes_forget()
    return report


def recalls(world, args, license_id, ways: tuple[str, ...], switch) -> dict:  # noqa: ANN001
    """``knn_recall@10_<way>`` of each way (``switch(way)`` sets the product up for it)."""
    return {f"knn_recall@10_{w}": _recall(world, args, license_id, w, switch) for w in ways}


def _recall(world, args, license_id, way: str, switch) -> float:  # noqa: ANN001
    """Mean recall@10 of the kNN's own order against numpy's exact search, over the run's
    queries drawn again."""
    import numpy as np

    from knowledge.bench import search_scale
    from tests.bench.prepared_ab import next_query

    ids, matrix = search_scale.scope_vectors(license_id)
    search_scale.rng = np.random.default_rng(11)
    switch(way)
    recalls = []
    for q in range(args.queries):
        _, text, vector = next_query(world, q)
        exact = set(ids[np.argsort(-(matrix @ vector))[:10]].tolist())
        recalls.append(len(search_scale.knn_top10(license_id, text, vector) & exact) / 10)
    return round(statistics.fmean(recalls), 3)


if __name__ == "__main__":
    main()
