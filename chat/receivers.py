"""Forgetting below (knowledge, memory, an end user's erasure) reaches the copies the chat keeps: the session
transcripts in Redis. Connected in ChatConfig.ready."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import redis
from django.dispatch import receiver

from chat.session import sessions_erase_user, sessions_scrub_memory, sessions_scrub_passages
from conversations.signals import conversations_erased
from knowledge.signals import passages_forgotten
from memory.signals import memory_forgotten

logger = logging.getLogger(__name__)


@receiver(passages_forgotten, dispatch_uid="chat-scrub-passages")
def scrub_passages(sender: object, chunk_ids: list[int], **kwargs: Any) -> None:
    _scrubbing(sessions_scrub_passages, chunk_ids=chunk_ids)


@receiver(memory_forgotten, dispatch_uid="chat-scrub-memory")
def scrub_memory(
    sender: object, license_id: object, user_ref: str, description: str, **kwargs: Any
) -> None:
    _scrubbing(
        sessions_scrub_memory, license_id=license_id, user_ref=user_ref, description=description
    )


@receiver(conversations_erased, dispatch_uid="chat-erase-sessions")
def erase_sessions(sender: object, license_id: object, user_ref: str, **kwargs: Any) -> None:
    _scrubbing(sessions_erase_user, license_id=license_id, user_ref=user_ref)


def _scrubbing(scrub: Callable[..., int], **arguments: Any) -> None:
    """A Redis that cannot be reached keeps the sessions only until they expire (2 h at
    most): logged, never a failed forgetting."""
    try:
        scrub(**arguments)
    except redis.RedisError as exc:
        logger.warning("session transcripts not scrubbed (Redis: %s)", exc)
