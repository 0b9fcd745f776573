from __future__ import annotations

from datetime import timedelta

from celery import shared_task

from accounts.audit import audit_purge
from accounts.members import invitations_purge

# An invitation's address is kept this long after it expired (time to see who was invited).
INVITATIONS_KEPT = timedelta(days=30)


@shared_task(name="accounts.tasks.audit_purge_task")
def audit_purge_task() -> dict[str, int]:
    """Celery beat, daily: audit entries past AUDIT_RETENTION_DAYS go, oldest first, and
    invitations a month past their expiry."""
    return {
        "audit_entries": audit_purge(),
        "invitations": invitations_purge(older_than=INVITATIONS_KEPT),
    }
