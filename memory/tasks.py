"""Daily decay and expiry of memories (Celery beat)."""

from __future__ import annotations

from celery import shared_task

from licenses.models import License
from memory.proposals import memories_propose_from_conversation
from memory.services import memories_decay


@shared_task(expires=3600)
def memories_decay_task() -> dict[str, int]:
    return memories_decay()


@shared_task(autoretry_for=(ConnectionError,), retry_backoff=5, max_retries=3, expires=600)
def memories_propose_task(
    license_id: str, user_ref: str, session_id: str, messages: list[str]
) -> list[str]:
    license = License.objects.filter(pk=license_id).first()
    if license is None:
        return []
    return memories_propose_from_conversation(
        license=license, user_ref=user_ref, session_id=session_id, messages=messages
    )
