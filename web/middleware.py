"""Requests refused before any view: a NUL character in the address or its query string.

PostgreSQL cannot store or compare text with NUL, so ``?user=a%00b`` reached the database
and failed there (a 500). No page or API takes NUL anywhere, so it is a 400 at the door."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote

from django.http import HttpRequest, HttpResponse
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
        return self.get_response(request)


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
