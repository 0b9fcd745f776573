"""Request types and the staff gate shared by the admin pages."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from asgiref.sync import sync_to_async
from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.models import AbstractBaseUser
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render, resolve_url
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy as _
from django_htmx.middleware import HtmxDetails

from web.addresses import client_address


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


class StaffAuthenticationForm(AuthenticationForm):
    """The admin pages are for staff only: say so at the door instead of looping on login."""

    def clean_username(self) -> str:
        """An account's name in whatever case it is typed: an invited member's is their
        e-mail address as the owner wrote it ('Ana.Lopez@Example.org'), and people type
        theirs in lower case. An exact match wins; two names differing in case only are
        left to the exact one."""
        typed = self.cleaned_data.get("username", "")
        users = get_user_model().objects
        if users.filter(username=typed).exists():
            return typed
        names = list(users.filter(username__iexact=typed).values_list("username", flat=True)[:2])
        return names[0] if len(names) == 1 else typed

    def confirm_login_allowed(self, user: AbstractBaseUser) -> None:
        super().confirm_login_allowed(user)  # type: ignore[arg-type]
        if not getattr(user, "is_staff", False):
            raise forms.ValidationError(
                _("This account is not a Portality admin (staff)."), code="not_staff"
            )


def client_ip(request: HttpRequest) -> str | None:
    """The address the request came from, as the hop the product trusts saw it: the same
    rule as the edge's per-client limits (web.addresses.client_address). (django-ipware,
    axes' default, once returned an empty address, so login throttling never fired.)"""
    address = client_address(
        request.META.get("REMOTE_ADDR") or "",
        request.META.get("HTTP_X_FORWARDED_FOR", ""),
        behind_proxy=settings.BEHIND_PROXY,
    )
    return address or None


def event_stream(request: HttpRequest, events: Iterator[str]) -> StreamingHttpResponse:
    """Server-Sent Events as they come. Under ASGI Django would gather a plain iterator
    whole before sending it, so there each event is fetched in the request's own thread
    (where its database connection lives) and sent as soon as it is ready."""
    content: Iterator[str] | AsyncIterator[str] = events
    if isinstance(request, ASGIRequest):
        content = _in_request_thread(events)
    response = StreamingHttpResponse(content, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass events through as they come
    return response


async def _in_request_thread(events: Iterator[str]) -> AsyncIterator[str]:
    def take() -> str | None:
        return next(events, None)

    take_in_thread = sync_to_async(take, thread_sensitive=True)
    try:
        while (event := await take_in_thread()) is not None:
            yield event
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            await sync_to_async(close, thread_sensitive=True)()


def safe_next(request: HttpRequest, *, fallback: str) -> str:
    """The form's ``next`` when it is a path on this site; ``fallback`` (a URL name or a
    path) otherwise, so a crafted link cannot send an admin elsewhere after an action (open
    redirect). Only a path: ``redirect`` reads anything else as a URL name, and "-1" was a
    500 (found fuzzing the console)."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target.startswith("/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return resolve_url(fallback)


def login_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str:
    """The name django-axes counts failures against: as typed, in any case."""
    source = credentials or request.POST
    return str(source.get("username") or "").strip().casefold()


def login_locked_out(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
    """django-axes' answer once a username is locked out from an address (it also passes the
    original response and the credentials): a page in the console's style (429), saying
    for how long."""

    context = {
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "cooloff_minutes": int(settings.AXES_COOLOFF_TIME.total_seconds() // 60),
    }
    return render(request, "registration/locked.html", context, status=429)
