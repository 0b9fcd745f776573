"""A long document's ingestion goes on where it stopped: each batch's vectors are kept as
drafts, so a run that hands over (or dies) is continued, not started again."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.utils import timezone

from knowledge import embeddings, forgetting, ingestion
from knowledge.models import Chunk, Document, DocumentStatus, DraftVector, Embedding
from knowledge.tasks import document_ingest_task
from providers import ProviderUnavailable
from tests.factories import as_owner, make_document
from tests.fakes import FakeEmbedder

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]


@pytest.fixture
def small_batches(settings):
    settings.EMBEDDING_BATCH_SIZE = 2


def queued_long_document() -> Document:
    """Nine sections, a chunk each."""
    text = "\n\n".join(
        f"# Artículo {n}\n\nEl reglamento número {n} regula la zona común {n}: sus horarios, "
        f"su aforo y las sanciones por incumplir la norma {n}."
        for n in range(9)
    )
    return make_document(text, filename="largo.md", ingest=False)


def test_a_run_that_hands_over_is_continued_and_nothing_is_embedded_twice(
    fake_embedder, small_batches
):
    document = queued_long_document()

    runs, progress = [], []
    while document.status != DocumentStatus.READY:
        # No time at all: every run embeds one batch, keeps it and hands over.
        document = ingestion.document_ingest(document_id=document.pk, embed_seconds=0)
        runs.append(document.status)
        progress.append(document.progress)
        if document.status == DocumentStatus.PROCESSING:
            assert document.stage == "embedding"
            assert DraftVector.objects.filter(document=document).count() == 2 * len(runs)
        assert len(runs) < 50

    chunks = Chunk.objects.filter(document=document).count()
    assert chunks == document.chunk_count > 4
    assert len(runs) == (chunks + 1) // 2  # a batch of two a run
    assert progress == sorted(progress)  # the bar never goes back, reading again included
    assert len(fake_embedder.passages) == len(set(fake_embedder.passages)) == chunks
    assert document.metadata["vectors_reused"] == 2 * (len(runs) - 1)
    assert Embedding.objects.filter(chunk__document=document).count() == chunks
    assert not DraftVector.objects.filter(document=document).exists()  # gone once stored


def test_a_run_with_time_left_embeds_everything_and_keeps_no_drafts(fake_embedder, small_batches):
    document = ingestion.document_ingest(document_id=queued_long_document().pk, embed_seconds=3600)

    assert document.status == DocumentStatus.READY
    assert document.metadata["vectors_reused"] == 0
    assert not DraftVector.objects.exists()


class FailingAfter(FakeEmbedder):
    """The embedding provider going away after ``calls`` batches (Gemini's outage)."""

    def __init__(self, calls: int) -> None:
        super().__init__()
        self.allowed = calls

    def embed_passages(self, texts):
        if self.calls == self.allowed:
            raise ProviderUnavailable("The embedding service is down.")
        return super().embed_passages(texts)


def test_a_run_the_provider_stopped_is_continued_by_the_retry(monkeypatch, small_batches):

    failing = FailingAfter(calls=3)
    monkeypatch.setattr(embeddings, "_providers", {"local": failing})
    document = queued_long_document()
    with pytest.raises(ProviderUnavailable):  # the task retries it, with backoff
        ingestion.document_ingest(document_id=document.pk)
    assert DraftVector.objects.filter(document=document).count() == 6

    working = FakeEmbedder()
    monkeypatch.setattr(embeddings, "_providers", {"local": working})
    document = ingestion.document_ingest(document_id=document.pk)

    assert document.status == DocumentStatus.READY
    assert document.metadata["vectors_reused"] == 6
    assert len(working.passages) == document.chunk_count - 6
    assert not set(working.passages) & set(failing.passages)


def test_forgetting_a_document_half_way_takes_its_drafts_with_it(fake_embedder, small_batches):

    document = queued_long_document()
    ingestion.document_ingest(document_id=document.pk, embed_seconds=0)
    assert DraftVector.objects.filter(document=document).exists()

    forgetting.document_forget(document=Document.objects.get(pk=document.pk))

    assert not DraftVector.objects.exists()


class ForgottenMeanwhile(FakeEmbedder):
    """An admin presses Forget while the second batch is being embedded."""

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document

    def embed_passages(self, texts):
        if self.calls == 1:
            forgetting.document_forget(document=Document.objects.get(pk=self.document.pk))
        return super().embed_passages(texts)


@pytest.mark.django_db(transaction=True)  # drafts commit as they are written, as in a worker
def test_a_document_forgotten_while_it_is_embedded_stops_without_an_error(
    monkeypatch, small_batches
):

    document = queued_long_document()
    monkeypatch.setattr(embeddings, "_providers", {"local": ForgottenMeanwhile(document)})

    assert ingestion.document_ingest(document_id=document.pk) is None

    assert not Document.objects.filter(pk=document.pk).exists()
    assert not DraftVector.objects.exists()


def test_the_worker_s_time_limit_outside_embedding_fails_the_document_with_what_to_do(
    fake_embedder, monkeypatch
):
    """Celery raises SoftTimeLimitExceeded in the task where it stands (here: reading a
    document too long to read in the time a task has)."""
    document = queued_long_document()

    def too_long(*args, **kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(ingestion, "_extract", too_long)
    document_ingest_task.apply(args=[str(document.pk)])

    document.refresh_from_db()
    assert document.status == DocumentStatus.FAILED
    assert "longer than a worker may spend on one task" in document.error
    assert "CELERY_TASK_TIME_LIMIT" in document.error
    assert not DraftVector.objects.exists()


def test_a_long_embedding_estimates_when_it_will_be_done(small_batches, monkeypatch):

    class Slow(FakeEmbedder):
        def embed_passages(self, texts):
            time.sleep(0.2)
            return super().embed_passages(texts)

    monkeypatch.setattr(embeddings, "_providers", {"local": Slow()})
    before = timezone.now()
    document = ingestion.document_ingest(document_id=queued_long_document().pk, embed_seconds=0)

    assert document.stage == "embedding"
    # two passages in 0.2 s, seven left: some 0.7 s more
    assert before + timedelta(seconds=0.7) < document.embedded_by < timezone.now() + timedelta(2)
    assert document.minutes_left == 1

    document = ingestion.document_ingest(document_id=document.pk)
    assert document.status == DocumentStatus.READY and document.chunk_count == 9
    assert document.embedded_by is None and document.minutes_left is None


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("es", "quedan unos 11 minutos"),
        ("pt-br", "faltam cerca de 11 minutos"),
        ("en", "about 11 minutes left"),
    ],
)
def test_the_console_says_about_how_many_minutes_are_left(
    client, django_user_model, language, said
):
    document = queued_long_document()
    Document.objects.filter(pk=document.pk).update(
        status=DocumentStatus.PROCESSING,
        stage="embedding",
        progress=47,
        embedded_by=timezone.now() + timedelta(minutes=10, seconds=30),
    )
    as_owner(django_user_model.objects.create_user("admin", password="pw", is_staff=True))
    client.force_login(django_user_model.objects.get(username="admin"))

    assert client.get(f"/knowledge/{document.pk}/status").json()["minutes_left"] == 11
    page = client.get(f"/knowledge/{document.pk}/", HTTP_ACCEPT_LANGUAGE=language)
    assert said in page.content.decode()


def test_no_estimate_once_nothing_is_left_or_the_run_stopped():
    document = queued_long_document()
    document.stage = "embedding"
    assert ingestion._embedded_by(time.monotonic() - 5, done=10, left=0) is None
    document.embedded_by = timezone.now() - timedelta(seconds=30)  # the last batch running late
    assert document.minutes_left == 1
    document.embedded_by = timezone.now() - timedelta(minutes=5)  # a run that was stopped
    assert document.minutes_left is None
