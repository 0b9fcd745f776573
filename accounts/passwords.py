"""Sign-in pages: Django's login and password-reset views, with what the product adds —
the reset only when the deployment sends mail, throttled per address and per e-mail, and
both ends recorded in the audit trail."""

from __future__ import annotations

import functools
from typing import Any

import redis
from django import forms
from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.forms import PasswordChangeForm, PasswordResetForm, SetPasswordForm
from django.http import HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.utils.translation import gettext as _
from limits import RateLimitItemPerHour
from limits.storage import RedisStorage
from limits.strategies import SlidingWindowCounterRateLimiter

from accounts.audit import Actor, audit_record, person_pseudonym
from accounts.members import role_follows_provider
from accounts.oidc import REFUSAL_SESSION_KEY, REFUSALS
from datastores.redis_pool import shared_redis
from web.http import StaffAuthenticationForm, client_ip


class ConsoleAuthenticationForm(StaffAuthenticationForm):
    def confirm_login_allowed(self, user: AbstractBaseUser) -> None:
        """An account joined to single sign-on signs in there only: someone the identity
        provider removed would otherwise keep the console with a password of their own.
        (With single sign-on switched off, OIDC_ENABLED=0, passwords work again.)"""
        super().confirm_login_allowed(user)
        if role_follows_provider(user):
            raise forms.ValidationError(
                _("This account signs in with single sign-on: use “Sign in with single sign-on”."),
                code="single_sign_on",
            )


class ConsoleLoginView(auth_views.LoginView):
    authentication_form = ConsoleAuthenticationForm

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:  # noqa: ANN401
        return {
            **super().get_context_data(**kwargs),
            "mail_enabled": settings.MAIL_ENABLED,
            "oidc_enabled": settings.OIDC_ENABLED,
            "sso_failed": self.request.GET.get("sso") == "failed",
            "sso_refusal": self._sso_refusal(),
        }

    def _sso_refusal(self) -> str:
        """Why the last single sign-on was turned away, said once."""
        reason = self.request.session.pop(REFUSAL_SESSION_KEY, "")
        return str(REFUSALS.get(reason, "")) if self.request.GET.get("sso") == "failed" else ""


@functools.lru_cache(maxsize=1)
def _limiter(pool: redis.ConnectionPool) -> SlidingWindowCounterRateLimiter:
    storage = RedisStorage("redis://", connection_pool=pool, key_prefix="pb:reset")
    return SlidingWindowCounterRateLimiter(storage)


def _allowed(*identifiers: str) -> bool:
    """One hour's budget per identifier, all checked before any is counted. With Redis down
    the reset still works (as the product's other limits do)."""
    limit = RateLimitItemPerHour(settings.PASSWORD_RESETS_PER_HOUR)
    try:
        limiter = _limiter(shared_redis().connection_pool)
        if not all(limiter.test(limit, "reset", i) for i in identifiers):
            return False
        for identifier in identifiers:
            limiter.hit(limit, "reset", identifier)
    except Exception:  # noqa: BLE001 - a limiter outage must not lock people out
        return True
    return True


class PasswordResetView(auth_views.PasswordResetView):
    """Asks for the e-mail address of a console account and mails it a link — or says the
    reset is off when this deployment sends no mail."""

    def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> HttpResponseBase:  # noqa: ANN401
        self.extra_email_context = {"hours": settings.PASSWORD_RESET_TIMEOUT // 3600}
        if not settings.MAIL_ENABLED:
            return render(request, "registration/password_reset_off.html")
        return super().dispatch(request, *args, **kwargs)

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        email = form.cleaned_data["email"].strip().lower()
        address = client_ip(self.request) or "unknown"
        if not _allowed(f"address:{address}"):
            return render(
                self.request, "registration/password_reset_form.html",
                {"form": form, "throttled": True}, status=429,
            )  # fmt: skip
        audit_record(
            "account.password_reset_requested",
            details={"email": person_pseudonym("console", email)},
            actor=Actor("anonymous", None, address),
        )
        if not _allowed(f"email:{email}"):  # the same page, so nobody learns who exists
            return HttpResponse(status=302, headers={"Location": str(self.get_success_url())})
        return super().form_valid(form)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    def form_valid(self, form: SetPasswordForm) -> HttpResponse:
        response = super().form_valid(form)
        user = form.user
        audit_record(
            "account.password_reset",
            target=f"account:{user.get_username()}",
            actor=Actor(user.get_username(), user.pk, client_ip(self.request)),
        )
        return response


class PasswordChangeView(auth_views.PasswordChangeView):
    """Your own password, from the console (the owner ``make run`` created has no e-mail to
    reset it by). Django keeps this session signed in and ends the account's others. An
    account from single sign-on has no password here: the page says where to change it."""

    def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> HttpResponseBase:  # noqa: ANN401
        user = request.user
        if user.is_authenticated and not user.has_usable_password():
            return render(request, "registration/password_change_form.html", {"sso": True})
        return super().dispatch(request, *args, **kwargs)

    def form_valid(self, form: PasswordChangeForm) -> HttpResponse:
        response = super().form_valid(form)
        user = form.user
        audit_record("account.password_changed", target=f"account:{user.get_username()}")
        return response
