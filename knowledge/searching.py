"""The search every entry point runs, written to the access log (seed 004 §7)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from uuid import UUID

from django.db.models import Q

from knowledge.models import SearchLog
from knowledge.redaction import redact_said
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


def search_log_record(
    *, principal: Principal, response: SearchResponse, for_answer: UUID | None = None
) -> SearchLog:
    """The access log of seed 004 §7: every retrieval, with its scope, results and latency.
    ``for_answer``: a search made for a kept chat answer (a reviewer's search again), linked
    to it and without its words, which the answer holds."""
    return SearchLog.objects.create(
        actor=principal.actor[:200],
        license_id=principal.license_id,
        scope_label=principal.scope_label,
        query="" if for_answer else redact_said(response.query).text,
        exchange_id=for_answer,
        strategy=response.options.strategy,
        top_k=response.options.top_k,
        min_score=response.options.min_score or 0.0,
        latency_ms=response.latency_ms,
        candidates=response.candidates,
        cut_by_threshold=response.cut_by_threshold,
        result_count=len(response.results),
        chunk_ids=[result.chunk_id for result in response.results],
    )


# -- the words end users wrote, kept no longer than their conversations ------------------------

QUERY_PURGE_BATCH = 20_000


def search_log_link(*, log_ids: list[int], exchange_id: UUID, keep_query: bool) -> None:
    """The chat answer these searches were for; their words are dropped at once when the
    answer keeps none (a retention of 0 days)."""
    if log_ids:
        words = {} if keep_query else {"query": ""}
        SearchLog.objects.filter(pk__in=log_ids).update(exchange_id=exchange_id, **words)


def search_logs_forget_queries(
    *, exchange_ids: Iterable[UUID | str] = (), log_ids: Iterable[int] = ()
) -> int:
    """The words of the searches these answers were for (or of these searches), gone with
    the answers' own (their person erased, a memory forgotten). The access itself stays:
    who, which scope, which passages, how fast."""
    answers, searches = [str(i) for i in exchange_ids], list(log_ids)
    if not answers and not searches:
        return 0
    logs = SearchLog.objects.filter(Q(exchange_id__in=answers) | Q(pk__in=searches))
    return logs.update(query="", exchange_id=None)


def search_logs_expire_queries(
    *, before: datetime, licenses: Iterable[UUID] = (), other_than: Iterable[UUID] = ()
) -> int:
    """Empty the words of the searches made before ``before``: of ``licenses``, or when
    none are named, of every scope but the licenses ``other_than`` (those with a retention of
    their own). In batches, each committed, as the conversations' purge."""
    logs = SearchLog.objects.filter(created_at__lt=before).exclude(query="")
    if licenses := list(licenses):
        logs = logs.filter(license_id__in=licenses)
    elif other_than := list(other_than):
        logs = logs.exclude(license_id__in=other_than)
    emptied = 0
    while ids := list(logs.values_list("pk", flat=True)[:QUERY_PURGE_BATCH]):
        emptied += SearchLog.objects.filter(pk__in=ids).update(query="")
    return emptied
