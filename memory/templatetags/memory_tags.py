from __future__ import annotations

from django import template
from django.utils.translation import gettext

register = template.Library()


@register.filter
def event_reason(reason: str) -> str:
    """An event's reason in the admin's language. Reasons are stored as English msgids
    (marked with gettext_noop where they are written); free text passes unchanged."""
    from memory.services import REFUSAL_PARAMS

    if not reason:
        return ""
    return gettext(reason) % REFUSAL_PARAMS if "%(" in reason else gettext(reason)
