"""Two-factor sign-in for password accounts (django-otp): an authenticator app's TOTP codes,
with ten single-use recovery codes. A member who set it up must give a code after their
password before any console page or session API call; with CONSOLE_REQUIRE_2FA every
password account must set it up first. Single sign-on accounts are exempt: their identity
provider owns their second factor."""

from __future__ import annotations

from base64 import b32encode
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import segno
from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django_otp import login as otp_login
from django_otp import verify_token
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.audit import audit_record
from datastores.locks import transaction_lock

RECOVERY_CODES = 10
SSO_SESSION_KEY = "portality_sso"  # set when the session came from single sign-on
# At sign-in, whether the account has an authenticator ("pending": a code is due) or not
# ("absent"), so that pages cost no query to know it.
STATE_SESSION_KEY = "portality_2fa"
# Paths an account waiting for its second factor may still reach.
_OPEN = (
    "/accounts/two-factor/",
    "/accounts/login/",
    "/accounts/logout/",
    "/static/",
    "/i18n/",
    "/jsi18n/",
    "/healthz",
    "/widget.js",
)


def has_two_factor(user: Any) -> bool:  # noqa: ANN401 - a user model instance
    return TOTPDevice.objects.filter(user=user, confirmed=True).exists()


def pending_device(user: Any) -> TOTPDevice:  # noqa: ANN401
    """The authenticator being set up: the same one until it is confirmed (reloading the
    page keeps the QR code the app may already have scanned)."""
    with transaction.atomic():
        transaction_lock("authenticator", user.pk)  # two tabs open at once show one code
        device = TOTPDevice.objects.filter(user=user, confirmed=False).first()
        return device or TOTPDevice.objects.create(user=user, name="authenticator", confirmed=False)


@dataclass(frozen=True)
class Enrolment:
    qr_svg: str
    secret: str  # the same key in base32, in groups of four for typing into an app by hand


def enrolment(device: TOTPDevice) -> Enrolment:
    qr = segno.make(device.config_url, error="m")
    svg = qr.svg_inline(scale=4, dark="#1f2937", light="#ffffff")
    key = b32encode(device.bin_key).decode()
    return Enrolment(svg, " ".join(key[at : at + 4] for at in range(0, len(key), 4)))


def two_factor_confirm(*, request: HttpRequest, code: str) -> list[str] | None:
    """Confirm the pending authenticator with a code from it: the session is verified and
    fresh recovery codes are returned (shown once). None when the code is wrong."""
    user = request.user
    device = pending_device(user)
    verified = verify_token(user, device.persistent_id, code.strip().replace(" ", ""))
    if verified is None:
        return None
    with transaction.atomic():
        TOTPDevice.objects.filter(user=user).exclude(pk=device.pk).delete()
        TOTPDevice.objects.filter(pk=device.pk).update(confirmed=True)
        codes = _new_recovery_codes(user)
        audit_record("account.two_factor_enabled", target=f"account:{user.get_username()}")
    device.refresh_from_db()
    otp_login(request, device)
    return codes


def _new_recovery_codes(user: Any) -> list[str]:  # noqa: ANN401
    StaticDevice.objects.filter(user=user).delete()
    device = StaticDevice.objects.create(user=user, name="recovery", confirmed=True)
    codes = [StaticToken.random_token() for _ in range(RECOVERY_CODES)]
    StaticToken.objects.bulk_create(StaticToken(device=device, token=code) for code in codes)
    return codes


def recovery_codes_renew(*, user: Any) -> list[str]:  # noqa: ANN401
    with transaction.atomic():
        codes = _new_recovery_codes(user)
        audit_record("account.recovery_codes_renewed", target=f"account:{user.get_username()}")
    return codes


def two_factor_verify(*, request: HttpRequest, code: str) -> bool:
    """A code from the authenticator, or an unused recovery code, completes the sign-in.
    django-otp slows repeated failures down per device."""
    user = request.user
    # as typed on a phone: recovery codes are lower case, a keyboard may capitalise them
    code = "".join(code.split()).lower()
    devices = [
        *TOTPDevice.objects.filter(user=user, confirmed=True),
        *StaticDevice.objects.filter(user=user, confirmed=True),
    ]
    for device in devices:
        verified = verify_token(user, device.persistent_id, code)
        if verified is not None:
            otp_login(request, verified)
            return True
    audit_record("account.two_factor_failed", target=f"account:{user.get_username()}")
    return False


def two_factor_remove(*, user: Any) -> None:  # noqa: ANN401
    """The member's authenticator and recovery codes go (a lost phone: an owner does it)."""
    with transaction.atomic():
        TOTPDevice.objects.filter(user=user).delete()
        StaticDevice.objects.filter(user=user).delete()
        audit_record("account.two_factor_removed", target=f"account:{user.get_username()}")
    # The member's other sessions still say "pending": they sign in again (owner's reset),
    # which asks them to set it up anew when it is required.


def remember_state(request: HttpRequest, user: Any) -> None:  # noqa: ANN401
    """At sign-in (and for a session from before this existed): is a code due?"""
    request.session[STATE_SESSION_KEY] = "pending" if has_two_factor(user) else "absent"


def _step_needed(request: HttpRequest) -> str | None:
    """Which page the signed-in account must pass first, if any."""
    user: Any = request.user  # with OTPMiddleware's is_verified()
    if not (user.is_authenticated and user.is_staff) or user.is_verified():
        return None
    if request.session.get(SSO_SESSION_KEY):
        return None
    if STATE_SESSION_KEY not in request.session:
        remember_state(request, user)
    if request.session[STATE_SESSION_KEY] == "pending":
        return "two-factor-verify"
    if settings.CONSOLE_REQUIRE_2FA:
        return "two-factor-setup"
    return None


class TwoFactorMiddleware:
    """After django-otp's OTPMiddleware: a password alone does not open the console."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith(_OPEN):
            return self.get_response(request)
        step = _step_needed(request)
        if step is None:
            return self.get_response(request)
        if request.path.startswith("/api/"):
            return JsonResponse(
                {"detail": _("Finish signing in with your two-factor code first.")}, status=403
            )
        return redirect(f"{reverse(step)}?{urlencode({'next': request.get_full_path()})}")
