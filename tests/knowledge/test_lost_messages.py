"""Finding F8 of the third outside attack run: an upload whose Celery message was lost (Redis
killed within a second of it) stayed "Queued" forever, and Retry refused it as "already
queued"."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from rest_framework.test import APIClient

from knowledge import reingestion
from knowledge.models import Document, DocumentStatus
from knowledge.tasks import document_ingest_task
from tests.broker import redis_down, redis_frozen
from tests.factories import as_owner, make_document
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


@pytest.fixture
def silent_broker():
    with redis_frozen():
        yield


@pytest.mark.usefixtures("silent_broker")
def test_an_upload_while_the_broker_is_silent_is_kept_queued_for_beat(
    django_user_model, django_capture_on_commit_callbacks, caplog
):
    """Sending its message waited for the broker's answer for ever, holding the request and
    one of the web server's eight slots: a handful of uploads stopped the whole console."""
    user = as_owner(django_user_model.objects.create_user("subida", password="x", is_staff=True))
    client = APIClient()
    client.force_authenticate(user)
    started = time.monotonic()

    with django_capture_on_commit_callbacks(execute=True):
        created = client.post(
            "/api/v1/documents",
            {"file": SimpleUploadedFile("horario.txt", b"La oficina abre a las ocho.")},
            format="multipart",
        )

    assert created.status_code == 201, created.content
    assert time.monotonic() - started < 20  # the broker's socket timeouts, with Celery's retries
    assert "not queued, the broker did not take it" in caplog.text
    document = Document.objects.get(pk=created.json()["id"])
    Document.objects.filter(pk=document.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    assert reingestion.documents_requeue_stuck(enqueue=False) == [document]


def test_an_upload_while_redis_is_down_is_kept_queued_for_beat(
    django_user_model, django_capture_on_commit_callbacks
):
    """Redis down answered the upload 500 ("Retry limit exceeded while trying to reconnect
    to the Celery result store backend"): sending a task also subscribed the web process to
    its result, which nothing reads, and that failure was not the broker's."""
    user = as_owner(django_user_model.objects.create_user("subida", password="x", is_staff=True))
    client = APIClient()
    client.force_authenticate(user)

    with redis_down(), django_capture_on_commit_callbacks(execute=True):
        created = client.post(
            "/api/v1/documents",
            {"file": SimpleUploadedFile("horario.txt", b"La oficina abre a las ocho.")},
            format="multipart",
        )

    assert created.status_code == 201, created.content
    document = Document.objects.get(pk=created.json()["id"])
    assert document.status == DocumentStatus.QUEUED
    Document.objects.filter(pk=document.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    assert reingestion.documents_requeue_stuck(enqueue=False) == [document]


def test_a_source_added_or_checked_while_redis_is_down_is_left_due_for_beat(
    django_user_model, django_capture_on_commit_callbacks, client, settings
):
    """The console's Add and Check now answered 500 (the source kept, its check never sent,
    shown as checking until its next check, a day later by default)."""
    from knowledge.models import Source  # noqa: PLC0415
    from knowledge.sources import sources_due  # noqa: PLC0415

    owner = as_owner(django_user_model.objects.create_user("fuentes", password="x", is_staff=True))
    client.force_login(owner)
    api = APIClient()
    api.force_authenticate(owner)
    settings.SOURCES_ALLOWED_HOSTS = ["127.0.0.1:9"]  # never fetched: its check is not sent
    form = {"url": "http://127.0.0.1:9/ayuda", "scope": "global", "mode": "page",
            "every_hours": 24, "max_pages": 50, "max_depth": 2}  # fmt: skip

    with redis_down(), django_capture_on_commit_callbacks(execute=True):
        added = client.post("/knowledge/sources/", form)
        source = Source.objects.get()  # (a refused form would have no source)
        Source.objects.update(checking=False, next_check_at=timezone.now() + timedelta(days=1))
        checked = client.post(f"/knowledge/sources/{source.pk}/check")
        checked_by_api = api.post(f"/api/v1/sources/{source.pk}/check")

    assert added.status_code == 302 and checked.status_code == 302
    assert checked_by_api.status_code == 202
    source.refresh_from_db()
    assert source.checking and source.next_check_at <= timezone.now()
    assert sources_due() == [source.pk]  # beat's next look queues its check
