"""Single sign-on for the console with OpenID Connect (mozilla-django-oidc): the code flow
with PKCE, state and nonce; the ID token's signature, issuer, audience and expiry checked;
accounts created at first sign-in when OIDC_CREATE_ACCOUNTS allows it; the console role
taken from a claim (OIDC_ROLE_CLAIM, "groups") through OIDC_ROLE_MAP at every sign-in.
An SSO session is not asked for the console's own second factor: the identity provider
owns it."""

from __future__ import annotations

from typing import Any

import jwt
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import SuspiciousOperation
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from accounts.audit import audit_record
from accounts.roles import ROLES, roles_ensure
from accounts.two_factor import SSO_SESSION_KEY


def role_map() -> dict[str, str]:
    """OIDC_ROLE_MAP "idp-group=role,other=role" as a dict (checked by portality.checks)."""
    pairs = (item.split("=", 1) for item in settings.OIDC_ROLE_MAP.split(",") if "=" in item)
    return {group.strip(): role.strip() for group, role in pairs}


def roles_from_claims(claims: dict[str, Any]) -> list[str]:
    value = claims.get(settings.OIDC_ROLE_CLAIM) or []
    groups = [value] if isinstance(value, str) else [str(v) for v in value]
    mapping = role_map()
    return [r for r in dict.fromkeys(mapping[g] for g in groups if g in mapping) if r in ROLES]


class ConsoleOIDCBackend(OIDCAuthenticationBackend):
    def _verify_jws(self, payload: str, key: Any) -> dict[str, Any]:  # noqa: ANN401
        """The library checks the signature only; a token issued to another client, by
        another issuer, or expired is refused here too."""
        header = jwt.get_unverified_header(payload)
        if header.get("alg") != self.OIDC_RP_SIGN_ALGO:
            raise SuspiciousOperation("The ID token's algorithm is not the one configured.")
        try:
            return jwt.decode(
                payload,
                key,
                algorithms=[self.OIDC_RP_SIGN_ALGO],
                audience=self.OIDC_RP_CLIENT_ID,
                issuer=settings.OIDC_ISSUER,
                options={"require": ["exp", "iat", "aud", "iss", "sub"]},
                leeway=30,
            )
        except jwt.PyJWTError as exc:
            raise SuspiciousOperation(f"The ID token was refused: {exc}") from exc

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        if not claims.get("email"):
            return False
        if not roles_from_claims(claims):
            raise SuspiciousOperation(
                f"No console role for {settings.OIDC_ROLE_CLAIM} of {claims.get('email')}"
            )
        return True

    def create_user(self, claims: dict[str, Any]) -> Any:  # noqa: ANN401
        with transaction.atomic():
            user = self.UserModel.objects.create_user(
                username=claims["email"], email=claims["email"], is_staff=True
            )  # no usable password: this account signs in through the identity provider
            self._give_roles(user, claims)
            audit_record(
                "member.joined",
                target=f"account:{user.get_username()}",
                details={"by": "single sign-on", "roles": roles_from_claims(claims)},
            )
        return user

    def update_user(self, user: Any, claims: dict[str, Any]) -> Any:  # noqa: ANN401
        if not user.is_active:
            raise SuspiciousOperation("This account is deactivated.")
        self._give_roles(user, claims)
        return user

    def _give_roles(self, user: Any, claims: dict[str, Any]) -> None:  # noqa: ANN401
        """The identity provider's groups decide the roles, at every sign-in."""
        roles = roles_from_claims(claims)
        roles_ensure()
        user.groups.remove(*user.groups.filter(name__in=ROLES))
        user.groups.add(*Group.objects.filter(name__in=roles))
        if not user.is_staff or (user.is_superuser and "owner" not in roles):
            user.is_staff, user.is_superuser = True, user.is_superuser and "owner" in roles
            user.save(update_fields=["is_staff", "is_superuser"])

    def authenticate(self, request: HttpRequest, **kwargs: Any) -> Any:  # noqa: ANN401
        user = super().authenticate(request, **kwargs)
        if user is not None and request is not None:
            request.session[SSO_SESSION_KEY] = True
        return user


def _when_enabled(view: Any) -> Any:  # noqa: ANN401
    def guarded(request: HttpRequest) -> HttpResponse:
        if not settings.OIDC_ENABLED:
            raise Http404
        return view(request)

    return guarded


sign_in = _when_enabled(OIDCAuthenticationRequestView.as_view())
callback = _when_enabled(OIDCAuthenticationCallbackView.as_view())
