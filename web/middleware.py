"""Requests refused before any view (a NUL character in the address, its query string or
a form's fields), cookies kept Secure over HTTPS, and times in the reader's time zone.

PostgreSQL cannot store or compare text with NUL, so ``?user=a%00b`` reached the database
and failed there (a 500); so did a console form's field a view reads without a Django form
(an erasure's ``user``, found by the console fuzz). No page or API takes NUL anywhere, so
it is a 400 at the door. (A JSON body's strings are the API serializers' to refuse.)"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from functools import cache
from urllib.parse import unquote

from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _

from web.errors import respond


class RejectNulMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        query = unquote(request.META.get("QUERY_STRING", ""))
        if "\x00" in request.path or "\x00" in query:
            detail = _("The address may not contain NUL characters.")
            return respond(request, 400, detail, "invalid", "400.html")
        if request.method == "POST" and _form_holds_nul(request):
            detail = _("A form's fields may not contain NUL characters.")
            return respond(request, 400, detail, "invalid", "400.html")
        return self.get_response(request)


def _form_holds_nul(request: HttpRequest) -> bool:
    """A form-encoded or multipart body's fields (not its files), parsed as Django parses
    them for CSRF's check anyway."""
    kind = request.content_type or ""
    if kind not in ("application/x-www-form-urlencoded", "multipart/form-data"):
        return False
    return any("\x00" in value for _name, values in request.POST.lists() for value in values)


class SecureCookiesOverHttps:
    """Cookies are ``Secure`` exactly when the request came over HTTPS: a browser then never
    sends the session over plain HTTP, while ``make run`` over http:// (loopback, a LAN)
    still signs in. ``request.is_secure()`` honours X-Forwarded-Proto only behind a trusted
    proxy (SECURE_PROXY_SSL_HEADER is set with BEHIND_PROXY)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.is_secure():
            for cookie in response.cookies.values():
                cookie["secure"] = True
        return response


TIME_ZONE_COOKIE = "tz"


@cache
def _time_zone_names() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def browser_time_zone(name: str) -> zoneinfo.ZoneInfo | None:
    """The zone a browser named (an IANA name, "America/Sao_Paulo"), or None when the name
    is not one: only names of the zone database are looked up, never a path."""
    return zoneinfo.ZoneInfo(name) if name in _time_zone_names() else None


class BrowserTimeZoneMiddleware:
    """Times in the reader's own time zone: admins in Madrid and in São Paulo share one
    deployment, whose ``TIME_ZONE`` is neither's. The console's script writes the browser's
    zone to a cookie; pages, day charts and date filters then use it. Without it (an API
    client, a browser's first page) the deployment's ``TIME_ZONE`` holds."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        zone = browser_time_zone(request.COOKIES.get(TIME_ZONE_COOKIE, ""))
        if zone is None:
            return self.get_response(request)
        with timezone.override(zone):
            return self.get_response(request)
