"""Knowledge reads for the console: document lists, search metrics, dashboard figures, the
redaction a scope asks for.
The search itself is the engine's: knowledge.search."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from uuid import UUID

from django.conf import settings
from django.db import connection
from django.db.models import Aggregate, Avg, Count, FloatField, Q, QuerySet, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from knowledge.models import (
    Chunk,
    ChunkingDefault,
    Document,
    DocumentStatus,
    Redaction,
    RedactionPolicy,
    SearchLog,
    Source,
    SourcePage,
)
from knowledge.redaction import KINDS, AllowList
from knowledge.search import SearchResponse
from licenses.models import GLOBAL_SCOPE, License

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


def search_log_queries(*, exchange_id: UUID) -> list[str]:
    """The words kept of the searches a chat answer made (its access log rows), oldest
    first."""
    logs = SearchLog.objects.filter(exchange_id=exchange_id).exclude(query="")
    return list(logs.order_by("created_at", "pk").values_list("query", flat=True))


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
    if scope == GLOBAL_SCOPE:
        documents = documents.filter(license__isnull=True)
    elif scope:
        documents = documents.filter(license__machine_id=scope)
    if status:
        documents = documents.filter(status=status)
    if kind:
        documents = documents.filter(kind=kind)
    return documents.order_by(sort if sort in DOCUMENT_SORTS else "-created_at", "-created_at")


def namesake_unless_copy(*, license: License | None, filename: str, sha256: str) -> Document | None:
    """The scope's document under this name, unless these bytes are already in the scope
    (the upload is then a duplicate, which needs no question)."""
    if Document.objects.filter(license=license, sha256=sha256).exists():
        return None
    return document_named(license=license, filename=filename)


def document_named(*, license: License | None, filename: str) -> Document | None:
    """The newest uploaded document of the scope shown under this name (a web source's
    pages change with the page, never by upload)."""
    scope = Q(license=license) if license else Q(license__isnull=True)
    return (
        Document.objects.filter(scope, filename=filename, source_pages__isnull=True)
        .select_related("license")
        .order_by("-created_at")
        .first()
    )


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
    since = timezone.now() - timedelta(days=days)
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
    logs = search_logs(since=timezone.now() - timedelta(days=days), license_id=license_id)
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


# -- redaction ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RedactionPlan:
    """What one upload's ingestion replaces: ``kinds`` of personal data, except what
    ``allow`` names as the organisation's own (None: nothing is kept)."""

    kinds: tuple[str, ...]
    allow: AllowList | None


def redaction_policy_effective(license: License | None) -> RedactionPolicy:
    """The scope's policy (unsaved when it has none of its own): a license's kinds and
    default over global's, its allow-list added to global's."""
    rows = {
        p.license_id: p
        for p in RedactionPolicy.objects.filter(Q(license__isnull=True) | Q(license=license))
    }
    shared = rows.get(None) or RedactionPolicy(license=None)
    own = rows.get(license.pk) if license else None
    if own is None:
        return shared
    return RedactionPolicy(
        license=license,
        kinds=own.kinds,
        keep_contacts=own.keep_contacts,
        allow=[*shared.allow, *own.allow],
    )


def redaction_policy_own(license: License | None) -> RedactionPolicy | None:
    return RedactionPolicy.objects.filter(license=license).first()


def redaction_plan(*, license: License | None, choice: str) -> RedactionPlan:
    if not settings.KNOWLEDGE_REDACT_PII or choice == Redaction.NONE:
        return RedactionPlan(kinds=(), allow=None)
    if choice == Redaction.ALL:
        return RedactionPlan(kinds=KINDS, allow=None)
    policy = redaction_policy_effective(license)
    keep = choice == Redaction.KEEP_CONTACTS or policy.keep_contacts
    return RedactionPlan(
        kinds=tuple(k for k in KINDS if k in policy.kinds),
        allow=AllowList(policy.allow) if keep else None,
    )


def marked_words(response: SearchResponse) -> str:
    """The words of a search the playground's results mark: those the keyword search
    itself weighs, as searched."""
    return " ".join(informative_words(response.searched_as or response.query))


def informative_words(query: str) -> list[str]:
    """The query's words that are no stopword in Spanish, Portuguese or English, as the
    keyword search's own dictionaries say (what the playground may highlight)."""
    words = sorted({w for w in re.findall(r"\w+", query) if len(w) > 1})[:50]
    if not words:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT w FROM unnest(%s::text[]) AS w
                WHERE length(to_tsvector('pb_spanish', w)) > 0
                  AND length(to_tsvector('pb_portuguese', w)) > 0
                  AND length(to_tsvector('pb_english', w)) > 0""",
            [words],
        )
        return [row[0] for row in cursor.fetchall()]


def chunking_default_own(license: License | None) -> ChunkingDefault | None:
    return ChunkingDefault.objects.filter(license=license).first()


def chunking_default_effective(license: License | None) -> ChunkingDefault:
    """The license's own chunking default, else global's, else the built-in one (unsaved)."""
    own = chunking_default_own(license)
    if own is None and license is not None:
        own = chunking_default_own(None)
    return own or ChunkingDefault(license=None)


def chunking_defaults_by_scope() -> dict[str, dict[str, object]]:
    """Every scope's own chunking default, by GLOBAL_SCOPE or machine_id (the console shows
    the one of the scope chosen for an upload; a license without one follows global's)."""
    return {
        (default.license.machine_id if default.license else GLOBAL_SCOPE): {
            "chunk_size": default.chunk_size,
            "chunk_overlap": default.chunk_overlap,
            "split": default.split,
        }
        for default in ChunkingDefault.objects.select_related("license")
    }


def source_list() -> QuerySet[Source]:
    return Source.objects.select_related("license").annotate(
        page_count=Count("pages", distinct=True),
        failing_pages=Count("pages", filter=~Q(pages__error=""), distinct=True),
    )


def source_pages(source: Source) -> QuerySet[SourcePage]:
    return source.pages.select_related("document").order_by("url")
