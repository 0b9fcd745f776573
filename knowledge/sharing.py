"""Passages two documents of a scope share are stored once (seed 004's content-hash
deduplication): by the document that stored them first, while the others list them in
``Document.shared_hashes``. When that document lets go of one — forgotten, failed, or a new
version without it — the passage moves to a document that still holds it, with its vector,
instead of leaving the scope; that document is then read again, so the passage's heading,
page and position become its own. Without this, uploading a handbook's new version and
forgetting the old one left the new version with only the sections that had changed.

Every change of a scope's chunks that decides who stores what (ingestion's store step,
forgetting, a failed ingestion) takes the scope's lock first (``scope_lock``), so two such
changes in one scope never decide on each other's uncommitted state."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Collection

from django.contrib.postgres.fields import ArrayField
from django.db import connection
from django.db.models import CharField, F, Func, Q, QuerySet, Value

from datastores.locks import lock_key
from knowledge.models import Chunk, Document, DocumentStatus
from knowledge.queue import documents_queued_again

logger = logging.getLogger(__name__)

# The global scope's lock key (any UUID the product uses for nothing else).
_GLOBAL_SCOPE = uuid.UUID("6f1c2a0e-5b7d-4c2a-9d3e-000000000000")

DocumentId = uuid.UUID | str


def scope_lock(license_id: object) -> None:
    """Hold the scope's lock until the transaction ends."""
    key = lock_key(str(license_id) if license_id else _GLOBAL_SCOPE)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


def in_scope(license_id: object) -> Q:
    return Q(license_id=license_id) if license_id else Q(license__isnull=True)


def passages_rehome(*, leaving: QuerySet[Chunk], departing: Collection[DocumentId]) -> set[int]:
    """Move the chunks about to be deleted that another document of the scope still holds
    to that document (the oldest, if several), and have each such document read again.
    ``departing``: the documents letting go, which cannot take any. Returns the ids of the
    chunks moved (they are not forgotten). Inside the caller's transaction, scope locked."""
    by_hash = dict(leaving.values_list("content_hash", "pk"))
    if not by_hash:
        return set()
    license_id = leaving.values_list("license_id", flat=True).first()
    holders = (
        Document.objects.filter(in_scope(license_id), shared_hashes__overlap=list(by_hash))
        .exclude(pk__in=departing)
        .exclude(status=DocumentStatus.FAILED)
        .order_by("created_at")
        .values_list("pk", "shared_hashes")
    )
    moves: dict[DocumentId, list[int]] = {}
    for document_id, hashes in holders:
        taken = [by_hash.pop(h) for h in hashes or () if h in by_hash]
        if taken:
            moves[document_id] = taken
    for holder, chunk_ids in moves.items():
        Chunk.objects.filter(pk__in=chunk_ids).update(document_id=holder)
    _read_again(list(moves))
    return {chunk_id for chunk_ids in moves.values() for chunk_id in chunk_ids}


def _read_again(document_ids: list[DocumentId]) -> None:
    """Queue the ready ones again once committed (their chunks stay searchable until the
    new ones replace them); one already queued or being read sees the moved chunks when it
    stores (knowledge.ingestion checks what it leaves to others under the scope lock)."""
    ready = Document.objects.filter(pk__in=document_ids, status=DocumentStatus.READY)
    if queued := documents_queued_again(ready):
        logger.info("reading again %d document(s) that took shared passages", len(queued))


def passage_forgotten(*, chunk: Chunk) -> None:
    """An admin forgot this passage: its document, and every document of the scope that
    left it to that one, leave it out when read again. Inside the caller's transaction,
    scope locked."""
    digest = Value([chunk.content_hash], output_field=ArrayField(CharField(max_length=64)))
    Document.objects.filter(
        Q(pk=chunk.document_id)
        | Q(in_scope(chunk.license_id), shared_hashes__contains=[chunk.content_hash])
    ).exclude(forgotten_hashes__contains=[chunk.content_hash]).update(
        forgotten_hashes=Func(F("forgotten_hashes"), digest, function="array_cat")
    )
