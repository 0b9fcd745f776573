"""Single sign-on for the console with OpenID Connect (mozilla-django-oidc): the code flow
with PKCE, state and nonce; the ID token's signature, issuer, audience and expiry checked;
accounts created at first sign-in when OIDC_CREATE_ACCOUNTS allows it; the console role
taken from a claim (OIDC_ROLE_CLAIM, "groups") through OIDC_ROLE_MAP at every sign-in.
An SSO session is not asked for the console's own second factor: the identity provider
owns it. It lasts OIDC_SESSION_HOURS, then the provider is asked again.

Who signs in is the ID token's issuer and subject, never the e-mail address alone (the
library's default): an account is found by its bound ``SingleSignOnIdentity``; found by
e-mail only at its first single sign-on, only when the provider says the address is
verified, and only when no other subject is bound to it. A new account is named by a
verified address too. Otherwise anyone whose provider lets them type an address (an
unverified e-mail, a reassigned one) would sign in as the console account that has it, its
roles and second factor included."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import jwt
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import SuspiciousOperation
from django.db import transaction
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from accounts.audit import Actor, audit_record
from accounts.members import is_last_owner
from accounts.models import SingleSignOnIdentity
from accounts.roles import ROLES, roles_ensure
from accounts.two_factor import SSO_SESSION_KEY
from datastores.locks import transaction_lock
from web.http import client_ip


def role_map() -> dict[str, str]:
    """OIDC_ROLE_MAP "idp-group=role,other=role" as a dict (checked by portality.checks)."""
    pairs = (item.split("=", 1) for item in settings.OIDC_ROLE_MAP.split(",") if "=" in item)
    return {group.strip(): role.strip() for group, role in pairs}


def roles_from_claims(claims: dict[str, Any]) -> list[str]:
    value = claims.get(settings.OIDC_ROLE_CLAIM) or []
    groups = [value] if isinstance(value, str) else [str(v) for v in value]
    mapping = role_map()
    return [r for r in dict.fromkeys(mapping[g] for g in groups if g in mapping) if r in ROLES]


REFUSALS = {
    "no_role": _(
        "Your groups at the identity provider give you no role in this console. Ask an owner."
    ),
    "deactivated": _("Your console account is deactivated. Ask an owner."),
    "unverified_email": _(
        "Your identity provider does not say your e-mail address is verified, and this "
        "console only lets in verified addresses. Verify it there, or ask an owner."
    ),
    "other_identity": _(
        "The console account with your e-mail address signs in as someone else at your "
        "identity provider. If the account is yours, an owner can unlink its single sign-on "
        "on the Members page."
    ),
    "no_account": _(
        "There is no console account for your e-mail address, and this console does not "
        "create them at sign-in. Ask an owner for an invitation."
    ),
}
REFUSAL_SESSION_KEY = "sso_refusal"


class Refused(SuspiciousOperation):
    """A sign-in the console turns away, with the reason the login page gives."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


def email_is_verified(claims: dict[str, Any]) -> bool:
    """The provider vouches for the address (``email_verified``; some send it as a string),
    or the deployment says its provider only has addresses its administrators set."""
    verified = claims.get("email_verified")
    return verified is True or str(verified).lower() == "true" or settings.OIDC_TRUST_EMAILS


