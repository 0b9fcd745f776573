from __future__ import annotations

from django.db.models import QuerySet

from licenses.models import License
from memory.models import Memory, MemoryEvent


def memory_list_for_user(*, license: License, user_ref: str) -> QuerySet[Memory]:
    return Memory.objects.filter(license=license, user_ref=user_ref).order_by("-updated_at")


def memory_get_for_user(*, license: License, user_ref: str, memory_id: object) -> Memory | None:
    """Only this user's memory; anyone else's is as absent as a missing one."""
    return memory_list_for_user(license=license, user_ref=user_ref).filter(pk=memory_id).first()


def memory_events(*, memory: Memory) -> QuerySet[MemoryEvent]:
    return MemoryEvent.objects.filter(memory_id=memory.pk)
