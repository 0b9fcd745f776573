"""Request types and the staff gate shared by the admin pages."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy as _
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


class StaffAuthenticationForm(AuthenticationForm):
    """The admin pages are for staff only: say so at the door instead of looping on login."""

    def confirm_login_allowed(self, user: AbstractBaseUser) -> None:
        super().confirm_login_allowed(user)  # type: ignore[arg-type]
        if not getattr(user, "is_staff", False):
            raise forms.ValidationError(
                _("This account is not a Portality admin (staff)."), code="not_staff"
            )


def client_ip(request: HttpRequest) -> str | None:
    """The address the request came from, as the hop the product trusts saw it.

    make run's front door reaches gunicorn over a unix socket (no REMOTE_ADDR) and says the
    peer it saw in X-Forwarded-For, replacing whatever the client claimed; a reverse proxy
    the deployment trusts (BEHIND_PROXY, the compose file's nginx) appends its peer last.
    Anything else in the header is the client's own claim. (django-ipware, axes' default,
    returned an empty address behind the front door, so login throttling never fired.)"""
    remote = request.META.get("REMOTE_ADDR") or ""
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    forwarded = [part for part in forwarded if part]
    if forwarded and (not remote or settings.BEHIND_PROXY):
        return forwarded[-1]
    return remote or None


def safe_next(request: HttpRequest, *, fallback: str) -> str:
    """The form's ``next`` when it points into this site; ``fallback`` (a URL name) otherwise,
    so a crafted link cannot send an admin elsewhere after an action (open redirect)."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return fallback


def login_locked_out(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
    """django-axes' answer once a username is locked out from an address (it also passes the
    original response and the credentials): a page in the console's style (429), saying
    for how long."""
    from django.shortcuts import render

    context = {
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "cooloff_minutes": int(settings.AXES_COOLOFF_TIME.total_seconds() // 60),
    }
    return render(request, "registration/locked.html", context, status=429)
