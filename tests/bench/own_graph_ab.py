"""The biggest license's kNN two ways, interleaved: one walk of the model's whole graph kept to
the scope (what a search does today, knowledge/knn_plan.py's ``graph`` way), and two walks —
the global vectors' graph and a graph of the license's own vectors (a partial HNSW index
built for this run and dropped after) — merged. p50/p95 ms, recall@10 against an exact numpy
search, queries that found none of their 10 nearest. Not part of make test.

    DEBUG=1 .venv/bin/python -m tests.bench.own_graph_ab --chunks 100000
    DEBUG=1 .venv/bin/python -m tests.bench.own_graph_ab --chunks 1000000 --widths 80,125,160

Runs against the database `manage.py bench_search --chunks N` filled (documents layout).
What it measured is why a license with many vectors gets no graph of its own (BENCHMARKS.md,
"Where issue 17 stands").
"""

from __future__ import annotations

import argparse
import json
import time

MODEL = "e5-small@384"
DISTANCE = "((e.vector::halfvec(384)) <=> %(vector)s::halfvec(384))"
WHOLE_GRAPH = f"""
SELECT e.chunk_id FROM knowledge_embedding e
 WHERE e.model = '{MODEL}' AND (e.license_id IS NULL OR e.license_id = %(license)s)
 ORDER BY {DISTANCE} LIMIT 50
"""
# The license id is written into the text: the planner takes a partial index only when the
# query's predicate matches the index's literally.
TWO_GRAPHS = f"""
SELECT chunk_id FROM (
    (SELECT e.chunk_id, {DISTANCE} AS distance FROM knowledge_embedding e
      WHERE e.model = '{MODEL}' AND e.license_id IS NULL ORDER BY {DISTANCE} LIMIT 50)
     UNION ALL
    (SELECT e.chunk_id, {DISTANCE} FROM knowledge_embedding e
      WHERE e.model = '{MODEL}' AND e.license_id = '{{license}}' ORDER BY {DISTANCE} LIMIT 50)
) nearest ORDER BY distance LIMIT 50
"""
OWN_GRAPH = "bench_own_graph"
WHOLE_WIDTH = 250  # what knn_plan gives a scope of this share (SEARCH_HNSW_EF_SEARCH)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--widths", default="80,125")
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    from knowledge.bench.database import open_search_bench

    open_search_bench("e5", args.chunks, require_filled=True, layout="documents")
    print(json.dumps(measure(args), indent=2))


def measure(args: argparse.Namespace) -> dict:
    from django.db import connection

    from tests.bench.ef_search_widths import _vectors, summary, vector_literal
    from tests.bench.prepared_ab import bench_world, next_query

    world, _ = bench_world(argparse.Namespace(licenses=200, shape="e5"))
    license_id, own_vectors, build_seconds = _build_own_graph()
    variants = {f"whole graph, width {WHOLE_WIDTH}": (WHOLE_GRAPH, WHOLE_WIDTH)}
    two_graphs = TWO_GRAPHS.format(license=license_id)
    for width in (int(w) for w in args.widths.split(",")):
        variants[f"two graphs, width {width}"] = (two_graphs, width)
    ids, matrix = _vectors(license_id, with_global=True)
    times: dict[str, list[float]] = {name: [] for name in variants}
    recalls: dict[str, list[float]] = {name: [] for name in variants}
    try:
        with connection.cursor() as cursor:
            for q in range(args.queries + 20):
                _, _, vector = next_query(world, q)
                params = {"vector": vector_literal(vector), "license": license_id}
                exact = set(ids[(-(matrix @ vector)).argsort()[:10]].tolist())
                for name in variants if q % 2 == 0 else list(variants)[::-1]:
                    sql, width = variants[name]
                    cursor.execute(f"SET hnsw.ef_search = {width}")
                    started = time.perf_counter()
                    cursor.execute(sql, params)
                    found = [row[0] for row in cursor.fetchall()]
                    if q >= 20:
                        times[name].append((time.perf_counter() - started) * 1000)
                        recalls[name].append(len(exact & set(found[:10])) / 10)
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP INDEX IF EXISTS {OWN_GRAPH}")
            cursor.execute("ANALYZE knowledge_embedding")
    return {
        "own_vectors": own_vectors,
        "scope_vectors": len(ids),
        "own_graph_build_seconds": build_seconds,
        **{name: summary(times[name], recalls[name]) for name in variants},
    }


def _build_own_graph() -> tuple[str, int, float]:
    """The partial HNSW index over the biggest license's own vectors, built as the model's
    graphs are (knowledge/vector_index.py), and checked to be the one the statement takes."""
    from django.db import connection

    from knowledge.vector_index import HNSW_EF_CONSTRUCTION, HNSW_M

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT license_id, count(*) FROM knowledge_embedding WHERE license_id IS NOT NULL"
            " GROUP BY 1 ORDER BY 2 DESC LIMIT 1"
        )
        license_id, own_vectors = cursor.fetchone()
        started = time.perf_counter()
        cursor.execute("SET maintenance_work_mem = '1GB'")
        cursor.execute(
            f"CREATE INDEX IF NOT EXISTS {OWN_GRAPH} ON knowledge_embedding USING hnsw"
            f" ((vector::halfvec(384)) halfvec_cosine_ops)"
            f" WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})"
            f" WHERE model = '{MODEL}' AND license_id = '{license_id}'"
        )
        cursor.execute("ANALYZE knowledge_embedding")
        build_seconds = round(time.perf_counter() - started, 1)
        probe = {"vector": "[" + ",".join(["0.05"] * 384) + "]"}
        cursor.execute("EXPLAIN " + TWO_GRAPHS.format(license=license_id), probe)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    if OWN_GRAPH not in plan:
        raise RuntimeError(f"the two-graph statement does not walk {OWN_GRAPH}:\n{plan}")
    return str(license_id), own_vectors, build_seconds


if __name__ == "__main__":
    main()
