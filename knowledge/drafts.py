"""Vectors embedded for a document before its chunks are stored (models.DraftVector).

An ingestion writes each batch's vectors as it goes, so the run after one that stopped —
killed, handed over before the task's time limit, failed on a provider down for too
long — embeds only what is left. They are keyed by the exact text embedded (heading and
passage), so a new version or a re-read with other chunk options reuses what still
matches. The store that makes the document ready removes them, in its transaction.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping, Sequence

from knowledge.models import Document, DraftVector


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def drafts_read(document: Document, model: str, texts: Mapping[int, str]) -> dict[int, list[float]]:
    """The drafts of ``texts`` (by their position in the document), for those that have one."""
    hashes = {text_hash(text): index for index, text in texts.items()}
    if not hashes:
        return {}
    rows = DraftVector.objects.filter(
        document=document, model=model, text_hash__in=list(hashes)
    ).values_list("text_hash", "vector")
    return {hashes[digest]: list(vector) for digest, vector in rows}


def drafts_write(
    document: Document, model: str, texts: Sequence[str], vectors: Sequence[list[float]]
) -> None:
    """Kept at once (autocommit): the point is that they outlive this run."""
    DraftVector.objects.bulk_create(
        (
            DraftVector(document=document, model=model, text_hash=text_hash(text), vector=vector)
            for text, vector in zip(texts, vectors, strict=True)
        ),
        ignore_conflicts=True,  # a redelivered run racing the one it replaces
    )


def drafts_clear(document_id: uuid.UUID | str) -> None:
    DraftVector.objects.filter(document_id=document_id).delete()
