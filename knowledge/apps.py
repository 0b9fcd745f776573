from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError
from django.db.backends.signals import connection_created

from datastores.erasures import replayer
from observability.metrics import register_collector


class KnowledgeConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "knowledge"

    def ready(self) -> None:
        check_search_strategy()
        connection_created.connect(search_session_settings, dispatch_uid="hnsw-search-settings")
        register_collector(OutboxBacklog())
        replayer("document", forget_document_again)
        replayer("chunk", forget_chunk_again)
        name_audit_values()


def name_audit_values() -> None:
    """The audit page names knowledge's codes in its details ("redaction: default" read as
    the upload's choice, in the reader's language)."""
    # Models, and what imports them (accounts' roles), load once the app registry is ready.
    from accounts.audit_labels import audit_value_labels
    from knowledge.models import PII_LABELS, DocumentStatus, Redaction, SourceMode, SourceType

    for key, choices in (
        ("redaction", Redaction),
        ("source_type", SourceType),
        ("mode", SourceMode),
        ("was", DocumentStatus),  # a document queued again: what it was
    ):
        audit_value_labels(key, dict(choices.choices))
    audit_value_labels("kinds", PII_LABELS)


def check_search_strategy() -> None:
    """SEARCH_STRATEGY names one of the engine's strategies, or the process does not start
    (settings cannot import the engine: it needs the apps loaded)."""

    # The engine's modules load once the app registry is ready (settings cannot import them).
    from knowledge.search.types import STRATEGIES

    if settings.SEARCH_STRATEGY not in STRATEGIES:
        raise ImproperlyConfigured(
            f"SEARCH_STRATEGY must be one of {', '.join(STRATEGIES)}; "
            f"got {settings.SEARCH_STRATEGY!r}"
        )


def search_session_settings(sender: Any, connection: Any, **kwargs: Any) -> None:
    """Set pgvector's scan settings once per database session rather than per search.

    Iterative scans keep a filtered kNN returning k rows (a license with 20 chunks among a
    million global ones); ef_search is chosen by measurement (BENCHMARKS.md), and the search
    statement sends its own, sized to the scope, in its round trip (knowledge/search/plan.py).
    Setting them per search in separate statements cost a transaction and two more round
    trips: 0.65 ms of a ~7 ms search. They
    are set when the connection opens, outside any transaction, so no rollback undoes them.
    Behind a transaction-pooling proxy (PgBouncer) set them per database instead:
    ``ALTER DATABASE … SET hnsw.iterative_scan = relaxed_order``.

    ``plan_cache_mode = force_generic_plan`` makes the prepared search statement plan once
    per session (knowledge/search/prepared.py says why that is safe: nothing else is prepared).

    ``portality.vector_outbox`` turns on the embeddings table's outbox triggers when the
    vectors also live in a remote backend (knowledge/vector_sync.py).
    """
    if connection.vendor != "postgresql":
        return

    plan_cache_mode = "force_generic_plan" if settings.SEARCH_PREPARED_STATEMENTS else "auto"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', false),"
            " set_config('hnsw.ef_search', %s, false),"
            " set_config('plan_cache_mode', %s, false),"
            " set_config('portality.vector_outbox', %s, false)",
            [
                str(settings.SEARCH_HNSW_EF_SEARCH),
                plan_cache_mode,
                "off" if settings.SEARCH_VECTOR_BACKEND == "pgvector" else "on",
            ],
        )


class OutboxBacklog:
    """The remote vector backend's backlog at each scrape: changes waiting, and the age of
    the oldest (0 and 0 with pgvector, whose outbox stays empty)."""

    def collect(self) -> Any:
        # prometheus_client picks its multi-process mode when first imported, from the
        # variable observability.metrics sets: not before the apps load.
        from prometheus_client.core import GaugeMetricFamily

        # Models, and what imports them, load once the app registry is ready.
        from knowledge.vector_sync import outbox_backlog

        try:
            waiting, oldest_seconds = outbox_backlog()
        except DatabaseError:  # a scrape answers with the database down; health says why
            return
        yield GaugeMetricFamily(
            "portality_vector_outbox_waiting", "Vector changes not yet confirmed.", waiting
        )
        yield GaugeMetricFamily(
            "portality_vector_outbox_oldest_seconds",
            "Age of the oldest vector change not yet confirmed.",
            oldest_seconds,
        )


def forget_document_again(document_id: str) -> bool:
    """A restore's replay of the erasure journal: the document, if the backup had it."""
    # Models and services load after the app registry: imported when a restore replays.
    from knowledge.forgetting import document_forget
    from knowledge.models import Document

    document = Document.objects.filter(pk=document_id).first()
    if document is not None:
        document_forget(document=document)
    return document is not None


def forget_chunk_again(chunk_id: str) -> bool:
    # Models, and what imports them, load once the app registry is ready.
    from knowledge.forgetting import chunk_forget
    from knowledge.models import Chunk

    chunk = Chunk.objects.filter(pk=chunk_id).first()
    if chunk is not None:
        chunk_forget(chunk=chunk)
    return chunk is not None
