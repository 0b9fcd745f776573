"""CORS for the endpoints the embedded widget calls, and only for allowed origins, by
django-cors-headers (its middleware; CORS_* in settings).

A preflight carries no credentials, so it is answered for any origin some license allows;
the real request is then checked against its token's own origin (WidgetTokenAuthentication).
Every other origin, and every other path, gets no CORS headers: browsers refuse."""

from __future__ import annotations

import re
from typing import Any

from corsheaders.signals import check_request_enabled
from django.conf import settings
from django.dispatch import receiver
from django.http import HttpRequest

from licenses.widget_tokens import widget_origin_known


@receiver(check_request_enabled, dispatch_uid="chat-widget-origins")
def widget_origin_allowed(sender: object, request: HttpRequest, **kwargs: Any) -> bool:
    """django-cors-headers asks this for an origin its settings do not list: yes on the
    widget's paths for an origin some license allows (the list changes as admins edit it)."""
    origin = request.headers.get("Origin", "").rstrip("/")
    if not origin or not re.match(settings.CORS_URLS_REGEX, request.path_info):
        return False
    return widget_origin_known(origin)
