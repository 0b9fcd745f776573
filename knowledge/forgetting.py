"""Forget a document or one passage: its rows and vectors in one transaction (and a
receipt for a remote vector backend's copies), its file once committed, the erasure journal,
and a signal for the copies the apps above keep (session transcripts)."""

from __future__ import annotations

from collections.abc import Collection

from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.audit import audit_record
from datastores.erasures import erasure_record
from knowledge import vector_sync
from knowledge.models import Chunk, Document, Embedding, VectorErasure
from knowledge.sharing import DocumentId, passage_forgotten, passages_rehome, scope_lock
from knowledge.signals import passages_forgotten
from knowledge.uploads import audit_name


def document_forget(
    *, document: Document, departing: Collection[DocumentId] = ()
) -> VectorErasure | None:
    """Delete a document with its chunks and embeddings (one transaction), then its file.
    Passages another document of the scope also holds move to it (knowledge.sharing), but
    not to one of ``departing``, forgotten with it. With a remote vector backend, the
    receipt that says when its copies are gone there."""
    file_name, document_id = document.file.name, str(document.pk)
    with transaction.atomic():
        scope_lock(document.license_id)
        kept = passages_rehome(leaving=document.chunks.all(), departing=[document.pk, *departing])
        chunk_ids = list(document.chunks.values_list("pk", flat=True))
        _lock_embeddings(Embedding.objects.filter(chunk__document=document))
        with vector_sync.erasure(f"document {document.pk} ({document.filename})") as receipt:
            document.delete()
        if file_name:
            transaction.on_commit(lambda: default_storage.delete(file_name))
        _tell_forgotten(chunk_ids)
        transaction.on_commit(lambda: erasure_record("document", [document_id]))
        audit_record(
            "knowledge.forgotten",
            target=f"document:{document_id}",
            details={
                "filename": audit_name(document.filename),
                "chunks": len(chunk_ids),
                "kept_by_other_documents": len(kept),
            },
        )
    return receipt


def _lock_embeddings(embeddings: QuerySet[Embedding]) -> None:
    """Hold the embeddings the sentence pass locks before it writes (knowledge.search.
    sentence_vectors): a pass that already wrote has committed, and what it wrote is deleted
    with them; one that comes after finds them gone. Without it a pass committing between
    the deletion of a chunk's sentence vectors and that of its embedding left rows pointing
    at nothing, and the forgetting failed at commit."""
    list(embeddings.select_for_update().values_list("pk", flat=True))


def _tell_forgotten(chunk_ids: list[int]) -> None:
    """Once committed, the apps above scrub the copies they keep (session transcripts)."""
    if chunk_ids:
        transaction.on_commit(lambda: passages_forgotten.send(sender=Document, chunk_ids=chunk_ids))


def documents_forget(*, documents: list[Document]) -> int:
    departing = [document.pk for document in documents]
    with transaction.atomic():
        for document in documents:
            document_forget(document=document, departing=departing)
    return len(documents)


def chunk_forget(*, chunk: Chunk) -> VectorErasure | None:
    with transaction.atomic():
        document_id, chunk_id = chunk.document_id, chunk.pk
        scope_lock(chunk.license_id)
        passage_forgotten(chunk=chunk)
        _lock_embeddings(Embedding.objects.filter(chunk=chunk))
        with vector_sync.erasure(f"chunk {chunk.pk} of document {document_id}") as receipt:
            chunk.delete()
        _tell_forgotten([chunk_id])
        transaction.on_commit(lambda: erasure_record("chunk", [str(chunk_id)]))
        audit_record(
            "knowledge.chunk_forgotten",
            target=f"chunk:{chunk_id}",
            details={"document": str(document_id)},
        )
        Document.objects.filter(pk=document_id).update(
            chunk_count=Chunk.objects.filter(document_id=document_id).count(),
            updated_at=timezone.now(),
        )
    return receipt
