"""The search: a question in, the best passages of the caller's scope out."""

from __future__ import annotations

import time
from typing import Any

from django.utils.translation import gettext_noop

from datastores.replicas import replica_reads
from knowledge.embeddings import provider_for_model
from knowledge.search import vector_index
from knowledge.search.asked import what_is_asked
from knowledge.search.fusion import relative_cut
from knowledge.search.rerank import rerank
from knowledge.search.spelling import respelt, scope_lacks
from knowledge.search.statement import hybrid_rows
from knowledge.search.tuning import SearchTuning
from knowledge.search.types import (
    MAX_QUERY_CHARS,
    CutResult,
    SearchOptions,
    SearchResponse,
    SearchResult,
    across_languages,
    weekdays_asked_in,
)
from licenses.principals import Principal
from observability.metrics import SEARCH_SECONDS
from text.folding import tame
from text.languages import detect_language
from text.words import language_of_weekdays
from web.exceptions import ApplicationError

# The candidates, passing or cut, whose words spell a misspelt query's (spelling.py): a typo
# kept the keyword branch from the passage the vectors still brought near.
RESPELL_FROM = 10


def search(
    *,
    principal: Principal,
    query: str,
    options: SearchOptions | None = None,
    embedding: vector_index.QueryEmbedding | None = None,
    tuning: SearchTuning | None = None,
) -> SearchResponse:
    """Hybrid search inside the principal's scope. Reads only: the logged search every entry
    point uses is ``knowledge.searching.knowledge_search``. ``embedding``: the query already
    being embedded with the active model (the chat starts it early); ``tuning``: the
    engine's numbers, the deployment's unless given. Served by a read replica when the
    deployment has a healthy one (datastores/replicas.py)."""
    with replica_reads() as alias:
        response = _search(principal, query, options, embedding, tuning)
    response.served_by = alias
    return response


def _search(
    principal: Principal,
    query: str,
    options: SearchOptions | None,
    embedding: vector_index.QueryEmbedding | None,
    tuning: SearchTuning | None,
) -> SearchResponse:
    started = time.perf_counter()
    tuning = tuning or SearchTuning.from_settings()
    query = clean_query(query)
    model = embedding.active_model if embedding is not None else vector_index.active_model()
    options = (options or SearchOptions()).resolved(model or "")
    # a question too short to tell its language by its days' names: "Abre no domingo?"
    language = detect_language(what_is_asked(query)) or language_of_weekdays(query)
    options = across_languages(options, model or "", language)
    options = weekdays_asked_in(options, model or "", query, language)
    response = SearchResponse(
        query=query, scope=principal.scope_label, model=model, options=options
    )
    if model:
        with SEARCH_SECONDS.labels(stage="embed").time():
            vector = (
                embedding.vector()
                if embedding
                else provider_for_model(model).embed_query(what_is_asked(query))
            )
        with SEARCH_SECONDS.labels(stage="statement").time():
            rows, searched_as = _statement_rows(principal, query, vector, model, options, tuning)
        response.searched_as = searched_as if searched_as != query else ""
        _fill(response, rows, options)
    elapsed = time.perf_counter() - started
    SEARCH_SECONDS.labels(stage="total").observe(elapsed)
    response.latency_ms = elapsed * 1000
    return response


def _statement_rows(
    principal: Principal,
    query: str,
    vector: list[float],
    model: str,
    options: SearchOptions,
    tuning: SearchTuning,
) -> tuple[list[dict[str, Any]], str]:
    """The statement's rows for ``query``, and the query they are for: when one of its
    words is misspelt (in no chunk of the scope, spelt nearly as a word of the first
    candidates), the query as the candidates spell it."""

    def rows_for(text: str) -> list[dict[str, Any]]:
        return hybrid_rows(
            license_id=principal.license_id,
            query=text,
            vector=vector,
            model=model,
            options=options,
            tuning=tuning,
        )

    rows = rows_for(query)
    # The heading too: the coworking's "Wi-Fi" is its section's title, not its text's.
    candidates = [f"{row['heading']}\n{row['content']}" for row in rows[:RESPELL_FROM]]
    respelling = respelt(query, candidates, scope_lacks(principal.license_id))
    if respelling == query:
        return rows, query
    return rows_for(respelling), respelling


def _fill(response: SearchResponse, rows: list[dict[str, Any]], options: SearchOptions) -> None:
    passes = [row["passes"] and not _passed_as_another_language(row, options) for row in rows]
    passing = [_result(row) for row, kept in zip(rows, passes, strict=True) if kept]
    response.results, far = relative_cut(passing, options.relative_cut or 0.0)
    response.cut = [CutResult(r, "far_below_best") for r in far] + [
        CutResult(_result(row), "threshold")
        for row, kept in zip(rows, passes, strict=True)
        if not kept
    ]
    response.candidates = rows[0]["candidate_count"] if rows else 0
    response.cut_by_threshold = (rows[0]["cut_count"] if rows else 0) + sum(
        row["passes"] and not kept for row, kept in zip(rows, passes, strict=True)
    )
    if options.rerank:
        response.results = rerank(response.query, response.results)
    response.results = response.results[: options.top_k]


def _passed_as_another_language(row: dict[str, Any], options: SearchOptions) -> bool:
    """A passage that passed only by the lower floor across English
    (types.ACROSS_ENGLISH_MARGIN), whose own words are not in a language across English
    from the question: the statement knows its document's language, and a handbook written
    in several languages is one document ("The monthly fee is twenty euros" in a Spanish one
    passed the lower floor for an English question)."""
    floor, lower = options.min_score, options.min_score_across
    if floor is None or lower is None or lower >= floor:
        return False  # no lower floor for this question
    if options.strategy == "keyword" or row["exact_match"] or row["names_a_day_asked"]:
        return False  # passed by its words, not its score
    score = row["semantic_score"]
    return (
        score is not None
        and score < floor
        and detect_language(row["content"]) not in options.languages_across
    )


def clean_query(query: str) -> str:
    query = tame(" ".join((query or "").split()))
    if not query:
        raise ApplicationError(gettext_noop("Write something to search for."))
    if len(query) > MAX_QUERY_CHARS:
        raise ApplicationError(
            gettext_noop("The query is %(length)s characters long; the limit is %(limit)s."),
            params={"length": len(query), "limit": MAX_QUERY_CHARS},
        )
    return query.replace("\x00", "")


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
        semantic_score=_rounded(row["semantic_score"]),
        keyword_score=_rounded(row["keyword_score"]),
        vector_rank=row["vector_rank"],
        keyword_rank=row["keyword_rank"],
        fused_score=_rounded(row["fused_score"]) or 0.0,
        exact_match=bool(row["exact_match"]),
    )


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(float(value), 6)
