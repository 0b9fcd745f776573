"""Forgetting below (knowledge, memory) reaches the copies kept here: the stored answers
that quoted a forgotten passage, the questions that said a forgotten memory. Connected in
ConversationsConfig.ready; they run once the forgetting has committed."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from conversations.services import exchanges_scrub_memory, exchanges_scrub_passages
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
