"""The admin chat view: speak as a license, watch the answer stream, see sources and prompt;
and make run's widget demo page."""

from __future__ import annotations

import functools
import hashlib
import secrets

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_safe

from licenses.models import DEMO_MACHINE_ID
from licenses.selectors import license_choices, license_get_for_machine_id
from licenses.widget_tokens import widget_token_issue
from portality.http import HtmxHttpRequest
from portality.roles import SEARCH_AS_ADMIN, console_permission


@console_permission(SEARCH_AS_ADMIN)
@require_GET
def chat_view(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "chat/chat.html", {"licenses": license_choices()})


DEMO_VISITOR_COOKIE = "portality_demo_visitor"
DEMO_VISITOR_DAYS = 30


@require_GET
def widget_demo(request: HttpRequest) -> HttpResponse:
    """make run's stand-in for a customer's page embedding the widget.

    Served only at WIDGET_DEMO_ORIGIN (http://localhost:PORT in make run) while the widget
    talks to WIDGET_DEMO_API_ORIGIN (http://127.0.0.1:PORT): two origins to the browser, so
    the widget works across origins as on a customer's site. Like a customer's backend, the
    page mints a widget token server-side, for an end user of this visitor's own (kept in a
    signed cookie), so visitors never share memories or a conversation."""
    origin = settings.WIDGET_DEMO_ORIGIN
    license = license_get_for_machine_id(DEMO_MACHINE_ID) if origin else None
    if license is None or f"{request.scheme}://{request.get_host()}" != origin:
        raise Http404
    visitor = request.get_signed_cookie(DEMO_VISITOR_COOKIE, default="", salt=DEMO_VISITOR_COOKIE)
    visitor = visitor or f"visitor-{secrets.token_hex(6)}"
    token, _expires = widget_token_issue(license=license, user_ref=visitor, origin=origin)
    api = settings.WIDGET_DEMO_API_ORIGIN
    response = render(
        request, "chat/widget_demo.html", {"api": api, "token": token, "visitor": visitor}
    )
    # The page stands for another site: its own policy, the widget's origin allowed (and
    # inline styles, which the widget puts in its shadow root).
    response["Content-Security-Policy"] = (
        f"default-src 'self'; script-src {api}; connect-src {api}; img-src 'self' data: {api}; "
        "style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; "
        "frame-ancestors 'none'"
    )
    response.set_signed_cookie(
        DEMO_VISITOR_COOKIE,
        visitor,
        salt=DEMO_VISITOR_COOKIE,
        max_age=DEMO_VISITOR_DAYS * 86400,
        httponly=True,
        samesite="Lax",
    )
    return response


WIDGET_SCRIPT = "widget/portality-chat.js"
# How long a browser keeps the widget before asking again (a 304 when it has not changed):
# an upgrade reaches every embedding page within five minutes.
WIDGET_CACHE_SECONDS = 300


@require_safe
def widget_script(request: HttpRequest) -> HttpResponse:
    """The chat widget at a URL that never changes (``/widget.js``, what the snippet uses),
    and at any older hashed name (``/static/widget/portality-chat.<hash>.js``) that an
    upgrade removed: pages that embed it keep working and get the current widget, instead
    of a hashed file cached for ten years or a 404."""
    body, etag = _widget_bundle()
    if etag in request.headers.get("If-None-Match", ""):
        response: HttpResponse = HttpResponseNotModified()
    else:
        response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response["ETag"] = etag
    response["Cache-Control"] = f"public, max-age={WIDGET_CACHE_SECONDS}"
    return response


@functools.cache
def _widget_bundle() -> tuple[bytes, str]:
    """The widget's source and its ETag, read once per process (an upgrade restarts it)."""
    path = finders.find(WIDGET_SCRIPT)
    if not isinstance(path, str):
        raise RuntimeError(f"{WIDGET_SCRIPT} is missing from the static files")
    with open(path, "rb") as file:
        body = file.read()
    return body, f'"{hashlib.sha256(body).hexdigest()[:16]}"'
