"""The search every entry point runs, written to the access log (seed 004 §7)."""

from __future__ import annotations

from knowledge.models import SearchLog
from knowledge.redaction import redact
from knowledge.search import SearchOptions, SearchResponse, search
from licenses.principals import Principal


def knowledge_search(
    *, principal: Principal, query: str, options: SearchOptions | None = None
) -> SearchResponse:
    """The search every entry point runs: hybrid retrieval in the principal's scope, written
    to the access log (seed 004 §7). (The chat logs its search itself, once its answer has
    started: chat.services.)"""
    response = search(principal=principal, query=query, options=options)
    search_log_record(principal=principal, response=response)
    return response


def search_log_record(*, principal: Principal, response: SearchResponse) -> SearchLog:
    """The access log of seed 004 §7: every retrieval, with its scope, results and latency."""
    return SearchLog.objects.create(
        actor=principal.actor[:200],
        license_id=principal.license_id,
        scope_label=principal.scope_label,
        query=redact(response.query).text,
        strategy=response.options.strategy,
        top_k=response.options.top_k,
        min_score=response.options.min_score or 0.0,
        latency_ms=response.latency_ms,
        candidates=response.candidates,
        cut_by_threshold=response.cut_by_threshold,
        result_count=len(response.results),
        chunk_ids=[result.chunk_id for result in response.results],
    )
