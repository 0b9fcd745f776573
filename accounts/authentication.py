"""Personal API tokens on the admin API: ``Authorization: Bearer pbt_…`` or ``Token pbt_…``.

The request's user is a copy of the member's account that can do at most what the token's
role allows (``TokenScopeBackend``), and never more than the account itself may do now."""

from __future__ import annotations

import copy
import hmac
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from rest_framework import authentication, exceptions

from accounts.models import PersonalToken
from accounts.roles import ROLES
from accounts.selectors import single_sign_on_lapsed
from accounts.services import TOKEN_PREFIX, TOKEN_PREFIX_LENGTH, token_hash

LAST_USE_PRECISION = timedelta(minutes=1)  # at most one write a minute per token


@dataclass(frozen=True)
class TokenScope:
    role: str
    permissions: frozenset[str]
    superuser: bool  # the account holds every permission, so every one its role lists


class PersonalTokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request: HttpRequest) -> tuple[Any, PersonalToken] | None:
        scheme, _space, value = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
        key = value.strip()
        if scheme.lower() not in {"bearer", "token"} or not key.startswith(TOKEN_PREFIX):
            return None
        token = (
            PersonalToken.objects.select_related("user")
            .filter(prefix=key[:TOKEN_PREFIX_LENGTH])
            .first()
        )
        if token is None or not hmac.compare_digest(token.key_hash, token_hash(key)):
            raise exceptions.AuthenticationFailed(_("Unknown API token."))
        now = timezone.now()
        if token.revoked_at is not None:
            raise exceptions.AuthenticationFailed(_("This API token has been revoked."))
        if token.expires_at <= now:
            raise exceptions.AuthenticationFailed(_("This API token has expired."))
        if not (token.user.is_active and token.user.is_staff):
            raise exceptions.AuthenticationFailed(_("This API token's account is deactivated."))
        refuse_lapsed_single_sign_on(token.user)
        if token.last_used_at is None or now - token.last_used_at > LAST_USE_PRECISION:
            PersonalToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return _limited_user(token), token

    def authenticate_header(self, request: HttpRequest) -> str:
        return "Bearer"


def refuse_lapsed_single_sign_on(user: Any) -> None:  # noqa: ANN401 - a user model instance
    if single_sign_on_lapsed(user):
        days = settings.OIDC_TOKEN_SIGN_IN_DAYS
        raise exceptions.AuthenticationFailed(
            ngettext(
                "This API token's account has not signed in through single sign-on for a "
                "day: sign in there once and its tokens work again.",
                "This API token's account has not signed in through single sign-on for "
                "%(days)d days: sign in there once and its tokens work again.",
                days,
            )
            % {"days": days}
        )


class AutomationTokenAuthentication(authentication.TokenAuthentication):
    """DRF's tokens (``manage.py drf_create_token``), under the same single sign-on rule."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        user, token = super().authenticate_credentials(key)
        refuse_lapsed_single_sign_on(user)
        return user, token


def _limited_user(token: PersonalToken) -> Any:  # noqa: ANN401 - a user model instance
    user = copy.copy(token.user)
    user.account = token.user  # type: ignore[attr-defined]
    user.audit_name = f"{token.user.get_username()} (token {token.name})"  # type: ignore[attr-defined]
    if token.role:
        user.token_scope = TokenScope(  # type: ignore[attr-defined]
            token.role, frozenset(ROLES.get(token.role, ())), token.user.is_superuser
        )
        user.is_superuser = False  # else Django grants everything before asking the backends
    return user


class TokenScopeBackend:
    """Refuses what a limited token's role does not list; grants nothing on its own
    (the account's own permissions still decide), except a superuser's, which are all.

    Not a BaseBackend: it must have no ``get_user``, or Django's test client and
    ``login()`` would pick it to load signed-in accounts."""

    def authenticate(self, request: HttpRequest | None, **credentials: object) -> None:
        return None

    def has_perm(self, user_obj: Any, perm: str, obj: object = None) -> bool:  # noqa: ANN401
        scope: TokenScope | None = getattr(user_obj, "token_scope", None)
        if scope is None:
            return False
        if perm not in scope.permissions:
            raise PermissionDenied
        return scope.superuser


# What the admin API accepts from a console member: a personal token, a token made by
# ``manage.py`` for automation (DRF's), or the console's session.
TOKEN_AUTHENTICATION: list[type[authentication.BaseAuthentication]] = [
    PersonalTokenAuthentication,
    AutomationTokenAuthentication,
]
ADMIN_AUTHENTICATION = [*TOKEN_AUTHENTICATION, authentication.SessionAuthentication]
