"""Admin review of user memories: filter, see each memory's events, deactivate or delete."""

from __future__ import annotations

from datetime import timedelta
from uuid import UUID

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import (
    CHANGE_MEMORIES,
    DELETE_MEMORIES,
    VIEW_MEMORIES,
    console_permission,
)
from licenses.selectors import license_choices
from memory import selectors, services
from memory.forms import MemoryFilterForm
from memory.models import Memory, MemorySource, MemoryType
from web.http import HtmxHttpRequest, safe_next


@console_permission(VIEW_MEMORIES)
def memory_list(request: HtmxHttpRequest) -> HttpResponse:
    filters = MemoryFilterForm(request.GET).filters()
    memories = Paginator(selectors.memory_list_for_admin(**filters), 25).get_page(
        request.GET.get("page")
    )
    events = selectors.memory_events_for(memories=list(memories.object_list))
    for memory in memories.object_list:
        memory.events = events.get(memory.pk, [])  # type: ignore[attr-defined]  # for the template
    context = {
        "memories": memories,
        "filters": filters,
        "licenses": license_choices(),
        "types": MemoryType.choices,
        "sources": MemorySource.choices,
        "metrics": selectors.memory_metrics(since=timezone.now() - timedelta(days=30)),
    }
    return render(request, "memory/memory_list.html", context)


@console_permission(CHANGE_MEMORIES)
@require_POST
def memory_toggle(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    memory = get_object_or_404(Memory, pk=pk)
    services.memory_set_active(
        memory=memory, active=not memory.active, actor=f"admin:{request.user.get_username()}"
    )
    messages.success(request, _("Memory restored.") if memory.active else _("Memory deactivated."))
    return redirect(safe_next(request, fallback="memory:memory-list"))


@console_permission(DELETE_MEMORIES)
@require_POST
def memory_delete(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    memory = get_object_or_404(Memory, pk=pk)
    services.memory_forget(memory=memory, actor=f"admin:{request.user.get_username()}")
    messages.success(request, _("Memory deleted; its events keep only that it was forgotten."))
    return redirect(safe_next(request, fallback="memory:memory-list"))
