"""CORS for the endpoints the embedded widget calls, and only for allowed origins, by
django-cors-headers (its middleware; CORS_* in settings).

A preflight carries no credentials, so it is answered for any origin some license allows;
the real request is then checked against its token's own origin (WidgetTokenAuthentication).
Every other origin, and every other path, gets no CORS headers: browsers refuse.

While the database cannot be asked (restarting, failing over), an origin some license
allowed within the last minute keeps its answer: the widget can then read the 503 that tells
it to send its question again, where a refused CORS check would hide it. Nothing else is
served meanwhile, as every answer needs the database."""

from __future__ import annotations

import re
import threading
from typing import Any

from cachetools import TTLCache
from corsheaders.signals import check_request_enabled
from django.conf import settings
from django.db import DatabaseError
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
    try:
        known = widget_origin_known(origin)
    except DatabaseError:
        with _recent_lock:
            return _recently_known.get(origin, False)
    with _recent_lock:
        if known:
            _recently_known[origin] = True
        else:
            _recently_known.pop(origin, None)
    return known


# The origins allowed within the last minute, for the database's outages only (above).
_recently_known: TTLCache[str, bool] = TTLCache(maxsize=4096, ttl=60)
_recent_lock = threading.Lock()  # cachetools' caches are not thread-safe
