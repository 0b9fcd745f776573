from __future__ import annotations

from datetime import timedelta

from axes.models import AccessAttempt
from celery import shared_task
from django.conf import settings
from django.contrib.sessions.models import Session
from django.utils import timezone

from accounts.audit import audit_purge
from accounts.members import invitations_purge

# An invitation's address is kept this long after it expired (time to see who was invited).
INVITATIONS_KEPT = timedelta(days=30)


@shared_task(name="accounts.tasks.audit_purge_task")
def audit_purge_task() -> dict[str, int]:
    """Celery beat, daily: audit entries past AUDIT_RETENTION_DAYS go, oldest first,
    invitations a month past their expiry, failed sign-ins past their lockout, and expired
    sessions."""
    return {
        "audit_entries": audit_purge(),
        "invitations": invitations_purge(older_than=INVITATIONS_KEPT),
        "failed_sign_ins": failed_sign_ins_purge(),
        "expired_sessions": expired_sessions_purge(),
    }


def expired_sessions_purge() -> int:
    """Django never deletes an expired session by itself (its ``clearsessions`` command
    does): each one kept who signed in, and when, for ever."""
    removed, _ = Session.objects.filter(expire_date__lt=timezone.now()).delete()
    return removed


def failed_sign_ins_purge() -> int:
    """django-axes keeps each failed sign-in's name as typed (a password typed in the name
    box too), address and browser; it clears them only at a later sign-in. Past the
    lockout they count for nothing: they go (the audit trail keeps failures, without a name
    no account has)."""
    expired = timezone.now() - settings.AXES_COOLOFF_TIME
    removed, _ = AccessAttempt.objects.filter(attempt_time__lte=expired).delete()
    return removed
