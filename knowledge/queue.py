"""What the knowledge app hands its Celery workers, by the tasks' registered names.

The services that queue work (an upload, a Retry, a remote backend's outbox, a web source's
check) are also what
the tasks run, so they queue by name (Celery's ``send_task``) instead of importing
``knowledge.tasks``: the tasks import the services, never the other way round. The names
are the tasks' own: ``knowledge.tasks`` declares them with these constants."""

from __future__ import annotations

import uuid
from functools import partial
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from datastores.broker import task_send
from knowledge.models import Document, DocumentStatus, Source

# The names Celery gave them before they were declared (messages queued by an older
# version are still understood after an upgrade; beat's schedule names the drain too).
INGEST_DOCUMENT = "knowledge.tasks.document_ingest_task"
DRAIN_VECTOR_OUTBOX = "knowledge.tasks.vector_outbox_drain_task"
CHECK_SOURCE = "knowledge.tasks.source_check_task"


def queue_ingestion(document_id: uuid.UUID | str) -> None:
    """Hand a document to the workers. When the broker cannot take the message, the
    document stays queued, already stored: beat's requeue of queued documents with no
    message (documents_requeue_stuck) sends it once the broker is back, so the upload is
    not reported as failed."""
    task_send(INGEST_DOCUMENT, str(document_id))


def queue_outbox_drain() -> None:
    """The outbox keeps the changes; beat drains it every 15 s if this message is lost."""
    task_send(DRAIN_VECTOR_OUTBOX)


def queue_source_check(source_id: uuid.UUID | str) -> None:
    """Check a web source soon. When the broker cannot take the message, the source is
    left due, so beat's next look for due sources (every five minutes) queues its check."""
    if not task_send(CHECK_SOURCE, str(source_id)):
        Source.objects.filter(pk=source_id).update(checking=True, next_check_at=timezone.now())


def documents_queued_again(
    documents: QuerySet[Document], *, enqueue: bool = True, **changes: Any
) -> list[uuid.UUID]:
    """Set these documents queued, their last run's stage, progress and error cleared (with
    ``changes`` to their fields), and with ``enqueue`` queue their ingestion once the
    transaction commits: a worker never picks up a document whose change it cannot see yet.
    Returns their ids."""
    ids = list(documents.values_list("pk", flat=True))
    Document.objects.filter(pk__in=ids).update(
        status=DocumentStatus.QUEUED,
        stage="",
        progress=0,
        error="",
        error_i18n={},
        updated_at=timezone.now(),
        **changes,
    )
    for document_id in ids if enqueue else ():
        transaction.on_commit(partial(queue_ingestion, document_id))
    return ids
