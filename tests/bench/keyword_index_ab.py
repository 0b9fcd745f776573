"""The search statement on the scope-keyed keyword index (migration 0007, with the
every-word gate) against the statement of an earlier revision on the btree_gin index it
used, side by side in one run. Not part of make test.

    DEBUG=1 .venv/bin/python -m tests.bench.keyword_index_ab [--chunks 100000] [--against 8c6995e]

Runs against the database `manage.py bench_search --chunks N` filled, with that
benchmark's queries, each query both ways in alternating order. The old index is built
for the run (about 40 s at 1M chunks) and dropped afterwards, since the product's
statement could otherwise combine it with its own. For the same reason the new
statement's scope test is written so that no index can answer it (`(…) IS TRUE`), which
is what it is in the product, where no index on scope_key exists. Also prints how many of
the old statement's top 10 the new one returns, and, for the keyword strategy alone, how
much of the uncapped keyword ranking's top 10 (every in-scope chunk with any query word,
ranked) each statement returns.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import time

OLD_INDEX = "chunk_scope_search_gin"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--licenses", type=int, default=200)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--against", default="8c6995e", help="revision of the old statement")
    args = parser.parse_args()
    from knowledge.bench.database import open_search_bench

    open_search_bench("e5", args.chunks)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '1GB'")
        cursor.execute(
            f"CREATE INDEX IF NOT EXISTS {OLD_INDEX} ON knowledge_chunk"
            " USING gin (scope_key, search_vector)"
        )
    try:
        print(json.dumps(measure(args), indent=2))
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP INDEX IF EXISTS {OLD_INDEX}")


def statements(against: str) -> dict[str, str]:
    from knowledge import selectors
    from knowledge.bench.search_scale import MODEL

    source = subprocess.run(
        ["git", "show", f"{against}:knowledge/selectors.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    old = re.search(r'_HYBRID_SQL = """(.*?)"""', source, re.S).group(1)
    new = selectors._HYBRID_SQL.replace(
        "AND c.scope_key IN (%(global_scope)s::uuid, %(scope)s::uuid)",
        "AND (c.scope_key IN (%(global_scope)s::uuid, %(scope)s::uuid)) IS TRUE",
    )
    fields = {"dims": 384, "model": MODEL, "rrf_k": selectors.RRF_K, "rank_cap": 2000}
    return {"old": old.format(**fields), "new": new.format(**fields)}


def measure(args: argparse.Namespace) -> dict:
    import numpy as np

    from knowledge import prepared, selectors
    from knowledge.bench import search_scale
    from tests.bench.prepared_ab import _scopes, summary

    sql = statements(args.against)
    search_scale.rng = np.random.default_rng(7)  # the world bench_search filled the data from
    world = search_scale.make_world(args.licenses, "e5")
    report = {}
    for scope, license_id in _scopes(args.licenses).items():
        timings: dict[str, list[float]] = {}
        overlaps = []
        for q in range(args.queries + 20):  # the first 20 warm caches and the plans
            centre = int(search_scale.rng.integers(0, search_scale.CENTRES))
            vector = search_scale._vectors(world, np.array([centre]))[0]
            kind = "typical" if q % 2 == 0 else "common_word"
            words = search_scale.rng.choice(world.topic_words[centre], size=2)
            text = " ".join(words) if kind == "typical" else world.vocabulary[0]
            params = _params(selectors, license_id, text, vector)
            top = {}
            for way in ("old", "new") if q % 4 < 2 else ("new", "old"):
                started = time.perf_counter()
                rows = prepared.fetch_prepared(sql[way], params, "default")
                elapsed = (time.perf_counter() - started) * 1000
                if q >= 20:
                    timings.setdefault(f"{kind}_{way}", []).append(elapsed)
                top[way] = {row["chunk_id"] for row in rows}
            if q >= 20 and kind == "typical":
                overlaps.append(len(top["old"] & top["new"]) / max(len(top["old"]), 1))
        overlap = round(statistics.fmean(overlaps), 3)
        report[scope] = {
            **summary(timings, "new", "old"),
            "typical_top10_overlap": overlap,
            **keyword_agreement(sql, world, license_id, args.queries // 2),
        }
    return report


# Every in-scope chunk with any query word, ranked: what the keyword branch approximates.
UNCAPPED_KEYWORD_TOP10 = """
WITH t AS (
    SELECT (SELECT string_agg(DISTINCT quote_literal(lexeme), ' | ')
              FROM unnest(ARRAY['pb_spanish', 'pb_portuguese', 'pb_english']::regconfig[]) AS cfg,
                   unnest(tsvector_to_array(to_tsvector(cfg, %(q)s))) AS lexeme
             WHERE lexeme <> ALL (%(common_lexemes)s::text[]))::tsquery AS loose
)
SELECT c.id FROM knowledge_chunk c, t
 WHERE c.scope_key IN (%(global_scope)s::uuid, %(scope)s::uuid) AND c.search_vector @@ t.loose
 ORDER BY ts_rank('{0.1, 0.2, 1.0, 1.0}', c.search_vector, t.loose, 1) DESC
 LIMIT 10
"""


def keyword_agreement(sql: dict[str, str], world, license_id, queries: int) -> dict:  # noqa: ANN001
    """Share of the uncapped keyword top 10 that each statement's keyword strategy returns,
    over ``queries`` typical queries (untimed)."""
    import numpy as np
    from django.db import connection

    from knowledge import prepared, selectors
    from knowledge.bench import search_scale

    agreement: dict[str, list[float]] = {"old": [], "new": []}
    for _ in range(queries):
        centre = int(search_scale.rng.integers(0, search_scale.CENTRES))
        vector = search_scale._vectors(world, np.array([centre]))[0]
        text = " ".join(search_scale.rng.choice(world.topic_words[centre], size=2))
        params = {**_params(selectors, license_id, text, vector), "strategy": "keyword"}
        with connection.cursor() as cursor:
            cursor.execute(UNCAPPED_KEYWORD_TOP10, params)
            exact = {row[0] for row in cursor.fetchall()}
        for way, statement in sql.items():
            got = {row["chunk_id"] for row in prepared.fetch_prepared(statement, params)}
            agreement[way].append(len(got & exact) / max(len(exact), 1))
    return {
        f"keyword_top10_vs_uncapped_{way}": round(statistics.fmean(values), 3)
        for way, values in agreement.items()
    }


def _params(selectors, license_id, text: str, vector) -> dict:  # noqa: ANN001
    from django.conf import settings

    return {
        "q": text,
        "vector": "[" + ",".join(f"{x:.7f}" for x in vector) + "]",
        "license": license_id,
        "scope": license_id or selectors.GLOBAL_SCOPE_KEY,
        "global_scope": selectors.GLOBAL_SCOPE_KEY,
        "common_lexemes": selectors.common_lexemes(),
        "every_term_min": selectors.KEYWORD_EVERY_TERM_MIN,
        "candidates": 50,
        "strategy": "weighted",
        "min_score": -1.0,
        "vector_weight": settings.SEARCH_VECTOR_WEIGHT,
        "sentence_weight": settings.SEARCH_SENTENCE_WEIGHT,
        "type_weights": "{}",
        "limit": 10,
    }


if __name__ == "__main__":
    main()
