"""Account writes: personal API tokens (created, revoked)."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.audit import audit_record
from accounts.models import PersonalToken
from accounts.roles import ROLES, user_roles
from web.exceptions import ApplicationError

TOKEN_PREFIX = "pbt_"
TOKEN_PREFIX_LENGTH = 12  # "pbt_" + 8 characters: listed, indexed for lookup
MAX_TOKEN_DAYS = 366


def token_hash(key: str) -> str:
    # 256-bit random tokens: a fast hash is enough (no dictionary to attack).
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class CreatedToken:
    token: PersonalToken
    key: str  # shown once; only its hash is stored


def token_create(*, user: Any, name: str, expires_at: datetime, role: str = "") -> CreatedToken:
    """A personal token for ``user`` (the account a request authenticated, possibly itself
    through a limited token): never more than what that account may do now."""
    name = name.strip()
    if not name or len(name) > 80:
        raise ApplicationError(gettext_noop("Give the token a name of 1 to 80 characters."))
    now = timezone.now()
    if not now < expires_at <= now + timedelta(days=MAX_TOKEN_DAYS):
        raise ApplicationError(
            gettext_noop("A token expires in the future, at most %(days)s days from now."),
            params={"days": MAX_TOKEN_DAYS},
        )
    role = role or _inherited_role(user)
    _check_role(user, role)
    key = TOKEN_PREFIX + secrets.token_urlsafe(32)
    account = getattr(user, "account", user)  # a token's user is a limited copy
    with transaction.atomic():
        token = PersonalToken.objects.create(
            user_id=account.pk,
            name=name,
            role=role,
            prefix=key[:TOKEN_PREFIX_LENGTH],
            key_hash=token_hash(key),
            expires_at=expires_at,
        )
        audit_record(
            "token.created",
            target=f"token:{token.pk}",
            details={"name": name, "role": role or "all", "expires_at": expires_at.isoformat()},
        )
    return CreatedToken(token, key)


def _inherited_role(user: object) -> str:
    """A token made with a limited token is limited the same way."""
    scope = getattr(user, "token_scope", None)
    return scope.role if scope is not None else ""


def _check_role(user: object, role: str) -> None:
    if not role:
        return
    if role not in ROLES:
        raise ApplicationError(
            gettext_noop("Unknown role %(role)s; use one of %(roles)s."),
            params={"role": role, "roles": ", ".join(ROLES)},
        )
    if not all(user.has_perm(permission) for permission in ROLES[role]):  # type: ignore[attr-defined]
        raise ApplicationError(
            gettext_noop("A token may not do more than you: you do not hold the role %(role)s."),
            params={"role": role},
            status=403,
        )


def token_revoke(*, token: PersonalToken) -> None:
    with transaction.atomic():
        updated = PersonalToken.objects.filter(pk=token.pk, revoked_at=None).update(
            revoked_at=timezone.now()
        )
        if updated:
            audit_record("token.revoked", target=f"token:{token.pk}", details={"name": token.name})


def token_roles_for(user: object) -> list[str]:
    """The roles a member may give a token: those they hold (an owner holds them all)."""
    held = user_roles(user)
    return list(ROLES) if "owner" in held else held
