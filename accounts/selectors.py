"""Account reads: a member's tokens, the team's members and pending invitations."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Max, QuerySet
from django.utils import timezone
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.models import AuditEntry, Invitation, PersonalToken, SingleSignOnIdentity
from accounts.roles import ROLES


def audit_recorded_since(*, action: str, target: str, since: datetime, **details: str) -> bool:
    """Whether the trail holds ``action`` on ``target`` (with these details) from ``since``."""
    entries = AuditEntry.objects.filter(action=action, target=target, at__gte=since)
    return entries.filter(**{f"details__{name}": value for name, value in details.items()}).exists()


def single_sign_on_lapsed(user: Any) -> bool:  # noqa: ANN401 - a user model instance
    """Whether this member, joined to single sign-on, has not signed in through it for
    OIDC_TOKEN_SIGN_IN_DAYS: the provider never says when someone leaves, so their API
    tokens stop here, within that time, instead of at their expiry a year on."""
    since = _token_lapse_since()
    if since is None:
        return False
    joined, last = _single_sign_on_of(user)
    return joined and (last is None or last < since)


def _token_lapse_since() -> datetime | None:
    """A joined member's tokens need a single sign-on since then (None: no such rule)."""
    if not (settings.OIDC_ENABLED and settings.OIDC_TOKEN_SIGN_IN_DAYS):
        return None
    return timezone.now() - timedelta(days=settings.OIDC_TOKEN_SIGN_IN_DAYS)


def single_sign_on_token_rule(user: Any) -> dict[str, Any] | None:  # noqa: ANN401
    """What the API tokens page says of the rule above, for a member it concerns."""
    if not (settings.OIDC_ENABLED and settings.OIDC_TOKEN_SIGN_IN_DAYS):
        return None
    joined, last = _single_sign_on_of(getattr(user, "account", user))
    return {"days": settings.OIDC_TOKEN_SIGN_IN_DAYS, "last": last} if joined else None


def _single_sign_on_of(user: Any) -> tuple[bool, datetime | None]:  # noqa: ANN401
    """Whether ``user`` is joined to single sign-on, and when they last signed in there."""
    found = SingleSignOnIdentity.objects.filter(user_id=user.pk).aggregate(
        joined=Count("pk"), last=Max("signed_in_at")
    )
    return bool(found["joined"]), found["last"]


def tokens_of(user: Any) -> QuerySet[PersonalToken]:  # noqa: ANN401 - a user model instance
    account = getattr(user, "account", user)  # a token's user is a limited copy
    return PersonalToken.objects.filter(user_id=account.pk).order_by("revoked_at", "-created_at")


@dataclass(frozen=True)
class MemberRow:
    user: Any
    role: str  # the one role the console shows ("" when none yet)
    two_factor: bool
    single_sign_on: bool = False  # joined to a person at the identity provider
    last_owner: bool = False  # nobody else could run the team: neither demoted nor deactivated
    tokens_lapsed: bool = False  # joined, and no single sign-on for OIDC_TOKEN_SIGN_IN_DAYS


def member_rows() -> list[MemberRow]:
    """Every console account with its role (a superuser is an owner), owners first."""
    users = (
        get_user_model()
        .objects.filter(is_staff=True)
        .prefetch_related("groups")
        .order_by("-is_active", "username")
    )
    with_two_factor = set(
        TOTPDevice.objects.filter(confirmed=True).values_list("user_id", flat=True)
    )
    last_sso = dict(
        SingleSignOnIdentity.objects.values("user_id")
        .annotate(last=Max("signed_in_at"))
        .values_list("user_id", "last")
    )
    since = _token_lapse_since()
    rows = []
    for user in users:
        names = [group.name for group in user.groups.all() if group.name in ROLES]
        role = "owner" if user.is_superuser else (names[0] if names else "")
        joined, last = user.pk in last_sso, last_sso.get(user.pk)
        lapsed = joined and since is not None and (last is None or last < since)
        rows.append(MemberRow(user, role, user.pk in with_two_factor, joined, tokens_lapsed=lapsed))
    owners = [row for row in rows if row.role == "owner" and row.user.is_active]
    if len(owners) == 1:
        rows[rows.index(owners[0])] = replace(owners[0], last_owner=True)
    order = list(ROLES)
    return sorted(
        rows, key=lambda row: (not row.user.is_active, order.index(row.role) if row.role else 9)
    )


def pending_invitations() -> QuerySet[Invitation]:
    return Invitation.objects.filter(
        accepted_at=None, revoked_at=None, expires_at__gt=timezone.now()
    ).order_by("-created_at")


@dataclass(frozen=True)
class AuditFilters:
    actor: str = ""
    action: str = ""
    target: str = ""
    since: date | None = None
    until: date | None = None


AUDIT_COLUMNS = ["id", "at", "actor", "address", "action", "target", "details", "digest"]


def audit_entries(filters: AuditFilters) -> QuerySet[AuditEntry]:
    entries = AuditEntry.objects.order_by("-id")
    if filters.actor:
        entries = entries.filter(actor__icontains=filters.actor)
    if filters.action:
        entries = entries.filter(action__startswith=filters.action)
    if filters.target:
        entries = entries.filter(target__icontains=filters.target)
    if filters.since:
        entries = entries.filter(at__date__gte=filters.since)
    if filters.until:
        entries = entries.filter(at__date__lte=filters.until)
    return entries


def audit_row(entry: AuditEntry) -> dict[str, Any]:
    return {
        "id": entry.pk,
        "at": entry.at.isoformat(),
        "actor": entry.actor,
        "address": entry.address or "",
        "action": entry.action,
        "target": entry.target,
        "details": json.dumps(entry.details, ensure_ascii=False, sort_keys=True),
        "digest": entry.digest,
    }


def audit_actions() -> list[str]:
    return list(AuditEntry.objects.order_by("action").values_list("action", flat=True).distinct())
