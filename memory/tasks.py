"""Daily decay and expiry of memories (Celery beat)."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from licenses.models import License
from memory.proposals import memories_propose_from_conversation
from memory.services import memories_decay


@shared_task(expires=3600)
def memories_decay_task() -> dict[str, int]:
    return memories_decay()


# Its result is how many were remembered, never what: a task's result is logged by the
# worker and kept a day in Redis, where a forgotten memory or an erasure does not reach.
# Queued by earlier versions with the messages in it; now chat.tasks reads them from the
# session instead, and this one only takes what an upgrade found still queued.
PROPOSALS_TASK_OPTIONS: dict[str, Any] = {
    "autoretry_for": (ConnectionError,),
    "retry_backoff": 5,
    "max_retries": 3,
    "expires": 600,
    "ignore_result": True,
}


@shared_task(**PROPOSALS_TASK_OPTIONS)
def memories_propose_task(
    license_id: str, user_ref: str, session_id: str, messages: list[str]
) -> int:
    license = License.objects.filter(pk=license_id).first()
    if license is None:
        return 0
    remembered = memories_propose_from_conversation(
        license=license, user_ref=user_ref, session_id=session_id, messages=messages
    )
    return len(remembered)
