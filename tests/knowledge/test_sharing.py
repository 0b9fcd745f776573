"""A passage two documents of a scope share is stored once; when the document storing it
lets go of it, the other keeps it (knowledge.sharing)."""

from __future__ import annotations

import io

import pytest
from django.db import connection

from knowledge import forgetting, ingestion, reingestion
from knowledge import queue as knowledge_queue
from knowledge.extraction import IngestionError
from knowledge.ingestion import content_hash
from knowledge.models import Chunk, Document, DocumentStatus, Embedding
from tests.factories import as_owner, make_document, make_license

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_embedder", "media_root")]

POOL = "La piscina abre de ocho a veinte horas, de junio a septiembre."
POOL_HEATED = "La piscina climatizada abre de ocho a veinte horas todo el año."
GYM = "El gimnasio abre de lunes a sábado de seis a veintidós horas y cierra los domingos."
HALL = "El salón de fiestas se reserva en la conserjería con siete días de antelación."


def handbook(pool: str = POOL, *, gym: bool = True) -> str:
    sections = [("Piscina", pool), ("Gimnasio", GYM), ("Salón", HALL)]
    return "\n\n".join(
        f"## {title}\n\n{text}" for title, text in sections if gym or title != "Gimnasio"
    )


@pytest.fixture
def queued(monkeypatch):
    """The documents handed to the workers to be read again (once committed)."""
    ids: list[str] = []
    monkeypatch.setattr(
        knowledge_queue, "queue_ingestion", lambda document_id: ids.append(str(document_id))
    )
    return ids


def as_the_worker(document: Document) -> Document:
    ingestion.document_ingest(document_id=document.pk)
    return Document.objects.get(pk=document.pk)


def keyword_hits(query: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT d.filename FROM knowledge_chunk c JOIN knowledge_document d ON d.id = "
            "c.document_id WHERE c.search_vector @@ websearch_to_tsquery('pb_spanish', %s)",
            [query],
        )
        return [row[0] for row in cursor.fetchall()]


def test_forgetting_the_old_version_keeps_what_the_new_one_still_says(
    queued, django_capture_on_commit_callbacks
):
    old = make_document(handbook(), filename="manual.md")
    new = make_document(handbook(POOL_HEATED), filename="manual.md")
    assert (old.chunk_count, new.chunk_count) == (3, 1)
    assert sorted(new.shared_hashes) == sorted([content_hash(GYM), content_hash(HALL)])

    with django_capture_on_commit_callbacks(execute=True):
        forgetting.document_forget(document=old)

    # At once: the unchanged sections are the new version's, with their vectors.
    assert keyword_hits("gimnasio domingos") == ["manual.md"]
    assert Chunk.objects.filter(document=new).count() == 3
    assert Embedding.objects.filter(chunk__document=new).count() == 3
    assert queued == [str(new.pk)]
    assert Document.objects.get(pk=new.pk).status == DocumentStatus.QUEUED

    # Read again by the worker: its own headings, order and count, nothing embedded again.
    new = as_the_worker(new)
    assert new.status == DocumentStatus.READY
    assert new.chunk_count == 3
    assert new.shared_hashes == []
    assert new.metadata["vectors_embedded"] == 0
    assert [c.content for c in new.chunks.order_by("ordinal")] == [POOL_HEATED, GYM, HALL]


def test_a_new_version_without_a_passage_hands_it_to_the_document_sharing_it(queued):
    first = make_document(handbook(), filename="manual.md")
    other = make_document(f"## Gimnasio\n\n{GYM}\n\n## Normas\n\nNo se fuma.", filename="o.md")
    assert other.shared_hashes == [content_hash(GYM)]

    reingestion.document_replace_file(
        document=first, file=io.BytesIO(handbook(gym=False).encode()), enqueue=False
    )
    first = as_the_worker(first)

    assert first.chunk_count == 2
    assert Chunk.objects.get(content=GYM).document_id == other.pk
    assert as_the_worker(Document.objects.get(pk=other.pk)).chunk_count == 2
    assert keyword_hits("gimnasio domingos") == ["o.md"]


def test_a_failed_reading_hands_its_passages_on(queued):
    first = make_document(handbook(), filename="manual.md")
    other = make_document(f"## Gimnasio\n\n{GYM}", filename="o.md")

    ingestion.document_mark_failed(document_id=first.pk, error=IngestionError("unreadable"))

    assert Chunk.objects.get(content=GYM).document_id == other.pk
    assert Document.objects.get(pk=first.pk).shared_hashes == []


def test_documents_forgotten_together_hand_nothing_to_each_other(
    queued, django_capture_on_commit_callbacks
):
    first = make_document(handbook(), filename="manual.md")
    second = make_document(handbook(POOL_HEATED), filename="manual-2.md")
    kept = make_document(handbook(), filename="otro.md", license=make_license())

    with django_capture_on_commit_callbacks(execute=True):
        forgetting.documents_forget(documents=[first, second])

    assert set(Chunk.objects.values_list("document_id", flat=True)) == {kept.pk}
    assert queued == []


