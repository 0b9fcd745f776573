from __future__ import annotations

from django import template

from memory.services import event_reason as reason_text

register = template.Library()


@register.filter
def event_reason(reason: str) -> str:
    """An event's reason in the admin's language."""
    return reason_text(reason)
