"""A split search's walk of the global graph at the narrower width a small graph gets (80)
against the width a big one keeps (125), side by side in one run. Not part of make test.

    DEBUG=1 .venv/bin/python -m tests.bench.split_width_ab [--chunks 100000]

Runs against the database `manage.py bench_search --chunks N` filled, with the same queries
as that benchmark, each query both ways in alternating order (as tests/bench/prepared_ab.py).
Only the scopes the product splits are measured; each way's kNN recall@10 against an exact
search is reported beside its latency (as tests/bench/global_graph_ab.py).
"""

from __future__ import annotations

import argparse


def main() -> None:
    from tests.bench.prepared_ab import run_ab

    run_ab(measure, chunks=100_000)


def measure(args: argparse.Namespace) -> dict:
    from knowledge import knn_plan
    from knowledge.bench import search_scale
    from tests.bench.global_graph_ab import recalls
    from tests.bench.prepared_ab import bench_world, both_ways, scopes_by_way, summary

    world, options = bench_world(args)
    search_scale.prewarm()
    narrow, wide = knn_plan.SMALL_GLOBAL_GRAPH_EF_SEARCH_MIN, knn_plan.SPLIT_EF_SEARCH_MIN
    widths = {f"width{narrow}": narrow, f"width{wide}": wide}

    def switch(way: str, license_id=None) -> None:  # noqa: ANN001
        # Both floors at the width under test: whatever the graph's size, the walk takes it.
        knn_plan.SMALL_GLOBAL_GRAPH_EF_SEARCH_MIN = knn_plan.SPLIT_EF_SEARCH_MIN = widths[way]

    report = {}
    try:
        for scope, license_id, way in scopes_by_way(args, options):
            if way != knn_plan.SPLIT:
                report[scope] = {"way": way, "not measured": "no walk of the global graph"}
                continue
            names = tuple(widths)
            timings = both_ways(world, args, license_id, options, names, switch)
            report[scope] = {
                **summary(timings, new=names[0], old=names[1]),
                **recalls(world, args, license_id, names, switch),
            }
    finally:
        knn_plan.SMALL_GLOBAL_GRAPH_EF_SEARCH_MIN, knn_plan.SPLIT_EF_SEARCH_MIN = narrow, wide
    return report


if __name__ == "__main__":
    main()
