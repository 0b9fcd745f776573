from __future__ import annotations

from celery import shared_task

from conversations.services import conversations_purge


@shared_task(name="conversations.tasks.conversations_purge_task")
def conversations_purge_task() -> dict[str, int]:
    """Celery beat, daily: what is past its retention goes (its numbers stay)."""
    purged = conversations_purge()
    return {
        "exchanges": purged.exchanges,
        "conversations": purged.conversations,
        "gaps": purged.gaps,
    }
