"""Finding F8 of the third outside attack run: an upload whose Celery message was lost (Redis
killed within a second of it) stayed "Queued" forever, and Retry refused it as "already
queued"."""

from __future__ import annotations

from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.utils import timezone

from knowledge import reingestion
from knowledge.models import Document, DocumentStatus
from knowledge.tasks import document_ingest_task
from tests.factories import make_document
from web.exceptions import ApplicationError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]


def _queued(minutes_ago: int) -> Document:
    document = make_document(
        f"Reglamento {minutes_ago}.", filename=f"r{minutes_ago}.txt", ingest=False
    )
    Document.objects.filter(pk=document.pk).update(
        updated_at=timezone.now() - timedelta(minutes=minutes_ago)
    )
    document.refresh_from_db()
    assert document.status == DocumentStatus.QUEUED
    return document


def test_a_queued_upload_with_no_message_is_queued_again_and_retry_accepts_it():
    redis.Redis.from_url(settings.REDIS_URL).delete(settings.CELERY_TASK_DEFAULT_QUEUE)
    lost, recent = _queued(minutes_ago=30), _queued(minutes_ago=1)

    assert reingestion.documents_requeue_stuck(enqueue=False) == [lost]
    lost.refresh_from_db()
    assert lost.status == DocumentStatus.QUEUED and lost.updated_at > recent.updated_at

    with pytest.raises(ApplicationError, match="already queued"):
        reingestion.document_retry(document=recent, enqueue=False)  # it may still be on its way
    Document.objects.filter(pk=recent.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    recent.refresh_from_db()
    assert reingestion.document_retry(document=recent, enqueue=False).status == "queued"


def test_a_queued_upload_whose_message_waits_is_left_alone():
    waiting = _queued(minutes_ago=30)
    document_ingest_task.delay(str(waiting.pk))  # no worker in this test: it waits in Redis
    try:
        assert str(waiting.pk) in reingestion.documents_in_broker()
        assert reingestion.documents_requeue_stuck(enqueue=False) == []
    finally:
        redis.Redis.from_url(settings.REDIS_URL).delete(settings.CELERY_TASK_DEFAULT_QUEUE)
