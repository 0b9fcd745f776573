"""The team: invitations (single-use links that expire, mailed when the deployment has
SMTP), members' roles, deactivation — and the rule that the last owner stays."""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q, QuerySet
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext, gettext_noop

from accounts.audit import Actor, audit_record, current_actor
from accounts.models import Invitation, SingleSignOnIdentity
from accounts.roles import ROLES, roles_ensure
from accounts.services import token_hash
from datastores.locks import transaction_lock
from web.exceptions import ApplicationError

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SentInvitation:
    invitation: Invitation
    url: str  # shown to the inviter once; only the token's hash is kept
    mailed: bool
    mail_error: str = ""


def invitation_create(*, email: str, role: str, base_url: str) -> SentInvitation:
    """Invite ``email`` as ``role``: a link that works once, for INVITATION_DAYS, and a mail
    with it when the deployment sends mail. An earlier pending link for the address stops."""
    email = _clean_email(email)
    if role not in ROLES:
        raise ApplicationError(
            gettext_noop("Unknown role %(role)s; use one of %(roles)s."),
            params={"role": role, "roles": ", ".join(ROLES)},
        )
    if _account_for(email) is not None:
        raise ApplicationError(
            gettext_noop("%(email)s already has an account: change its role in Members."),
            params={"email": email},
        )
    token = secrets.token_urlsafe(32)
    now = timezone.now()
    with transaction.atomic():
        transaction_lock("invitation", email.casefold())  # sent twice at once: one link works
        Invitation.objects.filter(email__iexact=email, accepted_at=None, revoked_at=None).update(
            revoked_at=now
        )
        invitation = Invitation.objects.create(
            email=email,
            role=role,
            token_hash=token_hash(token),
            invited_by=current_actor().name[:150],
            expires_at=now + timedelta(days=settings.INVITATION_DAYS),
        )
        audit_record("member.invited", target=f"account:{email}", details={"role": role})
    url = base_url.rstrip("/") + reverse("invitation-accept", args=[token])
    mailed, error = _mail_invitation(invitation, url)
    return SentInvitation(invitation, url, mailed, error)


def _clean_email(email: str) -> str:
    email = email.strip()
    try:
        validate_email(email)
    except ValidationError:
        raise ApplicationError(
            gettext_noop("%(email)s is not an e-mail address."), params={"email": email[:100]}
        ) from None
    return email


def _account_for(email: str) -> Any:  # noqa: ANN401 - a user model instance
    users = get_user_model().objects
    return users.filter(Q(email__iexact=email) | Q(username__iexact=email)).first()


def _mail_invitation(invitation: Invitation, url: str) -> tuple[bool, str]:
    """Sent in the inviter's language; a failure is told to the inviter, who still has the
    link to pass on."""
    if not settings.MAIL_ENABLED:
        return False, ""
    context = {"url": url, "invitation": invitation, "days": settings.INVITATION_DAYS}
    try:
        send_mail(
            subject=gettext("You are invited to Portality Brain"),
            message=render_to_string("accounts/invitation_email.txt", context),
            from_email=None,
            recipient_list=[invitation.email],
        )
    except (OSError, ValueError) as exc:  # smtplib's errors are OSErrors
        logger.warning("The invitation mail to %s failed: %s", invitation.email, exc)
        return False, str(exc)[:200]
    return True, ""


def invitation_for_token(token: str) -> Invitation | None:
    return Invitation.objects.filter(token_hash=token_hash(token)).first()


def invitation_accept(*, token: str, password: str, address: str | None) -> Any:  # noqa: ANN401
    """The invited colleague's account, with the invitation's role; the link is used up.
    The password was checked by the form (Django's validators)."""
    with transaction.atomic():
        invitation = (
            Invitation.objects.select_for_update().filter(token_hash=token_hash(token)).first()
        )
        if invitation is None or not invitation.is_usable(timezone.now()):
            raise ApplicationError(
                gettext_noop(
                    "This invitation link has expired or was already used. Ask an owner "
                    "for a new one."
                ),
                status=410,
            )
        if _account_for(invitation.email) is not None:
            raise ApplicationError(
                gettext_noop("%(email)s already has an account: sign in instead."),
                params={"email": invitation.email},
                status=409,
            )
        roles_ensure()
        user = get_user_model().objects.create_user(
            username=invitation.email, email=invitation.email, password=password, is_staff=True
        )
        user.groups.add(Group.objects.get(name=invitation.role))
        invitation.accepted_at = timezone.now()
        invitation.save(update_fields=["accepted_at"])
        audit_record(
            "member.joined",
            target=f"account:{user.get_username()}",
            details={"role": invitation.role, "invited_by": invitation.invited_by},
            actor=Actor(user.get_username(), user.pk, address),
        )
    return user


def invitation_revoke(*, invitation: Invitation) -> None:
    with transaction.atomic():
        updated = Invitation.objects.filter(
            pk=invitation.pk, accepted_at=None, revoked_at=None
        ).update(revoked_at=timezone.now())
        if updated:
            audit_record("member.invitation_revoked", target=f"account:{invitation.email}")


def invitations_purge(*, older_than: timedelta) -> int:
    """Invitations (a colleague's address) go once used, revoked or expired this long ago:
    the audit trail keeps that they were sent, for its own retention."""
    cutoff = timezone.now() - older_than
    removed, _ = Invitation.objects.filter(created_at__lt=cutoff, expires_at__lt=cutoff).delete()
    return removed