def test_another_scope_never_takes_a_passage():
    make_document(handbook(), filename="manual.md")
    elsewhere = make_document(handbook(), filename="manual.md", license=make_license())

    assert elsewhere.chunk_count == 3
    assert elsewhere.shared_hashes == []


def test_a_passage_left_to_a_document_forgotten_meanwhile_is_stored(monkeypatch, queued):
    """The division is made before embedding; the document storing the shared passage is
    forgotten before this one stores: it divides again and stores the passage itself."""
    holder = make_document(handbook(), filename="manual.md")
    reader = make_document(handbook(POOL_HEATED), filename="manual-2.md", ingest=False)
    embed = ingestion._embed

    def forget_the_holder_first(document, pieces, provider, until):
        if Document.objects.filter(pk=holder.pk).exists():
            forgetting.document_forget(document=holder)
        return embed(document, pieces, provider, until)

    monkeypatch.setattr(ingestion, "_embed", forget_the_holder_first)
    reader = as_the_worker(reader)

    assert reader.status == DocumentStatus.READY, reader.error
    assert [c.content for c in reader.chunks.order_by("ordinal")] == [POOL_HEATED, GYM, HALL]
    assert reader.shared_hashes == []


def test_a_passage_another_document_stored_meanwhile_is_left_to_it(monkeypatch):
    """Two documents sharing a passage read at once: the second to store leaves it to the
    first (the scope stores it once) instead of failing on the uniqueness of passages."""
    reader = make_document(handbook(), filename="manual.md", ingest=False)
    rival = make_document(f"## Gimnasio\n\n{GYM}", filename="o.md", ingest=False)
    embed = ingestion._embed

    def the_rival_stores_first(document, pieces, provider, until):
        if document.pk == reader.pk and rival.status == DocumentStatus.QUEUED:
            rival.status = as_the_worker(rival).status
        return embed(document, pieces, provider, until)

    monkeypatch.setattr(ingestion, "_embed", the_rival_stores_first)
    reader = as_the_worker(reader)

    assert reader.status == DocumentStatus.READY, reader.error
    assert reader.chunk_count == 2
    assert reader.shared_hashes == [content_hash(GYM)]
    assert Chunk.objects.get(content=GYM).document_id == rival.pk


def test_a_passage_forgotten_one_by_one_stays_forgotten_when_read_again(client, django_user_model):
    document = make_document(handbook(), filename="manual.md")
    gym = Chunk.objects.get(content=GYM)

    forgetting.chunk_forget(chunk=gym)
    reingestion.document_retry(document=document, enqueue=False)
    document = as_the_worker(document)

    assert document.status == DocumentStatus.READY
    assert [c.content for c in document.chunks.order_by("ordinal")] == [POOL, HALL]
    assert document.metadata["forgotten_passages_left_out"] == 1
    assert document.metadata["duplicate_chunks_skipped"] == 0
    client.force_login(as_owner(django_user_model.objects.create_user("o", is_staff=True)))
    page = client.get(f"/knowledge/{document.pk}/", HTTP_ACCEPT_LANGUAGE="es")
    assert "1 fragmento olvidado, omitido" in page.content.decode()


def test_a_forgotten_passage_is_not_handed_over_nor_read_again(
    queued, django_capture_on_commit_callbacks
):
    """Forgotten in the document storing it: the documents that left it to that one do not
    take it back, neither when that document goes nor when they are read again."""
    holder = make_document(handbook(), filename="manual.md")
    sharer = make_document(handbook(POOL_HEATED), filename="manual-2.md")

    forgetting.chunk_forget(chunk=Chunk.objects.get(content=GYM))
    with django_capture_on_commit_callbacks(execute=True):
        forgetting.document_forget(document=holder)
    sharer = as_the_worker(Document.objects.get(pk=sharer.pk))

    assert [c.content for c in sharer.chunks.order_by("ordinal")] == [POOL_HEATED, HALL]
    assert keyword_hits("gimnasio domingos") == []


def test_a_page_waiting_to_be_read_again_takes_its_new_content_without_an_error(queued):
    """A web source's check forgets a page that stored a shared passage (the other page is
    queued to take it), then finds the other page changed: its new file is what the waiting
    run reads, not an "already queued" error on the page."""
    holder = make_document(handbook(), filename="a.md")
    page = make_document(handbook(POOL_HEATED), filename="b.md")
    forgetting.document_forget(document=holder)
    assert Document.objects.get(pk=page.pk).status == DocumentStatus.QUEUED

    changed = handbook(POOL_HEATED + " Cierra los lunes.")
    page = reingestion.document_replace_file(
        document=Document.objects.get(pk=page.pk), file=io.BytesIO(changed.encode())
    )
    page = as_the_worker(page)

    assert page.status == DocumentStatus.READY
    assert [c.content for c in page.chunks.order_by("ordinal")][0].endswith("Cierra los lunes.")
    assert page.chunk_count == 3
