"""Daily decay and expiry of memories (Celery beat)."""

from __future__ import annotations

from celery import shared_task

from memory.services import memories_decay


@shared_task(expires=3600)
def memories_decay_task() -> dict[str, int]:
    return memories_decay()
