"""Ingestion through real Celery workers, the real Redis and the real local embedder."""

from __future__ import annotations

import io
import os
import signal
import time

import pytest
from django.db.models import Count

from knowledge import forgetting, reingestion, uploads
from knowledge.models import Chunk, Document, DocumentStatus, DraftVector, Embedding
from knowledge.search import sentence_vectors
from knowledge.tasks import document_ingest_task
from tests.conftest import start_worker, stop_worker, wait_until, worker_env

pytestmark = pytest.mark.django_db(transaction=True)


def wait_for(document_id, statuses, timeout=180):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        document = Document.objects.get(pk=document_id)
        if document.status in statuses:
            return document
        time.sleep(0.2)
    raise AssertionError(
        f"document stayed {document.status} ({document.stage} {document.progress}%)"
    )


def test_upload_is_ingested_by_the_worker_with_the_local_model(
    celery_worker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        creation = uploads.document_create(
            file=io.BytesIO(
                "El gimnasio abre a las siete de la mañana. Hay que reservar la sauna.".encode()
            ),
            filename="gimnasio.txt",
            license=None,
        )

    document = wait_for(
        creation.document.pk, {DocumentStatus.READY, DocumentStatus.FAILED}, timeout=60
    )

    assert document.status == DocumentStatus.READY, document.error
    assert Embedding.objects.filter(chunk__document=document, model="e5-small@384").count() == 1


def test_the_worker_adds_sentence_vectors_once_the_document_is_searchable(
    celery_worker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        creation = uploads.document_create(
            file=io.BytesIO(
                "La piscina del condominio abre de ocho a veinte horas todos los días. "
                "Las mascotas pueden pasear por los jardines siempre con correa.".encode()
            ),
            filename="normas.txt",
            license=None,
        )
    wait_for(creation.document.pk, {DocumentStatus.READY, DocumentStatus.FAILED}, timeout=60)

    embedding = Embedding.objects.get(chunk__document_id=creation.document.pk)
    deadline = time.monotonic() + 60
    while not embedding.sentences.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert embedding.sentences.count() == 2


def test_the_worker_reads_again_the_new_version_that_keeps_the_old_one_s_passages(
    celery_worker, django_capture_on_commit_callbacks
):
    """Upload a handbook, then its new version (one section changed), then forget the old
    one: the new version keeps the unchanged sections, read again by the worker."""
    sections = {
        "Piscina": "La piscina abre de ocho a veinte horas, de junio a septiembre.",
        "Gimnasio": "El gimnasio abre de lunes a sábado y cierra los domingos.",
    }
    new_pool = "La piscina climatizada abre todo el año, de ocho a veinte horas."
    ids = []
    for pool in (sections["Piscina"], new_pool):
        text = f"## Piscina\n\n{pool}\n\n## Gimnasio\n\n{sections['Gimnasio']}"
        with django_capture_on_commit_callbacks(execute=True):
            creation = uploads.document_create(
                file=io.BytesIO(text.encode()), filename="manual.md", license=None
            )
        ids.append(creation.document.pk)
        wait_for(creation.document.pk, {DocumentStatus.READY, DocumentStatus.FAILED}, timeout=60)
    old, new = (Document.objects.get(pk=pk) for pk in ids)
    assert (old.chunk_count, new.chunk_count) == (2, 1)

    with django_capture_on_commit_callbacks(execute=True):
        forgetting.document_forget(document=old)
    wait_until(
        lambda: (
            Document.objects.filter(pk=new.pk, status=DocumentStatus.READY, stage="")
            .exclude(chunk_count=1)
            .exists()
        ),
        timeout=60,
        every=0.2,
        what="the new version read again",
    )

    chunks = list(Chunk.objects.filter(document=new).order_by("ordinal"))
    assert [c.heading.split(" > ")[-1] for c in chunks] == ["Piscina", "Gimnasio"]
    assert chunks[1].content == sections["Gimnasio"]
    assert Embedding.objects.filter(chunk__document=new).count() == 2


def long_spanish_text(paragraphs=40):
    return "\n\n".join(
        f"Artículo {n}. El reglamento interno número {n} regula el uso de la zona común {n} del "
        f"condominio, los horarios de apertura y las sanciones por incumplimiento de la norma {n}. "
        f"Los residentes deben reservar con antelación y respetar el aforo máximo del espacio {n}."
        for n in range(paragraphs)
    )


@pytest.mark.worker
@pytest.mark.timeout(480)  # the waits below, when the machine is busy
def test_a_worker_killed_mid_ingestion_leaves_exactly_one_copy_after_redelivery():
    """And the redelivered run goes on from the last batch the dead one embedded."""
    creation = uploads.document_create(
        file=io.BytesIO(long_spanish_text().encode()),
        filename="largo.txt",
        license=None,
        enqueue=False,
    )
    queue = "redelivery-test"
    env = worker_env(
        CELERY_VISIBILITY_TIMEOUT="4", CELERY_UNACKED_RESTORE_INTERVAL="1", EMBEDDING_BATCH_SIZE="2"
    )
    first = start_worker(env, name="doomed", queues=queue)
    try:
        document_ingest_task.apply_async(args=[str(creation.document.pk)], queue=queue)
        document = wait_for(creation.document.pk, {DocumentStatus.PROCESSING}, timeout=60)
        drafts = DraftVector.objects.filter(document_id=document.pk)
        wait_until(lambda: drafts.count() >= 4, timeout=120, every=0.05, what="two batches")
    finally:
        os.killpg(first.pid, signal.SIGKILL)  # the whole worker dies: no ack, no cleanup
        first.wait()
    embedded_before_dying = drafts.count()
    assert Document.objects.get(pk=document.pk).status == DocumentStatus.PROCESSING

    second = start_worker(env, name="rescuer", queues=queue)
    try:
        document = wait_for(document.pk, {DocumentStatus.READY, DocumentStatus.FAILED}, timeout=240)
    finally:
        stop_worker(second)

    assert document.status == DocumentStatus.READY, document.error
    chunks = Chunk.objects.filter(document=document)
    assert chunks.count() == document.chunk_count > 1
    assert not chunks.values("content_hash").annotate(n=Count("id")).filter(n__gt=1).exists()
    assert Embedding.objects.filter(chunk__document=document).count() == chunks.count()
    assert document.metadata["vectors_reused"] >= embedded_before_dying
    assert not drafts.exists()


@pytest.mark.worker
@pytest.mark.timeout(600)  # some forty runs of a worker on a busy machine
def test_a_document_longer_than_a_worker_s_time_limit_is_embedded_over_several_runs():
    """Half a run's time limit of embedding, then the task queues its continuation: here
    runs of 12 s (3.5 s of embedding) for some 25 s of passages, then some 25 s of sentence
    groups. Before, the time limit stopped the run and the document failed, again on every
    Retry; the sentence pass was stopped and left to the periodic catch-up (200 chunks a
    quarter of an hour)."""
    creation = uploads.document_create(
        file=io.BytesIO(long_spanish_text(paragraphs=300).encode()),
        filename="extenso.txt",
        license=None,
        enqueue=False,
    )
    queue = "continued-test"
    env = worker_env(CELERY_TASK_TIME_LIMIT="12", EMBEDDING_BATCH_SIZE="4")
    worker = start_worker(env, name="limited", queues=queue)
    try:
        # The limits travel with the message (the sender's settings): these are the
        # worker's own, which its continuations carry.
        document_ingest_task.apply_async(
            args=[str(creation.document.pk)], queue=queue, time_limit=12, soft_time_limit=7
        )
        document = wait_for(
            creation.document.pk, {DocumentStatus.READY, DocumentStatus.FAILED}, timeout=300
        )
        assert document.status == DocumentStatus.READY, document.error
        wait_until(
            lambda: not sentence_vectors.document_sentences_left(document_id=document.pk),
            timeout=300,
            every=0.5,
            what="every chunk's sentence vectors",
        )
    finally:
        stop_worker(worker)

    chunks = Chunk.objects.filter(document=document)
    assert chunks.count() == document.chunk_count > 60
    assert not chunks.values("content_hash").annotate(n=Count("id")).filter(n__gt=1).exists()
    assert Embedding.objects.filter(chunk__document=document).count() == chunks.count()
    # the last run found most vectors embedded by the runs before it
    assert document.metadata["vectors_reused"] > chunks.count() / 2
    assert not DraftVector.objects.filter(document=document).exists()


@pytest.mark.worker
def test_an_interrupted_ingestion_is_requeued_at_once_not_after_the_visibility_timeout(
    celery_worker,
):
    """kill -9 of the worker: the document said "processing 43%" until the 15-minute beat
    task, and Retry answered 409. Now no worker holding it means it is not processing."""
    creation = uploads.document_create(
        file=io.BytesIO(long_spanish_text().encode()),
        filename="interrumpido.txt",
        license=None,
        enqueue=False,
    )
    queue = "interrupted-test"
    doomed = start_worker(worker_env(), name="doomed2", queues=queue)
    try:
        document_ingest_task.apply_async(args=[str(creation.document.pk)], queue=queue)
        wait_for(creation.document.pk, {DocumentStatus.PROCESSING}, timeout=60)
    finally:  # killed even when the test fails: no worker outlives the session
        os.killpg(doomed.pid, signal.SIGKILL)
        doomed.wait()

    # What `ingest --retry-stuck` runs. PostgreSQL frees the killed worker's lock once its
    # backend sees the connection gone: at once when idle, after the statement it was
    # running otherwise — seconds, not the broker's hour.
    requeued = wait_until(
        reingestion.documents_requeue_stuck, timeout=30, every=0.2, what="the lock freed"
    )

    assert [d.pk for d in requeued] == [creation.document.pk]
    document = wait_for(creation.document.pk, {DocumentStatus.READY, DocumentStatus.FAILED})
    assert document.status == DocumentStatus.READY, document.error
