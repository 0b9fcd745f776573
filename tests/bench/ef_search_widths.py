"""The kNN statement alone at several hnsw.ef_search widths, interleaved, per scope: p50/p95,
recall@10 against an exact numpy search, and how many queries found none of their 10
nearest. Not part of make test.

    DEBUG=1 .venv/bin/python -m tests.bench.ef_search_widths --chunks 1000000 --widths 200,250,300,400
    DEBUG=1 .venv/bin/python -m tests.bench.ef_search_widths --chunks 1000000 --alone --widths 200,500,1000
    DEBUG=1 .venv/bin/python -m tests.bench.ef_search_widths --chunks 100000 --global-graph --widths 60,80,100,125

Scopes: the biggest and the median license with the global vectors, as searches see them,
or (``--alone``) the 4th and 13th biggest licenses without them (shares of ~4% and ~1% at
1M), or (``--global-graph``) the global vectors alone, a walk of their own graph (what a
split search walks, knowledge/knn_plan.py). Runs against the database `manage.py bench_search --chunks N [--layout L]` filled.
What it measured chose knowledge/knn_plan.py's widths (BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

KNN = """
SELECT e.chunk_id FROM knowledge_embedding e
 WHERE e.model = 'e5-small@384' AND {scope}
 ORDER BY ((e.vector::halfvec(384)) <=> %s::halfvec(384)) LIMIT 50
"""
WITH_GLOBAL = "(e.license_id IS NULL OR e.license_id = %s)"
ALONE = "e.license_id = %s"
GLOBAL_GRAPH = "e.license_id IS NULL"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--layout", choices=["documents", "chunks"], default="documents")
    parser.add_argument("--widths", default="200,250,300,400")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--alone", action="store_true")
    parser.add_argument("--global-graph", action="store_true")
    args = parser.parse_args()
    from knowledge.bench.database import open_search_bench

    open_search_bench("e5", args.chunks, require_filled=True, layout=args.layout)
    print(json.dumps(measure(args), indent=2))


def measure(args: argparse.Namespace) -> dict:
    from django.db import connection

    from tests.bench.prepared_ab import bench_world, next_query

    world, _ = bench_world(argparse.Namespace(licenses=200, shape="e5"))
    widths = [int(w) for w in args.widths.split(",")]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT license_id, count(*) FROM knowledge_embedding WHERE license_id IS NOT NULL"
            " GROUP BY 1 ORDER BY 2 DESC"
        )
        sizes = cursor.fetchall()
        cursor.execute("SELECT count(*) FROM knowledge_embedding WHERE license_id IS NULL")
        global_rows = 0 if args.alone else cursor.fetchone()[0]
    picks = {"4th": sizes[3], "13th": sizes[12]} if args.alone else {
        "biggest": sizes[0],
        "median": sizes[len(sizes) // 2],
    }  # fmt: skip
    sql = KNN.format(scope=ALONE if args.alone else WITH_GLOBAL)
    if args.global_graph:
        picks, global_rows, sql = {"global": (None, global_rows)}, 0, KNN.format(scope=GLOBAL_GRAPH)
    report = {}
    for name, (license_id, rows) in picks.items():
        ids, matrix = _vectors(license_id, with_global=not args.alone)
        times: dict[int, list[float]] = {w: [] for w in widths}
        recalls: dict[int, list[float]] = {w: [] for w in widths}
        with connection.cursor() as cursor:
            for q in range(args.queries + 20):
                _, _, vector = next_query(world, q)
                text = vector_literal(vector)
                exact = set(ids[(-(matrix @ vector)).argsort()[:10]].tolist())
                for width in widths if q % 2 == 0 else widths[::-1]:
                    cursor.execute(f"SET hnsw.ef_search = {width}")
                    started = time.perf_counter()
                    cursor.execute(sql, [text] if args.global_graph else [license_id, text])
                    found = [row[0] for row in cursor.fetchall()]
                    if q >= 20:
                        times[width].append((time.perf_counter() - started) * 1000)
                        recalls[width].append(len(exact & set(found[:10])) / 10)
        report[name] = {
            "share": round((rows + global_rows) / args.chunks, 3),
            **{str(w): summary(times[w], recalls[w]) for w in widths},
        }
    return report


def vector_literal(vector) -> str:  # noqa: ANN001 - a numpy vector
    return "[" + ",".join(f"{x:.6f}" for x in vector) + "]"


def summary(times: list[float], recalls: list[float]) -> dict:
    """p50/p95 ms and mean recall@10 of one way of searching."""
    return {
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(sorted(times)[int(len(times) * 0.95) - 1], 2),
        "recall@10": round(statistics.fmean(recalls), 3),
        # queries whose kNN found none of their 10 nearest: a walk stuck elsewhere
        "none_found": sum(1 for r in recalls if r == 0),
    }


def _vectors(license_id, *, with_global: bool) -> tuple:  # noqa: ANN001
    import numpy as np
    from django.db import connection

    from knowledge.bench.search_scale import scope_vectors, vectors_from_text

    if with_global:  # a license's scope, or the global vectors alone (license None)
        return scope_vectors(license_id)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT chunk_id, vector::text FROM knowledge_embedding WHERE license_id = %s",
            [license_id],
        )
        rows = cursor.fetchall()
    return np.array([r[0] for r in rows]), vectors_from_text(rows)


if __name__ == "__main__":
    main()
