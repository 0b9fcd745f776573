"""Knowledge reads: hybrid chunk search, document lists, search metrics."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import connections
from django.db.models import Aggregate, Avg, Count, FloatField, QuerySet, Sum
from django.utils.translation import gettext_noop

from knowledge import prepared, vector_index
from knowledge.embeddings import provider_for_model
from knowledge.knn_plan import EXACT, GRAPH, SPLIT, database_key, knn_plan
from knowledge.models import GLOBAL_SCOPE_KEY, Chunk, Document, DocumentStatus, SearchLog
from knowledge.search_types import (
    MAX_QUERY_CHARS,
    CutResult,
    SearchOptions,
    SearchResponse,
    SearchResult,
)
from licenses.principals import Principal
from portality.exceptions import ApplicationError
from portality.text import tame

RRF_K = 60
KEYWORD_RANK_CAP = 2000
# When at least this many chunks in scope (and at least as many as the caller asked for)
# contain every informative query word, only they are ranked by the keyword branch (see
# _HYBRID_SQL, some_term).
KEYWORD_EVERY_TERM_MIN = 20


def chunk_search(
    *,
    principal: Principal,
    query: str,
    options: SearchOptions | None = None,
    using: str = "default",
    embedding: vector_index.QueryEmbedding | None = None,
) -> SearchResponse:
    """Hybrid search inside the principal's scope. Reads only: the logged search every entry
    point uses is ``knowledge.services.knowledge_search``. ``embedding``: the query already
    being embedded with the active model (the chat starts it early)."""
    started = time.perf_counter()
    query = _clean_query(query)
    model = embedding.active_model if embedding is not None else vector_index.active_model()
    options = (options or SearchOptions()).resolved(model or "")
    response = SearchResponse(
        query=query, scope=principal.scope_label, model=model, options=options
    )
    if model:
        if embedding is not None:
            vector = embedding.vector()
        else:
            vector = provider_for_model(model).embed_query(query)
        rows = _hybrid_rows(principal.license_id, query, vector, model, options, using)
        passing = [_result(row) for row in rows if row["passes"]]
        response.results, far = _relative_cut(passing, options.relative_cut or 0.0)
        response.cut = [CutResult(r, "far_below_best") for r in far] + [
            CutResult(_result(row), "threshold") for row in rows if not row["passes"]
        ]
        response.candidates = rows[0]["candidate_count"] if rows else 0
        response.cut_by_threshold = rows[0]["cut_count"] if rows else 0
        if options.rerank:
            from knowledge.rerank import rerank

            response.results = rerank(query, response.results)
        response.results = response.results[: options.top_k]
    response.latency_ms = (time.perf_counter() - started) * 1000
    return response


def _relative_cut(
    results: list[SearchResult], share: float
) -> tuple[list[SearchResult], list[SearchResult]]:
    """Keep results whose fused score is at least ``share`` of the best one's. On the dev
    splits, 0.3 drops 0.3-0.6% of relevant passages and 14-20% of the others
    (BENCHMARKS.md, "Threshold calibration")."""
    if not results or share <= 0:
        return results, []
    floor = share * max(r.fused_score for r in results)
    return [r for r in results if r.fused_score >= floor], [
        r for r in results if r.fused_score < floor
    ]


def _clean_query(query: str) -> str:
    query = tame(" ".join((query or "").split()))
    if not query:
        raise ApplicationError(gettext_noop("Write something to search for."))
    if len(query) > MAX_QUERY_CHARS:
        raise ApplicationError(
            gettext_noop("The query is %(length)s characters long; the limit is %(limit)s."),
            params={"length": len(query), "limit": MAX_QUERY_CHARS},
        )
    return query.replace("\x00", "")


# Why raw SQL (STYLE §9): the two retrievers, their fusion and the threshold must run as one
# statement over one snapshot, with the kNN in a MATERIALIZED CTE (pgvector's relaxed
# iterative scan returns rows slightly out of order, so they are re-ranked after the scan),
# the vector cast and model predicate repeated exactly as in the partial HNSW index, and
# full-text queries built per language; the ORM can express none of these together.
#
# Plan notes: the semantic CTE walks the model's HNSW index with the scope as a filter;
# hnsw.iterative_scan keeps scanning until enough rows pass it, so a license with 20 chunks
# among a million global ones still gets its k rows. The keyword CTEs are bitmap scans of a
# GIN index whose keys are (scope, lexeme) pairs (migration 0007), so only the posting lists
# of the caller's scope are read. Their cost grows with the number of rows they rank, so
# words in over 5% of chunks are left out, chunks with every word are ranked alone when
# there are enough of them, and at most KEYWORD_RANK_CAP rows are ranked per branch.
_HYBRID_SQL = """
WITH
query_words AS MATERIALIZED (
    -- The query's words as each language stems them; the parser is the same for all three,
    -- so a word has the same position in each. Stopwords of any language are left out.
    SELECT u.lexeme, w.position, cfg, u.lexeme = ANY (%(common_lexemes)s::text[]) AS common
      FROM unnest(ARRAY['pb_spanish', 'pb_portuguese', 'pb_english']::regconfig[]) AS cfg,
           unnest(to_tsvector(cfg, %(q)s)) AS u,
           unnest(u.positions) AS w(position)
),
scope_prefixes AS (
    -- How the caller's scopes begin their keyword index keys (pb_scoped_lexemes, migration 0007).
    SELECT pb_scope_prefix(%(global_scope)s::uuid) AS prefix
     UNION ALL
    SELECT pb_scope_prefix(%(scope)s::uuid)
),
informative_words AS (
    -- A word every language keeps (no stopword anywhere) and none finds common, with the
    -- stems it may take inside the scope's keys.
    SELECT DISTINCT '(' || string_agg(DISTINCT quote_literal(p.prefix || qw.lexeme), ' | ') || ')' AS stems
      FROM query_words qw, scope_prefixes p
     GROUP BY qw.position
    HAVING count(DISTINCT qw.cfg) = 3 AND NOT bool_or(qw.common)
),
terms AS (
    SELECT
        -- loose: any informative query term, stemmed per language and OR-ed; the rank
        -- rewards chunks sharing more terms.
        (SELECT string_agg(DISTINCT quote_literal(lexeme), ' | ') FROM query_words WHERE NOT common
        )::tsquery AS loose,
        -- the same, and every informative word, as keys of the caller's scope
        (SELECT string_agg(DISTINCT quote_literal(p.prefix || lexeme), ' | ')
           FROM query_words, scope_prefixes p
          WHERE NOT common
        )::tsquery AS any_in_scope,
        (SELECT string_agg(stems, ' & ') FROM informative_words)::tsquery AS every_in_scope,
        -- strict: every term present (websearch syntax: quotes, OR, -word): an exact hit.
        websearch_to_tsquery('pb_spanish', %(q)s) || websearch_to_tsquery('pb_portuguese', %(q)s)
            || websearch_to_tsquery('pb_english', %(q)s) || websearch_to_tsquery('pb_simple', %(q)s)
            AS strict
),
semantic AS MATERIALIZED (
    -- {semantic_plan} (knowledge/knn_plan.py){nearest}
),
sentence_aware AS (
    -- Each kNN candidate's semantic score mixes in its best sentence group's similarity
    -- (knowledge/sentence_vectors.py); a chunk without sentence vectors keeps its own.
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
-- Headings (A) and body (B) count alike; normalisation 1 divides by 1 + log(length).
-- Tuned on the dev splits (BENCHMARKS.md): ts_rank_cd, which scores proximity, is far
-- worse for OR-ed terms, and so are normalisations 2 and 8. At most {rank_cap} matches
-- are ranked per branch: a safety cap on the cost of a query whose terms are all frequent.
-- The keys carry the scope; scope_key is still checked on the row, so even two scopes
-- whose key prefixes collided could not see each other's chunks.
every_term AS MATERIALIZED (
    SELECT m.chunk_id, ts_rank('{{0.1, 0.2, 1.0, 1.0}}', m.search_vector, t.loose, 1) AS score
      FROM (SELECT c.id AS chunk_id, c.search_vector
              FROM knowledge_chunk c, terms t
             WHERE pb_scoped_lexemes(c.scope_key, c.search_vector) @@ t.every_in_scope
               AND c.scope_key IN (%(global_scope)s::uuid, %(scope)s::uuid)
             LIMIT {rank_cap}) m, terms t
),
some_term AS MATERIALIZED (
    -- Chunks with only some of the words compete only when too few have them all: ranking
    -- every chunk that shares one frequent word with the query is the slow case at scale,
    -- and such chunks rarely outrank those with every word.
    SELECT m.chunk_id, ts_rank('{{0.1, 0.2, 1.0, 1.0}}', m.search_vector, t.loose, 1) AS score
      FROM (SELECT c.id AS chunk_id, c.search_vector
              FROM knowledge_chunk c, terms t
             WHERE pb_scoped_lexemes(c.scope_key, c.search_vector) @@ t.any_in_scope
               AND c.scope_key IN (%(global_scope)s::uuid, %(scope)s::uuid)
               AND (SELECT count(*) FROM every_term) < %(every_term_min)s
             LIMIT {rank_cap}) m, terms t
),
keyword AS MATERIALIZED (
    SELECT chunk_id, score FROM every_term
     UNION
    SELECT chunk_id, score FROM some_term
     ORDER BY score DESC
     LIMIT %(candidates)s
),
candidates AS (
    SELECT COALESCE(s.chunk_id, k.chunk_id) AS chunk_id,
           s.vector_score, s.sentence_score, s.semantic_score, s.rank AS vector_rank,
           k.score AS keyword_score, k.rank AS keyword_rank
      FROM (SELECT *, row_number() OVER (ORDER BY semantic_score DESC, distance) AS rank
              FROM sentence_aware) s
      FULL OUTER JOIN (SELECT chunk_id, score, row_number() OVER (ORDER BY score DESC) AS rank FROM keyword) k
        ON k.chunk_id = s.chunk_id
),
scored AS (
    -- Everything the results show is read here, once per candidate; the final SELECT only
    -- adds the license name (a second chunk and document lookup cost ~0.5 ms, BENCHMARKS.md).
    SELECT cand.*, c.document_id, d.created_at AS document_created_at,
           c.content, c.heading, c.page_start, c.page_end, d.filename, d.source_type,
           d.license_id AS document_license_id,
           c.search_vector @@ t.strict AS exact_match,
           -- min-max over each retriever's own list; missing from a list counts 0
           CASE WHEN semantic_score IS NULL THEN 0 ELSE COALESCE(
               (semantic_score - min(semantic_score) OVER ())
               / NULLIF(max(semantic_score) OVER () - min(semantic_score) OVER (), 0), 1) END AS vector_norm,
           CASE WHEN keyword_score IS NULL THEN 0 ELSE COALESCE(
               (keyword_score - min(keyword_score) OVER ())
               / NULLIF(max(keyword_score) OVER () - min(keyword_score) OVER (), 0), 1) END AS keyword_norm,
           COALESCE((%(type_weights)s::jsonb ->> d.source_type)::float, %(vector_weight)s) AS w
      FROM candidates cand
      JOIN knowledge_chunk c ON c.id = cand.chunk_id
      JOIN knowledge_document d ON d.id = c.document_id,
           terms t
),
fused AS (
    SELECT *,
           CASE %(strategy)s
               WHEN 'rrf' THEN COALESCE(1.0 / ({rrf_k} + vector_rank), 0) + COALESCE(1.0 / ({rrf_k} + keyword_rank), 0)
               WHEN 'weighted' THEN w * vector_norm + (1 - w) * keyword_norm
               WHEN 'average' THEN (vector_norm + keyword_norm) / 2
               WHEN 'vector' THEN semantic_score
               WHEN 'keyword' THEN keyword_score
           END AS fused_score,
           CASE %(strategy)s
               WHEN 'vector' THEN COALESCE(vector_score >= %(min_score)s, false)
               WHEN 'keyword' THEN keyword_score IS NOT NULL
               ELSE COALESCE(vector_score >= %(min_score)s, false) OR exact_match
           END AS passes
      FROM scored
)
SELECT f.chunk_id, f.document_id, f.vector_score, f.sentence_score, f.vector_rank, f.keyword_score, f.keyword_rank,
       f.fused_score, f.exact_match, f.passes,
       f.content, f.heading, f.page_start, f.page_end, f.filename, f.source_type,
       COALESCE(l.machine_id, 'global') AS scope,
       count(*) OVER () AS candidate_count,
       count(*) FILTER (WHERE NOT f.passes) OVER () AS cut_count
  FROM fused f
  LEFT JOIN licenses_license l ON l.id = f.document_license_id
 WHERE f.fused_score IS NOT NULL
 ORDER BY f.passes DESC, f.fused_score DESC, f.document_created_at DESC, f.chunk_id
 LIMIT %(limit)s
"""


# The kNN's three ways (knowledge/knn_plan.py). A walk orders by the indexed expression; an
# exact comparison by the stored vectors themselves, which no graph serves (so the planner
# stays off the graph) and which casts nothing per row (8% of a 4k-vector scan). Each select
# list repeats its ORDER BY expression so that each distance is computed once.
#
# The whole graph walked, keeping what is in scope:
_NEAREST_IN_SCOPE = """
    SELECT e.id AS embedding_id, e.chunk_id, {distance} AS distance
      FROM knowledge_embedding e
     WHERE {model_predicate}
       AND (e.license_id IS NULL OR e.license_id = %(license)s)
     ORDER BY {distance}
     LIMIT %(candidates)s"""
# The global vectors and the license's own, each part on its own and the two nearest lists
# merged: walked and compared (split), or both compared (exact). Each compared part reads
# one key of the covering (model, license) index alone (an index-only scan, migration 0012);
# one part for the whole scope would need a bitmap scan of the heap for its OR. The global
# part repeats the global graph's predicate (vector_index.GLOBAL_PREDICATE).
_NEAREST_GLOBAL_AND_OWN = """
    SELECT * FROM (
        (SELECT e.id AS embedding_id, e.chunk_id, {distance} AS distance
           FROM knowledge_embedding e
          WHERE {model_predicate} AND e.{global_predicate}
          ORDER BY {distance}
          LIMIT %(candidates)s)
         UNION ALL
        (SELECT e.id, e.chunk_id, {exact_distance}
           FROM knowledge_embedding e
          WHERE {model_predicate} AND e.license_id = %(license)s
          ORDER BY {exact_distance}
          LIMIT %(candidates)s)) nearest
     ORDER BY distance
     LIMIT %(candidates)s"""
_KNN_WAYS = {
    EXACT: ("every vector in scope compared", _NEAREST_GLOBAL_AND_OWN),
    GRAPH: ("the whole graph walked", _NEAREST_IN_SCOPE),
    SPLIT: ("the global graph walked, own vectors compared", _NEAREST_GLOBAL_AND_OWN),
}


def hybrid_sql(model: str, *, way: str) -> str:
    """The search statement for ``model``, its kNN run one of knn_plan's ways.

    The model is written into the text: the planner uses a partial HNSW index only when the
    query's predicate matches the index's literally, even in a generic plan. Only these
    vouched-for fragments and constants are formatted in; values are parameters."""
    description, nearest = _KNN_WAYS[way]
    walked = (
        f"({vector_index.indexed_vector(model, alias='e.')} "
        f"<=> {vector_index.query_vector(model, '%(vector)s')})"
    )
    compared = vector_index.exact_distance("%(vector)s", alias="e.")
    model_predicate = vector_index.model_predicate(model, alias="e.")
    return _HYBRID_SQL.format(
        semantic_plan=description,
        nearest=nearest.format(
            distance=compared if way == EXACT else walked,
            exact_distance=compared,
            model_predicate=model_predicate,
            global_predicate=vector_index.GLOBAL_PREDICATE,
        ),
        sentence_distance=vector_index.exact_distance("%(vector)s", alias="x."),
        rrf_k=RRF_K,
        rank_cap=KEYWORD_RANK_CAP,
    )


def _hybrid_rows(
    license_id: UUID | None,
    query: str,
    vector: list[float],
    model: str,
    options: SearchOptions,
    using: str,
) -> list[dict[str, Any]]:
    plan = knn_plan(license_id, model, options.candidates, using)
    sql = hybrid_sql(model, way=plan.way)
    limit = max(options.top_k, 20) if options.rerank else options.top_k
    params = {
        "q": query,
        "vector": "[" + ",".join(f"{x:.7f}" for x in vector) + "]",
        "license": license_id,
        "scope": license_id or GLOBAL_SCOPE_KEY,
        "global_scope": GLOBAL_SCOPE_KEY,
        "common_lexemes": _common_lexemes_read(using).literal,
        "every_term_min": max(KEYWORD_EVERY_TERM_MIN, limit),
        "candidates": options.candidates,
        "strategy": options.strategy,
        "min_score": options.min_score,
        "vector_weight": options.vector_weight
        if options.vector_weight is not None
        else settings.SEARCH_VECTOR_WEIGHT,
        "sentence_weight": settings.SEARCH_SENTENCE_WEIGHT,
        "type_weights": json.dumps(
            {} if options.vector_weight is not None else settings.SEARCH_WEIGHTS_BY_SOURCE_TYPE
        ),
        "limit": limit,
    }
    # hnsw.iterative_scan and plan_cache_mode are set per session (knowledge.apps); the
    # graph's ef_search per search, sized to the scope, in the statement's round trip.
    if settings.SEARCH_PREPARED_STATEMENTS:
        return prepared.fetch_prepared(sql, params, using, first=plan.session_sql())
    return prepared.fetch(sql, params, using, first=plan.session_sql())


COMMON_LEXEME_SHARE = 0.05
COMMON_LEXEME_MIN_ROWS = KEYWORD_RANK_CAP
COMMON_LEXEMES_TTL_SECONDS = 300.0


@dataclass(frozen=True)
class _CommonLexemes:
    lexemes: list[str]
    # The same as PostgreSQL writes a text[]: each search sends this string, which the
    # server parses back exactly. Sent as a list, the driver quoted each of the ~200
    # lexemes of a 100k-chunk corpus on every search (0.29 ms of a ~5 ms search).
    literal: str
    expires: float


_common_lexemes_cache: dict[str, _CommonLexemes] = {}


def common_lexemes(using: str = "default") -> list[str]:
    """Lexemes the keyword branch leaves out of queries: in more than 5% of chunks, and in
    more chunks than the rank cap.

    Such words carry as little information as stopwords (BM25 gives them almost no weight)
    and are the slow case: ranking every chunk that contains them. Both conditions matter:
    in a small corpus a topical word easily reaches 5% (FaQuAD's 250 passages: 156 such
    lexemes, and dropping them cost 0.10 of keyword R@1), yet ranking its few matches costs
    nothing. ANALYZE's element statistics of the tsvector column name them without a scan;
    they change only when ANALYZE runs, so each process keeps them for a few minutes
    (reading pg_stats in the search statement cost ~1 ms per search, BENCHMARKS.md).
    """
    return _common_lexemes_read(using).lexemes


def _common_lexemes_read(using: str) -> _CommonLexemes:
    key = database_key(using)
    cached = _common_lexemes_cache.get(key)
    if cached and cached.expires > time.monotonic():
        return cached
    with connections[using].cursor() as cursor:
        cursor.execute(
            """
            SELECT words, words::text
              FROM (SELECT coalesce(array_agg(e.lexeme), '{}') AS words
                      FROM pg_stats s,
                           unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs)
                               AS e(lexeme, freq)
                     WHERE s.schemaname = current_schema() AND s.tablename = 'knowledge_chunk'
                       AND s.attname = 'search_vector' AND e.lexeme IS NOT NULL
                       AND e.freq > %s
                       AND e.freq * (SELECT reltuples FROM pg_class
                                      WHERE oid = 'knowledge_chunk'::regclass) > %s) common
            """,
            [COMMON_LEXEME_SHARE, COMMON_LEXEME_MIN_ROWS],
        )
        lexemes, literal = cursor.fetchone()
    read = _CommonLexemes(list(lexemes), literal, time.monotonic() + COMMON_LEXEMES_TTL_SECONDS)
    _common_lexemes_cache[key] = read
    return read


def common_lexemes_forget() -> None:
    """Drop the cached lists (after ANALYZE in tests and benchmarks)."""
    _common_lexemes_cache.clear()


def _result(row: dict[str, Any]) -> SearchResult:
    return SearchResult(
        chunk_id=row["chunk_id"],
        document_id=row["document_id"],
        filename=row["filename"],
        source_type=row["source_type"],
        scope=row["scope"],
        page_start=row["page_start"],
        page_end=row["page_end"],
        heading=row["heading"],
        content=row["content"],
        vector_score=_rounded(row["vector_score"]),
        sentence_score=_rounded(row["sentence_score"]),
        keyword_score=_rounded(row["keyword_score"]),
        vector_rank=row["vector_rank"],
        keyword_rank=row["keyword_rank"],
        fused_score=_rounded(row["fused_score"]) or 0.0,
        exact_match=bool(row["exact_match"]),
    )


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(float(value), 6)


# -- metrics ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchMetrics:
    queries: int
    latency_p50_ms: float | None
    latency_p95_ms: float | None
    latency_p99_ms: float | None
    average_results: float | None
    share_cut_by_threshold: float | None


def search_logs(
    *, since: datetime, until: datetime | None = None, license_id: UUID | None = None
) -> QuerySet[SearchLog]:
    logs = SearchLog.objects.filter(created_at__gte=since)
    if until:
        logs = logs.filter(created_at__lt=until)
    if license_id:
        logs = logs.filter(license_id=license_id)
    return logs


class Percentile(Aggregate):
    function = "percentile_cont"
    template = "%(function)s(%(fraction)s) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def __init__(self, expression: str, fraction: float) -> None:
        super().__init__(expression, fraction=fraction)


def search_metrics(
    *, since: datetime, until: datetime | None = None, license_id: UUID | None = None
) -> SearchMetrics:
    """Seed 004 §8.1: query count, latency percentiles, results per query, share cut by threshold."""
    totals = search_logs(since=since, until=until, license_id=license_id).aggregate(
        queries=Count("id"),
        average_results=Avg("result_count"),
        cut=Sum("cut_by_threshold"),
        candidates=Sum("candidates"),
        p50=Percentile("latency_ms", 0.5),
        p95=Percentile("latency_ms", 0.95),
        p99=Percentile("latency_ms", 0.99),
    )
    return SearchMetrics(
        queries=totals["queries"],
        latency_p50_ms=_round2(totals["p50"]),
        latency_p95_ms=_round2(totals["p95"]),
        latency_p99_ms=_round2(totals["p99"]),
        average_results=_round2(totals["average_results"]),
        share_cut_by_threshold=_round2(totals["cut"] / totals["candidates"])
        if totals["candidates"]
        else None,
    )


def _round2(value: float | None) -> float | None:
    return None if value is None else round(float(value), 2)


# -- admin lists and dashboard ---------------------------------------------------------------

DOCUMENT_SORTS = (
    "-created_at",
    "created_at",
    "filename",
    "-filename",
    "-size_bytes",
    "-chunk_count",
    "status",
)


def document_list(
    *, q: str = "", scope: str = "", status: str = "", kind: str = "", sort: str = "-created_at"
) -> QuerySet[Document]:
    documents = Document.objects.select_related("license")
    if q:
        documents = documents.filter(filename__icontains=q)
    if scope == "global":
        documents = documents.filter(license__isnull=True)
    elif scope:
        documents = documents.filter(license__machine_id=scope)
    if status:
        documents = documents.filter(status=status)
    if kind:
        documents = documents.filter(kind=kind)
    return documents.order_by(sort if sort in DOCUMENT_SORTS else "-created_at", "-created_at")


@dataclass(frozen=True)
class IngestionDay:
    day: date
    uploaded: int
    ready: int
    failed: int


@dataclass(frozen=True)
class LatencyDay:
    day: date
    p50_ms: float
    p95_ms: float
    p99_ms: float


def ingestion_activity(*, days: int = 14) -> list[IngestionDay]:
    """Documents uploaded, made ready and failed per day."""
    from django.db.models import Q
    from django.db.models.functions import TruncDate
    from django.utils import timezone

    since = timezone.now() - timezone.timedelta(days=days)
    rows = (
        Document.objects.filter(created_at__gte=since)
        .annotate(day=TruncDate("created_at"))
        .values("day")
        .annotate(
            uploaded=Count("id"),
            ready=Count("id", filter=Q(status="ready")),
            failed=Count("id", filter=Q(status="failed")),
        )
        .order_by("day")
    )
    return [IngestionDay(r["day"], r["uploaded"], r["ready"], r["failed"]) for r in rows]


def search_latency_by_day(*, days: int = 14, license_id: UUID | None = None) -> list[LatencyDay]:
    """p50 / p95 / p99 search latency per day, for the dashboard chart."""
    from django.db.models.functions import TruncDate
    from django.utils import timezone

    logs = search_logs(since=timezone.now() - timezone.timedelta(days=days), license_id=license_id)
    rows = (
        logs.annotate(day=TruncDate("created_at"))
        .values("day")
        .annotate(
            p50=Percentile("latency_ms", 0.5),
            p95=Percentile("latency_ms", 0.95),
            p99=Percentile("latency_ms", 0.99),
        )
        .order_by("day")
    )
    return [
        LatencyDay(r["day"], round(r["p50"], 1), round(r["p95"], 1), round(r["p99"], 1))
        for r in rows
    ]


@dataclass(frozen=True)
class StatusCount:
    status: str
    label: str
    count: int


def document_counts_by_status() -> list[StatusCount]:
    """Every status, in the order of the pipeline, with how many documents have it."""
    counts = dict(Document.objects.values_list("status").annotate(n=Count("id")))
    return [
        StatusCount(value, str(label), counts.get(value, 0))
        for value, label in DocumentStatus.choices
    ]


def chunk_count() -> int:
    return Chunk.objects.count()


def documents_failed_recently(*, limit: int) -> list[Document]:
    failed = Document.objects.filter(status=DocumentStatus.FAILED).select_related("license")
    return list(failed.order_by("-updated_at")[:limit])
