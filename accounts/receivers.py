"""Sign-ins and failed sign-ins go to the audit trail (Django's auth signals)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest

from accounts.audit import Actor, audit_record, request_actor
from accounts.two_factor import remember_state


@receiver(user_logged_in, dispatch_uid="audit-signed-in")
def signed_in(sender: object, request: HttpRequest | None, user: Any, **kwargs: object) -> None:  # noqa: ANN401
    address = request_actor(request).address if request is not None else None
    audit_record("account.signed_in", actor=Actor(user.get_username(), user.pk, address))
    if request is not None and hasattr(request, "session"):
        remember_state(request, user)


@receiver(user_login_failed, dispatch_uid="audit-sign-in-failed")
def sign_in_failed(
    sender: object,
    credentials: dict[str, Any],
    request: HttpRequest | None = None,
    **kwargs: object,
) -> None:
    # Django has already replaced the password in ``credentials`` with stars. The name tried
    # is kept only when it is an account's: a password typed into the name field by mistake
    # must not land in the trail.
    address = request_actor(request).address if request is not None else None
    tried = str(credentials.get("username", ""))[:150]
    known = get_user_model().objects.filter(username=tried).exists()
    audit_record(
        "account.sign_in_failed",
        target=f"account:{tried}" if known else "",
        details={} if known else {"account": "unknown"},
        actor=Actor("anonymous", None, address),
    )
