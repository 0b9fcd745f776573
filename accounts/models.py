"""Who may do what, and what they did: the audit trail, personal API tokens and invitations.

Roles themselves are Django's groups and permissions (roles.py); this app also receives
post_migrate (apps.py), which brings the roles up to date."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models


class AuditEntry(models.Model):
    """One admin action: who, what, when, from where. Append-only: the database refuses
    UPDATE and DELETE (migration 0001's trigger), and each entry's ``digest`` covers its
    fields and the previous entry's digest, so an edit or a removed entry shows
    (``manage.py audit_verify``). No foreign keys: removing an account or a license never
    touches the trail."""

    at = models.DateTimeField(db_index=True)
    actor = models.CharField(max_length=200)  # "alice", "token:ci-deploy (alice)", "command …"
    actor_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    address = models.GenericIPAddressField(null=True, blank=True)
    action = models.CharField(max_length=64, db_index=True)
    target = models.CharField(max_length=200, blank=True)
    details = models.JSONField(default=dict, blank=True)
    previous_digest = models.CharField(max_length=64)
    digest = models.CharField(max_length=64, unique=True)

    class Meta:
        ordering = ["-id"]
        permissions = [("view_audit", "Can read the audit trail")]
        default_permissions = ()

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor} {self.action} {self.target}"


class PersonalToken(models.Model):
    """A console member's token for the admin API (``pbt_…``): stored as a hash, expiring,
    revocable, and limited to ``role`` (one the creator holds; blank: whatever the member
    may do, as the member's roles change)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="personal_tokens"
    )
    name = models.CharField(max_length=80)
    role = models.CharField(max_length=32, blank=True)
    prefix = models.CharField(max_length=16, unique=True)
    key_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class Invitation(models.Model):
    """A single-use link that lets a colleague set a password and join with a role."""

    email = models.EmailField()
    role = models.CharField(max_length=32)
    token_hash = models.CharField(max_length=64, unique=True)
    invited_by = models.CharField(max_length=150)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        permissions = [("manage_members", "Can invite members and change their roles")]

    def __str__(self) -> str:
        return f"{self.email} ({self.role})"

    def is_usable(self, now: datetime) -> bool:
        return self.accepted_at is None and self.revoked_at is None and now < self.expires_at


class AuditRetention(models.Model):
    """How long the audit trail keeps entries, as set on its page (one row); without it,
    AUDIT_RETENTION_DAYS."""

    days = models.PositiveIntegerField()
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.days} days"


class SingleSignOnIdentity(models.Model):
    """Who an account is at the identity provider: its issuer and subject, the only pair
    OpenID Connect makes stable (Core §5.7). An e-mail address is not: it can be
    unverified, or given to someone else. An account found by its e-mail at its first
    single sign-on is bound here, and from then on only this subject signs in as it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sso_identities"
    )
    issuer = models.CharField(max_length=255)
    subject = models.CharField(max_length=255)
    linked_at = models.DateTimeField(auto_now_add=True)
    # The last sign-in through the provider: the member's API tokens lapse when it is older
    # than OIDC_TOKEN_SIGN_IN_DAYS, as the provider never says when someone leaves.
    signed_in_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="sso_identity_unique"),
            models.UniqueConstraint(fields=["user", "issuer"], name="sso_identity_one_per_issuer"),
        ]

    def __str__(self) -> str:
        return f"{self.subject} at {self.issuer}"
