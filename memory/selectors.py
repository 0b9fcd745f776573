from __future__ import annotations

from uuid import UUID

from django.db.models import Count, Q, QuerySet

from licenses.models import License
from memory.models import NO_CONSENT_REASON, Memory, MemoryConsent, MemoryEvent
from memory.services import event_reason


def memory_list_for_user(*, license: License, user_ref: str) -> QuerySet[Memory]:
    return Memory.objects.filter(license=license, user_ref=user_ref).order_by("-updated_at")


def memory_get_for_user(*, license: License, user_ref: str, memory_id: UUID | str) -> Memory | None:
    """Only this user's memory; anyone else's is as absent as a missing one."""
    return memory_list_for_user(license=license, user_ref=user_ref).filter(pk=memory_id).first()


def memory_list_for_admin(
    *, license: str = "", user: str = "", memory_type: str = "", status: str = "", source: str = ""
) -> QuerySet[Memory]:
    memories = Memory.objects.select_related("license").order_by("-updated_at")
    if license:
        memories = memories.filter(license__machine_id=license)
    if user:
        memories = memories.filter(user_ref__icontains=user)
    if memory_type:
        memories = memories.filter(memory_type=memory_type)
    if status in ("active", "inactive"):
        memories = memories.filter(active=status == "active")
    if source:
        memories = memories.filter(source=source)
    return memories


def memory_metrics(*, since: object) -> dict[str, object]:
    """Seed 004 §8.2: active per license, writes, decayed, deleted by users (in the period).
    The period's events are counted in one query."""
    by_admin = Q(actor__startswith="admin:")
    no_consent = Q(kind="rejected", reason=NO_CONSENT_REASON)
    counts = MemoryEvent.objects.filter(created_at__gte=since).aggregate(
        writes=Count("id", filter=Q(kind="created")),
        # Decay deactivates a memory whose confidence fell too low; an admin may too.
        decayed=Count(
            "id", filter=Q(kind__in=["decayed", "expired"]) | Q(kind="deactivated") & ~by_admin
        ),
        deactivated=Count("id", filter=Q(kind="deactivated") & by_admin),
        user_deleted=Count("id", filter=Q(kind="forgotten", actor__startswith="user:")),
        # Not kept because the user had not allowed memories: not a judgement of the content.
        without_consent=Count("id", filter=no_consent),
        rejected=Count("id", filter=Q(kind="rejected") & ~no_consent),
    )
    return {
        "active_total": Memory.objects.filter(active=True).count(),
        "active_per_license": list(
            Memory.objects.filter(active=True)
            .values("license__machine_id")
            .annotate(n=Count("id"))
            .order_by("-n")[:10]
        ),
        **counts,
    }


def memory_events_for(*, memories: list[Memory]) -> dict[object, list[MemoryEvent]]:
    """Events of a page of memories in one query (for the admin list)."""
    grouped: dict[object, list[MemoryEvent]] = {}
    for event in MemoryEvent.objects.filter(memory_id__in=[m.pk for m in memories]).order_by(
        "created_at"
    ):
        grouped.setdefault(event.memory_id, []).append(event)
    return grouped


def memory_consent_for_user(*, license: License, user_ref: str) -> MemoryConsent | None:
    return MemoryConsent.objects.filter(license=license, user_ref=user_ref).first()


def memory_history_for_user(*, license: License, user_ref: str) -> list[dict[str, object]]:
    """What happened to this user's memories and their consent, for their own export: when,
    what, by whom (themselves, the staff or the product — never a colleague's name), why,
    and the words of the memories that are still kept."""
    events = MemoryEvent.objects.filter(license=license, user_ref=user_ref).order_by("created_at")
    return [
        {
            "at": event.created_at,
            "event": event.kind,
            "by": _who(event.actor),
            "memory_id": event.memory_id,
            "reason": event_reason(event.reason),
            "description": event.detail.get("description", ""),
        }
        for event in events
    ]


def _who(actor: str) -> str:
    if actor.startswith("user:"):
        return "you"
    return "staff" if actor.startswith("admin:") else "product"
