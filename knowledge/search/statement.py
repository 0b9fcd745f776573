"""The hybrid search as one SQL statement: keyword branch, nearest vectors, sentence
scores, fusion and threshold over one snapshot.

Why raw SQL (STYLE §9): the two retrievers, their fusion and the threshold must run as one
statement, with the kNN in a MATERIALIZED CTE (pgvector's relaxed iterative scan returns
rows slightly out of order, so they are re-ranked after the scan), the vector cast and
model predicate repeated exactly as in the partial HNSW index, and full-text queries built
per language; the ORM can express none of these together.

Plan notes: the semantic CTE comes from the vector backend (nearest.py); the keyword CTEs
are described in keyword.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any
from uuid import UUID

from knowledge.models import GLOBAL_SCOPE_KEY, TS_CONFIG
from knowledge.search import prepared, vector_index
from knowledge.search.backends import vector_backend
from knowledge.search.fusion import fusion_ctes
from knowledge.search.keyword import common_lexemes, keyword_ctes
from knowledge.search.nearest import NearestQuery
from knowledge.search.tuning import SearchTuning
from knowledge.search.types import SearchOptions
from licenses.models import GLOBAL_SCOPE
from text.words import words_to_hold, words_to_match

_STATEMENT = """
WITH
{keyword},
semantic AS MATERIALIZED (
    -- {semantic_plan} (knowledge/search/nearest.py){nearest}
),
sentence_aware AS (
    -- Each kNN candidate's semantic score mixes in its best sentence group's similarity
    -- (knowledge/search/sentence_vectors.py); a chunk without sentence vectors keeps its own.
    -- Only the candidates' rows are read, through the embeddings the scoped kNN chose.
    SELECT s.chunk_id, s.distance, 1 - s.distance AS vector_score, b.sentence_score,
           COALESCE((1 - %(sentence_weight)s::float8) * (1 - s.distance)
                    + %(sentence_weight)s::float8 * b.sentence_score,
                    1 - s.distance) AS semantic_score
      FROM semantic s
     CROSS JOIN LATERAL (
           SELECT 1 - min({sentence_distance}) AS sentence_score
             FROM knowledge_sentenceembedding x
            WHERE x.embedding_id = s.embedding_id AND %(sentence_weight)s::float8 > 0) b
),
{fusion}
SELECT f.chunk_id, f.document_id, f.vector_score, f.sentence_score, f.semantic_score, f.vector_rank, f.keyword_score, f.keyword_rank,
       f.fused_score, f.exact_match, f.names_a_day_asked, f.passes,
       f.content, f.heading, f.page_start, f.page_end, f.filename, f.source_type,
       COALESCE(l.machine_id, '{global_scope}') AS scope,
       count(*) OVER () AS candidate_count,
       count(*) FILTER (WHERE NOT f.passes) OVER () AS cut_count
  FROM fused f
  LEFT JOIN licenses_license l ON l.id = f.document_license_id
 WHERE f.fused_score IS NOT NULL
 ORDER BY f.passes DESC, f.fused_score DESC, f.document_created_at DESC, f.chunk_id
 LIMIT %(limit)s
"""


def hybrid_sql(nearest: NearestQuery, tuning: SearchTuning) -> str:
    """The whole statement around the backend's nearest-vectors SQL. Only vouched-for
    fragments and integer constants are formatted in; values are parameters."""
    return _STATEMENT.format(
        keyword=keyword_ctes(tuning),
        semantic_plan=nearest.description,
        nearest=nearest.sql,
        sentence_distance=vector_index.exact_distance("%(vector)s", alias="x."),
        fusion=fusion_ctes(tuning),
        global_scope=GLOBAL_SCOPE,  # a constant of the code, not user input
    )


def hybrid_rows(
    *,
    license_id: UUID | None,
    query: str,
    vector: list[float],
    model: str,
    options: SearchOptions,
    tuning: SearchTuning,
) -> list[dict[str, Any]]:
    """The statement's rows: passing results first, best first, then those cut."""
    nearest = vector_backend().nearest(
        model=model,
        query=query,
        vector=vector,
        license_id=license_id,
        candidates=options.candidates,
        tuning=tuning,
    )
    sql = hybrid_sql(nearest, tuning)
    params = {
        **hybrid_params(license_id, query, vector, options, tuning),
        **nearest.params,
    }
    # hnsw.iterative_scan and plan_cache_mode are set per session (knowledge.apps); the
    # graph's ef_search per search, sized to the scope, in the statement's round trip.
    if tuning.prepared_statements:
        return prepared.fetch_prepared(sql, params, first=nearest.session_sql)
    return prepared.fetch(sql, params, first=nearest.session_sql)


def hybrid_params(
    license_id: UUID | None,
    query: str,
    vector: list[float],
    options: SearchOptions,
    tuning: SearchTuning,
) -> dict[str, Any]:
    limit = result_limit(options)
    custom_weight = options.vector_weight is not None
    return {
        # The words the keyword branch matches; the vector is the whole question's.
        "q": words_to_match(query),
        "held": words_to_hold(query),
        "vector": "[" + ",".join(f"{x:.7f}" for x in vector) + "]",
        "license": license_id,
        "scope": license_id or GLOBAL_SCOPE_KEY,
        "global_scope": GLOBAL_SCOPE_KEY,
        "common_lexemes": common_lexemes(tuning).literal,
        "every_term_min": max(tuning.keyword_every_term_min, limit),
        "candidates": options.candidates,
        "strategy": options.strategy,
        "min_score": options.min_score,
        "min_score_across": (
            options.min_score if options.min_score_across is None else options.min_score_across
        ),
        "configs_across": _text_array(TS_CONFIG[code] for code in options.languages_across),
        "days_asked": " or ".join(options.days_asked + options.day_spans),
        "day_margin": options.day_margin,
        "vector_weight": options.vector_weight if custom_weight else tuning.vector_weight,
        "sentence_weight": tuning.effective_sentence_weight,
        # A weight the caller chose applies to every source type.
        "type_weights": json.dumps({} if custom_weight else dict(tuning.weights_by_source_type)),
        "limit": limit,
    }


def _text_array(names: Iterable[str]) -> str:
    """A text[] literal of names that need no quoting (the code's own constants)."""
    return "{" + ",".join(names) + "}"


def result_limit(options: SearchOptions) -> int:
    """Rows the statement returns: a reranker gets a wider net to reorder."""
    return max(options.top_k, 20) if options.rerank else options.top_k
