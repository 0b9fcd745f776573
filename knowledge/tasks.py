"""Thin Celery wrappers: take ids, call one service. Retries only for transient errors."""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_ready
from django.conf import settings
from django.db import IntegrityError, OperationalError

from knowledge import ingestion, reingestion, sources, vector_sync
from knowledge.models import DocumentStatus
from knowledge.queue import CHECK_SOURCE, DRAIN_VECTOR_OUTBOX, INGEST_DOCUMENT, queue_source_check
from knowledge.search import sentence_vectors
from providers import ProviderUnavailable
from web.exceptions import ApplicationError

logger = logging.getLogger(__name__)


@worker_ready.connect
def _requeue_interrupted(sender: object, **kwargs: object) -> None:
    """A worker that starts (a killed one replaced, make run or a deploy starting) queues
    again at once what a killed one left "processing", not at the periodic requeue up to 15
    minutes later. Documents another live worker holds are left to it (their lock says so)."""
    requeued = reingestion.documents_requeue_stuck()
    if requeued:
        logger.info("requeued %d document(s) a stopped worker had left", len(requeued))


class IngestTask(Task):
    def on_failure(self, exc: Exception, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        # Retries are exhausted or the error was not transient: say so on the document.
        document_id = kwargs.get("document_id") or (args[0] if args else None)
        if document_id:
            ingestion.document_mark_crashed(document_id=document_id, error=exc)


@shared_task(
    name=INGEST_DOCUMENT,
    base=IngestTask,
    bind=True,
    autoretry_for=(ProviderUnavailable, OperationalError, IntegrityError),
    retry_backoff=5,
    retry_backoff_max=300,
    max_retries=5,
)
def document_ingest_task(self: Task, document_id: str) -> str | None:
    try:
        document = ingestion.document_ingest(
            document_id=document_id, embed_seconds=_embedding_seconds(self)
        )
    except SoftTimeLimitExceeded:
        ingestion.document_mark_over_time(document_id=document_id)
        return DocumentStatus.FAILED
    if document is None:
        logger.info("document %s: nothing to ingest (gone, or already finished)", document_id)
        return None
    if document.status == DocumentStatus.PROCESSING:  # handed over: embedding goes on
        _queue_next(self, self, document_id)
        return document.status
    logger.info("document %s %s: %s chunks", document_id, document.status, document.chunk_count)
    if document.status == DocumentStatus.READY:
        vector_sync.send_now(f"document {document_id}")
        if sentence_vectors.enabled():
            _queue_sentences(self, document_id)
    return document.status


def _embedding_seconds(task: Task) -> float:
    """An ingestion, or a document's sentence pass, embeds for half the task's time limit,
    then a new run continues: the other half is for reading the document again and storing
    its chunks. So a document of any length is ingested, the time limit still stops a run
    that hangs, and a worker stopped for a deploy loses at most one batch. The limits are
    the message's (Celery sends the sender's CELERY_TASK_TIME_LIMIT with each task, and the
    worker obeys it)."""
    hard, soft = task.request.timelimit or (None, None)
    return (soft or hard or settings.CELERY_TASK_SOFT_TIME_LIMIT) / 2


def _queue_next(follow_up: Task, after: Task, document_id: str) -> None:
    """``follow_up`` for this document, on the queue the run ``after`` came from."""
    delivered = after.request.delivery_info or {}
    follow_up.apply_async(  # its result is read by nobody (datastores.broker says why)
        args=[document_id], queue=delivered.get("routing_key"), ignore_result=True
    )


def _queue_sentences(task: Task, document_id: str) -> None:
    """Queued behind the uploads already waiting, which become searchable first. The
    document is ready whatever happens here: if the broker cannot take the task now, the
    periodic catch-up embeds its sentences later (a failure must not fail the ingestion)."""
    try:
        _queue_next(document_sentences_task, task, document_id)
    except Exception:
        logger.warning(
            "document %s: sentence pass not queued; the catch-up will do it",
            document_id,
            exc_info=True,
        )


@shared_task(
    bind=True,
    autoretry_for=(ProviderUnavailable, OperationalError),
    retry_backoff=5,
    retry_backoff_max=300,
    max_retries=5,
)
def document_sentences_task(self: Task, document_id: str) -> int:
    stored = sentence_vectors.document_embed_sentences(
        document_id=document_id, seconds=_embedding_seconds(self)
    )
    if sentence_vectors.document_sentences_left(document_id=document_id):
        _queue_next(self, self, document_id)  # what was embedded is stored: the next run goes on
    return stored


# Per run of the periodic catch-up: about a minute of embedding on this machine's kind.
SENTENCES_CATCH_UP_LIMIT = 200


@shared_task(expires=600)
def sentences_embed_missing_task() -> int:
    return sentence_vectors.sentences_embed_missing(limit=SENTENCES_CATCH_UP_LIMIT)


@shared_task(expires=600)
def documents_requeue_stuck_task() -> int:
    return len(reingestion.documents_requeue_stuck())


@shared_task(
    bind=True,
    name=DRAIN_VECTOR_OUTBOX,
    expires=60,
    autoretry_for=(OperationalError,),
    retry_backoff=2,
    max_retries=3,
)
def vector_outbox_drain_task(self: Task) -> dict[str, Any]:
    """Send the remote vector backend what is due (knowledge/vector_sync.py); the outbox
    keeps its own backoff per change, so this task never retries a refused batch itself.
    Another drain holding on past a second (a long backlog): this one runs again later,
    since the other may have read the outbox before the change that queued this one."""
    report = vector_sync.outbox_drain_patiently()
    if report.busy:
        raise self.retry(countdown=2)
    if report.error:
        logger.warning("vector outbox: %s", report.error)
    return {"upserted": report.upserted, "removed": report.removed, "postponed": report.postponed}


@shared_task(
    name=CHECK_SOURCE,
    expires=3600,
    autoretry_for=(OperationalError,),
    retry_backoff=5,
    max_retries=3,
)
def source_check_task(source_id: str) -> dict[str, int]:
    """A check's failure is kept on the source (its page shows it); nothing to retry here."""
    try:
        return sources.source_check(source_id=source_id).as_dict()
    except ApplicationError as exc:
        logger.info("source %s: %s", source_id, exc.english)
        return {"errors": 1}


@shared_task(expires=600)
def sources_check_due_task() -> int:
    due = sources.sources_due()
    for source_id in due:
        queue_source_check(source_id)  # left due when the broker does not take it
    return len(due)