# -- members --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PasswordLink:
    username: str
    url: str  # shown to the owner once; it stops working once used, or after the reset hours
    mailed: bool
    mail_error: str = ""


def member_password_link(*, user: Any, base_url: str) -> PasswordLink:  # noqa: ANN401
    """A member who forgot their password gets a link to choose a new one from an owner:
    Django's reset link (once, for PASSWORD_RESET_HOURS), mailed too when the deployment
    sends mail and the account has an address. Their two-factor sign-in stays."""
    username = user.get_username()
    if not user.has_usable_password():
        raise ApplicationError(
            gettext_noop(
                "%(username)s signs in with single sign-on: their password is at the provider."
            ),
            params={"username": username},
        )
    if not user.is_active:
        raise ApplicationError(
            gettext_noop("%(username)s is deactivated: reactivate them first."),
            params={"username": username},
        )
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    url = base_url.rstrip("/") + reverse("password_reset_confirm", args=[uid, token])
    mailed, error = _mail_password_link(user, url)
    audit_record("member.password_link", target=f"account:{username}", details={"mailed": mailed})
    return PasswordLink(username, url, mailed, error)


def _mail_password_link(user: Any, url: str) -> tuple[bool, str]:  # noqa: ANN401
    address = user.email or (user.get_username() if "@" in user.get_username() else "")
    if not settings.MAIL_ENABLED or not address:
        return False, ""
    context = {
        "url": url,
        "by": current_actor().name,
        "username": user.get_username(),
        "hours": settings.PASSWORD_RESET_TIMEOUT // 3600,
    }
    try:
        send_mail(
            subject=gettext("A new password for Portality Brain"),
            message=render_to_string("accounts/password_link_email.txt", context),
            from_email=None,
            recipient_list=[address],
        )
    except (OSError, ValueError) as exc:  # smtplib's errors are OSErrors
        logger.warning("The password link mail to %s failed: %s", address, exc)
        return False, str(exc)[:200]
    return True, ""


def active_owners() -> QuerySet[Any]:
    return (
        get_user_model()
        .objects.filter(is_active=True, is_staff=True)
        .filter(Q(is_superuser=True) | Q(groups__name="owner"))
        .distinct()
    )


def is_last_owner(user: Any) -> bool:  # noqa: ANN401
    """Whether nobody but ``user`` could run the team. Inside the transaction of a change
    of owners, which holds the owners' lock until it ends: two owners demoting each other at
    once would otherwise each see the other still there."""
    transaction_lock("owners")
    owners = active_owners()
    return owners.filter(pk=user.pk).exists() and not owners.exclude(pk=user.pk).exists()


def _keeps_an_owner(user: Any) -> None:  # noqa: ANN401
    """Refuse a change that would leave nobody able to run the team."""
    if is_last_owner(user):
        raise ApplicationError(
            gettext_noop("%(username)s is the last owner: make someone else an owner first."),
            params={"username": user.get_username()},
        )


def role_follows_provider(user: Any) -> bool:  # noqa: ANN401
    """Single sign-on sets this member's role at each sign-in (OIDC_ROLE_MAP): a role set
    here would be undone at their next one."""
    return settings.OIDC_ENABLED and user.sso_identities.exists()


def member_set_role(*, user: Any, role: str) -> None:  # noqa: ANN401
    """``user`` holds exactly ``role`` from now on (a superuser who is given another role
    stops being one: a superuser is an owner)."""
    if role not in ROLES:
        raise ApplicationError(
            gettext_noop("Unknown role %(role)s; use one of %(roles)s."),
            params={"role": role, "roles": ", ".join(ROLES)},
        )
    if role_follows_provider(user):
        raise ApplicationError(
            gettext_noop(
                "%(username)s signs in with single sign-on: their role comes from their "
                "groups at the identity provider, at every sign-in. Change their groups there."
            ),
            params={"username": user.get_username()},
        )
    roles_ensure()
    with transaction.atomic():
        if role != "owner":
            _keeps_an_owner(user)
        before = sorted(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
        if user.is_superuser:
            before = ["owner"]
        user.groups.remove(*user.groups.filter(name__in=ROLES))
        user.groups.add(Group.objects.get(name=role))
        user.is_superuser = user.is_superuser and role == "owner"
        user.is_staff = True
        user.save(update_fields=["is_superuser", "is_staff"])
        audit_record(
            "member.role_changed",
            target=f"account:{user.get_username()}",
            details={"from": before, "to": role},
        )


def member_set_active(*, user: Any, active: bool) -> None:  # noqa: ANN401
    """A deactivated member can no longer sign in, and their sessions and API tokens stop
    working at their next request; reactivating gives it all back."""
    with transaction.atomic():
        if not active:
            _keeps_an_owner(user)
            if current_actor().user_id == user.pk:  # it would end the session doing it
                raise ApplicationError(
                    gettext_noop("You cannot deactivate your own account: ask another owner.")
                )
        get_user_model().objects.filter(pk=user.pk).update(is_active=active)
        audit_record(
            "member.reactivated" if active else "member.deactivated",
            target=f"account:{user.get_username()}",
        )
    user.is_active = active


def member_sso_unlink(*, user: Any) -> None:  # noqa: ANN401
    """The member's identity at the provider is no longer theirs (their account there was
    made again): their next single sign-on joins them anew, by a verified e-mail."""
    with transaction.atomic():
        removed, _ = SingleSignOnIdentity.objects.filter(user=user).delete()
        if removed:
            audit_record("member.sso_unlinked", target=f"account:{user.get_username()}")
