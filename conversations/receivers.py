"""Forgetting below (knowledge, memory) reaches the copies kept here: the stored answers
that quoted a forgotten passage, the questions that said a forgotten memory (once the
forgetting has committed), and the gaps whose answer was the forgotten document (inside
its transaction: the link to it is cleared as the document goes). Connected in
ConversationsConfig.ready."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import pre_delete
from django.dispatch import receiver

from conversations.services import (
    exchanges_scrub_memory,
    exchanges_scrub_passages,
    gaps_reopen_forgotten,
)
from knowledge.models import Document, SourceType
from knowledge.signals import passages_forgotten
from memory.signals import memory_forgotten


@receiver(passages_forgotten, dispatch_uid="conversations-scrub-passages")
def scrub_passages(sender: object, chunk_ids: list[int], **kwargs: Any) -> None:
    exchanges_scrub_passages(chunk_ids=chunk_ids)


@receiver(memory_forgotten, dispatch_uid="conversations-scrub-memory")
def scrub_memory(
    sender: object, license_id: object, user_ref: str, description: str, **kwargs: Any
) -> None:
    exchanges_scrub_memory(license_id=license_id, user_ref=user_ref, description=description)


@receiver(pre_delete, sender=Document, dispatch_uid="conversations-reopen-gaps")
def reopen_gaps(sender: object, instance: Document, **kwargs: Any) -> None:
    if instance.source_type == SourceType.ANSWER:  # only an answer answers a gap
        gaps_reopen_forgotten(document_id=instance.pk)
