"""The search statement as this code writes it (the kNN ordered by its distance
expression, so an exact variant can add "+ 0") against the text before (ordered by the
alias), side by side at 1M where both walk the graph. Not part of make test.

    DEBUG=1 .venv/bin/python -m tests.bench.knn_order_ab [--chunks 1000000] [--queries 100]
"""

from __future__ import annotations

import argparse
import time

from tests.bench.keyword_index_ab import _params
from tests.bench.prepared_ab import _scopes, bench_world, next_query, run_ab, summary


def main() -> None:
    run_ab(measure, chunks=1_000_000)


def measure(args: argparse.Namespace) -> dict:
    from knowledge import prepared, selectors
    from knowledge.bench import search_scale

    world, _ = bench_world(args)
    new_sql = selectors.hybrid_sql(search_scale.MODEL, way="graph")
    old_sql = new_sql.replace(
        "ORDER BY ((e.vector::halfvec(384)) <=> %(vector)s::halfvec(384))\n", "ORDER BY distance\n"
    )
    assert old_sql != new_sql
    report = {}
    for scope, license_id in _scopes(args.licenses).items():
        timings: dict[str, list[float]] = {}
        for q in range(args.queries + 20):
            kind, text, vector = next_query(world, q)
            params = _params(selectors, license_id, text, vector)
            ways = ("expr", "alias") if q % 4 < 2 else ("alias", "expr")
            for way in ways:
                started = time.perf_counter()
                prepared.fetch_prepared(new_sql if way == "expr" else old_sql, params, "default")
                if q >= 20:
                    timings.setdefault(f"{kind}_{way}", []).append(
                        (time.perf_counter() - started) * 1000
                    )
        report[scope] = summary(timings, new="expr", old="alias")
    return report


if __name__ == "__main__":
    main()
