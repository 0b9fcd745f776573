"""The search statement prepared once per session (generic plan) against parsed and planned
for every call, side by side in one run. Not part of make test.

    DEBUG=1 .venv/bin/python -m tests.bench.prepared_ab [--chunks 100000] [--shape e5]

Runs against the database `manage.py bench_search --chunks N [--shape S]` filled, with the
same queries as that benchmark (two topic words, or one very common word), running each
query both ways, in alternating order, so that the machine's drift and the buffer cache
favour neither.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable


def main() -> None:
    run_ab(measure, chunks=100_000)


def run_ab(measure: Callable[[argparse.Namespace], dict], *, chunks: int) -> None:
    """The command line the side-by-side benches share: open the database bench_search
    filled, measure, print JSON."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=chunks)
    parser.add_argument("--licenses", type=int, default=200)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--shape", choices=["e5", "islands"], default="e5")
    parser.add_argument("--layout", choices=["documents", "chunks"], default="documents")
    args = parser.parse_args()
    from knowledge.bench.database import open_search_bench

    open_search_bench(args.shape, args.chunks, layout=args.layout)
    print(json.dumps(measure(args), indent=2))


def measure(args: argparse.Namespace) -> dict:
    from django.conf import settings

    def switch(way: str) -> None:
        settings.SEARCH_PREPARED_STATEMENTS = way == "prepared"

    world, options = bench_world(args)
    report = {}
    for scope, license_id in _scopes(args.licenses).items():
        timings = both_ways(world, args, license_id, options, ("prepared", "one_off"), switch)
        report[scope] = summary(timings)
    return report


def both_ways(world, args, license_id, options, ways: tuple[str, str], switch) -> dict:  # noqa: ANN001
    """Each query of the run timed both ways, ``switch(way)`` setting the product up for a
    way; series ``<kind>_<way>``. Whichever way runs first may bring pages into shared
    buffers for the other (at 1M the relations exceed them), so the order alternates too.
    The first 20 queries warm the caches and the plan."""
    timings: dict[str, list[float]] = {}
    for q in range(args.queries + 20):
        kind, text, vector = next_query(world, q)
        for way in ways if q % 4 < 2 else ways[::-1]:
            switch(way)
            timed_search(timings, f"{kind}_{way}", q, license_id, text, vector, options)
    return timings


def bench_world(args: argparse.Namespace) -> tuple:
    """The world bench_search filled the data from, and the options it searches with."""
    import numpy as np

    from knowledge.bench import search_scale
    from knowledge.search_types import SearchOptions

    search_scale.rng = np.random.default_rng(7)
    world = search_scale.make_world(args.licenses, args.shape)
    options = SearchOptions(strategy="weighted", top_k=10, min_score=-1.0).resolved(
        search_scale.MODEL
    )
    return world, options


def next_query(world, q: int) -> tuple:  # noqa: ANN001
    """(kind, text, vector) of query q, as bench_search draws them: a cluster's vector with
    two of its topic words (typical, even q) or the most common word (odd q)."""
    import numpy as np

    from knowledge.bench import search_scale

    centre = int(search_scale.rng.integers(0, search_scale.CENTRES))
    vector = search_scale._vectors(world, np.array([centre]))[0]
    kind = "typical" if q % 2 == 0 else "common_word"
    words = search_scale.rng.choice(world.topic_words[centre], size=2)
    return kind, " ".join(words) if kind == "typical" else world.vocabulary[0], vector


def timed_search(
    timings: dict, series: str, q: int, license_id, text: str, vector, options
) -> list:  # noqa: ANN001
    """Run the product's search statement; record its time in ``series`` after the 20
    warm-up queries (they warm the caches and the plan). Returns its rows."""
    from knowledge.bench import search_scale
    from knowledge.selectors import _hybrid_rows

    started = time.perf_counter()
    rows = _hybrid_rows(license_id, text, vector.tolist(), search_scale.MODEL, options, "default")
    if q >= 20:
        timings.setdefault(series, []).append((time.perf_counter() - started) * 1000)
    return rows


def _scopes(licenses: int) -> dict:
    from django.db import connection

    from knowledge.bench.search_scale import _tiny_license

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT license_id FROM knowledge_chunk WHERE license_id IS NOT NULL"
            " GROUP BY 1 ORDER BY count(*) DESC"
        )
        sizes = [row[0] for row in cursor.fetchall()]
    return {
        "big_license": sizes[0],
        "median_license": sizes[len(sizes) // 2],
        "tiny_license": _tiny_license(licenses),
        "global_only": None,
    }


def scopes_by_way(args: argparse.Namespace, options) -> list[tuple]:  # noqa: ANN001
    """(scope name, license id, kNN way) of each scope _scopes names, the way read afresh
    as the product chooses it (knowledge/knn_plan.py)."""
    from knowledge import knn_plan
    from knowledge.bench import search_scale

    found = []
    for scope, license_id in _scopes(args.licenses).items():
        knn_plan.scope_shapes_forget()
        plan = knn_plan.knn_plan(license_id, search_scale.MODEL, options.candidates, "default")
        found.append((scope, license_id, plan.way))
    return found


def summary(timings: dict[str, list[float]], new: str = "prepared", old: str = "one_off") -> dict:
    """p50 and p95 per ``<kind>_<way>`` series, and each kind's p50 ratio new / old."""
    figures = {}
    for name, values in sorted(timings.items()):
        values.sort()
        figures[f"{name}_p50_ms"] = round(statistics.median(values), 2)
        figures[f"{name}_p95_ms"] = round(values[int(len(values) * 0.95) - 1], 2)
    for kind in ("typical", "common_word"):
        figures[f"{kind}_p50_ratio"] = round(
            figures[f"{kind}_{new}_p50_ms"] / figures[f"{kind}_{old}_p50_ms"], 2
        )
    return figures


if __name__ == "__main__":
    main()
