"""A deployment on Vertex AI Vector Search with a real Celery worker draining its outbox
(the conformance suite, test_vector_backends.py, drains in the test's own process)."""

from __future__ import annotations

import io

import pytest

from knowledge import forgetting, uploads
from knowledge.models import Document, Embedding, VectorErasure
from knowledge.search.vertex import vertex_client
from knowledge.tasks import document_ingest_task, vector_outbox_drain_task
from licenses.principals import principal_for_license
from tests.conftest import (
    start_worker,
    stop_worker,
    use_vertex_settings,
    vector_outbox_session,
    wait_until,
    worker_env,
)
from tests.factories import make_license
from tests.fake_vertex import FakeVertex
from tests.knowledge.test_vector_backends import PISCINA, search


@pytest.mark.worker  # a Celery worker process of its own
@pytest.mark.django_db(transaction=True)
def test_through_a_real_worker_an_upload_reaches_the_engine_within_the_searchable_promise(
    settings, tmp_path
):
    """The outbox drained by a Celery worker of its own (a deployment on Vertex), the local
    embedder's real vectors: the upload's vectors are in the engine ≤ 2 s after the document
    is ready, a search finds it by meaning through the engine, and forgetting it is confirmed."""
    with FakeVertex(dimensions=384) as fake:
        env = use_vertex_settings(settings, fake, tmp_path)
        vector_outbox_session(True)
        worker = start_worker(
            worker_env(**env, PORTALITY_TEST_QUEUE="vertex"), name="vertex", queues="vertex"
        )
        try:
            alpha = make_license(machine_id="alpha")
            created = uploads.document_create(
                file=io.BytesIO(PISCINA.encode()),
                filename="piscina.md",
                license=alpha,
                enqueue=False,
            ).document
            document_ingest_task.apply_async(args=[str(created.pk)], queue="vertex")
            document = wait_until(
                lambda: Document.objects.filter(pk=created.pk, status="ready").first()
            )
            ids = {
                str(pk)
                for pk in Embedding.objects.filter(chunk__document=document).values_list(
                    "pk", flat=True
                )
            }
            wait_until(lambda: ids <= set(fake.stored_at))
            lag = max(fake.stored_at[i] for i in ids) - document.finished_at.timestamp()
            assert lag <= 2.0, (
                f"vectors reached the engine {lag:.2f} s after the document was ready"
            )

            found = search(principal_for_license(alpha), "¿a qué hora se puede nadar?")
            assert [r.filename for r in found.results if r.vector_score is not None] == [
                "piscina.md"
            ]
            assert any(call == "findNeighbors" for call, _ in fake.calls)

            receipt = forgetting.document_forget(document=document)
            vector_outbox_drain_task.apply_async(queue="vertex")  # drain_soon's, on this queue
            wait_until(
                lambda: VectorErasure.objects.filter(
                    pk=receipt.pk, confirmed_at__isnull=False
                ).exists()
            )
            assert not ids & set(fake.datapoints)
        finally:
            stop_worker(worker)
            vector_outbox_session(False)
            vertex_client.cache_clear()
