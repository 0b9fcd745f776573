"""What the knowledge app hands its Celery workers, by the tasks' registered names.

The services that queue work (an upload, a Retry, a remote backend's outbox) are also what
the tasks run, so they queue by name (Celery's ``send_task``) instead of importing
``knowledge.tasks``: the tasks import the services, never the other way round. The names
are the tasks' own: ``knowledge.tasks`` declares them with these constants."""

from __future__ import annotations

import uuid

from portality.celery import app as celery_app

# The names Celery gave them before they were declared (messages queued by an older
# version are still understood after an upgrade; beat's schedule names the drain too).
INGEST_DOCUMENT = "knowledge.tasks.document_ingest_task"
DRAIN_VECTOR_OUTBOX = "knowledge.tasks.vector_outbox_drain_task"


def queue_ingestion(document_id: uuid.UUID | str) -> None:
    celery_app.send_task(INGEST_DOCUMENT, args=[str(document_id)])


def queue_outbox_drain() -> None:
    celery_app.send_task(DRAIN_VECTOR_OUTBOX)