class ConsoleOIDCBackend(OIDCAuthenticationBackend):
    def get_or_create_user(self, access_token: str, id_token: str, payload: dict[str, Any]) -> Any:  # noqa: ANN401
        """The library's flow, with the account found, joined or made in one transaction
        that one sign-in at a time runs: the same person's two tabs coming back at once
        would otherwise both make the account, and the second fail on its name. A
        refusal's reason is kept for the login page."""
        claims = self.get_userinfo(access_token, id_token, payload)
        try:
            if not self.verify_claims(claims):
                raise SuspiciousOperation("Claims verification failed")
            with transaction.atomic():
                transaction_lock("single sign-on accounts")
                user = self._account_for(claims)
        except Refused as refusal:
            self._keep_refusal(refusal.reason)
            raise
        if user is None:
            self._keep_refusal("no_account")
        return user

    def _account_for(self, claims: dict[str, Any]) -> Any:  # noqa: ANN401
        users = self.filter_users_by_claims(claims)
        if len(users) > 1:  # two accounts with this address: choosing one would be wrong
            raise SuspiciousOperation("Multiple users returned")
        if users:
            return self.update_user(users[0], claims)
        return self.create_user(claims) if self.get_settings("OIDC_CREATE_USER", True) else None

    def _keep_refusal(self, reason: str) -> None:
        if getattr(self, "request", None) is not None:
            self.request.session[REFUSAL_SESSION_KEY] = reason

    def get_userinfo(
        self, access_token: str, id_token: str, payload: dict[str, Any]
    ) -> dict[str, Any]:
        """OpenID Connect Core §5.3.2: the user info must be about the ID token's subject
        (the library takes it on trust)."""
        claims = super().get_userinfo(access_token, id_token, payload)
        if not payload.get("sub") or claims.get("sub") != payload["sub"]:
            raise SuspiciousOperation("The user info is about another subject than the ID token.")
        return claims

    def filter_users_by_claims(self, claims: dict[str, Any]) -> QuerySet[Any]:
        """The account bound to this subject; else, at its first single sign-on, the account
        with this verified e-mail that no other subject is bound to."""
        bound = self.UserModel.objects.filter(
            sso_identities__issuer=settings.OIDC_ISSUER, sso_identities__subject=claims["sub"]
        )
        if bound.exists():
            return bound
        by_email = super().filter_users_by_claims(claims)
        if by_email.exists() and not email_is_verified(claims):
            raise Refused("unverified_email", f"{claims['email']} is not verified")
        if by_email.filter(sso_identities__issuer=settings.OIDC_ISSUER).exists():
            raise Refused("other_identity", f"{claims['email']} is bound to another subject")
        return by_email

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
            raise Refused(
                "no_role", f"No console role for {settings.OIDC_ROLE_CLAIM} of {claims['email']}"
            )
        return True

    def create_user(self, claims: dict[str, Any]) -> Any:  # noqa: ANN401
        if not email_is_verified(claims):
            # The account would be named by it: on the Members page, in the audit trail.
            raise Refused("unverified_email", f"{claims['email']} is not verified")
        if self.UserModel.objects.filter(username__iexact=claims["email"]).exists():
            # A local account named by this address but holding another one.
            raise Refused("other_identity", f"the username {claims['email']} is taken")
        with transaction.atomic():
            user = self.UserModel.objects.create_user(
                username=claims["email"], email=claims["email"], is_staff=True
            )  # no usable password: this account signs in through the identity provider
            self._bind(user, claims)
            self._give_roles(user, claims)
            audit_record(
                "member.joined",
                target=f"account:{user.get_username()}",
                details={"by": "single sign-on", "roles": roles_from_claims(claims)},
            )
        return user

    def update_user(self, user: Any, claims: dict[str, Any]) -> Any:  # noqa: ANN401
        if not user.is_active:
            raise Refused("deactivated", "This account is deactivated.")
        with transaction.atomic():
            if not user.sso_identities.filter(issuer=settings.OIDC_ISSUER).exists():
                self._bind(user, claims)
                audit_record(
                    "member.sso_linked",
                    target=f"account:{user.get_username()}",
                    details={"issuer": settings.OIDC_ISSUER},
                    actor=Actor(user.get_username(), user.pk, client_ip(self.request)),
                )
            self._give_roles(user, claims)
            user.sso_identities.filter(issuer=settings.OIDC_ISSUER).update(
                signed_in_at=timezone.now()
            )
        return user

    def _bind(self, user: Any, claims: dict[str, Any]) -> None:  # noqa: ANN401
        SingleSignOnIdentity.objects.create(
            user=user,
            issuer=settings.OIDC_ISSUER,
            subject=claims["sub"],
            signed_in_at=timezone.now(),
        )

    def _give_roles(self, user: Any, claims: dict[str, Any]) -> None:  # noqa: ANN401
        """The identity provider's groups decide the roles, at every sign-in — except that
        they never leave the console without an owner: the last one stays one, audited,
        until the provider's groups make another (nobody could run the team otherwise)."""
        roles = roles_from_claims(claims)
        if "owner" not in roles and is_last_owner(user):
            audit_record(
                "member.kept_as_last_owner",
                target=f"account:{user.get_username()}",
                details={"roles": roles},
                actor=Actor(user.get_username(), user.pk, client_ip(self.request)),
            )
            roles = ["owner"]
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
            # Then the provider is asked again: someone it removed, deactivated or moved
            # to other groups loses the console within this time, not two weeks.
            hours = timedelta(hours=settings.OIDC_SESSION_HOURS)
            request.session.set_expiry(timezone.now() + hours)
        return user


def _when_enabled(view: Any) -> Any:  # noqa: ANN401
    def guarded(request: HttpRequest) -> HttpResponse:
        if not settings.OIDC_ENABLED:
            raise Http404
        return view(request)

    return guarded


sign_in = _when_enabled(OIDCAuthenticationRequestView.as_view())
callback = _when_enabled(OIDCAuthenticationCallbackView.as_view())
