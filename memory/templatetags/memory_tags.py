from __future__ import annotations

from django import template
from django.utils.translation import gettext

from memory.services import REFUSAL_PARAMS
from web.exceptions import translate_message

register = template.Library()


@register.filter
def event_reason(reason: str) -> str:
    """An event's reason in the admin's language. Reasons are stored as English msgids
    (marked with gettext_noop where they are written), some naming the refusal figures;
    free text passes unchanged."""
    if "%(" in reason:
        return translate_message(reason, REFUSAL_PARAMS)
    return gettext(reason) if reason else ""
